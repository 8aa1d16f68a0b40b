"""The web process: the webhook, the health routes and draining on SIGTERM, served by a
real uvicorn against the fake Bot API (reached through TELEGRAM_API_URL)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from domain.commands import CreateGame, JoinGame, StartGame
from domain.moves import legal_moves
from infra.bootstrap import Services, bootstrap
from infra.migrations import upgrade
from infra.notifications import Listener
from infra.settings import Settings, load_settings
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.miniapp_harness import auth, init_data, next_state
from tgbot.presenter.texts import Texts
from tgbot.telegram.app import LISTENER_KEY
from tgbot.telegram.context import SERVICES_KEY, BotServices, game_id_for
from tgbot.telegram.web import server_config, web_app, webhook_secret

pytestmark = pytest.mark.timeout(120)

USER = 71
KEY = "a-secret-key-of-this-bot-0123456789"
OLD_KEY = "the-key-before-the-rotation-0123456"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def web_settings(api: FakeBotAPI, db: str, port: int, **extra: Any) -> Settings:
    return load_settings(
        _env_file=None,
        telegram_bot_token=api.token,
        telegram_api_url=f"http://127.0.0.1:{api.port}",
        database_url=db,
        webhook_url=f"http://127.0.0.1:{port}/hook",
        secret_key=KEY,
        **extra,
    )


@contextlib.asynccontextmanager
async def serving(settings: Settings, port: int, **options: Any) -> AsyncIterator[str]:
    """The web process's app for ``settings`` served by uvicorn on ``port``; yields its
    base URL."""
    async with serving_app(settings, port, **options) as (url, _):
        yield url


@contextlib.asynccontextmanager
async def serving_app(
    settings: Settings, port: int, **options: Any
) -> AsyncIterator[tuple[str, Starlette]]:
    """The web process's app (:func:`tgbot.telegram.web.web_app`: the webhook, the health routes,
    the Mini App) served by uvicorn on ``port``: its base URL and the app."""
    services = bootstrap(settings)
    app = web_app(services, settings, rate_limit=False, **options)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="on", log_level="warning")
    )
    task = asyncio.create_task(server.serve())
    try:
        for _ in range(400):
            if server.started or task.done():
                break
            await asyncio.sleep(0.025)
        assert server.started, "the web app did not start"
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)
        services.close()


async def get(url: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.json()


async def test_an_update_posted_with_the_secret_is_answered_and_handled(db: str) -> None:
    async with FakeBotAPI() as api:
        api.user(USER, "Ann")
        port = free_port()
        async with serving(web_settings(api, db, port), port):
            # The webhook was set at start, with the secret derived from SECRET_KEY.
            assert api.webhook["url"] == f"http://127.0.0.1:{port}/hook"
            assert api.webhook_secret == webhook_secret(KEY)
            api.send_text(USER, USER, "/start")

            assert await api.deliver_webhook() == [200]

            welcome = await api.wait_for(lambda: api.messages_in(USER), 10)
            assert "Ann" in welcome[0]["text"]


async def test_an_update_without_the_right_secret_is_refused_and_kept_for_later(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        api.user(USER, "Ann")
        port = free_port()
        async with serving(web_settings(api, db, port), port):
            api.send_text(USER, USER, "/start")

            assert await api.deliver_webhook(secret="guessed") == [403]
            assert await api.deliver_webhook(secret="") == [403]
            # Telegram delivers it again; with the right secret it counts, and once: the
            # refused deliveries were not handled (each would have had its own answer).
            assert await api.deliver_webhook() == [200]
            await api.wait_for(lambda: api.messages_in(USER), 30)
            assert len(api.messages_in(USER)) == 1


async def test_a_body_that_is_no_update_is_refused_with_the_right_secret(db: str) -> None:
    async with FakeBotAPI() as api:
        port = free_port()
        async with (
            serving(web_settings(api, db, port), port) as url,
            aiohttp.ClientSession() as session,
        ):
            headers = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret(KEY)}
            statuses = []
            for body in (b"not json", b"[1, 2]", b'{"message": {}}'):
                async with session.post(f"{url}/hook", data=body, headers=headers) as response:
                    statuses.append(response.status)

            assert statuses == [400, 400, 400]
            assert not any(call.method == "sendMessage" for call in api.calls)


async def test_what_telegram_never_sends_is_refused_with_one_line_and_no_traceback(
    db: str, caplog: pytest.LogCaptureFixture
) -> None:
    no_chat = {"update_id": 7, "message": {"message_id": 1, "date": 0, "text": "/start"}}
    bodies = {
        "larger than any update": b'{"update_id": 5, "pad": "' + b"x" * 2_000_000 + b'"}',
        "nested 50,000 deep": b'{"update_id": 6, "message": ' + b"[" * 50_000 + b"}",
        "a message without a chat": json.dumps(no_chat).encode(),
    }
    async with FakeBotAPI() as api:
        port = free_port()
        async with (
            serving(web_settings(api, db, port), port) as url,
            aiohttp.ClientSession() as session,
        ):
            headers = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret(KEY)}
            statuses = []
            for body in bodies.values():
                async with session.post(f"{url}/hook", data=body, headers=headers) as response:
                    statuses.append(response.status)

            assert statuses == [413, 400, 400]  # refused, so never handled
            unreadable = [r for r in caplog.records if "unreadable update" in r.getMessage()]
            assert len(unreadable) == len(bodies)
            assert not any(r.exc_info or r.levelname == "ERROR" for r in caplog.records)


async def test_updates_signed_with_the_previous_secret_key_still_count(db: str) -> None:
    async with FakeBotAPI() as api:
        api.user(USER, "Ann")
        port = free_port()
        settings = web_settings(api, db, port, secret_key_previous=OLD_KEY)
        async with serving(settings, port):
            api.send_text(USER, USER, "/start")

            assert await api.deliver_webhook(secret=webhook_secret(OLD_KEY)) == [200]

            await api.wait_for(lambda: api.messages_in(USER), 10)


async def test_health_says_alive_and_readiness_names_what_cannot_be_reached(
    db: str, tmp_path: Path
) -> None:
    async def broker_down() -> list[str]:
        return ["broker redis://127.0.0.1:1/0: Connection refused"]

    async with FakeBotAPI() as api:
        port = free_port()
        async with serving(web_settings(api, db, port), port, readiness=broker_down) as url:
            assert await get(f"{url}/healthz") == (200, {"status": "ok"})
            status, body = await get(f"{url}/readyz")
            assert status == 503 and body["reasons"] == [
                "broker redis://127.0.0.1:1/0: Connection refused"
            ]


async def test_more_routes_are_served_by_the_same_app(db: str) -> None:
    async def hello(request: object) -> PlainTextResponse:
        return PlainTextResponse("mini app")

    async with FakeBotAPI() as api:
        port = free_port()
        routes = [Mount("/app", routes=[Route("/", hello)])]
        async with (
            serving(web_settings(api, db, port), port, routes=routes) as url,
            aiohttp.ClientSession() as session,
            session.get(f"{url}/app/") as response,
        ):
            assert (response.status, await response.text()) == (200, "mini app")


GROUP = -7007
PLAYERS = [72, 73, 74]
SLOW_POLL = {"poll_seconds": 60.0}  # the board's feed looks by itself only this seldom


def seat(api: FakeBotAPI) -> None:
    api.group(GROUP, "Mine", admins=(PLAYERS[0],))
    for player in PLAYERS:
        api.user(player, f"P{player}")


def start_game(services: Services | BotServices) -> str:
    """A base game of :data:`PLAYERS` in :data:`GROUP`, opened and started through the
    game service (as any instance would); its id."""
    handle = services.games.handle if isinstance(services, Services) else services.service.handle
    game = game_id_for(GROUP, 1, b"test")
    handle(game, CreateGame(PLAYERS[0], f"P{PLAYERS[0]}", "base", GROUP))
    for player in PLAYERS[1:]:
        handle(game, JoinGame(player, f"P{player}"))
    handle(game, StartGame(PLAYERS[0]))
    return game


async def test_the_mini_app_is_served_beside_the_webhook_and_a_press_reaches_the_open_board(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        seat(api)
        port = free_port()
        async with (
            serving_app(web_settings(api, db, port), port, miniapp=SLOW_POLL) as (url, app),
            aiohttp.ClientSession() as http,
        ):
            services: BotServices = app.state.application.bot_data[SERVICES_KEY]
            game = start_game(services)
            services.wake.set()
            state, _ = services.load(game)
            assert state.pending is not None
            mover = state.pending.player
            prompt = await api.wait_for(
                lambda: [m for m in api.messages_in(mover) if api.keyboard(m)], 10
            )
            async with http.get(f"{url}/miniapp/") as page:
                assert page.status == 200 and "static/app.js" in await page.text()
            raw = init_data(api, PLAYERS[0], game=game)
            live = http.get(f"{url}/miniapp/api/game/{game}/live", headers=auth(raw))
            async with live as stream:
                first = await asyncio.wait_for(next_state(stream), 10)

                # The player on turn passes in the chat: two presses, through the webhook.
                await press(api, mover, prompt[-1]["message_id"], Texts("en").t("turn.button_pass"))
                await press(api, mover, prompt[-1]["message_id"], "")  # its first card
                second = await asyncio.wait_for(next_state(stream), 5)  # not the 60 s poll

        assert prompt and second["version"] > first["version"]
        assert second["seats"][PLAYERS.index(mover)]["turn"] is False


async def press(api: FakeBotAPI, user: int, message_id: int, label: str) -> None:
    """``user`` presses the button labelled ``label`` ("": the first but "back") under
    their message ``message_id``, by webhook; returns once it is answered and redrawn."""
    message = api.messages[user][message_id]
    back = Texts("en").t("turn.button_back")
    buttons = [b for row in api.keyboard(message) for b in row if b.callback_data]
    chosen = next(b for b in buttons if b.text == label or (not label and b.text != back))
    assert chosen.callback_data is not None
    query = api.press(user, user, message_id, chosen.callback_data)
    assert await api.deliver_webhook() == [200]
    await api.wait_for(
        lambda: query in api.answered and api.messages[user][message_id] is not message, 10
    )


@pytest.fixture
def pg(empty_database: Callable[[str], str]) -> str:
    url = empty_database("postgres")
    upgrade(url)
    return url


async def test_an_append_by_another_instance_reaches_the_open_board_by_the_notification_channel(
    pg: str,
) -> None:
    async with FakeBotAPI() as api:
        seat(api)
        port = free_port()
        settings = web_settings(api, pg, port)
        other = bootstrap(settings)  # another instance on the same database
        try:
            game = await asyncio.to_thread(start_game, other)
            async with (
                serving_app(settings, port, miniapp=SLOW_POLL) as (url, app),
                aiohttp.ClientSession() as http,
            ):
                heard: Listener = app.state.application.bot_data[LISTENER_KEY]
                assert await asyncio.to_thread(heard.listening.wait, 10)
                raw = init_data(api, PLAYERS[1], game=game)
                live = http.get(f"{url}/miniapp/api/game/{game}/live", headers=auth(raw))
                async with live as stream:
                    first = await asyncio.wait_for(next_state(stream), 10)

                    loaded = other.games.load(game)
                    state = loaded.state
                    assert state.pending is not None and first["version"] == loaded.version
                    move = legal_moves(state, state.pending.player)[0]
                    await asyncio.to_thread(other.games.handle, game, move)
                    second = await asyncio.wait_for(next_state(stream), 5)  # not the poll
        finally:
            other.close()

        assert second["version"] > first["version"]
        assert second["me"] == PLAYERS[1] and second["news"]


def web_env(api: FakeBotAPI, db: str, port: int, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "WEBHOOK_"))}
    env.update(
        TELEGRAM_BOT_TOKEN=api.token,
        TELEGRAM_API_URL=f"http://127.0.0.1:{api.port}",
        DATABASE_URL=db,
        WEBHOOK_URL=f"http://127.0.0.1:{port}/hook",
        PORT=str(port),
        SECRET_KEY=KEY,
        EMBEDDED_WORKER="off",
        LOG_LEVEL="WARNING",
        **extra,
    )
    return env


async def start_web(
    env: dict[str, str], cwd: Path, command: str = "web"
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tgbot.cli",
        command,
        env=env,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )


async def wait_ready(url: str, process: asyncio.subprocess.Process) -> None:
    for _ in range(600):
        if process.returncode is not None:
            break
        with contextlib.suppress(aiohttp.ClientError):
            if (await get(f"{url}/readyz"))[0] == 200:
                return
        await asyncio.sleep(0.05)
    output = await process.stdout.read() if process.stdout else b""
    raise AssertionError(f"the web process did not get ready:\n{output.decode()}")


@pytest.mark.slow
async def test_sigterm_lets_every_accepted_update_finish_before_the_process_exits(
    db: str, tmp_path: Path
) -> None:
    async with FakeBotAPI() as api:
        api.user(USER, "Ann")
        port = free_port()
        process = await start_web(web_env(api, db, port), tmp_path)
        try:
            await wait_ready(f"http://127.0.0.1:{port}", process)
            api.slow("sendMessage", 1.5)
            api.send_text(USER, USER, "/start")

            assert await api.deliver_webhook() == [200]
            # Answered before it was handled: the welcome is still on its way.
            assert api.messages_in(USER) == []
            process.send_signal(signal.SIGTERM)

            # uvicorn ends by raising the signal again once it stopped gracefully.
            assert await asyncio.wait_for(process.wait(), 30) in (0, -signal.SIGTERM)
            assert "Ann" in api.messages_in(USER)[0]["text"]
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()


@pytest.mark.slow
async def test_run_with_a_webhook_url_serves_the_mini_app_beside_the_webhook(
    db: str, tmp_path: Path
) -> None:
    async with FakeBotAPI() as api:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        process = await start_web(web_env(api, db, port), tmp_path, "run")
        try:
            await wait_ready(url, process)
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{url}/miniapp/") as page:
                    assert page.status == 200 and "static/app.js" in await page.text()
                async with http.get(f"{url}/miniapp/api/mine") as unsigned:
                    assert unsigned.status == 401  # no initData: nobody
            assert api.webhook["url"] == f"{url}/hook"
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()


@pytest.mark.parametrize(
    ("missing", "says"), [("SECRET_KEY", "SECRET_KEY"), ("WEBHOOK_URL", "WEBHOOK_URL")]
)
async def test_the_web_process_refuses_to_start_without_its_secret_or_url(
    db: str, tmp_path: Path, missing: str, says: str
) -> None:
    async with FakeBotAPI() as api:
        env = web_env(api, db, free_port())
        env.pop(missing)
        process = await start_web(env, tmp_path)
        output, _ = await asyncio.wait_for(process.communicate(), 30)

    assert process.returncode == 2
    assert says in output.decode() and "Traceback" not in output.decode()


@contextlib.asynccontextmanager
async def served_bounded(settings: Settings, port: int, **bounds: Any) -> AsyncIterator[str]:
    """The web process's app under the web process's own uvicorn configuration."""
    services = bootstrap(settings)
    app = web_app(services, settings, rate_limit=False)
    config = server_config(app, settings, host="127.0.0.1", port=port, **bounds)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        for _ in range(400):
            if server.started or task.done():
                break
            await asyncio.sleep(0.025)
        assert server.started, "the web app did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)
        services.close()


async def closed_by_the_server(reader: asyncio.StreamReader, seconds: float) -> bool:
    try:
        return await asyncio.wait_for(reader.read(), seconds) == b""
    except (TimeoutError, ConnectionError):
        return False


async def test_a_connection_that_never_finishes_its_request_is_closed(db: str) -> None:
    async with FakeBotAPI() as api:
        port = free_port()
        settings = web_settings(api, db, port)
        async with served_bounded(settings, port, max_connections=50, header_seconds=1.0) as url:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the end

            assert await closed_by_the_server(reader, 15)
            writer.close()
            assert (await get(f"{url}/healthz"))[0] == 200


async def test_connections_beyond_the_limit_are_closed_at_once_and_the_open_ones_go_on(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        port = free_port()
        settings = web_settings(api, db, port)
        async with served_bounded(settings, port, max_connections=20, header_seconds=60.0):
            idle = [await asyncio.open_connection("127.0.0.1", port) for _ in range(20)]
            await asyncio.sleep(0)
            extra, extra_writer = await asyncio.open_connection("127.0.0.1", port)

            assert await closed_by_the_server(extra, 15)
            reader, writer = idle[0]
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert (await asyncio.wait_for(reader.read(), 15)).startswith(b"HTTP/1.1 200")
            for _, w in [*idle, (extra, extra_writer)]:
                w.close()


async def test_a_body_that_trickles_in_gets_408_and_holds_nothing(
    db: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A client that sends its headers and then its body too slowly (here: part of it,
    then nothing) to the webhook or to the Mini App's move route is answered 408 and its
    connection closed, while the process serves everyone else meanwhile."""
    monkeypatch.setattr("tgbot.telegram.bodies.BODY_SECONDS", 2.0)
    async with FakeBotAPI() as api:
        api.user(USER, "Ann")
        port = free_port()
        settings = web_settings(api, db, port)
        secret = f"X-Telegram-Bot-Api-Secret-Token: {webhook_secret(KEY)}\r\n".encode()
        async with served_bounded(settings, port, max_connections=50) as url:
            slow = []
            for path, extra in (("/hook", secret), ("/miniapp/api/game/g1/move", b"")):
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(
                    f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    "Content-Length: 400\r\n".encode()
                    + extra
                    + b'\r\n{"update_id": 1, '  # and never the rest
                )
                await writer.drain()
                slow.append((reader, writer))

            # Meanwhile the process answers, and handles updates.
            assert (await get(f"{url}/healthz"))[0] == 200
            api.send_text(USER, USER, "/start")
            assert await api.deliver_webhook() == [200]
            await api.wait_for(lambda: api.messages_in(USER), 30)

            for reader, writer in slow:
                answer = await asyncio.wait_for(reader.read(), 30)  # to the connection's end
                assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
                writer.close()
    refused = [r.getMessage() for r in caplog.records if "not sent whole" in r.getMessage()]
    assert len(refused) == 2
    assert not any(r.exc_info for r in caplog.records if r.levelname == "ERROR")
