"""``/rules``: an edition's rules in short, every action card of its deck, the buttons the
bot shows and the icons on its board, in the reader's language.

Card, role and button names come from the catalogs (the rulebooks' own terms), and the
cards listed are those of the edition's deck, so a card is never left out.

>>> messages = rules_messages("saboteur2", Texts("es"))
>>> all(fit(m, TEXT_LIMIT) == m for m in messages), "manos fuera" in "".join(messages)
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from domain.cards import VARIANT_EDITIONS, VARIANTS, Edition, deck
from domain.decide.lobby import computer_name
from tgbot.presenter.caption import runs
from tgbot.presenter.icons import legend
from tgbot.presenter.keyboards import placement_label
from tgbot.presenter.telegram_html import TEXT_LIMIT, fit
from tgbot.presenter.texts import Texts

EDITION_NAMES: Final[dict[str, Edition]] = {
    "base": "base",
    "saboteur": "base",
    "1": "base",
    "saboteur2": "saboteur2",
    "2": "saboteur2",
}


def edition_named(words: Iterable[str]) -> Edition | None:
    """The edition a ``/rules`` argument names (``base``, ``saboteur2``, ``2`` …).

    >>> edition_named(["Saboteur", "2"]), edition_named(["base"]), edition_named(["chess"])
    ('saboteur2', 'base', None)
    """
    return EDITION_NAMES.get("".join(words).lower())


def action_kinds(edition: Edition) -> list[str]:
    """The action card kinds of the edition's deck, in deck order."""
    return list(dict.fromkeys(c.action.value for c in deck(edition) if c.action is not None))


def card_group(kind: str) -> str:
    """Cards explained together: the three broken tools, the six repairs.

    >>> card_group("broken_cart"), card_group("repair_pickaxe_cart"), card_group("map")
    ('broken', 'repair', 'map')
    """
    return kind.split("_", 1)[0] if kind.startswith(("broken_", "repair_")) else kind


def cards_section(edition: Edition, texts: Texts) -> str:
    groups: dict[str, list[str]] = {}
    for kind in action_kinds(edition):
        groups.setdefault(card_group(kind), []).append(texts.front_name(kind))
    lines = [texts.t("rules.cards_title")]
    for group, names in groups.items():
        lines.append("• " + texts.t(f"rules.card.{group}", names=" / ".join(names)))
    return "\n".join(lines)


def buttons_section(edition: Edition, texts: Texts) -> str:
    lines = [
        texts.t("rules.buttons_title"),
        "• "
        + texts.t(
            "rules.button_lobby",
            join=texts.t("lobby.button_join"),
            leave=texts.t("lobby.button_leave"),
            start=texts.t("lobby.button_start"),
            settings=texts.t("lobby.button_settings"),
            cancel=texts.t("lobby.button_cancel"),
        ),
        "• "
        + texts.t(
            "rules.button_levels",
            settings=texts.t("lobby.button_settings"),
            easy=texts.t("settings.button_level_easy"),
            normal=texts.t("settings.button_level_normal"),
            hard=texts.t("settings.button_level_hard"),
            example=f"{computer_name('Greta')} · {texts.t('level.hard')}",
        ),
        "• "
        + texts.t(
            "rules.button_cards",
            example=placement_label("A", "t_nse", False),
            turned=placement_label("A", "t_nse", True),
        ),
        "• "
        + texts.t(
            "rules.button_target",
            goals=", ".join(
                texts.t(k) for k in ("bot.goal_top", "bot.goal_middle", "bot.goal_bottom")
            ),
        ),
    ]
    if edition == "base":
        lines.append("• " + texts.t("rules.button_pass_base", button=texts.t("turn.button_pass")))
        example = texts.t("turn.gold_pick_button", count=3)
        lines.append("• " + texts.t("rules.button_gold", example=example))
    else:
        confirm = texts.t("turn.button_confirm")
        lines.append(
            "• "
            + texts.t(
                "rules.button_pass_saboteur2", button=texts.t("turn.button_pass"), confirm=confirm
            )
        )
        remove = texts.t("turn.button_discard_remove")
        lines.append("• " + texts.t("rules.button_remove", button=remove, confirm=confirm))
        lines.append("• " + texts.t("rules.button_theft"))
    lines.append(
        "• "
        + texts.t(
            "rules.button_back",
            back=texts.t("turn.button_back"),
            come_back=texts.t("bot.button_come_back"),
        )
    )
    lines.append("• " + texts.t("rules.button_hand_seat", button=texts.t("board.button_hand_seat")))
    lines.append(
        "• "
        + texts.t(
            "rules.button_after",
            replay=texts.t("bot.button_replay"),
            again=texts.t("again.button_play"),
            notify=texts.t("notify.button"),
        )
    )
    return "\n".join(lines)


def variants_section(texts: Texts) -> str:
    """The base game's variants, switched on in the lobby's settings (docs/rules.md §8)."""
    lines = [texts.t("rules.variants_title")]
    lines.extend("• " + texts.t(f"rules.variant.{v}") for v in VARIANTS)
    return "\n".join(lines)


def icons_section(edition: Edition, texts: Texts) -> str:
    """The one legend of the icons (as in /help and behind the prompt's "?")."""
    return legend(texts, edition)


def rules_messages(edition: Edition, texts: Texts, footer: str = "") -> list[str]:
    """The edition's rules as messages within Telegram's limit: the rules in short, its
    action cards, the buttons, the icons (and ``footer``)."""
    sections = [
        texts.t(f"rules.{edition}"),
        cards_section(edition, texts),
        buttons_section(edition, texts),
        *([variants_section(texts)] if edition in VARIANT_EDITIONS else []),
        icons_section(edition, texts),
    ]
    if footer:
        sections.append(footer)
    return pack(sections)


def pack(sections: Iterable[str], limit: int = TEXT_LIMIT) -> list[str]:
    """Sections joined by blank lines into as few messages as fit ``limit`` each.

    >>> pack(["a" * 3, "b" * 3, "c" * 3], limit=8)
    ['aaa\\n\\nbbb', 'ccc']
    """
    return [fit("\n\n".join(run), limit) for run in runs(sections, limit, "\n\n")]
