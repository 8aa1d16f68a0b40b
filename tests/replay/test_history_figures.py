"""/history and /stats figures equal those computed by folding every finished game."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from domain import codec
from domain.events import Event
from infra.archive import export_game, import_game
from infra.botstate import BotState
from infra.db import make_engine
from infra.event_store import EventStore, NewEvent
from infra.history import HistoryProjector
from infra.history_queries import group_figures, history, is_finished, last_finished, player_figures
from infra.migrations import upgrade
from tests.replay.games import PlayedGame, play
from tgbot.replay.steps import Replay

CHAT_A, CHAT_B = -2001, -2002


def store_game(store: EventStore, events: tuple[Event, ...], day: int) -> str:
    """Append a game in a few batches, dated ``day``."""
    game_id = "t" + uuid.uuid4().hex[:11]
    moment = datetime(2025, 3, 1, tzinfo=UTC) + timedelta(days=day)
    writer = EventStore(store.engine, clock=lambda: moment)
    version, batch = 0, []
    for event in events:
        batch.append(NewEvent(*codec.encode(event)))
        if len(batch) == 100:
            writer.append(game_id, version, batch)
            version, batch = version + len(batch), []
    writer.append(game_id, version, batch)
    return game_id


@pytest.fixture(scope="module")
def games() -> dict[str, PlayedGame]:
    return {
        "a1": play(21, players=3, edition="base", chat_id=CHAT_A),
        "a2": play(22, players=4, edition="saboteur2", chat_id=CHAT_A, first_player_id=102),
        "b1": play(23, players=3, edition="base", chat_id=CHAT_B),
        "a_running": play(24, players=3, edition="base", chat_id=CHAT_A, finish=False),
    }


def folded_figures(played: list[PlayedGame], chat: int | None, player: int) -> tuple:
    """The oracle: games, wins, gold and rounds won by role, folded from the events."""
    games = wins = gold = 0
    roles: Counter[str] = Counter()
    for game in played:
        final = game.final  # the live game's state, which the replay tests show is folded
        if (chat is not None and final.chat_id != chat) or player not in final.seating:
            continue
        games += 1
        wins += player in final.winners
        gold += final.gold.get(player, 0)
        for result in final.round_results:
            if player in result.winners:
                roles[dict(result.roles)[player]] += 1
    return games, wins, gold, tied_most(roles)


def tied_most(counts: Counter[str]) -> tuple[tuple[str, ...], int]:
    """Every name with the highest count, and that count: a tie is a tie."""
    best = max(counts.values(), default=0)
    return tuple(sorted(name for name, n in counts.items() if n == best and n > 0)), best


def folded_group(played: list[PlayedGame], chat: int) -> tuple:
    """The oracle for a group: games, wins, gold, the roles most rounds were won with and
    the top winners (names, wins), every one of a tie, folded from the events."""
    finals = [Replay("x", game.events).final for game in played]
    finals = [final for final in finals if final.chat_id == chat]
    roles: Counter[str] = Counter()
    wins: Counter[int] = Counter()
    gold: Counter[int] = Counter()
    for final in finals:
        wins.update(final.winners)
        gold.update(final.gold)
        for result in final.round_results:
            roles.update(dict(result.roles)[p] for p in result.winners)
    names = Counter({finals[0].names[p]: n for p, n in wins.items()})
    return len(finals), sum(wins.values()), sum(gold.values()), tied_most(roles), tied_most(names)


def test_history_and_stats_equal_the_figures_folded_from_the_log(
    fresh_db_url: str, games: dict[str, PlayedGame]
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    ids = {
        name: store_game(store, game.events, day) for day, (name, game) in enumerate(games.items())
    }
    projector = HistoryProjector(store.engine, store)
    projector.catch_up()

    entries = history(store.engine, CHAT_A)
    assert [e.game_id for e in entries] == [ids["a2"], ids["a1"]]  # newest first, no running game
    for entry, name in zip(entries, ("a2", "a1"), strict=True):
        final = Replay("x", games[name].events).final
        assert entry.edition == final.edition
        assert entry.players == tuple(final.names[p] for p in final.seating)
        assert entry.winners == tuple(final.names[p] for p in final.winners)
        assert (
            entry.finished_at.date()
            == (datetime(2025, 3, 1) + timedelta(days=list(games).index(name))).date()
        )
    assert last_finished(store.engine, CHAT_A) == ids["a2"]
    assert not is_finished(store.engine, ids["a_running"])

    finished = [games["a1"], games["a2"], games["b1"]]
    for player in (101, 102, 103, 104, 105):
        for chat in (CHAT_A, CHAT_B, None):
            figures = player_figures(store.engine, player, chat)
            expected = folded_figures(finished, chat, player)
            assert (figures.games, figures.wins, figures.gold) == expected[:3]
            assert (figures.favourite_roles, figures.role_rounds) == expected[3]

    for chat in (CHAT_A, CHAT_B):
        group = group_figures(store.engine, chat)
        expected_group = folded_group(finished, chat)
        assert (group.games, group.wins, group.gold) == expected_group[:3]
        assert (group.favourite_roles, group.role_rounds) == expected_group[3]
        assert (group.top_winners, group.top_wins) == expected_group[4]

    # Rebuilt from the log, the read models are the same.
    before = (history(store.engine, CHAT_A), player_figures(store.engine, 101))
    projector.rebuild()
    assert (history(store.engine, CHAT_A), player_figures(store.engine, 101)) == before


def test_export_import_replay_gives_the_same_final_scores(
    db_url: str, empty_database: Callable[[str], str], games: dict[str, PlayedGame]
) -> None:
    source = EventStore(make_engine(db_url), upcasters=codec.UPCASTERS)
    game_id = store_game(source, games["a2"].events, day=0)
    lines = list(export_game(source, game_id))
    target_url = empty_database("sqlite")
    upgrade(target_url)
    target = EventStore(make_engine(target_url), upcasters=codec.UPCASTERS)
    new_id, _ = import_game(target, lines)

    def final_scores(store: EventStore, stream: str) -> dict[int, int]:
        events = [codec.decode(e.type, e.payload, e.schema_version) for e in store.load(stream)]
        return dict(Replay(stream, events).final.gold)

    assert final_scores(target, new_id) == final_scores(source, game_id)
    assert final_scores(target, new_id) == dict(games["a2"].final.gold)


def test_a_game_imported_into_the_same_database_is_in_no_history_but_replays_by_id(
    fresh_db_url: str, games: dict[str, PlayedGame]
) -> None:
    store = EventStore(make_engine(fresh_db_url), upcasters=codec.UPCASTERS)
    original = store_game(store, games["a1"].events, day=0)
    projector = HistoryProjector(store.engine, store)
    projector.catch_up()
    before = (
        history(store.engine, CHAT_A),
        player_figures(store.engine, 101, CHAT_A),
        group_figures(store.engine, CHAT_A),
    )

    copy, _ = import_game(store, list(export_game(store, original)))
    projector.catch_up()
    after = (
        history(store.engine, CHAT_A),
        player_figures(store.engine, 101, CHAT_A),
        group_figures(store.engine, CHAT_A),
    )
    assert after == before and [e.game_id for e in after[0]] == [original]
    projector.rebuild()
    assert history(store.engine, CHAT_A) == before[0]
    events = [codec.decode(e.type, e.payload, e.schema_version) for e in store.load(copy)]
    assert Replay(copy, events).final == games["a1"].final


def test_a_group_that_became_a_supergroup_keeps_its_history_and_figures(
    fresh_db_url: str, games: dict[str, PlayedGame]
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    supergroup = -100_2001
    before = store_game(store, games["a1"].events, day=0)  # played in CHAT_A
    BotState(store.engine).set_migrated(CHAT_A, supergroup)
    moved = replace(games["b1"].events[0], chat_id=supergroup)
    after = store_game(store, (moved, *games["b1"].events[1:]), day=1)
    HistoryProjector(store.engine, store).catch_up()

    for chat in (supergroup, CHAT_A):
        assert [e.game_id for e in history(store.engine, chat)] == [after, before]
        assert group_figures(store.engine, chat).games == 2
        for player in (101, 102, 103):
            figures = player_figures(store.engine, player, chat)
            expected = folded_figures([games["a1"], games["b1"]], None, player)
            assert (figures.games, figures.wins, figures.gold) == expected[:3]
    assert last_finished(store.engine, CHAT_A) == after
    assert history(store.engine, CHAT_B) == []
