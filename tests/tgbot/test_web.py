"""The web process: the webhook, the health routes and draining on SIGTERM, served by a
real uvicorn against the fake Bot API (reached through TELEGRAM_API_URL)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import uvicorn
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from infra.bootstrap import bootstrap
from infra.settings import Settings, load_settings
from tests.fakebotapi import FakeBotAPI
from tgbot.app import build_application, start_background, stop_background
from tgbot.web import create_web_app, webhook_secret

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
    """The web app for ``settings`` served by uvicorn on ``port``; yields its base URL."""
    services = bootstrap(settings)
    application = build_application(services, settings, polling=False, rate_limit=False)
    app = create_web_app(
        application, settings, start=start_background, stop=stop_background, **options
    )
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
        yield f"http://127.0.0.1:{port}"
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
            await asyncio.sleep(0.2)
            assert api.messages_in(USER) == []
            # Telegram delivers it again; with the right secret it counts.
            assert await api.deliver_webhook() == [200]
            await api.wait_for(lambda: api.messages_in(USER), 10)


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


async def start_web(env: dict[str, str], cwd: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tgbot.cli",
        "web",
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
