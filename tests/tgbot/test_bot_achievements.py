"""Achievements where players see them: told in private and in one line of the game-over
message when a game earns them, listed by /achievements and counted in /stats; the ones
old games award when the read model first runs are listed, never told."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import delete

from domain import achievements as rules
from infra.achievements import ACHIEVEMENT_TABLES, ACHIEVEMENTS_PROJECTOR
from infra.event_store import EventStore
from infra.schema import projector_positions
from tests.fakebotapi import FakeBotAPI
from tests.replay.games import play
from tests.replay.test_ratings import store_game
from tests.tgbot.bot_harness import bot_services, running_bot, seat, settle

GROUP = -7031
PEOPLE = [101, 102, 103]

pytestmark = pytest.mark.timeout(240)


def texts_in(api: FakeBotAPI, chat: int) -> list[str]:
    return [str(m.get("text", "")) for m in api.messages_in(chat)]


def game_over(api: FakeBotAPI) -> list[str]:
    return [t for t in texts_in(api, GROUP) if "Game over!" in t]


async def test_a_new_achievement_is_told_in_private_and_in_one_line_of_the_game_over(
    db: str,
) -> None:
    played = play(120, players=3, chat_id=GROUP)
    game = rules.game_of(played.events)
    assert game is not None
    async with FakeBotAPI() as api:
        seat(api, GROUP, PEOPLE)
        async with running_bot(api, db) as app:
            store_game(EventStore(bot_services(app).store.engine), played.events, 0)
            await settle(api, app)
            (over,) = game_over(api)
            (line,) = [x for x in over.split("\n") if x.startswith("🏅 ")]
            for player in PEOPLE:
                titles = [rules_title(n) for n in rules.earned(game, player, rules.Earlier())]
                assert f"P{player}: {', '.join(titles)}" in line
                # One private message each, whatever they earned.
                (note,) = [t for t in texts_in(api, player) if "New achievement" in t]
                if len(titles) == 1:
                    assert note == "🏅 New achievement (your group): First game. Finish a game."
                else:
                    lines = note.split("\n")
                    assert lines[0] == "New achievements (your group):"
                    assert lines[1] == "🏅 First game. Finish a game."
                    assert [x.split(". ")[0].removeprefix("🏅 ") for x in lines[1:]] == titles

            api.send_text(101, 101, "/achievements")
            await settle(api, app)
            listed = api.last_message(101)["text"]
            earned = rules.earned(game, 101, rules.Earlier())
            assert listed.startswith(f"Your achievements, {len(earned)} of {len(rules.NAMES)}:")
            assert "🏅 <b>First game</b> — Finish a game. Held by 100% of players." in listed
            api.send_text(GROUP, 101, "/stats")
            await settle(api, app)
            stats = api.last_message(GROUP)["text"]
            assert f"Achievements: {len(earned)} of {len(rules.NAMES)} (/achievements)." in stats


def rules_title(name: str) -> str:
    from tgbot.presenter.texts import Texts

    return Texts("en").t(f"achievement.{name}")


async def test_achievements_old_games_award_are_listed_and_never_told(db: str) -> None:
    old, new = play(121, players=3, chat_id=GROUP), play(122, players=3, chat_id=GROUP)
    async with FakeBotAPI() as api:
        seat(api, GROUP, PEOPLE)
        async with running_bot(api, db) as app:
            engine = bot_services(app).store.engine
            store_game(EventStore(engine), old.events, 0)
            await settle(api, app)
            # As before there were achievements: the read model empty, never run.
            with engine.begin() as conn:
                for table in ACHIEVEMENT_TABLES:
                    conn.execute(delete(table))
                conn.execute(
                    delete(projector_positions).where(
                        projector_positions.c.name == ACHIEVEMENTS_PROJECTOR
                    )
                )
            before: dict[int, Any] = {p: len(texts_in(api, p)) for p in PEOPLE}
            store_game(EventStore(engine), new.events, 1)
            await settle(api, app)
            over = game_over(api)[-1]
            assert "First game" not in over  # earned by the old game: not told
            for player in PEOPLE:
                told = [t for t in texts_in(api, player)[before[player] :] if "achievement" in t]
                assert not any("First game" in t for t in told)
            api.send_text(101, 101, "/achievements")
            await settle(api, app)
            assert "First game</b> — Finish a game." in api.last_message(101)["text"]
