"""One set of icons, each with one meaning, explained in one legend (``/help`` and the
prompt's "?" button).

Messages never spell an icon themselves: a narrated line is a :class:`Line` (an icon and
its text), and the icons of cards lying in front of a player come from :data:`FRONT`.
Pictures that cannot show emoji (the GIF replay) draw each icon's own badge instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from tgbot.presenter.texts import Texts


class Icon(Enum):
    """Each value: the emoji shown in messages, the badge a picture draws (a colour and a
    symbol the bundled font has), and the legend's key."""

    GOLD = ("💰", (240, 190, 40), "●")
    TREASURE = ("🌟", (250, 210, 60), "★")
    STONE = ("🪨", (150, 150, 156), "●")
    GOAL = ("❓", (90, 100, 170), "?")
    BROKEN_PICKAXE = ("⛏✖", (200, 60, 50), "✖")
    BROKEN_LANTERN = ("🔦✖", (200, 60, 50), "✖")
    BROKEN_CART = ("🛒✖", (200, 60, 50), "✖")
    REPAIR = ("🔧", (60, 160, 80), "✔")
    ROCKFALL = ("💥", (200, 110, 40), "✖")
    MAP = ("🗺", (70, 130, 200), "?")
    THEFT = ("🦹", (150, 60, 160), "◆")
    HANDS_OFF = ("🛡", (60, 160, 80), "✔")
    SWAP_HAND = ("🔄", (70, 130, 200), "⟳")
    INSPECTION = ("🔎", (70, 130, 200), "?")
    SWAP_HATS = ("🎩", (70, 130, 200), "⟳")
    TRAPPED = ("⛓", (120, 120, 130), "✖")
    FREE = ("🗝", (60, 160, 80), "✔")
    PASS = ("🂠", (110, 110, 110), "·")
    REMOVE = ("🗑", (110, 110, 110), "✔")
    TIMEOUT = ("⏰", (200, 110, 40), "!")
    DEADLINE = ("⏳", (200, 110, 40), "!")
    AWAY = ("💤", (110, 110, 110), "·")
    BACK = ("👋", (60, 160, 80), "✔")
    COMPUTER = ("🤖", (90, 100, 170), "C")
    TURN = ("👉", (60, 160, 80), "▶")
    ROUND = ("🆕", (116, 80, 52), "▶")
    ROUND_END = ("🏁", (60, 60, 60), "■")
    WINNERS = ("🏆", (240, 190, 40), "★")
    DWARF = ("🎭", (116, 80, 52), "☺")
    CARDS = ("🃏", (90, 100, 170), "■")
    CANCELLED = ("✖", (200, 60, 50), "✖")
    UNPLAYABLE = ("🚫", (200, 60, 50), "✖")
    LADDER = ("🪜", (232, 162, 60), "H")
    BLUE_DOOR = ("🔵", (40, 116, 236), "●")
    GREEN_DOOR = ("🟢", (36, 176, 72), "●")
    CRYSTAL = ("💎", (120, 236, 252), "◆")
    RATING = ("📈", (60, 160, 80), "▶")
    ACHIEVEMENT = ("🏅", (240, 190, 40), "★")
    LOG = ("📜", (116, 80, 52), "■")  # the round's moves, on the board's button
    VARIANTS = ("🎲", (116, 80, 52), "V")  # the base game's variants played (lobby settings)

    @property
    def emoji(self) -> str:
        return self.value[0]

    @property
    def colour(self) -> tuple[int, int, int]:
        return self.value[1]

    @property
    def symbol(self) -> str:
        return self.value[2]

    @property
    def key(self) -> str:
        return f"legend.{self.name.lower()}"


@dataclass(frozen=True, slots=True)
class Line:
    """A narrated line: its icon (if any) and its HTML text. ``own``: news only this
    reader gets (a map's result, their gold), worth a private message of its own."""

    icon: Icon | None
    text: str
    own: bool = False

    def html(self) -> str:
        return f"{self.icon.emoji} {self.text}" if self.icon is not None else self.text

    def __str__(self) -> str:
        return self.html()


