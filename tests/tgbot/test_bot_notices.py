"""What the announcer tells the chats, checked through the fake Bot API."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import socket
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from telegram import Bot
from telegram.error import NetworkError, TimedOut

from domain.commands import AddComputerPlayer, MakeComputerMove, RemindPlayer, TimeOut
from domain.events import RoundEnded
from domain.moves import computer_moves, legal_moves
from domain.state import GameState
from infra.archive import export_game, import_game
from infra.bootstrap import bootstrap
from infra.botstate import BotState
from infra.claims import Claims
from infra.game_service import now_ms
from infra.migrations import upgrade
from infra.settings import load_settings
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    Table,
    announcer_of,
    bot_services,
    game_running,
    lobby_button,
    move_outside_the_bot,
    open_game,
    press_and_wait,
    running_bot,
    seat,
    settle,
    start_game,
)
from tests.tgbot.instances_harness import stop, until
from tgbot.delivery.announcer import Announcer
from tgbot.presenter.callback import peek
from tgbot.presenter.caption import fit_caption
from tgbot.presenter.keyboards import CARD
from tgbot.presenter.messages import Slot
from tgbot.presenter.telegram_html import CAPTION_LIMIT, length
from tgbot.presenter.texts import Texts
from tgbot.telegram.context import compose

BOARD, PROMPT = Slot.BOARD, Slot.PROMPT

GROUP = -3003
PLAYERS = [21, 22, 23]

pytestmark = pytest.mark.timeout(120)


async def test_a_reminder_tells_the_player_the_real_time_left(db: str) -> None:
    # The game's clock runs 150 s behind: a 180 s turn opened now ends in about 30 s.
    async with (
        FakeBotAPI() as api,
        game_running(api, db, GROUP, PLAYERS, clock_ms=lambda: now_ms() - 150_000) as (
            app,
            game_id,
        ),
    ):
        services = bot_services(app)
        state, _ = services.load(game_id)
        assert state.pending is not None
        services.service.handle(game_id, RemindPlayer(state.pending.id, "half"))
        await settle(api, app)

        reminded = api.last_message(state.pending.player)
        text = reminded["caption"]  # the prompt again, buttons and all, as the newest message
        assert text.startswith("⏳") and api.keyboard(reminded)
        found = re.search(r"half of your time is gone: (\d+) s left", text)
        assert found is not None, text
        assert 15 <= int(found.group(1)) <= 30


@pytest.mark.parametrize("failures", [1, 10])
async def test_a_failed_telegram_call_repeats_nothing_and_holds_up_no_other_game(
    db: str, failures: int
) -> None:
    other_group, others = -3004, [31, 32, 33]
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        seat(api, other_group, others)
        async with running_bot(api, db) as app:
            await settle(api, app)
            first = await start_game(api, app, GROUP, PLAYERS)
            second = await start_game(api, app, other_group, others)
            boards = {g: _board(api, g) for g in (GROUP, other_group)}
            counts = {p: len(api.messages_in(p)) for p in PLAYERS + others}
            # The first game's board edit answers 502 Bad Gateway (once, or every time).
            api.fail_next("editMessageMedia", 502, "Bad Gateway", chat_id=GROUP, times=failures)

            # Both moves land before the announcer looks: one batch for both games.
            next_first = move_outside_the_bot(app, first)
            next_second = move_outside_the_bot(app, second)
            await settle(api, app)

            new = {p: len(api.messages_in(p)) - counts[p] for p in counts}
            assert new[next_first] == 1 and new[next_second] == 1
            assert sum(new.values()) == 2  # nobody got a prompt twice
            assert _board(api, other_group) != boards[other_group]
            if failures == 1:  # tried again, and shown
                assert _board(api, GROUP) != boards[GROUP]

            # The next round of announcements repeats nothing either.
            move_outside_the_bot(app, second)
            await settle(api, app)
            assert len(api.messages_in(next_first)) - counts[next_first] == 1


def _board(api: FakeBotAPI, group: int) -> str:
    photos = [m for m in api.messages_in(group) if "photo" in m]
    return str(photos[-1].get("caption", ""))


async def test_a_game_whose_announcing_failed_is_told_later_once_and_the_others_at_once(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    other_group, others = -3004, [31, 32, 33]
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        seat(api, other_group, others)
        async with running_bot(api, db) as app:
            await settle(api, app)
            first = await start_game(api, app, GROUP, PLAYERS)
            second = await start_game(api, app, other_group, others)
            counts = {p: len(api.messages_in(p)) for p in PLAYERS + others}
            announcer = announcer_of(app)
            real = announcer.present
            broken = [True]

            async def present_once_broken(game_id: str, *args: Any) -> Any:
                if game_id == first and broken:
                    broken.clear()
                    raise RuntimeError("the database went away")
                return await real(game_id, *args)

            monkeypatch.setattr(announcer, "present", present_once_broken)
            next_first = move_outside_the_bot(app, first)
            next_second = move_outside_the_bot(app, second)
            await settle(api, app)

            assert not broken
            new = {p: len(api.messages_in(p)) - counts[p] for p in counts}
            assert new[next_first] == 1 and new[next_second] == 1
            assert sum(new.values()) == 2
            assert announcer.deliveries.owing() == set()


async def test_a_batch_that_failed_after_sending_is_not_announced_again(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        announcer = announcer_of(app)
        botstate = announcer.services.botstate
        save = botstate.save_message
        failed: list[str] = []

        def save_message(stream: str, chat: int, role: str, *args: Any) -> None:
            if role == PROMPT and not failed:  # the prompt went out, then the database fell
                failed.append(role)
                raise RuntimeError("the database went away")
            save(stream, chat, role, *args)

        monkeypatch.setattr(botstate, "save_message", save_message)
        counts = {p: len(api.messages_in(p)) for p in PLAYERS}
        player = move_outside_the_bot(app, game_id)
        await settle(api, app)

        assert failed
        new = api.messages_in(player)[counts[player] :]
        assert len(new) == 1  # the prompt, once
        assert announcer.deliveries.owing() == set()

        # The game goes on: the next move is announced as usual.
        after = move_outside_the_bot(app, game_id)
        await settle(api, app)
        assert len(api.messages_in(after)) > counts[after]


async def test_a_creator_who_never_opened_the_private_chat_is_named_once_with_the_link(
    db: str,
) -> None:
    creator, *others = PLAYERS
    async with FakeBotAPI() as api:
        api.group(GROUP, "Mine", admins=(creator,))
        api.user(creator, "Boss", "en", opened=False)
        for p in others:
            api.user(p, f"P{p}", "en")
            api.send_text(p, p, "/start")
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(GROUP, creator, "/newgame")
            await settle(api, app)
            hint = next(m for m in api.messages_in(GROUP) if "private chat" in m.get("text", ""))
            assert "Join again" not in hint["text"] and "seat is taken" in hint["text"]
            lobby = next(m for m in api.messages_in(GROUP) if "Join" in str(m.get("reply_markup")))
            for p in others:
                await press_and_wait(
                    api, app, GROUP, p, lobby["message_id"], lobby_button(api, lobby, 0)
                )
            await press_and_wait(
                api, app, GROUP, creator, lobby["message_id"], lobby_button(api, lobby, 2)
            )
            game_id = bot_services(app).active_game(GROUP)

            notices = [m for m in api.messages_in(GROUP) if "cannot write to" in m.get("text", "")]
            assert len(notices) == 1 and "Boss" in notices[0]["text"]
            assert "P22" not in notices[0]["text"] and "P23" not in notices[0]["text"]
            link = api.keyboard(notices[0])[0][0].url
            assert link == f"https://t.me/saboteur_test_bot?start=r{game_id}"

            api.send_text(creator, creator, f"/start r{game_id}")
            await settle(api, app)
            opened = api.last_message(creator)
            assert "Your cards:" in (opened.get("text") or opened.get("caption"))


async def test_the_deadline_reads_as_time_left_and_is_counted_again_when_redrawn(
    db: str,
) -> None:
    clock = [now_ms()]
    async with (
        FakeBotAPI() as api,
        game_running(api, db, GROUP, PLAYERS, clock_ms=lambda: clock[0]) as (app, game_id),
    ):
        state, _ = bot_services(app).load(game_id)
        assert state.pending is not None
        player, deadline = state.pending.player, state.pending.deadline
        until = dt.datetime.fromtimestamp(deadline / 1000, dt.UTC).strftime("%H:%M UTC")
        board = [m for m in api.messages_in(GROUP) if "photo" in m][-1]
        assert f"⏳ 3 min left (until {until})" in board["caption"]
        prompt = api.last_message(player)
        assert "⏳ 3 min left" in prompt["caption"]

        clock[0] += 150_000  # two and a half minutes later the player picks a card
        card = next(
            b.callback_data
            for row in api.keyboard(prompt)
            for b in row
            if b.callback_data and peek(b.callback_data).action == CARD
        )
        await press_and_wait(api, app, player, player, prompt["message_id"], card)

        redrawn = api.messages[player][prompt["message_id"]]["caption"]
        assert f"⏳ 30 s left (until {until})" in redrawn


def well_formed(caption: str) -> bool:
    """Only whole mention links as tags, each closed, and only whole entities."""
    tags = re.findall(r"<[^>]*>", caption)
    opened = [t for t in tags if t.startswith("<a ")]
    closed = [t for t in tags if t == "</a>"]
    links_ok = all(re.fullmatch(r'<a href="tg://user\?id=\d+">', t) for t in opened)
    rest = re.sub(r"<[^>]*>", "", caption)
    entities_ok = all(
        re.match(r"&(amp|lt|gt|quot|#\d+);", rest[i:]) for i in range(len(rest)) if rest[i] == "&"
    )
    return links_ok and len(opened) == len(closed) and "<" not in rest and entities_ok


async def test_twelve_long_names_fit_with_the_player_on_turn_and_the_deadline_first(
    db: str,
) -> None:
    players = list(range(61, 73))
    names = {
        p: f"Dwarf <{p}> & Sons of the Deep Mine, Keepers of the Lantern {p}"[:64] for p in players
    }
    async with FakeBotAPI() as api:
        api.group(GROUP, "Mine", admins=(players[0],))
        for p in players:
            api.user(p, names[p], "en")
            api.send_text(p, p, "/start")
        async with running_bot(api, db) as app:
            await settle(api, app)
            await start_game(api, app, GROUP, players, "saboteur2")
            table = Table(api, app, GROUP, players)
            for _ in range(8):
                await table.play_one()

            boards = [
                c.get("caption") or c["media"]["caption"]
                for c in api.calls
                if c.method in ("sendPhoto", "editMessageMedia") and str(c["chat_id"]) == str(GROUP)
            ]
            assert len(boards) > 3
            for caption in boards:
                assert length(caption) <= CAPTION_LIMIT and well_formed(caption), caption
                first, second = caption.split("\n")[:2]
                assert first.startswith('<a href="tg://user?id=') and "your turn" in first
                assert second.startswith("⏳") and "left" in second
            assert any("&lt;" in caption for caption in boards)
            prompts = [
                c.get("caption") or c["media"]["caption"]
                for c in api.calls
                if c.method in ("sendPhoto", "editMessageMedia") and str(c["chat_id"]) != str(GROUP)
            ]
            assert all(length(c) <= CAPTION_LIMIT and well_formed(c) for c in prompts)


def test_a_caption_that_cannot_fit_by_lines_is_cut_as_plain_text_without_broken_entities() -> None:
    lines = ['<a href="tg://user?id=1">A &amp; B</a> ' + "&lt;x&gt; " * 300]  # 1,206 as read
    caption = fit_caption(lines, [])
    assert length(caption) <= CAPTION_LIMIT and well_formed(caption)
    assert caption.endswith("…")


def sends(api: FakeBotAPI) -> list[tuple[str, str, str, str]]:
    return [
        (
            c.method,
            str(c["chat_id"]),
            str(c.get("text") or c.get("caption")),
            json.dumps(c.get("reply_markup"), sort_keys=True),
        )
        for c in api.calls
        if c.method in ("sendMessage", "sendPhoto")
    ]


async def test_two_bot_instances_on_one_postgres_database_announce_everything_once(
    empty_database: Callable[[str], str],
) -> None:
    url = empty_database("postgres")
    upgrade(url)
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        # Another instance of the bot: its own services and connection, the same database.
        services = bootstrap(load_settings(telegram_bot_token=api.token, database_url=url))
        bot = Bot(api.token, base_url=api.base_url, base_file_url=api.base_file_url)
        await bot.initialize()
        other = compose(services, bot)
        second = Announcer(other, other.outbox, poll_interval=0.05)
        task: asyncio.Task[None] | None = None
        try:
            async with running_bot(api, url) as app:
                await settle(api, app)
                task = asyncio.create_task(second.run())
                game_id = await start_game(api, app, GROUP, PLAYERS)
                table = Table(api, app, GROUP, PLAYERS)
                for _ in range(6):
                    await table.play_one()
                await settle(api, app)

                # Each game is announced by one instance, whichever holds its claim.
                first = announcer_of(app)
                assert (game_id in first.held) != (game_id in second.held)
                assert len(sends(api)) == len(set(sends(api))) > 6

            # The first instance stopped: the second takes over and goes on from there.
            before = len(sends(api))
            state = services.games.load(game_id).state
            assert state.pending is not None
            services.games.handle(game_id, legal_moves(state, state.pending.player)[0])
            await until(lambda: second.position == services.store.last_position())
            assert game_id in second.held
            await until(lambda: len(sends(api)) > before and not second.delivering)
            assert len(sends(api)) == len(set(sends(api)))
        finally:
            if task is not None:
                await stop(task)
            await bot.shutdown()
            services.close()


async def test_an_away_player_gets_no_prompts_until_they_press_im_back(db: str) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)

        def time_out() -> GameState:
            state, _ = services.load(game_id)
            assert state.pending is not None
            services.service.handle(game_id, TimeOut(state.pending.id))
            return services.load(game_id)[0]

        # Everyone's time runs out until someone has missed three turns in a row.
        state = time_out()
        while not state.away:
            state = time_out()
        await settle(api, app)
        (away,) = state.away
        notice = api.last_message(away)
        assert "three turns in a row" in (notice.get("text") or notice["caption"])
        back = next(b for row in api.keyboard(notice) for b in row if "I'm back" in b.text)
        photos = len([m for m in api.messages_in(away) if "photo" in m])

        while state.pending is not None and state.pending.player != away:
            state = time_out()  # round the table to the away player's turn
        await settle(api, app)
        assert len([m for m in api.messages_in(away) if "photo" in m]) == photos

        answer = await press_and_wait(
            api, app, away, away, notice["message_id"], back.callback_data or ""
        )
        assert "Welcome back" in answer["text"]

        state, _ = services.load(game_id)
        assert away not in state.away and state.pending is not None
        assert state.pending.player == away
        left = state.pending.deadline - now_ms()
        assert 170_000 < left <= 180_000  # a whole turn again
        prompt = api.last_message(away)
        assert "photo" in prompt and api.keyboard(prompt)
        assert "⏳ 3 min left" in prompt["caption"]
        assert not api.keyboard(api.messages[away][notice["message_id"]])


async def test_a_timeout_from_the_deadline_worker_is_announced_once_like_a_move(db: str) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        state, _ = services.load(game_id)
        assert state.pending is not None
        late = state.pending.player
        prompt = api.last_message(late)
        mark = len(api.calls)

        # As the deadline worker does: a TimeOut through the game service.
        services.service.handle(game_id, TimeOut(state.pending.id))
        await settle(api, app)

        after, _ = services.load(game_id)
        assert after.pending is not None
        following = after.pending.player
        calls = api.calls[mark:]
        boards = [c for c in calls if str(c.get("chat_id")) == str(GROUP)]
        assert [c.method for c in boards] == ["editMessageMedia"]
        caption = boards[0]["media"]["caption"]
        assert caption.startswith(f'<a href="tg://user?id={following}">')
        assert f"⏰ P{late} ran out of time." in caption
        assert f"P{late} passed, discarding 1 card." in caption
        assert not api.keyboard(api.messages[late][prompt["message_id"]])
        prompts = [c for c in calls if c.method == "sendPhoto"]
        assert [str(c["chat_id"]) for c in prompts] == [str(following)]

        assert await announcer_of(app).catch_up() == 0
        assert len(api.calls) == mark + len(calls)


async def test_a_game_imported_into_the_bots_database_is_never_announced(db: str) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        state, _ = services.load(game_id)
        assert state.pending is not None
        mark = len(api.calls)

        # A developer loads the running game's export under a new id: same chat id.
        copy, _ = import_game(services.store, export_game(services.store, game_id))
        services.service.handle(copy, TimeOut(state.pending.id))
        services.wake.set()
        await settle(api, app)

        assert api.calls[mark:] == []
        assert services.active_game(GROUP) == game_id


async def test_an_instance_that_takes_a_game_back_edits_the_board_another_instance_posted(
    db: str,
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        services = bot_services(app)
        announcer = announcer_of(app)
        old_board = services.botstate.message(game_id, GROUP, BOARD)
        assert old_board is not None

        # Another instance takes the game over (this one gave it up) and posts the board anew.
        other = Claims(services.store.engine, "other")
        announcer.claims.give_up([game_id])
        assert other.take([game_id], now_ms() + 60_000) == {game_id}
        await api.wait_for(lambda: game_id not in announcer.held or None, 10)
        posted = await app.bot.send_photo(GROUP, photo=api.photo_bytes(_photos(api)[-1]))
        BotState(services.store.engine).save_message(game_id, GROUP, BOARD, posted.message_id, 0)
        other.leave()

        move_outside_the_bot(app, game_id)
        await settle(api, app)

        assert game_id in announcer.held
        edits = api.calls_of("editMessageMedia")
        assert edits and edits[-1]["message_id"] == posted.message_id != old_board.message_id


def _photos(api: FakeBotAPI) -> list[dict[str, Any]]:
    return [m for m in api.messages_in(GROUP) if "photo" in m]


class LosingAnswers:
    """The bot's Telegram calls, of which the next ``send_photo`` (to ``chat``, if given)
    fails: after Telegram carried it out (the answer timed out), or before it left (no
    connection)."""

    def __init__(
        self, bot: Any, error: NetworkError, *, arrived: bool, chat: int | None = None
    ) -> None:
        self.bot, self.error, self.arrived, self.chat = bot, error, arrived, chat
        self.failed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    async def send_photo(self, **kwargs: Any) -> Any:
        if self.failed or self.chat not in (None, kwargs.get("chat_id")):
            return await self.bot.send_photo(**kwargs)
        self.failed = True
        if self.arrived:
            await self.bot.send_photo(**kwargs)
        raise self.error


async def refused_connection() -> NetworkError:
    """The error the bot's aiohttp requests raise when no connection can be opened."""
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    async with aiohttp.ClientSession() as session:
        try:
            await session.get(f"http://127.0.0.1:{port}/")
        except aiohttp.ClientConnectorError as error:
            try:
                raise NetworkError(f"aiohttp.{type(error).__name__}: {error}") from error
            except NetworkError as wrapped:
                return wrapped
    raise AssertionError("a closed port answered")


