"""Buttons that cannot count change nothing; Telegram's failures are handled; a restart
repeats no announcement."""

from __future__ import annotations

import asyncio
import copy
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from domain.commands import TimeOut
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    Table,
    bot_services,
    press_and_wait,
    running_bot,
    settle,
    start_game,
)
from tgbot.presenter.callback import peek
from tgbot.presenter.keyboards import COMMAND_ACTIONS as COMMANDS
from tgbot.telegram.app import BotApplication

GROUP = -2002
PLAYERS = [11, 12, 13]

pytestmark = pytest.mark.timeout(60)


@dataclass
class Game:
    api: FakeBotAPI
    app: BotApplication
    game_id: str
    group: int = GROUP
    players: list[int] = field(default_factory=lambda: list(PLAYERS))

    def version(self) -> int:
        return bot_services(self.app).store.version(self.game_id)

    def prompt(self) -> tuple[int, dict[str, Any]]:
        found = Table(self.api, self.app, self.group, self.players).prompt_owner()
        assert found is not None
        return found

    def button(self, message: dict[str, Any], index: int = 0) -> str:
        buttons = [b for row in self.api.keyboard(message) for b in row if b.callback_data]
        data = buttons[index].callback_data
        assert data is not None
        return data


async def lobby(api: FakeBotAPI, app: BotApplication, players: list[int]) -> dict[str, Any]:
    api.send_text(GROUP, players[0], "/newgame base")
    await settle(api, app)
    message = next(m for m in api.messages_in(GROUP) if api.keyboard(m))
    join = next(b for row in api.keyboard(message) for b in row if "Join" in b.text)
    for player in players[1:]:
        await press_and_wait(api, app, GROUP, player, message["message_id"], join.callback_data)  # type: ignore[arg-type]
    return message


async def started(api: FakeBotAPI, app: BotApplication) -> Game:
    message = await lobby(api, app, PLAYERS)
    start = next(b for row in api.keyboard(message) for b in row if "Start" in b.text)
    await press_and_wait(api, app, GROUP, PLAYERS[0], message["message_id"], start.callback_data)  # type: ignore[arg-type]
    game_id = bot_services(app).active_game(GROUP)
    assert game_id is not None
    return Game(api, app, game_id)


def world(api: FakeBotAPI, *, opened: bool = True) -> None:
    api.group(GROUP, "Mine", admins=(PLAYERS[0],))
    for p in PLAYERS:
        api.user(p, f"P{p}", "en", opened=opened)
        if opened:
            api.send_text(p, p, "/start")


@pytest.fixture
async def game(db: str) -> AsyncIterator[Game]:
    async with FakeBotAPI() as api:
        world(api)
        async with running_bot(api, db, seed=3) as app:
            await settle(api, app)
            yield await started(api, app)


async def pick_a_placement(game: Game) -> tuple[int, dict[str, Any], str]:
    """Navigate the player on turn to a final button; returns (player, message, data)."""
    table = Table(game.api, game.app, game.group, game.players)
    for _ in range(20):
        player, message = game.prompt()
        buttons = [b for row in game.api.keyboard(message) for b in row if b.callback_data]
        finals = [b for b in buttons if peek(b.callback_data or "").action in COMMANDS]
        if finals:
            return player, message, finals[0].callback_data  # type: ignore[return-value]
        await table.play_one()
    raise AssertionError("no placement offered")


async def test_a_stale_button_is_refused_and_changes_nothing(game: Game) -> None:
    player, message, data = await pick_a_placement(game)
    services = bot_services(game.app)
    state, _ = services.load(game.game_id)
    assert state.pending is not None
    services.service.handle(game.game_id, TimeOut(state.pending.id))  # their time ran out
    await settle(game.api, game.app)
    version = game.version()

    answer = await press_and_wait(game.api, game.app, player, player, message["message_id"], data)

    assert answer.get("show_alert") and "out of date" in answer["text"]
    assert game.version() == version


async def test_a_double_press_counts_once(game: Game) -> None:
    player, message, data = await pick_a_placement(game)
    version = game.version()
    first = game.api.press(player, player, message["message_id"], data)
    second = game.api.press(player, player, message["message_id"], data)
    await game.api.wait_for(lambda: first in game.api.answered and second in game.api.answered)
    await settle(game.api, game.app)

    # The second tap finds its move made: answered quietly, it changes nothing.
    answers = (game.api.answered[first], game.api.answered[second])
    assert [a for a in answers if a.get("text") or a.get("show_alert")] == []
    moved = game.version() - version
    assert moved >= 2  # one move: the card, the draw, the next decision — once
    assert len([c for c in game.api.calls_of("sendPhoto") if c["chat_id"] == str(player)]) <= 2


async def test_another_players_button_is_refused_and_changes_nothing(game: Game) -> None:
    player, message, data = await pick_a_placement(game)
    other = next(p for p in PLAYERS if p != player)
    version = game.version()

    answer = await press_and_wait(game.api, game.app, player, other, message["message_id"], data)

    assert answer.get("show_alert") and "not meant for you" in answer["text"]
    assert game.version() == version


