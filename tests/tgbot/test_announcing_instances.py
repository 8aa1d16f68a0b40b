"""Announcing on several instances of the bot, on one PostgreSQL database: each game is
announced by the instance that holds its claim, one that dies or cannot reach Telegram
hands its games over within seconds, and no message is lost or sent twice."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable

import pytest
from telegram.error import NetworkError

from domain.commands import CreateGame, JoinGame
from infra.migrations import upgrade
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.instances_harness import (
    CutProxy,
    instance,
    move,
    new_game,
    prompts,
    seat_players,
    until,
)
from tgbot.delivery.announcer import GIVE_UP_FAILURES
from tgbot.presenter import lobby as lobby_view
from tgbot.presenter import messages as m
from tgbot.presenter.messages import Slot
from tgbot.telegram.context import BotServices
from tgbot.telegram.outage import OUTAGE

pytestmark = pytest.mark.timeout(120)
GROUP = -7007
PLAYERS = [71, 72, 73]
GAME = "gtakeover"


@pytest.fixture
def pg(empty_database: Callable[[str], str]) -> str:
    url = empty_database("postgres")
    upgrade(url)
    return url


def sent_twice(api: FakeBotAPI) -> list[str]:
    """Messages sent twice with the same text and buttons to the same chat."""
    seen: set[str] = set()
    twice = []
    for call in api.calls:
        if call.method in ("sendMessage", "sendPhoto"):
            shown = call.get("text") or call.get("caption")
            key = f"{call['chat_id']}|{shown}|{call.get('reply_markup')}"
            if key in seen:
                twice.append(key)
            seen.add(key)
    return twice


async def test_a_killed_instances_games_are_announced_by_another(pg: str) -> None:
    """How soon is bench_instances' figure (restart to first announcement after a kill);
    here, that another instance takes the game over and announces it once."""
    async with FakeBotAPI() as api, instance(api, pg, "a") as a:
        seat_players(api, a.bot_services, GROUP, PLAYERS)
        first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
        await api.wait_for(lambda: prompts(api, first) or None, 10)
        assert GAME in a.announcer.held
        async with instance(api, pg, "b") as b:
            await until(lambda: b.announcer.valid_until > 0)  # b took its claims step
            assert GAME not in b.announcer.held  # and a keeps its game

            await a.kill()
            player = move(b.bot_services, GAME)  # a press, handled by b
            before = len(prompts(api, player))
            await api.wait_for(lambda: len(prompts(api, player)) > before or None, 60)

            assert GAME in b.announcer.held
            assert sent_twice(api) == []


async def test_an_instance_killed_between_recording_and_sending_leaves_no_prompt_lost(
    pg: str,
) -> None:
    async with FakeBotAPI() as api, instance(api, pg, "a") as a:
        seat_players(api, a.bot_services, GROUP, PLAYERS)
        first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
        await api.wait_for(lambda: prompts(api, first) or None, 10)
        async with instance(api, pg, "b") as b:
            # a records what the next move calls for, then hangs in its first call to
            # Telegram and is killed there.
            hung = asyncio.Event()

            async def hang(message: object, delivery: object = None) -> object:
                hung.set()
                await asyncio.Event().wait()
                return None

            a.announcer.outbox.deliver_one = hang  # type: ignore[method-assign]
            player = move(a.bot_services, GAME)
            await asyncio.wait_for(hung.wait(), 10)
            await a.kill()

            await api.wait_for(lambda: prompts(api, player) or None, 60)

            await until(lambda: not b.announcer.deliveries.owing())
            assert len(prompts(api, player)) == 1
            assert sent_twice(api) == []


async def test_an_instance_killed_as_it_posts_the_board_leaves_the_group_one_board(
    pg: str,
) -> None:
    """A redraw with no board message to edit (one posted anew was taken as arrived, say)
    posts the board: killed once Telegram has it, the instance that takes over does not
    post it again."""
    async with FakeBotAPI() as api, instance(api, pg, "a") as a:
        seat_players(api, a.bot_services, GROUP, PLAYERS)
        first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
        await api.wait_for(lambda: prompts(api, first) or None, 10)
        await until(lambda: not a.announcer.deliveries.owing())
        await a.announcer.outbox.forget_board(GAME, GROUP)
        async with instance(api, pg, "b") as b:
            posted = asyncio.Event()
            bot = a.announcer.outbox.bot

            class Hanging:
                """a's Telegram: the group's photo arrives, and a hangs for its answer."""

                def __getattr__(self, name: str) -> object:
                    return getattr(bot, name)

                async def send_photo(self, **kwargs: object) -> object:
                    sent = await bot.send_photo(**kwargs)  # type: ignore[arg-type]
                    if kwargs.get("chat_id") == GROUP:
                        posted.set()
                        await asyncio.Event().wait()
                    return sent

            a.announcer.outbox.bot = Hanging()  # type: ignore[assignment]
            boards = len(api.calls_of("sendPhoto"))
            player = move(a.bot_services, GAME)
            await asyncio.wait_for(posted.wait(), 10)
            await a.kill()

            await until(lambda: GAME in b.announcer.held)
            await until(lambda: not b.announcer.deliveries.owing())
            group = [c for c in api.calls_of("sendPhoto")[boards:] if c["chat_id"] == GROUP]
            assert len(group) == 1
            assert sent_twice(api) == []
            assert len(prompts(api, player)) == 1


async def test_a_prompt_that_keeps_failing_is_retried_then_parked_and_logged_not_dropped(
    pg: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with FakeBotAPI() as api, instance(api, pg, "a") as a:
        seat_players(api, a.bot_services, GROUP, PLAYERS)
        a.announcer.deliveries.max_attempts = 2
        first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
        await api.wait_for(lambda: prompts(api, first) or None, 10)
        state, _ = a.bot_services.load(GAME)
        assert state.pending is not None
        next_player = state.seating[(state.seating.index(first) + 1) % len(PLAYERS)]
        api.fail_next("sendPhoto", 502, "Bad Gateway", chat_id=next_player, times=1000)

        with caplog.at_level(logging.ERROR, logger="infra.deliveries"):
            player = move(a.bot_services, GAME)
            assert player == next_player
            await until(lambda: a.announcer.deliveries.parked([GAME]), 20)
            parked = a.announcer.deliveries.parked([GAME])

        tries = [c for c in api.calls_of("sendPhoto") if c["chat_id"] == player]
        assert len(tries) >= 2  # tried again after a pause
        assert [i.delivery.chat_id for i in parked] == [player]
        assert parked[0].delivery.decision is not None
        logged = " ".join(r.getMessage() for r in caplog.records)
        assert "parked" in logged and GAME in logged
        assert f"decision {parked[0].delivery.decision}" in logged


async def test_an_instance_cut_off_from_telegram_gives_its_games_to_one_that_is_not(
    pg: str,
) -> None:
    async with FakeBotAPI() as api:
        proxy = CutProxy(api.port)
        through = f"http://127.0.0.1:{proxy.port}/bot"
        async with instance(api, pg, "a", base_url=through) as a:
            seat_players(api, a.bot_services, GROUP, PLAYERS)
            first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
            await api.wait_for(lambda: prompts(api, first) or None, 10)
            async with instance(api, pg, "b") as b:
                await until(lambda: b.announcer.valid_until > 0)  # b took its claims step
                assert GAME in a.announcer.held and GAME not in b.announcer.held

                proxy.cut()  # a still reaches the database, no longer Telegram
                player = move(b.bot_services, GAME)
                before = len(prompts(api, player))
                await api.wait_for(lambda: len(prompts(api, player)) > before or None, 20)

                assert GAME in b.announcer.held and GAME not in a.announcer.held
                assert a.announcer.benched_until > 0


HOUR_MS = 3_600_000  # a failed delivery's backoff here: far beyond any wait of a test


async def test_a_game_taken_over_is_sent_at_once_what_its_last_holder_failed_to_send(
    pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tries that failed were the instance before's: the backoff they earned does
    not hold the next holder back."""
    monkeypatch.setattr("infra.deliveries.backoff_ms", lambda attempts: HOUR_MS)
    async with FakeBotAPI() as api, instance(api, pg, "a") as a:
        seat_players(api, a.bot_services, GROUP, PLAYERS)
        first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
        await api.wait_for(lambda: prompts(api, first) or None, 10)
        state, _ = a.bot_services.load(GAME)
        assert state.pending is not None
        next_player = state.seating[(state.seating.index(first) + 1) % len(PLAYERS)]
        api.fail_next("sendPhoto", 502, "Bad Gateway", chat_id=next_player)
        async with instance(api, pg, "b") as b:
            await until(lambda: b.announcer.valid_until > 0)  # b took its claims step
            assert GAME in a.announcer.held and GAME not in b.announcer.held

            player = move(b.bot_services, GAME)  # a press, handled by b, announced by a
            assert player == next_player
            deliveries = a.announcer.deliveries
            await until(lambda: any(i.attempts for i in deliveries.unsettled(GAME, player)))
            before = len(prompts(api, player))  # its prompt failed, to be tried in an hour
            await a.kill()
            await api.wait_for(lambda: len(prompts(api, player)) > before or None, 60)

            assert GAME in b.announcer.held
            live = [msg for msg in api.messages_in(player) if api.keyboard(msg)]
            assert len(live) == 1  # its first try failed: sent once, by b


