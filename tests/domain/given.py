"""Given events, when a command, then events (or an error): the Decider's test idiom."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

from domain.cards import Edition, deck, dwarf_cards
from domain.commands import Command, Envelope
from domain.decide import decide
from domain.errors import DomainError
from domain.events import (
    ActionEvent,
    DecisionOpened,
    Event,
    GameCreated,
    GameStarted,
    HandsSwapped,
    HatsSwapped,
    MapLooked,
    PlayerFreed,
    PlayerImprisoned,
    PlayerJoined,
    RockfallPlayed,
    RoleInspected,
    RoundStarted,
    TheftPlanned,
    TheftStopped,
    ToolBroken,
    ToolRepaired,
)
from domain.evolve import fold
from domain.state import GameState, PlayerId

T0 = 1_000_000  # a command's clock in tests
TURN = 60  # seconds per turn in the games below
GOALS = ("goal_stone_a", "goal_treasure", "goal_stone_b")  # treasure at (8, 0)


def given(*events: Event | Iterable[Event]) -> GameState:
    flat: list[Event] = []
    for item in events:
        if isinstance(item, list | tuple):
            flat.extend(item)
        else:
            flat.append(item)  # type: ignore[arg-type]
    return fold(flat)


def action_event(
    player: PlayerId,
    card: int,
    action: str,
    target_player: PlayerId | None = None,
    target_cell: tuple[int, int] | None = None,
    tool: str | None = None,
    result: str | None = None,
) -> ActionEvent:
    """The event of action card ``card``, of kind ``action`` (an Action value), played by
    ``player`` on ``target_player`` or ``target_cell``; ``tool``: the tool a repair mends;
    ``result``: the goal a map shows, the role an inspection shows or swap hats deals."""
    target = target_player if target_player is not None else player
    if action.startswith("broken_"):
        return ToolBroken(player, card, target, action.removeprefix("broken_"))
    if action.startswith("repair_"):
        assert tool is not None
        return ToolRepaired(player, card, target, tool)
    match action:
        case "rockfall":
            assert target_cell is not None
            return RockfallPlayed(player, card, target_cell)
        case "map":
            assert target_cell is not None and result is not None
            return MapLooked(player, card, target_cell, result)
        case "inspection":
            assert result is not None
            return RoleInspected(player, card, target, result)
        case "swap_hand":
            return HandsSwapped(player, card, target)
        case "swap_hats":
            assert result is not None
            return HatsSwapped(player, card, target, result)
        case "theft":
            return TheftPlanned(player, card)
        case "hands_off":
            return TheftStopped(player, card, target)
        case "trapped":
            return PlayerImprisoned(player, card, target)
        case "free_at_last":
            return PlayerFreed(player, card, target)
    raise AssertionError(action)


def when(state: GameState, command: Command, at: int = 0, seed: int = 0) -> list[Event]:
    return decide(state, Envelope(command, at, seed))


def then_raises(
    state: GameState, command: Command, error: type[DomainError], at: int = 0, seed: int = 0
) -> DomainError:
    with pytest.raises(error) as caught:
        decide(state, Envelope(command, at, seed))
    return caught.value


def ids(edition: Edition, kind: str) -> list[int]:
    """Deck ids of every card of ``kind`` (a path kind or an action value)."""
    return [c.id for c in deck(edition) if c.kind == kind]


def lobby(
    edition: Edition = "base",
    players: int = 3,
    house_rule: bool = False,
    variants: tuple[str, ...] = (),
) -> list[Event]:
    events: list[Event] = [GameCreated(1, "P1", edition, -100, TURN, house_rule, variants=variants)]
    events += [PlayerJoined(p, f"P{p}") for p in range(2, players + 1)]
    return events


def dealt(
    edition: Edition = "base",
    players: int = 3,
    hands: Mapping[int, tuple[int, ...]] | None = None,
    roles: Mapping[int, str] | None = None,
    draw_pile: tuple[int, ...] | None = None,
    first: int = 1,
    round: int = 1,
    nuggets: tuple[int, ...] = (3, 2, 1, 1, 2, 3, 1, 1, 1, 1, 2, 2, 3, 1, 1),
    house_rule: bool = False,
    variants: tuple[str, ...] = (),
) -> list[Event]:
    """A game whose round ``round`` was just dealt as given, with player ``first`` on turn
    (``variants``: the base game's, docs/rules.md §8).

    Players are 1..players; unlisted hands get 4 unused cards; the draw pile is every
    card left (or ``draw_pile``). Roles default to what the edition's dwarves allow.
    """
    seating = tuple(range(1, players + 1))
    hands = dict(hands or {})
    used = {c for h in hands.values() for c in h}
    spare = [c.id for c in deck(edition) if c.id not in used and c.id not in (draw_pile or ())]
    for p in seating:
        if p not in hands:
            hands[p], spare = tuple(spare[:4]), spare[4:]
    pool = list(dwarf_cards(edition, players, variants))
    given_roles = dict(roles or {})
    for role in given_roles.values():
        pool.remove(next(r for r in pool if r.value == role))
    all_roles = {p: given_roles.get(p) or pool.pop(0).value for p in seating}
    events: list[Event] = lobby(edition, players, house_rule, variants)
    events.append(GameStarted(seating, nuggets if edition == "base" else ()))
    events.append(
        RoundStarted(
            round=round,
            roles=tuple(all_roles.items()),
            dwarf_pile=tuple(r.value for r in pool),
            hands=tuple((p, hands[p]) for p in seating),
            draw_pile=tuple(spare) if draw_pile is None else draw_pile,
            set_aside=(),
            goals=GOALS,
            first_player=first,
        )
    )
    events.append(DecisionOpened(1, first, "turn", T0 + TURN * 1000))
    return events
