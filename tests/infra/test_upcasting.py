"""An event stored by an older schema reaches every reader as the current schema has it.

A player-joined event is written the way an imagined version 1 wrote it; upcasters for
versions 1 and 3 (version 2 left that event alone: a gap) are registered in the rules
engine's codec, as a real schema change would register them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, select

from domain import codec
from domain.commands import CreateGame, JoinGame, StartGame
from domain.events import PlayerJoined
from infra.bootstrap import Services, bootstrap
from infra.event_store import NewEvent
from infra.schema import games, player_stats
from infra.settings import load_settings
from tgbot import cli

AT = 1_700_000_000_000


def _rename_who(payload: dict[str, Any]) -> dict[str, Any]:
    return {"player": payload.pop("who"), **payload}


def _rename_nick(payload: dict[str, Any]) -> dict[str, Any]:
    return {"player": payload["player"], "name": payload["nick"]}


@pytest.fixture
def services(fresh_db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    monkeypatch.setenv("DATABASE_URL", fresh_db_url)
    monkeypatch.setattr(codec, "SCHEMA_VERSION", 4)
    monkeypatch.setitem(codec.UPCASTERS, ("player_joined", 1), _rename_who)
    monkeypatch.setitem(codec.UPCASTERS, ("player_joined", 3), _rename_nick)
    built = bootstrap(load_settings(_env_file=None))
    yield built
    built.close()


def read_models(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    with engine.connect() as conn:
        return {
            "games": [dict(r) for r in conn.execute(select(games)).mappings()],
            "player_stats": [dict(r) for r in conn.execute(select(player_stats)).mappings()],
        }


def test_an_old_schema_event_is_upcast_for_the_game_and_for_both_projections(
    services: Services,
) -> None:
    game = "game-old-schema"
    services.games.handle(game, CreateGame(1, "Ann", "base", -5), at=AT)
    old = NewEvent("player_joined", {"who": 7, "nick": "Seven"}, schema_version=1)
    services.store.append(game, 1, [old])
    services.games.handle(game, JoinGame(8, "Bo"), at=AT)
    services.games.handle(game, StartGame(1), at=AT, seed=3)

    # The game service folds it like any current event.
    assert services.games.events(game)[1] == PlayerJoined(7, "Seven")
    assert services.games.load(game).state.names[7] == "Seven"
    [stored] = services.store.load(game, after_version=1)[:1]
    assert (stored.schema_version, stored.payload) == (4, {"player": 7, "name": "Seven"})

    # The live projector and `saboteur-bot projections rebuild` see the same payload.
    services.projector.catch_up()
    incremental = read_models(services.engine)
    assert cli.main(["projections", "rebuild"]) == 0
    rebuilt = read_models(services.engine)

    [row] = incremental["games"]
    assert {"id": 7, "name": "Seven"} in row["players"]
    assert rebuilt == incremental