@pytest.mark.parametrize("arrived", [True, False])
async def test_a_prompt_whose_answer_was_lost_is_sent_again_and_one_never_sent_is_sent(
    db: str, arrived: bool
) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        announcer = announcer_of(app)
        outbox = announcer.outbox
        error = TimedOut() if arrived else await refused_connection()
        outbox.bot = LosingAnswers(outbox.bot, error, arrived=arrived)  # type: ignore[assignment]
        counts = {p: len(api.messages_in(p)) for p in PLAYERS}

        player = move_outside_the_bot(app, game_id)
        await settle(api, app)
        await until(lambda: not announcer.deliveries.owing())

        assert outbox.bot.failed  # type: ignore[attr-defined]
        new = [m for m in api.messages_in(player)[counts[player] :] if "photo" in m]
        # Not knowing whether it arrived, the bot sent it again: the player has a prompt.
        assert len(new) == (2 if arrived else 1)
        live = bot_services(app).botstate.message(game_id, player, PROMPT)
        assert live is not None and live.message_id == new[-1]["message_id"]
        assert api.keyboard(new[-1])


@pytest.mark.parametrize("arrived", [True, False])
async def test_a_board_posted_again_whose_answer_was_lost_is_not_posted_twice(
    db: str, arrived: bool
) -> None:
    """After a board posted anew that may have arrived, the next redraw has no board to
    edit and posts one: if its answer is lost too, it is not posted a second time."""
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        announcer = announcer_of(app)
        outbox = announcer.outbox
        await outbox.forget_board(game_id, GROUP)
        error = TimedOut() if arrived else await refused_connection()
        outbox.bot = LosingAnswers(outbox.bot, error, arrived=arrived, chat=GROUP)  # type: ignore[assignment]
        before = len(_photos(api))

        move_outside_the_bot(app, game_id)
        await settle(api, app)
        await until(lambda: not announcer.deliveries.owing())
        assert outbox.bot.failed  # type: ignore[attr-defined]

        # Not knowing whether it arrived, the bot does not post it again; one that surely
        # never left is posted: either way the group sees the board once.
        assert len(_photos(api)) == before + 1

        # The next move's redraw edits the board posted, or, not knowing whether it
        # arrived, posts the board anew.
        move_outside_the_bot(app, game_id)
        await settle(api, app)
        await until(lambda: not announcer.deliveries.owing())
        assert len(_photos(api)) == before + (2 if arrived else 1)


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
async def test_the_round_end_message_reveals_the_dwarf_card_set_aside(
    db: str, edition: str
) -> None:
    async with (
        FakeBotAPI() as api,
        game_running(api, db, GROUP, PLAYERS, edition) as (app, game_id),
    ):
        services = bot_services(app)
        for _ in range(1000):  # the first move each turn, until the round ends
            state, _ = services.load(game_id)
            if state.round > 1 or state.phase != "playing":
                break
            assert state.pending is not None
            services.service.handle(game_id, legal_moves(state, state.pending.player)[0])
        await settle(api, app)

        ended = next(
            e
            for e in services.service.events(game_id, after_version=0)
            if isinstance(e, RoundEnded)
        )
        told = next(t for t in api.texts_in(GROUP) if "Round 1 is over" in t)
        if edition == "base":
            (spare,) = ended.spare
            assert f"Dwarf card set aside: {Texts('en').role_name(spare)}." in told
        else:  # the saboteur2 dwarf pile stays face down
            assert ended.spare == () and "set aside" not in told


