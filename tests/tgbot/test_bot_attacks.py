"""A hostile user, with a client that sends any ``/start`` payload and any callback data
on any message, gets a clear answer and changes nothing: no event is appended, and nothing
is shown to anyone it is not meant for."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from typing import Any

import aiohttp
import pytest

from infra.botstate import BotState
from infra.db import make_engine
from infra.event_store import EventStore
from tests.fakebotapi import FakeBotAPI
from tests.replay.games import play
from tests.replay.test_history_figures import store_game
from tests.tgbot.bot_harness import (
    Table,
    bot_services,
    game_running,
    lobby_button,
    open_game,
    press_and_wait,
    running_bot,
    seat,
    settle,
    start_game,
)
from tests.tgbot.miniapp_harness import auth, init_data, miniapp_served
from tgbot.presenter.callback import peek
from tgbot.presenter.keyboards import CARD
from tgbot.presenter.texts import Texts
from tgbot.telegram.app import BotApplication

GROUP = -3001
PLAYERS = [31, 32, 33]
STRANGER = 99

pytestmark = pytest.mark.timeout(90)


def appended(app: BotApplication) -> int:
    """How many events the store holds (its last position)."""
    return bot_services(app).store.last_position()


def sent_to(api: FakeBotAPI, chat: int, since: int) -> list[dict[str, Any]]:
    """What the bot sent to or edited in ``chat`` since call ``since``."""
    return [
        call.params
        for call in api.calls[since:]
        if call.params.get("chat_id") in (chat, str(chat)) and not call.method.startswith("get")
    ]


def with_stranger(api: FakeBotAPI) -> None:
    """The group and its players; and a stranger, in no group, who opened the private chat."""
    seat(api, GROUP, PLAYERS)
    api.user(STRANGER, "Mallory")
    api.send_text(STRANGER, STRANGER, "/start")


async def test_a_deep_link_does_not_seat_someone_outside_the_group(db: str) -> None:
    async with FakeBotAPI() as api:
        with_stranger(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS[:2])
            game_id = bot_services(app).active_game(GROUP)
            before, calls = appended(app), len(api.calls)

            api.send_text(STRANGER, STRANGER, f"/start j{game_id}")
            await settle(api, app)

            assert appended(app) == before
            state, _ = bot_services(app).load(str(game_id))
            assert STRANGER not in state.seating
            assert "Only members of the game's group" in api.last_message(STRANGER)["text"]
            assert sent_to(api, GROUP, calls) == []
            assert "Mallory" not in api.messages[GROUP][lobby["message_id"]]["text"]


async def test_a_member_of_the_group_still_joins_by_the_deep_link(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            await open_game(api, app, GROUP, PLAYERS[:2])
            game_id = bot_services(app).active_game(GROUP)
            api.send_text(GROUP, PLAYERS[2], "hello")  # a member of the group
            await settle(api, app)

            api.send_text(PLAYERS[2], PLAYERS[2], f"/start j{game_id}")
            await settle(api, app)

            state, _ = bot_services(app).load(str(game_id))
            assert PLAYERS[2] in state.seating
            assert "joined" in api.last_message(PLAYERS[2])["text"]


async def test_a_deep_link_to_no_game_is_answered_and_changes_nothing(db: str) -> None:
    async with FakeBotAPI() as api:
        with_stranger(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            before = appended(app)

            api.send_text(STRANGER, STRANGER, "/start jgNOSUCHGAME")
            await settle(api, app)

            assert appended(app) == before
            assert "no game" in api.last_message(STRANGER)["text"].lower()


async def test_a_groups_next_game_id_cannot_be_worked_out_from_its_chat_id(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS[:2])
            game_id = bot_services(app).active_game(GROUP)

            # What anyone could compute from the group's id and a count of its games.
            digest = hashlib.sha256(f"{GROUP}:1".encode()).digest()
            assert game_id != "g" + base64.urlsafe_b64encode(digest).decode()[:10]
            assert lobby_button(api, lobby, 0)  # the lobby is up


def finished_games(url: str) -> tuple[str, str]:
    """Two finished games of the group, stored before the bot starts (it announces
    neither): one the stranger played in (seated by a deep link, before joins were
    checked), one they had no part in."""
    store = EventStore(make_engine(url))
    theirs = store_game(store, play(41, 3, chat_id=GROUP, first_player_id=STRANGER).events, 1)
    others = store_game(store, play(42, 3, chat_id=GROUP, first_player_id=PLAYERS[0]).events, 2)
    BotState(store.engine).save_position(store.last_position())
    store.engine.dispose()
    return theirs, others


def pictures_to(api: FakeBotAPI, chat: int, since: int) -> list[str]:
    """The pictures and animations the bot sent to, or put in place in, ``chat``."""
    media = ("sendPhoto", "sendAnimation", "editMessageMedia")
    return [c.method for c in api.calls[since:] if c.method in media and c.get("chat_id") == chat]


async def test_a_replay_is_not_shown_to_someone_who_once_played_in_the_group_but_is_not_in_it(
    db: str,
) -> None:
    _, others = finished_games(db)
    async with FakeBotAPI() as api:
        with_stranger(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(STRANGER, STRANGER, "/stats")  # catches the history up
            await settle(api, app)
            before, calls = appended(app), len(api.calls)

            api.send_text(STRANGER, STRANGER, f"/replay {others}")
            await settle(api, app)

            assert appended(app) == before
            assert pictures_to(api, STRANGER, calls) == []
            assert "another group" in api.last_message(STRANGER)["text"]
            asked = api.calls_of("getChatMember")[-1]
            assert (asked["chat_id"], asked["user_id"]) == (GROUP, STRANGER)


def replay_button(api: FakeBotAPI, message: dict[str, Any], label: str) -> str:
    found = next(b for row in api.keyboard(message) for b in row if b.text.strip("·") == label)
    assert found.callback_data is not None
    return found.callback_data


async def test_the_replays_buttons_stop_working_for_someone_who_left_the_group(db: str) -> None:
    _, others = finished_games(db)
    member = PLAYERS[2] + 10  # no player of that game
    async with FakeBotAPI() as api:
        seat(api, GROUP, [*PLAYERS, member])
        api.send_text(GROUP, member, "hi")  # in the group
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(member, member, f"/replay {others}")
            await settle(api, app)
            replay = api.last_message(member)
            assert replay["caption"].startswith(f"Replay {others}")
            shown = replay["caption"]

            api.chat_member(GROUP, member, "member", "left")
            await settle(api, app)
            before, calls = appended(app), len(api.calls)
            step = await press_and_wait(
                api, app, member, member, replay["message_id"], replay_button(api, replay, "▶")
            )
            gif = await press_and_wait(
                api, app, member, member, replay["message_id"], replay_button(api, replay, "🎞 GIF")
            )

            assert appended(app) == before
            assert pictures_to(api, member, calls) == []
            assert api.messages[member][replay["message_id"]]["caption"] == shown
            assert step.get("show_alert") and "another group" in step["text"]
            assert gif.get("show_alert") and "another group" in gif["text"]


OTHER_GROUP = -3002
OTHERS = [41, 42, 43]


async def replay_in(api: FakeBotAPI, app: BotApplication, chat: int, user: int, game: str) -> Any:
    """The replay of ``game`` opened in ``chat`` by ``user`` (the message, as shown)."""
    api.send_text(chat, user, f"/replay {game}")
    await settle(api, app)
    message = api.last_message(chat)
    assert message["caption"].startswith(f"Replay {game}")
    return message


def live_board(api: FakeBotAPI, chat: int) -> dict[str, Any]:
    """The group's board of the running game (its newest picture that is no replay)."""
    return next(
        m
        for m in reversed(api.messages_in(chat))
        if m.get("photo") and not m.get("caption", "").startswith("Replay")
    )


