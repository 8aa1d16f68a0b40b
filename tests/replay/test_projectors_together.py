"""The read models of finished games brought up together (infra.projector.Projectors),
as a game's end does: the same rows as each projector on its own, each finished game's
stream read once for them all, and every event applied once to each."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, select, update

from infra.achievements import (
    AchievementsProjector,
    achievement_players,
    achievements_projection,
    player_achievements,
)
from infra.db import make_engine
from infra.event_store import EventStore
from infra.history import HistoryProjector, history_projection
from infra.projector import Projectors
from infra.ratings import RatingsProjector, player_ratings, rating_changes, ratings_projection
from infra.schema import metadata, projector_positions
from tests.replay.games import PlayedGame, play
from tests.replay.test_ratings import CHAT, store_game

TABLES = (player_ratings, rating_changes, player_achievements, achievement_players)


@pytest.fixture(scope="module")
def games() -> list[PlayedGame]:
    return [
        play(51, players=4, edition="base", chat_id=CHAT),
        play(52, players=5, edition="saboteur2", chat_id=CHAT),
        play(53, players=4, edition="base", chat_id=CHAT),
    ]


def contents(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    history = [t for name, t in metadata.tables.items() if name.startswith("history")]
    with engine.connect() as conn:
        return {
            t.name: sorted(tuple(r) for r in conn.execute(select(t))) for t in (*TABLES, *history)
        }


def together(store: EventStore) -> Projectors:
    return Projectors(
        store.engine,
        store,
        [ratings_projection(store), achievements_projection(store), history_projection(store)],
    )


def test_brought_up_together_they_hold_what_each_projector_alone_holds(
    fresh_db_url: str, empty_database: Any, games: list[PlayedGame]
) -> None:
    from infra.migrations import upgrade

    other_url = empty_database("sqlite")
    upgrade(other_url)
    one, other = EventStore(make_engine(fresh_db_url)), EventStore(make_engine(other_url))
    for day, game in enumerate(games):
        store_game(one, game.events, day)
        store_game(other, game.events, day)
        together(one).catch_up()  # live: one game's end at a time
    for projector in (RatingsProjector, AchievementsProjector, HistoryProjector):
        projector(other.engine, other).catch_up()
    mine, theirs = contents(one.engine), contents(other.engine)
    # The games' ids differ between the two stores: compare what does not name them.
    assert {k: len(v) for k, v in mine.items()} == {k: len(v) for k, v in theirs.items()}
    with one.engine.connect() as a, other.engine.connect() as b:
        query = select(player_ratings.c.player_id, player_ratings.c.season, player_ratings.c.mu)
        assert sorted(a.execute(query)) == sorted(b.execute(query))
        query = select(player_achievements.c.player_id, player_achievements.c.achievement)
        assert sorted(a.execute(query)) == sorted(b.execute(query))
    assert all(mine[t.name] for t in TABLES)


def test_a_games_end_reads_its_stream_once_for_every_read_model(
    fresh_db_url: str, games: list[PlayedGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    store_game(store, games[0].events, 0)
    together(store).catch_up()
    store_game(store, games[1].events, 1)
    loads: list[str] = []
    one_by_one = store.load
    many = store.load_streams
    games_too = store.load_games

    def load(stream_id: str, *args: Any, **kwargs: Any) -> Any:
        loads.append(stream_id)
        return one_by_one(stream_id, *args, **kwargs)

    def load_streams(conn: Any, stream_ids: Any, **kwargs: Any) -> Any:
        loads.extend(stream_ids)
        return many(conn, stream_ids, **kwargs)

    def load_games(conn: Any, stream_ids: Any, **kwargs: Any) -> Any:
        loads.extend(stream_ids)
        return games_too(conn, stream_ids, **kwargs)

    monkeypatch.setattr(store, "load", load)
    monkeypatch.setattr(store, "load_streams", load_streams)
    monkeypatch.setattr(store, "load_games", load_games)
    assert together(store).catch_up() > 0
    assert len(loads) == 1
    monkeypatch.undo()
    # A second run finds nothing new and changes nothing.
    before = contents(store.engine)
    together(store).catch_up()
    assert contents(store.engine) == before


def test_a_projector_alone_and_the_projectors_together_apply_each_game_once(
    fresh_db_url: str, games: list[PlayedGame]
) -> None:
    store = EventStore(make_engine(fresh_db_url))
    store_game(store, games[0].events, 0)
    RatingsProjector(store.engine, store).catch_up()  # the ratings ahead, the rest behind
    store_game(store, games[2].events, 2)
    together(store).catch_up()
    RatingsProjector(store.engine, store).catch_up()
    AchievementsProjector(store.engine, store).catch_up()
    with store.engine.connect() as conn:
        rated = conn.execute(select(rating_changes.c.stream_id).distinct()).all()
        counted = conn.execute(select(achievement_players.c.games)).scalars().all()
    assert len(rated) == 2
    assert set(counted) == {2}  # the same four people, two games each


def test_brought_up_together_they_leave_an_imported_game_out(
    fresh_db_url: str, games: list[PlayedGame]
) -> None:
    from infra.archive import export_game, import_game

    store = EventStore(make_engine(fresh_db_url))
    played = store_game(store, games[0].events, 0)
    together(store).catch_up()
    before = contents(store.engine)
    copy, _ = import_game(store, list(export_game(store, played)))
    assert together(store).catch_up() > 0  # the copy's end was read, and left out
    assert contents(store.engine) == before
    with store.engine.connect() as conn:
        rated = set(conn.execute(select(rating_changes.c.stream_id)).scalars())
        awarded = set(conn.execute(select(player_achievements.c.stream_id)).scalars())
    assert copy not in rated | awarded


def test_a_game_end_applied_again_changes_nothing(
    fresh_db_url: str, games: list[PlayedGame]
) -> None:
    """Their positions set back (a game's end replayed to them, alone and in a batch), the
    read models find each game recorded already and change nothing."""
    store = EventStore(make_engine(fresh_db_url))

    def replayed() -> None:
        before = contents(store.engine)
        with store.engine.begin() as conn:
            conn.execute(update(projector_positions).values(position=0))
        assert together(store).catch_up() > 0
        assert contents(store.engine) == before

    store_game(store, games[0].events, 0)
    together(store).catch_up()
    replayed()  # one game's end
    store_game(store, games[1].events, 1)
    together(store).catch_up()
    replayed()  # two
