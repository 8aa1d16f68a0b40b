"""/rules per edition: the rules in short, every action card, the buttons and the icons, in
the rulebooks' own terms in every language."""

from __future__ import annotations

import pytest

from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import game_running, running_bot, seat, settle
from tgbot.presenter.i18n import LANGUAGES
from tgbot.presenter.telegram_html import TEXT_LIMIT, length
from tgbot.presenter.texts import Texts

GROUP = -11019
ME = 191

pytestmark = pytest.mark.timeout(120)

# The rulebooks' names (docs/rules.md §9; the Polish rulebook's where it has one).
SABOTEUR2_CARDS = {
    "en": ("theft", "hands off", "swap hand", "inspection", "swap hats", "trapped", "free at last"),
    "es": (
        *("ladrón", "manos fuera", "cambiar manos", "inspección", "cambiar sombreros"),
        *("atrapado", "libertad"),
    ),
    "pl": (
        *("kradzież", "łapy precz!", "wymiana kart na ręce", "inspekcja", "zamiana czapek"),
        *("pułapka", "wolność"),
    ),
    "de": (
        *("Diebstahl", "Hände weg", "Handtausch", "Inspektion", "Hutwechsel"),
        *("gefangen", "endlich frei"),
    ),
}
BASE_CARDS = {
    "en": ("broken pickaxe", "repair cart or lantern", "rockfall", "map"),
    "es": ("pico roto", "reparar carrito o linterna", "desprendimiento de rocas", "mapa"),
    "pl": ("zepsuty kilof", "naprawa wózka lub lampy", "zawał", "mapa"),
    "de": ("kaputte Spitzhacke", "Lore oder Lampe reparieren", "Steinschlag", "Schatzkarte"),
}
BUTTONS = (
    "lobby.button_join",
    "lobby.button_start",
    "lobby.button_settings",
    "turn.button_pass",
    "turn.button_back",
    "bot.button_come_back",
    "bot.button_replay",
)
SABOTEUR2_BUTTONS = ("turn.button_discard_remove", "turn.button_confirm")


async def rules_read(api: FakeBotAPI, app: object, chat: int, text: str) -> list[str]:
    """What the bot answers ``text`` sent in ``chat`` by ME."""
    before = len(api.messages_in(chat))
    api.send_text(chat, ME, text)
    await settle(api, app)  # type: ignore[arg-type]
    return [m["text"] for m in api.messages_in(chat)[before:]]


def explained(messages: list[str], name: str) -> bool:
    """Whether a line begins with ``name`` and goes on to explain it."""
    lines = [line for message in messages for line in message.splitlines()]
    return any(
        line.startswith("• ") and name in line and len(line) > len(name) + 30 for line in lines
    )


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_rules_per_edition_explain_every_action_card_button_and_icon_in_every_language(
    db: str, lang: str
) -> None:
    texts = Texts(lang)
    async with FakeBotAPI() as api:
        seat(api, GROUP, [ME], lang=lang)
        async with running_bot(api, db) as app:
            await settle(api, app)
            expansion = await rules_read(api, app, ME, "/rules saboteur2")
            base = await rules_read(api, app, ME, "/rules base")

    assert all(length(message) <= TEXT_LIMIT for message in expansion + base)
    for name in SABOTEUR2_CARDS[lang] + BASE_CARDS[lang]:
        assert explained(expansion, name), name
    for name in BASE_CARDS[lang]:
        assert explained(base, name), name
    assert not any(explained(base, name) for name in SABOTEUR2_CARDS[lang])

    for key in BUTTONS:
        assert texts.t(key) in "".join(expansion) and texts.t(key) in "".join(base), key
    for key in SABOTEUR2_BUTTONS:
        assert texts.t(key) in "".join(expansion), key
    assert "A ├" in "".join(base) and "A ┤ ↻" in "".join(base)  # a placement, and turned
    # The settings' computer levels: for all of them, and each one's own button.
    assert texts.t("settings.button_level_hard") in "".join(base)
    assert explained(base, f"🤖 Greta · {texts.t('level.hard')}")

    for icon in ("⛏✖", "🔦✖", "🛒✖", "🃏", "💤", "⏳"):
        assert icon in "".join(base) and icon in "".join(expansion), icon
    for icon in ("⛓", "🦹"):  # trapped and theft lie in front of players in Saboteur 2 only
        assert icon in "".join(expansion) and icon not in "".join(base), icon


async def test_rules_without_an_edition_explain_the_game_being_played_here(db: str) -> None:
    players = [ME, ME + 1]
    async with FakeBotAPI() as api:
        async with game_running(api, db, GROUP, players, "saboteur2") as (app, _):
            answer = await rules_read(api, app, GROUP, "/rules")
            assert answer[0].startswith("⛏ Saboteur 2")
            assert explained(answer, "hands off")
            assert answer[-1].endswith("The other edition: /rules base. All commands: /help.")
        async with running_bot(api, db) as app:
            api.send_text(GROUP, ME, "/cancel")
            await settle(api, app)
            unknown = await rules_read(api, app, ME, "/rules chess")
            assert unknown == ["Send /rules base for Saboteur or /rules saboteur2 for Saboteur 2."]
