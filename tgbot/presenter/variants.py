"""How the base game's variants (docs/rules.md §8) are named: in the lobby, on the board's
caption and at the game's end, one line."""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards import BASE_DWARVES, PLAYER_LIMITS
from tgbot.presenter.icons import Icon
from tgbot.presenter.texts import Texts


def variant_names(variants: Sequence[str], texts: Texts, players: int | None = None) -> str:
    """The variants by name, in the order stored; with ``players``, *maximum saboteurs*
    says how many saboteurs are dealt at that table (the smallest table's while fewer sit).

    >>> variant_names(("maximum_saboteurs", "greedy_dwarf"), Texts("en"), players=4)
    'maximum saboteurs (1 saboteur among 4 players), greedy dwarf'
    """
    names = []
    for variant in variants:
        if variant == "maximum_saboteurs" and players is not None:
            low, high = PLAYER_LIMITS["base"]
            seats = min(max(players, low), high)
            count = BASE_DWARVES[seats][0]
            names.append(texts.t("variant.maximum_saboteurs_count", n=count, total=seats))
        else:
            names.append(texts.t(f"variant.{variant}"))
    return ", ".join(names)


def variants_line(variants: Sequence[str], texts: Texts, players: int | None = None) -> str:
    """The one line naming the variants played ("" when none).

    >>> variants_line(("selfish_dwarf",), Texts("de"))
    '🎲 Varianten: egoistischer Goldsucher'
    >>> variants_line((), Texts("en"))
    ''
    """
    if not variants:
        return ""
    named = variant_names(variants, texts, players)
    return f"{Icon.VARIANTS.emoji} {texts.t('lobby.variants', variants=named)}"