async def test_forged_callback_data_is_refused_and_changes_nothing(game: Game) -> None:
    player, message, data = await pick_a_placement(game)
    version = game.version()
    forged = data[:-2] + ("AA" if not data.endswith("AA") else "BB")

    answer = await press_and_wait(game.api, game.app, player, player, message["message_id"], forged)

    assert answer.get("show_alert") and "not valid" in answer["text"]
    assert game.version() == version


async def test_a_user_who_never_opened_the_private_chat_is_sent_there_to_join(db: str) -> None:
    async with FakeBotAPI() as api:
        world(api, opened=False)
        api.send_text(PLAYERS[0], PLAYERS[0], "/start")
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(GROUP, PLAYERS[0], "/newgame")
            await settle(api, app)
            message = next(m for m in api.messages_in(GROUP) if api.keyboard(m))
            join = next(b for row in api.keyboard(message) for b in row if "Join" in b.text)
            answer = await press_and_wait(
                api, app, GROUP, PLAYERS[1], message["message_id"], join.callback_data or ""
            )
            game_id = bot_services(app).active_game(GROUP)
            assert answer["url"] == f"https://t.me/saboteur_test_bot?start=j{game_id}"
            state, _ = bot_services(app).load(str(game_id))
            assert PLAYERS[1] not in state.seating
            # The group is told who is on the way, with the link for them.
            told = api.last_message(GROUP)
            assert told["text"].startswith(f"⏳ P{PLAYERS[1]}, open the private chat with me")
            [[link]] = api.keyboard(told)
            assert link.url == answer["url"]

            api.send_text(PLAYERS[1], PLAYERS[1], f"/start j{game_id}")
            await settle(api, app)

            state, _ = bot_services(app).load(str(game_id))
            assert PLAYERS[1] in state.seating
            assert "joined" in api.last_message(PLAYERS[1])["text"]
            assert "P12" in api.messages[GROUP][message["message_id"]]["text"]


async def test_a_restarted_bot_resumes_the_game_and_repeats_no_announcement(db: str) -> None:
    async with FakeBotAPI() as api:
        world(api)
        async with running_bot(api, db, seed=3) as app:
            await settle(api, app)
            game = await started(api, app)
            await Table(api, app, GROUP, PLAYERS).play_one()
            await Table(api, app, GROUP, PLAYERS).play_one()
        before = len(api.calls)
        sent_before = [c for c in api.calls if c.method in ("sendMessage", "sendPhoto")]

        async with running_bot(api, db, seed=99) as app:
            await settle(api, app)
            after_restart = [
                c for c in api.calls[before:] if c.method not in ("getMe", "getUpdates")
            ]
            # The menus are set again; the profile texts are read, unchanged, and not set.
            start_up = (
                "setMyCommands",
                "deleteWebhook",
                "getMyDescription",
                "getMyShortDescription",
            )
            assert all(c.method in start_up for c in after_restart)

            table = Table(api, app, GROUP, PLAYERS)
            version = bot_services(app).store.version(game.game_id)
            for _ in range(6):
                await table.play_one()
            assert bot_services(app).store.version(game.game_id) > version
        sent_after = [c for c in api.calls if c.method in ("sendMessage", "sendPhoto")]
        assert sent_after[: len(sent_before)] == sent_before