# The icon of each card that can lie in front of a player (a broken tool: the tool and ✖).
FRONT: Final[dict[str, str]] = {
    "broken_pickaxe": Icon.BROKEN_PICKAXE.emoji,
    "broken_lantern": Icon.BROKEN_LANTERN.emoji,
    "broken_cart": Icon.BROKEN_CART.emoji,
    "trapped": Icon.TRAPPED.emoji,
    "theft": Icon.THEFT.emoji,
}

# The icon of each action, as a card in the hand and in the lines that tell it.
ACTION: Final[dict[str, Icon]] = {
    "broken_pickaxe": Icon.BROKEN_PICKAXE,
    "broken_lantern": Icon.BROKEN_LANTERN,
    "broken_cart": Icon.BROKEN_CART,
    "repair_pickaxe": Icon.REPAIR,
    "repair_lantern": Icon.REPAIR,
    "repair_cart": Icon.REPAIR,
    "repair_pickaxe_lantern": Icon.REPAIR,
    "repair_pickaxe_cart": Icon.REPAIR,
    "repair_cart_lantern": Icon.REPAIR,
    "rockfall": Icon.ROCKFALL,
    "map": Icon.MAP,
    "theft": Icon.THEFT,
    "hands_off": Icon.HANDS_OFF,
    "swap_hand": Icon.SWAP_HAND,
    "inspection": Icon.INSPECTION,
    "swap_hats": Icon.SWAP_HATS,
    "trapped": Icon.TRAPPED,
    "free_at_last": Icon.FREE,
}

# The legend's lines, in this order: what the board, the seats and the moves show.
LEGEND: Final[tuple[Icon | str, ...]] = (
    Icon.TURN,
    Icon.DEADLINE,
    Icon.CARDS,
    Icon.GOLD,
    Icon.TREASURE,
    Icon.STONE,
    Icon.GOAL,
    "broken",
    Icon.REPAIR,
    Icon.TRAPPED,
    Icon.FREE,
    Icon.THEFT,
    Icon.HANDS_OFF,
    Icon.ROCKFALL,
    Icon.MAP,
    Icon.INSPECTION,
    Icon.SWAP_HATS,
    Icon.SWAP_HAND,
    Icon.PASS,
    Icon.REMOVE,
    Icon.UNPLAYABLE,
    Icon.TIMEOUT,
    Icon.AWAY,
    Icon.COMPUTER,
    Icon.LADDER,
    Icon.BLUE_DOOR,
    Icon.GREEN_DOOR,
    Icon.CRYSTAL,
    Icon.ROUND_END,
    Icon.WINNERS,
)


# Icons of Saboteur 2 alone: a base game's legend leaves them out.
SABOTEUR2_ONLY: Final = frozenset(
    {
        Icon.TRAPPED,
        Icon.FREE,
        Icon.THEFT,
        Icon.HANDS_OFF,
        Icon.SWAP_HATS,
        Icon.SWAP_HAND,
        Icon.INSPECTION,
        Icon.REMOVE,
        Icon.LADDER,
        Icon.BLUE_DOOR,
        Icon.GREEN_DOOR,
        Icon.CRYSTAL,
    }
)


def legend(texts: Texts, edition: str | None = None) -> str:
    """Every icon and what it means, one a line (``edition`` "base": the base game's)."""
    lines = [texts.t("legend.title")]
    for entry in LEGEND:
        if edition == "base" and entry in SABOTEUR2_ONLY:
            continue
        if isinstance(entry, Icon):
            lines.append(f"{entry.emoji} {texts.t(entry.key)}")
        else:  # the broken tools: one line for the three
            tools = "".join(FRONT[f"broken_{t}"] for t in ("pickaxe", "lantern", "cart"))
            lines.append(f"{tools} {texts.t('legend.broken')}")
    return "\n".join(lines)
