"""A game as the Mini App's page draws it: JSON built from one viewer's :func:`view_for`.

Nothing here reads the state beside the view except :func:`legal_moves` for the viewer's
own decision, so a player sees exactly what their seat may see and a spectator the public
view. Names (cards, roles, tools, front cards) come from the catalogs in the viewer's
language; the page itself needs only :data:`PAGE_TEXTS`.

Moves travel as the codec's command payloads without ``actor``, ``at`` and ``seed``
(``{"type": "PlacePath", "card": 12, "cell": [1, 0], "rotated": false}``); the page sends
one back as it got it, and :func:`command_from_json` makes it the viewer's command again.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

from domain import events as ev
from domain.board import Tile
from domain.cards import BREAKS, PATHS, card
from domain.codec import decode_command, encode_command
from domain.commands import (
    ChooseTheftVictim,
    ComeBack,
    Command,
    DiscardToRemove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.moves import legal_moves
from domain.state import GameState, PlayerId
from domain.view import HIDDEN_GOAL, View, view_for
from tgbot.presenter import i18n
from tgbot.presenter.icons import ACTION, Icon, legend
from tgbot.presenter.keyboards import unplayable_reason
from tgbot.presenter.narration import Scene, narrate
from tgbot.presenter.roundlog import NOT_MOVES, fold_lines
from tgbot.presenter.texts import Texts

# The commands a player sends from the page (the rest are the lobby's or the clock's).
PLAYER_COMMANDS: Final = {
    cls.__name__: cls
    for cls in (
        PlacePath,
        PlayAction,
        Pass,
        DiscardToRemove,
        PickGold,
        ChooseTheftVictim,
        ComeBack,
    )
}
# What a move carries for the page alone (its button's words; oneself as its target; a
# card that breaks one's own tool): a move sent back with them is the same move.
PAGE_ONLY: Final = frozenset({"label", "self", "harm"})
NEWS_LINES: Final = 80  # a round's moves, and the last round's end
TAG: Final = re.compile(r"<[^>]*>")

# Every catalog message the page shows by itself (the rest arrive already worded).
PAGE_TEXTS: Final = (
    "miniapp.title",
    "miniapp.loading",
    "miniapp.your_turn",
    "miniapp.choose_cell",
    "miniapp.choose_rockfall",
    "miniapp.choose_goal",
    "miniapp.place",
    "miniapp.play",
    "miniapp.as_printed",
    "miniapp.turned",
    "miniapp.choose_discard_one",
    "miniapp.choose_discard_many",
    "miniapp.choose_remove",
    "miniapp.choose_remove_cards",
    "miniapp.spectator",
    "miniapp.away",
    "miniapp.reconnecting",
    "miniapp.your_hand",
    "miniapp.deadline",
    "miniapp.game_over",
    "miniapp.no_game",
    "error.not_started",
    "miniapp.round",
    "miniapp.draw_pile",
    "miniapp.gold_pick",
    "miniapp.theft",
    "miniapp.self_harm",
    "turn.play_on",
    "turn.yourself",
    "legend.button",
    "turn.your_role",
    "turn.your_gold",
    "turn.waiting",
    "turn.choose_player",
    "turn.button_pass",
    "turn.button_discard_remove",
    "turn.button_confirm",
    "turn.button_back",
    "bot.button_come_back",
    "bot.duration_seconds",
    "bot.duration_minutes",
    "bot.duration_hours",
    "bot.duration_days",
)


PLURAL_TABLE: Final = 200  # counts the page's plural table spans (past it: 100 + n % 100)


def page_texts(texts: Texts) -> dict[str, Any]:
    """The page's own messages in ``texts``' language, unformatted (``{name}`` kept): a
    counted one as its plural forms, and under ``_plural`` the form each count takes in
    the language (gettext's rule, as a table the page reads without evaluating code).

    >>> found = page_texts(Texts("pl"))
    >>> found["miniapp.draw_pile"][2], [found["_plural"][n] for n in (1, 2, 5, 22)]
    ('Talia: {count} kart', [0, 1, 2, 1])
    """
    found: dict[str, Any] = {}
    for key in PAGE_TEXTS:
        forms = i18n.forms(texts.lang, key)
        found[key] = list(forms) if len(forms) > 1 else forms[0]
    found["_plural"] = [i18n.plural_index(texts.lang, n) for n in range(PLURAL_TABLE)]
    return found


def page_icons() -> dict[str, Any]:
    """The icons the page shows, from the one legend (:mod:`tgbot.presenter.icons`): each
    by its name (``"turn"``, ``"gold"`` …), and each action card's as ``actions``.

    >>> icons = page_icons()
    >>> icons["turn"] == Icon.TURN.emoji, icons["actions"]["map"] == Icon.MAP.emoji
    (True, True)
    """
    return {
        **{icon.name.lower(): icon.emoji for icon in Icon},
        "actions": {kind: icon.emoji for kind, icon in ACTION.items()},
    }


def legend_json(texts: Texts, edition: str) -> dict[str, Any]:
    """The legend of ``edition``'s icons as the chat's "?" button shows it: its title and
    one line per icon."""
    title, *lines = legend(texts, edition).split("\n")
    return {"title": title, "lines": lines}


def move_json(command: Command) -> dict[str, Any]:
    """A legal move as the page gets it.

    >>> move_json(PlacePath(1, 12, (1, 0), True))
    {'type': 'PlacePath', 'card': 12, 'cell': [1, 0], 'rotated': True}
    """
    name, payload = encode_command(command)
    fields = {k: v for k, v in payload.items() if k != "actor"}
    return {"type": name, **fields}


def command_from_json(player: PlayerId, data: object) -> Command:
    """The command ``player`` sent as ``data``; ValueError when it names none.

    >>> command_from_json(7, {"type": "PickGold", "value": 3})
    PickGold(actor=7, value=3)
    >>> command_from_json(7, {"type": "PickGold", "value": 3, "label": "3 gold"})
    PickGold(actor=7, value=3)
    >>> command_from_json(7, {"type": "TimeOut", "decision": 3})
    Traceback (most recent call last):
    ...
    ValueError: not a player's move
    """
    if not isinstance(data, dict) or data.get("type") not in PLAYER_COMMANDS:
        raise ValueError("not a player's move")
    fields = {k: v for k, v in data.items() if k != "type" and k not in PAGE_ONLY}
    if {"actor", "at", "seed"} & fields.keys():
        raise ValueError("fields the server sets")
    try:
        return decode_command(data["type"], {**fields, "actor": player})
    except (TypeError, ValueError, KeyError) as error:
        raise ValueError(str(error)) from error


def shape_json(kind: str) -> dict[str, Any]:
    """How a path card (or the start, a goal) is drawn: its segments as printed and
    turned 180°, and what stands on it."""
    spec = PATHS[kind]
    return {
        "segments": [list(Tile(kind).segments), list(Tile(kind, rotated=True).segments)],
        "ladder": spec.ladder,
        "door": spec.door.value if spec.door is not None else None,
        "door_segment": spec.door_segment,
        "crystals": spec.crystals,
    }


def board_json(view: View) -> list[dict[str, Any]]:
    tiles = []
    for (x, y), tile in sorted(view.board.items()):
        item: dict[str, Any] = {"x": x, "y": y, "kind": tile.kind, "up": tile.face_up}
        if tile.face_up:
            item["rotated"] = tile.rotated
        else:  # a goal face down: what the viewer's map showed, everything once finished
            item["kind"] = HIDDEN_GOAL
            finished = view.phase == "finished"
            item["peek"] = tile.kind if finished else view.known_goals.get((x, y))
        tiles.append(item)
    return tiles


def seats_json(view: View, texts: Texts) -> list[dict[str, Any]]:
    pending = view.pending
    return [
        {
            "id": seat.player,
            "name": seat.name,
            "hand": seat.hand_count,
            "front": [{"kind": k, "name": texts.front_name(k)} for k in seat.front],
            "has_gold": seat.has_gold,  # saboteur2 only: whether they hold any (public)
            "away": seat.away,
            "turn": pending is not None and pending.player == seat.player,
            "inspected": texts.role_name(view.inspected[seat.player])
            if seat.player in view.inspected
            else None,
        }
        for seat in view.seats
    ]


def hand_json(view: View, texts: Texts, why: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """The viewer's hand; a card they cannot play on their turn says why (``why``: the
    chat's reason for it, :func:`tgbot.presenter.keyboards.unplayable_reason`)."""
    cards = []
    for card_id in sorted(view.hand):
        found = card(view.edition, card_id)  # type: ignore[arg-type]
        item: dict[str, Any] = {
            "id": card_id,
            "kind": found.kind,
            "name": texts.card_name(view.edition, card_id),
            "path": found.path is not None,
        }
        if why and card_id in why:
            item["why"] = why[card_id]
        cards.append(item)
    return cards


def unplayable(
    state: GameState, view: View, moves: Sequence[Command], texts: Texts
) -> dict[int, str]:
    """Why each card of the viewer's hand that no move plays cannot be played, in the
    chat's words, while the viewer owes a turn (else nothing: it is not their turn)."""
    pending = view.pending
    if view.viewer is None or pending is None or pending.player != view.viewer:
        return {}
    if pending.kind != "turn":
        return {}
    played = {m.card for m in moves if isinstance(m, PlacePath | PlayAction)}
    return {
        c: texts.t(unplayable_reason(state, view.viewer, c)) for c in view.hand if c not in played
    }


def moves_json(
    state: GameState, view: View, texts: Texts, moves: Sequence[Command] | None = None
) -> list[dict[str, Any]]:
    """The viewer's legal moves, each with the words a button for it shows. A move on
    a player names them, the viewer too ("Ann (you)", with ``self``); a card that breaks
    the viewer's own tool has ``harm`` (the page asks before it plays it)."""
    if view.viewer is None:
        return []
    names = state.names
    found = []
    for move in legal_moves(state, view.viewer) if moves is None else moves:
        item = move_json(move)
        match move:
            case PlayAction(target_player=target, tool=tool) if target is not None:
                label = names.get(target, "?")
                if target == view.viewer:
                    label = texts.t("miniapp.you_named", name=label)
                    item["self"] = True
                    action = card(state.edition, move.card).action
                    if action in BREAKS:
                        item["harm"] = True
                item["label"] = f"{label}: {texts.tool_name(tool.value)}" if tool else label
            case ChooseTheftVictim(victim=victim):
                item["label"] = names.get(victim, "?")
            case PickGold(value=value):
                item["label"] = texts.t("turn.gold_pick_button", count=value)
            case _:
                pass
        found.append(item)
    return found


def finished_json(view: View, texts: Texts) -> dict[str, Any] | None:
    """A finished game: its winners and everyone's gold, as data and in the very lines
    the group was told (``lines``: plain text, the winners first)."""
    if view.phase != "finished":
        return None
    names = {seat.player: seat.name for seat in view.seats}
    ended = ev.GameEnded(tuple(view.final_gold.items()), view.winners)
    scene = Scene(texts, None, view.edition, names, view)
    return {
        "lines": [html.unescape(TAG.sub("", line.html())) for line in narrate(ended, scene)],
        "winners": [names.get(p, "?") for p in view.winners],
        "gold": [
            {"name": names.get(p, "?"), "gold": g}
            for p, g in sorted(view.final_gold.items(), key=lambda pg: -pg[1])
        ],
        "roles": {str(p): texts.role_name(r) for p, r in view.roles.items()},
    }


def news_lines(
    state: GameState, events: Iterable[ev.Event], texts: Texts, viewer: PlayerId | None = None
) -> list[str]:
    """The public story of ``events`` (the round so far), newest last, as plain text: a
    move in one line, as the 📜 log and the prompts tell it (a goal turned up joins the
    path card that reached it); a round's or the game's end in one entry, its lines
    joined (the page's summary shows the newest entry's first line: "Round 2 is over: …",
    never the last of its lines). To a player (``viewer``) they speak to them ("Di
    repaired your cart"), and hold nothing the group may not know: their own news (a map's
    result) is the prompt's to tell."""
    told: list[str] = []
    scene = Scene(texts, viewer, state.edition, state.names, view_for(state, viewer))
    last_move = False
    for event in events:
        if isinstance(event, ev.DecisionOpened | ev.PlayerReminded):
            continue
        lines = [line for line in narrate(event, scene) if not line.own]
        if not lines:
            continue
        if isinstance(event, ev.GoalRevealed) and last_move:
            told[-1] += " " + plain(fold_lines(lines).html())
            continue
        last_move = not isinstance(event, NOT_MOVES)
        if last_move:
            told.append(plain(fold_lines(lines).html()))
        else:
            told.append("\n".join(plain(line.html()) for line in lines))
    return told[-NEWS_LINES:]


def plain(text: str) -> str:
    return html.unescape(TAG.sub("", text))


def game_json(
    game_id: str,
    state: GameState,
    version: int,
    viewer: PlayerId | None,
    texts: Texts,
    *,
    now_ms: int,
    news: Sequence[str] = (),
) -> dict[str, Any]:
    """Everything the page shows of ``game_id`` to ``viewer`` (None: a spectator)."""
    view = view_for(state, viewer)
    moves = legal_moves(state, viewer) if viewer is not None else []
    hand = hand_json(view, texts, unplayable(state, view, moves, texts))
    board = board_json(view)
    kinds = {t.kind for t in view.board.values() if t.face_up}
    kinds.update(c["kind"] for c in hand if c["path"])
    kinds.update(t["peek"] for t in board if t.get("peek"))
    last = view.last_move
    pending = view.pending
    return {
        "game": game_id,
        "version": version,
        "now": now_ms,
        "lang": texts.lang,
        "phase": view.phase,
        "edition": view.edition,
        "round": view.round,
        "draw_pile": view.draw_pile,
        "me": view.viewer,
        "role": texts.role_name(view.role) if view.role is not None else None,
        "gold": view.gold,
        "board": board,
        "shapes": {kind: shape_json(kind) for kind in sorted(kinds) if kind in PATHS},
        "last": list(last.cell) if last is not None and last.cell is not None else None,
        "seats": seats_json(view, texts),
        "pending": None
        if pending is None
        else {"player": pending.player, "kind": pending.kind, "deadline": pending.deadline},
        "offer": sorted(view.gold_pick_offer),
        "hand": hand,
        "moves": moves_json(state, view, texts, moves),
        "news": list(news),
        "finished": finished_json(view, texts),
    }
