"""A hostile user floods the bot, or sends what no Telegram client would: the bot does
the work people playing ask of it, no more, and answers the rest plainly."""

from __future__ import annotations

import itertools
import logging
import re
from typing import Any

import pytest

from infra.ratelimit import RedisBackend
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    lobby_button,
    open_game,
    press_and_wait,
    running_bot,
    seat,
    settle,
    start_game,
)
from tests.tgbot.test_bot_attacks import (
    GROUP,
    PLAYERS,
    REAL_LIMITS,
    STRANGER,
    appended,
    with_stranger,
)
from tgbot.presenter.texts import Texts
from tgbot.telegram.handlers.group import MAX_OPEN_GAMES
from tgbot.telegram.throttle import PREFIX as THROTTLE_PREFIX
from tgbot.telegram.throttle import Throttle

pytestmark = pytest.mark.timeout(120)

_edits = itertools.count(10_000)


def edited(api: FakeBotAPI, chat: int, user: int, text: str) -> None:
    """``user`` edits a message of theirs in ``chat`` to read ``text``."""
    command = text.split(maxsplit=1)[0]
    message: dict[str, Any] = {
        "message_id": next(_edits),
        "date": 1,
        "edit_date": 2,
        "chat": api.chats[chat],
        "from": api.users[user],
        "text": text,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(command)}],
    }
    api.push_update({"edited_message": message})


async def test_an_edited_command_is_ignored_as_if_never_sent(db: str) -> None:
    async with FakeBotAPI() as api:
        with_stranger(api)
        async with running_bot(api, db, env=REAL_LIMITS) as app:
            await settle(api, app)
            sent = len(api.messages_in(STRANGER))

            for _ in range(60):
                edited(api, STRANGER, STRANGER, "/rules")
            edited(api, STRANGER, STRANGER, "/replay")
            await settle(api, app)

            assert api.messages_in(STRANGER)[sent:] == []


