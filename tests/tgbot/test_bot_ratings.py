"""Ratings where players see them: the game-over message's line of changes, /stats's
rating, and /top's table of the group's ranked players."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from infra.event_store import EventStore
from infra.ratings import game_changes, shown, table
from tests.fakebotapi import FakeBotAPI
from tests.replay.games import play
from tests.replay.test_ratings import START, at_level, store_game
from tests.tgbot.bot_harness import Table, bot_services, open_game, running_bot, seat, settle
from tests.tgbot.test_bot_computers import press_lobby

GROUP = -7013  # as test_bot_computers' press_lobby expects
PERSON = 131

pytestmark = pytest.mark.timeout(480)


async def test_the_game_over_message_tells_each_persons_rating_change_and_stats_shows_it(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, [PERSON])
        async with running_bot(api, db) as app:
            lobby_id = (await open_game(api, app, GROUP, [PERSON]))["message_id"]
            for _ in range(2):
                await press_lobby(api, app, PERSON, lobby_id, "Add computer player")
            await press_lobby(api, app, PERSON, lobby_id, "Start")
            services = bot_services(app)
            game_id = str(services.active_game(GROUP))
            await Table(api, app, GROUP, [PERSON]).play_with_computers(game_id)
            await settle(api, app)
            (change,) = [c for c in game_changes(services.store.engine, game_id) if not c.computer]
            assert change.before == 1000
            sign = (
                "+"
                if change.after > change.before
                else "−"
                if change.after < change.before
                else "±"
            )
            over = [m["text"] for m in api.messages_in(GROUP) if "Game over!" in m.get("text", "")]
            (text,) = over
            delta = abs(change.after - change.before)
            assert f"📈 Season ratings: P{PERSON} {change.after} ({sign}{delta})" in text
            assert "🤖" not in text.split("Season ratings:")[1]  # people only

            api.send_text(GROUP, PERSON, "/stats")
            await settle(api, app)
            stats = api.last_message(GROUP)["text"]
            assert (
                f"rating {change.after} ({sign}{delta} in your last game), 1 rated game." in stats
            )
            assert "In the table after 4 more rated games." in stats


def clock_at(moment: datetime) -> Any:
    return lambda: int(moment.timestamp() * 1000)


async def test_top_ranks_the_groups_players_with_five_rated_games_this_season(db: str) -> None:
    games = [play(80 + i, players=3, chat_id=GROUP) for i in range(5)]
    async with FakeBotAPI() as api:
        seat(api, GROUP, [101, 102, 103])
        # The bot's clock in the games' season (their ends are recorded in March 2025).
        async with running_bot(
            api, db, clock_ms=clock_at(datetime(2025, 3, 20, tzinfo=UTC))
        ) as app:
            services = bot_services(app)
            store = EventStore(services.store.engine)
            for day, game in enumerate(games[:4]):
                store_game(store, game.events, day)
            await settle(api, app)  # (the group is told of their ends)
            api.send_text(GROUP, 101, "/top")
            await settle(api, app)
            assert api.last_message(GROUP)["text"] == (
                "The group's best — season Q1 2025\n"
                "Nobody is in the table yet: a player enters it after 5 rated games."
            )
            store_game(store, games[4].events, 4)
            await settle(api, app)
            api.send_text(GROUP, 101, "/top")
            await settle(api, app)
            lines = api.last_message(GROUP)["text"].split("\n")
            assert lines[:3] == ["The group's best — season Q1 2025", "", "Saboteur:"]
            ranked = lines[3:6]
            assert [line.split(". ")[0] for line in ranked] == ["1", "2", "3"]
            assert all(line.endswith("(5 rated games)") for line in ranked)
            ratings = [int(line.split(" — ")[1].split(" ")[0]) for line in ranked]
            assert ratings == sorted(ratings, reverse=True)
            assert {line.split(". ")[1].split(" — ")[0] for line in ranked} == {
                "P101",
                "P102",
                "P103",
            }
            assert lines[-1] == "In the table after 5 rated games. /top all: all time."

            api.send_text(GROUP, 101, "/top all")
            await settle(api, app)
            assert api.last_message(GROUP)["text"].split("\n")[3:6] == ranked
            assert START.year == 2025 and shown(25.0, 25.0 / 3) == 1000


async def test_top_shows_a_computer_player_apart_at_each_level(db: str) -> None:
    game = play(90, players=2, chat_id=GROUP, computers=1)
    (name,) = {game.final.names[p] for p in game.final.computers}
    async with FakeBotAPI() as api:
        seat(api, GROUP, [101, 102])
        async with running_bot(
            api, db, clock_ms=clock_at(datetime(2025, 3, 20, tzinfo=UTC))
        ) as app:
            store = EventStore(bot_services(app).store.engine)
            for day in range(5):
                store_game(store, game.events, day)
                store_game(store, at_level(game.events, "hard"), day)
            await settle(api, app, timeout=240)  # ten games' ends told at once
            api.send_text(GROUP, 101, "/top")
            await settle(api, app)
            (line,) = [line for line in api.last_message(GROUP)["text"].split("\n") if name in line]
            assert f"{name} · hard " in line and f"{name} · normal " in line
            assert line.count("(5 rated games)") == 2


async def test_privacy_chooses_whether_a_name_is_shown_in_the_global_table(db: str) -> None:
    games = [play(180 + i, players=3, chat_id=GROUP) for i in range(5)]
    async with FakeBotAPI() as api:
        seat(api, GROUP, [101, 102, 103])
        async with running_bot(
            api, db, clock_ms=clock_at(datetime(2025, 3, 20, tzinfo=UTC))
        ) as app:
            services = bot_services(app)
            store = EventStore(services.store.engine)
            for day, game in enumerate(games):
                store_game(store, game.events, day)
            await settle(api, app, timeout=240)  # five games' ends told at once

            api.send_text(101, 101, "/privacy")
            await settle(api, app)
            assert "/privacy on" in api.last_message(101)["text"]
            api.send_text(101, 101, "/top")  # in private: the global table
            await settle(api, app)
            lines = api.last_message(101)["text"].split("\n")
            assert lines[0] == "Every group's best — season Q1 2025"
            assert "3 more of these ranks went to players who chose not to be named" in lines[3]
            assert not any("P10" in line for line in lines)

            api.send_text(GROUP, 102, "/privacy on")
            await settle(api, app)
            assert api.last_message(GROUP)["text"].startswith("Done: your name is shown")
            api.send_text(GROUP, 101, "/top global all")
            await settle(api, app)
            lines = api.last_message(GROUP)["text"].split("\n")
            assert lines[0] == "Every group's best of all time"
            named = [line for line in lines if "P10" in line]
            assert len(named) == 1 and named[0].split(". ")[1].startswith("P102 — ")
            assert "2 more of these ranks" in api.last_message(GROUP)["text"]

            api.send_text(GROUP, 101, "/top everything")
            await settle(api, app)
            assert api.last_message(GROUP)["text"].startswith("/top: this group's table")


async def test_the_next_lobby_names_the_groups_champion_of_the_last_season(db: str) -> None:
    games = [play(280 + i, players=3, chat_id=GROUP) for i in range(5)]
    async with FakeBotAPI() as api:
        seat(api, GROUP, [101, 102, 103])
        # The games end in March 2025; the bot's clock is in the next season.
        async with running_bot(
            api, db, clock_ms=clock_at(datetime(2025, 4, 10, tzinfo=UTC))
        ) as app:
            services = bot_services(app)
            store = EventStore(services.store.engine)
            for day, game in enumerate(games):
                store_game(store, game.events, day)
            await settle(api, app, timeout=240)  # five games' ends told at once
            (best,), _ = table(services.store.engine, [GROUP], "2025Q1", "base", limit=1)
            await open_game(api, app, GROUP, [101])
            lobby = api.last_message(GROUP)["text"]
            assert lobby.startswith("⛏") or "Saboteur" in lobby.split("\n")[0]
            assert lobby.split("\n")[1] == f"🏆 Champion of Q1 2025: {best.name}"
            assert best.name in {"P101", "P102", "P103"}

            # The new season's table starts empty; the last one's is kept, and shown.
            api.send_text(GROUP, 101, "/top")
            await settle(api, app)
            assert api.last_message(GROUP)["text"].split("\n") == [
                "The group's best — season Q2 2025",
                "Nobody is in the table yet: a player enters it after 5 rated games.",
            ]
            api.send_text(GROUP, 101, "/top 2025q1")
            await settle(api, app)
            lines = api.last_message(GROUP)["text"].split("\n")
            assert lines[0] == "The group's best — season Q1 2025"
            assert lines[3].startswith(f"1. {best.name} — {best.rating} ")