@pytest.mark.parametrize("where", ["another group", "the same group"])
async def test_a_replay_button_pressed_on_a_live_board_is_refused_and_changes_nothing(
    db: str, where: str
) -> None:
    _, others = finished_games(db)
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        seat(api, OTHER_GROUP, OTHERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            board_chat, board_players = (
                (OTHER_GROUP, OTHERS) if where == "another group" else (GROUP, PLAYERS)
            )
            await start_game(api, app, board_chat, board_players)
            replay = await replay_in(api, app, GROUP, PLAYERS[0], others)
            copied = replay_button(api, replay, "▶")
            board = live_board(api, board_chat)
            before, calls = appended(app), len(api.calls)

            answer = await press_and_wait(
                api, app, board_chat, board_players[0], board["message_id"], copied
            )

            assert appended(app) == before
            assert sent_to(api, board_chat, calls) == []
            assert api.messages[board_chat][board["message_id"]] == board
            assert answer.get("show_alert") and "another replay" in answer["text"]


async def test_a_prompts_button_pressed_on_another_message_changes_nothing_there(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            await start_game(api, app, GROUP, PLAYERS)
            found = Table(api, app, GROUP, PLAYERS).prompt_owner()
            assert found is not None
            player, prompt = found
            card = next(
                b.callback_data
                for row in api.keyboard(prompt)
                for b in row
                if b.callback_data and getattr(peek(b.callback_data), "action", "") == CARD
            )
            welcome = api.messages_in(player)[0]  # the answer to /start: no buttons
            before, calls = appended(app), len(api.calls)

            answer = await press_and_wait(api, app, player, player, welcome["message_id"], card)

            assert appended(app) == before
            assert sent_to(api, player, calls) == []
            assert api.messages[player][welcome["message_id"]] == welcome
            assert answer.get("show_alert") and "another message" in answer["text"]


REAL_LIMITS = {"throttle_presses": 12, "throttle_chat_presses": 40, "throttle_seconds": 6.0}


async def test_a_flood_of_presses_makes_one_picture_and_a_quiet_slow_down(db: str) -> None:
    _, others = finished_games(db)
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db, env=REAL_LIMITS) as app:
            await settle(api, app)
            replay = await replay_in(api, app, GROUP, PLAYERS[0], others)
            forward = replay_button(api, replay, "▶")
            before, calls = appended(app), len(api.calls)

            queries = [
                api.press(GROUP, PLAYERS[1], replay["message_id"], forward) for _ in range(200)
            ]
            answers = [await api.wait_for(lambda q=q: api.answered.get(q), 20) for q in queries]
            await settle(api, app)

            assert appended(app) == before
            edits = [c for c in api.calls[calls:] if c.method == "editMessageMedia"]
            assert len(edits) == 1  # the first press moved on; the same step again is skipped
            slowed = [a for a in answers if "Slow down" in a.get("text", "")]
            assert len(slowed) >= 200 - REAL_LIMITS["throttle_presses"]
            assert not any(a.get("show_alert") for a in slowed)  # quiet: no pop-up
            assert sent_to(api, GROUP, calls) == [e.params for e in edits]


async def test_a_flood_of_commands_is_told_to_slow_down_once_and_does_no_work(db: str) -> None:
    async with FakeBotAPI() as api:
        with_stranger(api)
        async with running_bot(api, db, env=REAL_LIMITS) as app:
            await settle(api, app)
            before, sent = appended(app), len(api.messages_in(STRANGER))

            for _ in range(60):
                api.send_text(STRANGER, STRANGER, "/rules")
            await settle(api, app)

            assert appended(app) == before
            replies = [m["text"] for m in api.messages_in(STRANGER)[sent:]]
            slowed = [text for text in replies if "Slow down" in text]
            assert len(slowed) == 1
            rules = len(replies) - len(slowed)
            assert rules <= REAL_LIMITS["throttle_presses"] * 3  # /rules answers in a few


async def test_a_name_longer_than_telegram_allows_is_accepted_and_shortened_for_display(
    fresh_db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    db = fresh_db_url  # on PostgreSQL too, whose columns have a length
    long_name = "Ⓛ" + "o" * 298 + "ng"  # 301 characters: more than any Telegram name
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        api.user(PLAYERS[1], long_name)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS)
            await press_and_wait(
                api, app, GROUP, PLAYERS[0], lobby["message_id"], lobby_button(api, lobby, 2)
            )
            await Table(api, app, GROUP, PLAYERS).play_one()

            game_id = bot_services(app).active_game(GROUP)
            state, _ = bot_services(app).load(str(game_id))
            assert state.phase == "playing" and PLAYERS[1] in state.seating
            shown = [m.get("text", "") + m.get("caption", "") for m in api.messages_in(GROUP)]
            assert any("Ⓛooo" in text for text in shown)
            assert not any(long_name in text for text in shown)
            assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []


async def test_a_history_page_button_pressed_on_another_message_changes_nothing_there(
    db: str,
) -> None:
    store = EventStore(make_engine(db))
    finished = play(43, 3, chat_id=GROUP, first_player_id=PLAYERS[0]).events
    for day in range(11):  # more than a page
        store_game(store, finished, day)
    BotState(store.engine).save_position(store.last_position())
    store.engine.dispose()
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(GROUP, PLAYERS[0], "/history")
            await settle(api, app, timeout=60)
            older = replay_button(api, api.last_message(GROUP), "Older ▶")
            api.send_text(GROUP, PLAYERS[0], "/help")
            await settle(api, app)
            help_message = api.last_message(GROUP)
            before, calls = appended(app), len(api.calls)

            answer = await press_and_wait(
                api, app, GROUP, PLAYERS[1], help_message["message_id"], older
            )

            assert appended(app) == before
            assert sent_to(api, GROUP, calls) == []
            assert api.messages[GROUP][help_message["message_id"]] == help_message
            assert answer.get("show_alert")


async def test_the_mini_app_refuses_someone_who_once_played_in_the_group_but_is_not_in_it(
    db: str,
) -> None:
    finished_games(db)  # the stranger played one of the group's games, once
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game):
        api.user(STRANGER, "Mallory")
        await asyncio.to_thread(bot_services(app).projector.catch_up)  # the games it knows
        async with miniapp_served(app, api) as (page, _), aiohttp.ClientSession() as http:
            raw = init_data(api, STRANGER, game=game)
            before = appended(app)
            async with http.get(f"{page}api/game/{game}", headers=auth(raw)) as r:
                status, body = r.status, await r.json()
            async with http.get(f"{page}api/game/{game}/live", headers=auth(raw)) as r:
                live_status = r.status  # a stream, were it let through
                live = await r.json() if r.status == 403 else {}

            assert (status, live_status) == (403, 403)
            assert body["error"] == live["error"] == Texts("en").t("miniapp.not_member")
            assert "state" not in body and "state" not in live
            assert appended(app) == before
            asked = api.calls_of("getChatMember")[-1]
            assert (asked["chat_id"], asked["user_id"]) == (GROUP, STRANGER)