async def test_no_message_or_prompt_is_ever_sent_to_a_computer_players_seat(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS[:2])
        async with running_bot(api, db) as app:
            lobby = await open_game(api, app, GROUP, PLAYERS[:2])
            services = bot_services(app)
            game_id = services.active_game(GROUP)
            assert game_id is not None
            for _ in range(2):
                services.service.handle(game_id, AddComputerPlayer(PLAYERS[0]))
            await press_and_wait(
                api, app, GROUP, PLAYERS[0], lobby["message_id"], lobby_button(api, lobby, 2)
            )
            state, _ = services.load(game_id)
            computers = state.computers
            assert state.phase == "playing" and len(computers) == 2
            for _ in range(12):  # the people pass through the bot's seat; the computer plays
                state, _ = services.load(game_id)
                assert state.pending is not None
                if state.pending.computer:
                    move = computer_moves(state)[0]
                    services.service.handle(game_id, MakeComputerMove(state.pending.id, move))  # type: ignore[arg-type]
                else:
                    move_outside_the_bot(app, game_id)
                await settle(api, app)
            chats = {call.get("chat_id") for call in api.calls}
            assert chats.isdisjoint(computers)
            # Nor is the group asked to have a computer player open its private chat.
            assert not [t for t in api.texts_in(GROUP) if "I cannot write to" in t]