async def test_an_edited_cancel_leaves_the_lobby_open(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await open_game(api, app, GROUP, PLAYERS[:2])
            game_id = bot_services(app).active_game(GROUP)
            before, sent = appended(app), len(api.messages_in(GROUP))

            edited(api, GROUP, PLAYERS[0], "/cancel")
            await settle(api, app)

            assert appended(app) == before
            assert bot_services(app).active_game(GROUP) == game_id
            assert api.messages_in(GROUP)[sent:] == []


async def test_a_flood_of_stickers_in_private_is_throttled_like_text(db: str) -> None:
    async with FakeBotAPI() as api:
        with_stranger(api)
        async with running_bot(api, db, env=REAL_LIMITS) as app:
            await settle(api, app)
            sent = len(api.messages_in(STRANGER))

            for n in range(40):
                sticker = {"file_id": f"s{n}", "file_unique_id": f"s{n}", "type": "regular"}
                sticker |= {"width": 512, "height": 512, "is_animated": False}
                sticker |= {"is_video": False}
                api.push_update(
                    {
                        "message": {
                            "message_id": 20_000 + n,
                            "date": 1,
                            "chat": api.chats[STRANGER],
                            "from": api.users[STRANGER],
                            "sticker": sticker,
                        }
                    }
                )
            await settle(api, app)

            replies = [m["text"] for m in api.messages_in(STRANGER)[sent:]]
            assert replies == [replies[0]] and "Slow down" in replies[0]


@pytest.mark.parametrize("connections", [None, 2])
async def test_a_thousand_simultaneous_presses_by_one_user_are_handled_within_the_budget(
    db: str, redis_url: str, connections: int | None
) -> None:
    async with FakeBotAPI() as api:
        with_stranger(api)
        # A window far longer than the flood takes to handle: its budget is all it gets.
        env = {**REAL_LIMITS, "throttle_seconds": 600.0, "redis_url": redis_url}
        async with running_bot(api, db, env=env) as app:
            await settle(api, app)
            if connections is not None:  # the same throttle, on a far smaller pool
                throttle = bot_services(app).throttle
                assert throttle is not None
                small = RedisBackend(redis_url, THROTTLE_PREFIX, connections=connections)
                throttle.backend = Throttle(small, throttle.limits).backend
            message = api.last_message(STRANGER)["message_id"]

            queries = [api.press(STRANGER, STRANGER, message, "x") for _ in range(1000)]
            answers = [await api.wait_for(lambda q=q: api.answered.get(q), 60) for q in queries]

            handled = [a for a in answers if "Slow down" not in a.get("text", "")]
            assert 1 <= len(handled) <= REAL_LIMITS["throttle_presses"]


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


async def test_bidirectional_controls_in_names_and_titles_reorder_nothing_the_bot_sends(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        api.chats[GROUP]["title"] = "Mine\u202e (reversed)"
        api.users[PLAYERS[1]]["first_name"] = "Eve\u202eevil"
        api.users[PLAYERS[2]]["first_name"] = "\u2067Isolated"
        async with running_bot(api, db) as app:
            await settle(api, app)
            calls = len(api.calls)
            await start_game(api, app, GROUP, PLAYERS)
            await settle(api, app)

            shown = [
                str(call.params.get(field, ""))
                for call in api.calls[calls:]
                for field in ("text", "caption")
            ]
            assert any("Eveevil" in text for text in shown)
            assert not [text for text in shown if any(c in text for c in BIDI)]


async def test_one_person_sits_in_at_most_five_open_games_and_is_told_why(db: str) -> None:
    opener, joiner, host = 51, 52, 53
    groups = [-5101 - n for n in range(MAX_OPEN_GAMES + 1)]
    async with FakeBotAPI() as api:
        for chat in groups:
            api.group(chat, f"Group {chat}", admins=(opener,))
        for user in (opener, joiner, host):
            api.user(user, f"P{user}")
            api.send_text(user, user, "/start")
        async with running_bot(api, db) as app:
            await settle(api, app)
            for chat in groups:
                api.send_text(chat, opener, "/newgame")
                await settle(api, app)
            services = bot_services(app)
            opened = [chat for chat in groups if services.active_game(chat) is not None]

            assert opened == groups[:MAX_OPEN_GAMES]
            assert "already in 5 games at once" in api.last_message(groups[-1])["text"]

            api.send_text(groups[-1], host, "/newgame")  # someone else opens the sixth
            await settle(api, app)
            answers = []
            for chat in groups:
                lobby = [m for m in api.messages_in(chat) if api.keyboard(m)][-1]
                join = lobby_button(api, lobby, 0)
                pressed = await press_and_wait(api, app, chat, joiner, lobby["message_id"], join)
                answers.append(pressed)

            assert services.open_games_of(joiner) == MAX_OPEN_GAMES
            assert not any(a.get("show_alert") for a in answers[:-1])
            assert answers[-1].get("show_alert")
            assert "already in 5 games at once" in answers[-1]["text"]


async def test_a_press_without_data_is_answered_not_valid(db: str) -> None:
    async with FakeBotAPI() as api:
        with_stranger(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            message = api.last_message(STRANGER)["message_id"]

            answer = await press_and_wait(api, app, STRANGER, STRANGER, message, "")

            assert answer["text"] == Texts("en").t("error.forged_button")


async def test_cut_from_telegram_the_bot_says_so_once_and_counts_the_failed_presses(
    db: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with FakeBotAPI() as api:
        with_stranger(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            message = api.last_message(STRANGER)["message_id"]
            api.fail_next("answerCallbackQuery", 502, "Bad Gateway", times=10)
            caplog.clear()

            for _ in range(10):
                api.press(STRANGER, STRANGER, message, "x")
            await settle(api, app)
            answer = await press_and_wait(api, app, STRANGER, STRANGER, message, "x")

            assert answer["text"] == Texts("en").t("error.forged_button")
            warned = [r.getMessage() for r in caplog.records if r.name == "tgbot.telegram.outage"]
            # Opened and closed once (or a few times, when a poll for updates is answered
            # between two failures), every failure counted once.
            opened = [w for w in warned if "unreachable" in w]
            counts = [int(n) for n in re.findall(r"(\d+) updates failed", " ".join(warned))]
            assert warned[0] in opened and len(warned) == 2 * len(opened) < 10
            assert sum(counts) == 10
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