async def test_an_instance_cut_off_from_telegram_hands_over_what_it_could_not_send(
    pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every try of a call tells whether Telegram answers: the cut instance gives its
    games up though each delivery of its failed only once (the next try an hour away),
    and the instance that takes them sends what it owes at once."""
    monkeypatch.setattr("infra.deliveries.backoff_ms", lambda attempts: HOUR_MS)
    async with FakeBotAPI() as api:
        proxy = CutProxy(api.port)
        through = f"http://127.0.0.1:{proxy.port}/bot"
        async with instance(api, pg, "a", base_url=through) as a:
            seat_players(api, a.bot_services, GROUP, PLAYERS)
            first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
            await api.wait_for(lambda: prompts(api, first) or None, 10)
            async with instance(api, pg, "b") as b:
                await until(lambda: b.announcer.valid_until > 0)  # b took its claims step
                assert GAME in a.announcer.held and GAME not in b.announcer.held

                proxy.cut()  # a still reaches the database, no longer Telegram
                player = move(b.bot_services, GAME)
                before = len(prompts(api, player))
                await api.wait_for(lambda: len(prompts(api, player)) > before or None, 60)

                assert GAME in b.announcer.held and GAME not in a.announcer.held
                assert a.announcer.benched_until > 0
                live = [msg for msg in api.messages_in(player) if api.keyboard(msg)]
                assert len(live) == 1


async def test_an_instance_whose_updates_cannot_reach_telegram_gives_its_games_up(
    pg: str,
) -> None:
    """Presses it handles failing to be answered tell it that Telegram is out of reach
    before any delivery of its own failed: it gives its games up (Telegram still does not
    answer it), not holding them until it has something to send."""
    async with FakeBotAPI() as api:
        proxy = CutProxy(api.port)
        through = f"http://127.0.0.1:{proxy.port}/bot"
        async with instance(api, pg, "a", base_url=through) as a:
            seat_players(api, a.bot_services, GROUP, PLAYERS)
            first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
            await api.wait_for(lambda: prompts(api, first) or None, 10)
            await until(lambda: not a.announcer.deliveries.owing())
            assert GAME in a.announcer.held

            proxy.cut()
            for _ in range(GIVE_UP_FAILURES):  # presses whose answers could not go
                OUTAGE.failure(NetworkError("Connection refused"))
            await until(lambda: a.announcer.benched_until > 0, 60)

            assert GAME not in a.announcer.held
            assert a.announcer.claims.held() == frozenset()


async def test_a_lone_instance_cut_off_from_telegram_takes_its_games_back_once_it_answers(
    pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no other instance to take them, the games given up wait for Telegram, not for
    a clock: the instance asks again and again whether Telegram answers, and takes them
    back once it does. (A bench of a fixed length, set here to an hour, would fail this.)"""
    monkeypatch.setattr("tgbot.delivery.announcer.BENCH_SECONDS", 3600.0, raising=False)
    async with FakeBotAPI() as api:
        proxy = CutProxy(api.port)
        through = f"http://127.0.0.1:{proxy.port}/bot"
        async with instance(api, pg, "a", base_url=through) as a:
            seat_players(api, a.bot_services, GROUP, PLAYERS)
            first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
            await api.wait_for(lambda: prompts(api, first) or None, 10)
            await until(lambda: not a.announcer.deliveries.owing())

            proxy.cut()
            for _ in range(GIVE_UP_FAILURES):  # presses whose answers could not go
                OUTAGE.failure(NetworkError("Connection refused"))
            await until(lambda: a.announcer.benched_until > 0, 60)
            assert GAME not in a.announcer.held

            proxy.mend()
            player = move(a.bot_services, GAME)
            before = len(prompts(api, player))
            await api.wait_for(lambda: len(prompts(api, player)) > before or None, 60)
            assert GAME in a.announcer.held and a.announcer.benched_until == 0


async def test_two_instances_redrawing_one_lobby_at_once_leave_one_lobby(pg: str) -> None:
    async with FakeBotAPI() as api, instance(api, pg, "a") as a, instance(api, pg, "b") as b:
        seat_players(api, a.bot_services, GROUP, PLAYERS)
        handle = a.bot_services.service.handle
        handle(GAME, CreateGame(PLAYERS[0], "P71", "base", chat_id=GROUP))
        await until(lambda: [m for m in api.messages_in(GROUP) if api.keyboard(m)])
        await until(lambda: not a.announcer.deliveries.owing())
        handle(GAME, JoinGame(PLAYERS[1], "P72"))
        await until(lambda: "P72" in str(api.messages_in(GROUP)[-1].get("text")))
        api.slow("deleteMessage", 0.3)

        # Each instance brings the lobby down anew at once (two /settings, say).
        def drawn(services: BotServices) -> m.Message:
            state, version = services.load(GAME)
            table = services.table(GAME, state)
            return lobby_view.lobby(state, version, table, settings=True, anew=True)

        outboxes = [a.announcer.outbox, b.announcer.outbox]
        services = [a.bot_services, b.bot_services]
        await asyncio.gather(
            *(o.deliver([drawn(s)]) for o, s in zip(outboxes, services, strict=True))
        )

        lobbies = [m for m in api.messages_in(GROUP) if api.keyboard(m)]
        assert len(lobbies) == 1
        stored = a.bot_services.botstate.fresh_message(GAME, GROUP, Slot.LOBBY)
        assert stored is not None and stored.message_id == lobbies[0]["message_id"]


async def test_a_move_on_one_instance_is_announced_at_once_by_the_instance_holding_the_game(
    pg: str,
) -> None:
    loop = asyncio.get_running_loop()
    # a looks at the log only when woken (its poll is a minute): by the database's notice.
    async with FakeBotAPI() as api, instance(api, pg, "a", poll=60.0) as a:
        seat_players(api, a.bot_services, GROUP, PLAYERS)
        first = new_game(a.bot_services, GAME, GROUP, PLAYERS)
        await api.wait_for(lambda: prompts(api, first) or None, 10)
        async with instance(api, pg, "b", poll=60.0) as b:
            await until(lambda: b.announcer.position is not None)
            assert GAME in a.announcer.held and GAME not in b.announcer.held

            moved = loop.time()
            player = move(b.bot_services, GAME)  # a press, handled by b
            await api.wait_for(lambda: prompts(api, player) or None, 10)

            assert loop.time() - moved < 2.0


async def test_a_stopping_instance_hands_its_idle_games_over_while_its_deliveries_drain(
    pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graceful stop (SIGTERM) gives up at once the games it has nothing under way for:
    another instance announces them while the stopping one still waits for a delivery
    that hangs (it would wait DRAIN_SECONDS, here far longer than the test's bound)."""
    monkeypatch.setattr("tgbot.delivery.announcer.DRAIN_SECONDS", 600.0)
    games = [f"{GAME}{n}" for n in range(4)]
    async with FakeBotAPI() as api, instance(api, pg, "a") as a, instance(api, pg, "b") as b:
        for n, game in enumerate(games):  # the games spread over both: two each
            players = [p + 10 * n for p in PLAYERS]
            seat_players(api, a.bot_services, GROUP - n, players)
            first = new_game(a.bot_services, game, GROUP - n, players)
            await api.wait_for(functools.partial(prompts, api, first), 10)
        await until(lambda: len(a.announcer.held) == len(b.announcer.held) == 2)
        await until(lambda: not a.announcer.deliveries.owing())
        busy, idle = sorted(a.announcer.held)
        # a's next delivery hangs in its call to Telegram: its game stays busy.
        hung, release = asyncio.Event(), asyncio.Event()
        deliver_one = a.announcer.outbox.deliver_one

        async def hang(message: object, delivery: object = None) -> object:
            hung.set()
            await release.wait()
            return await deliver_one(message, delivery)  # type: ignore[arg-type]

        a.announcer.outbox.deliver_one = hang  # type: ignore[method-assign]
        move(a.bot_services, busy)
        await asyncio.wait_for(hung.wait(), 30)

        a.task.cancel()  # the stop: a drains its delivery under way
        shown = {p: len(prompts(api, p)) for p in api.users}
        player = move(b.bot_services, idle)  # a press on the idle game, taken by b
        await api.wait_for(lambda: len(prompts(api, player)) > shown.get(player, 0) or None, 30)

        assert not a.task.done()  # a still drains: b did not wait for it to end
        assert idle in b.announcer.held
        release.set()
        await until(lambda: a.task.done())
        await until(lambda: busy in b.announcer.held or not b.announcer.deliveries.owing())
        assert sent_twice(api) == []