async def test_a_player_who_blocked_the_bot_is_named_in_the_group_with_the_fix(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        world(api)
        async with running_bot(api, db, seed=3) as app:
            await settle(api, app)
            blocked = PLAYERS[2]  # the first on turn (seed 3): a decision is theirs
            api.block(blocked)
            game = await started(api, app)

            notice = next(
                m for m in api.messages_in(GROUP) if "cannot write to" in m.get("text", "")
            )
            link = api.keyboard(notice)[0][0].url
            assert link == f"https://t.me/saboteur_test_bot?start=r{game.game_id}"

            api.unblock(blocked)
            state, _ = bot_services(app).load(game.game_id)
            assert state.pending is not None and state.pending.player == blocked
            api.send_text(blocked, blocked, f"/start r{game.game_id}")
            await settle(api, app)
            # The decision that could not be written to them is sent again, with its buttons.
            assert api.keyboard(api.last_message(blocked))


async def test_a_group_turned_supergroup_is_followed_to_its_new_id(db: str) -> None:
    async with FakeBotAPI() as api:
        world(api)
        async with running_bot(api, db, seed=3) as app:
            await settle(api, app)
            await lobby(api, app, PLAYERS[:2])
            api.migrate(GROUP, -1009999)
            await settle(api, app)
            message = next(m for m in api.messages_in(GROUP) if api.keyboard(m))
            join = next(b for row in api.keyboard(message) for b in row if "Join" in b.text)
            api.send_text(-1009999, PLAYERS[2], "/join")
            await settle(api, app)
            game_id = bot_services(app).active_game(-1009999)
            assert game_id is not None
            state, _ = bot_services(app).load(game_id)
            assert PLAYERS[2] in state.seating
            assert any("P13" in m.get("text", "") for m in api.messages_in(-1009999))
            del join


async def test_message_not_modified_and_flood_limits_do_not_stop_the_announcer(
    game: Game,
) -> None:
    api = game.api
    api.fail_next("editMessageMedia", 400, "Bad Request: message is not modified")
    api.fail_next("sendPhoto", 429, retry_after=1)
    sent = len(api.calls_of("sendPhoto"))
    table = Table(api, game.app, GROUP, PLAYERS)

    for _ in range(6):
        await table.play_one()

    assert len(api.calls_of("sendPhoto")) > sent + 1  # the refused photo was sent again
    position = game.app.bot_data["announcer"].position
    assert position == bot_services(game.app).store.last_position()


async def test_a_slow_game_does_not_hold_up_another_groups_presses(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    other_group, others = -2003, [14, 15, 16]
    async with FakeBotAPI() as api:
        world(api)
        api.group(other_group, "Other", admins=(others[0],))
        for p in others:
            api.user(p, f"P{p}", "en")
            api.send_text(p, p, "/start")
        async with running_bot(api, db, seed=3) as app:
            await settle(api, app)
            slow = await started(api, app)
            fast = await start_game(api, app, other_group, others)
            service = bot_services(app).service
            real_execute = service.execute

            entered = threading.Event()

            def execute(game_id: str, *args: Any, **kwargs: Any) -> Any:
                if game_id == slow.game_id:
                    entered.set()
                    time.sleep(1.0)  # a slow database for this game only
                return real_execute(game_id, *args, **kwargs)

            monkeypatch.setattr(service, "execute", execute)
            player, message, data = await pick_a_placement(slow)
            other = Game(api, app, fast, other_group, others)
            other_player, other_message, other_data = await pick_a_placement(other)

            first = api.press(player, player, message["message_id"], data)
            assert await asyncio.to_thread(entered.wait, 60)  # the slow press is being handled
            second = api.press(other_player, other_player, other_message["message_id"], other_data)
            await api.wait_for(lambda: first in api.answered and second in api.answered)

            assert list(api.answered).index(second) < list(api.answered).index(first)


def a_step(game: Game, prompt: dict[str, Any]) -> str:
    """The callback data of ``prompt``'s first button that takes a step inside the
    decision (redraws the prompt) rather than decides it."""
    return next(
        b.callback_data
        for row in game.api.keyboard(prompt)
        for b in row
        if b.callback_data and peek(b.callback_data).action not in COMMANDS
    )


async def test_a_step_on_a_prompt_a_newer_one_replaced_is_refused_and_leaves_one_live(
    game: Game,
) -> None:
    """A press reaches a prompt after a newer one for the same decision took its place
    (sent again by an instance that took the game over, or by ``/hand``): drawing the
    step there would give the old one its buttons back, two live prompts. It is refused,
    and the old one keeps no buttons."""
    player, old = game.prompt()
    step = a_step(game, old)
    buttons = copy.deepcopy(old["reply_markup"])
    game.api.send_text(player, player, "/hand")  # the prompt again, as the newest message
    await settle(game.api, game.app)
    # The old one shows its buttons still (the player's app had not caught up, or an
    # earlier step drawn there landed after they were taken off).
    game.api.messages[player][old["message_id"]]["reply_markup"] = buttons
    version = game.version()

    answer = await press_and_wait(game.api, game.app, player, player, old["message_id"], step)
    await settle(game.api, game.app)

    assert answer.get("show_alert") and "replaced" in answer["text"]
    assert game.version() == version
    live = [m for m in game.api.messages_in(player) if game.api.keyboard(m)]
    assert [m["message_id"] for m in live] == [game.prompt()[1]["message_id"]]
    assert live[0]["message_id"] > old["message_id"]


async def test_a_step_redrawn_after_its_prompt_was_replaced_meanwhile_leaves_one_live(
    game: Game,
) -> None:
    """A step's redraw is slow, and a newer prompt for the same decision takes the old
    one's buttons off while it is on its way: landing, the redraw would give them back.
    Once it landed, the old prompt is found replaced and loses them again."""
    player, old = game.prompt()
    step = a_step(game, old)
    game.api.slow("editMessageMedia", 3.0)
    edits = len(game.api.calls_of("editMessageMedia"))
    pressed = game.api.press(player, player, old["message_id"], step)
    await game.api.wait_for(lambda: len(game.api.calls_of("editMessageMedia")) > edits)
    game.api.send_text(player, player, "/hand")  # the prompt again, while the redraw is slow
    await game.api.wait_for(
        lambda: any(
            c["message_id"] == old["message_id"]
            for c in game.api.calls_of("editMessageReplyMarkup")
        )
    )
    await game.api.wait_for(lambda: pressed in game.api.answered, timeout=10)
    await settle(game.api, game.app, timeout=20)

    live = [m for m in game.api.messages_in(player) if game.api.keyboard(m)]
    assert [m["message_id"] for m in live] == [game.prompt()[1]["message_id"]]
    assert live[0]["message_id"] > old["message_id"]
