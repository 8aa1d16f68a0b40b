"""No secret reaches a log: the bot token in request URLs at DEBUG, the signing keys, the
webhook's secret and the databases' passwords, in every process."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from telegram import Bot
from telegram.request import HTTPXRequest

from infra import redaction
from infra.settings import load_settings, webhook_secret
from tests.fakebotapi import FakeBotAPI
from tgbot.telegram.request import AiohttpRequest

TOKEN = "7412589630:AAHf3-kq9ZqLmXw8vT2bNcYd5eRt6uI7oPz"
SECRET_KEY = "k3y-that-signs-every-button-0123456789"
DB_PASSWORD = "pg-pa55word-of-the-app"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """Everything logged, at every level, formatted as the processes format it."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield out
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def _install() -> None:
    settings = load_settings(
        _env_file=None,
        telegram_bot_token=TOKEN,
        secret_key=SECRET_KEY,
        database_url=f"postgresql://saboteur:{DB_PASSWORD}@db:5432/saboteur",
    )
    redaction.install(settings)


@pytest.mark.parametrize("backend", [HTTPXRequest, AiohttpRequest], ids=["httpx", "aiohttp"])
async def test_request_urls_logged_at_debug_carry_no_token(
    backend: type, captured: io.StringIO
) -> None:
    _install()
    async with FakeBotAPI(token=TOKEN) as api:
        bot = Bot(TOKEN, base_url=api.base_url, request=backend())
        async with bot:
            await bot.get_me()
        # httpx on its own, as the Mini App's and the tests' clients use it.
        async with httpx.AsyncClient() as client:
            await client.get(f"{api.base_url}{TOKEN}/getMe")
    logged = captured.getvalue()
    assert "getMe" in logged
    assert f"bot{redaction.REDACTED}/getMe" in logged  # the URL was logged, redacted
    assert TOKEN not in logged
    assert TOKEN.split(":")[1] not in logged


def test_every_secret_is_redacted_from_message_arguments_and_traceback(
    captured: io.StringIO,
) -> None:
    _install()
    log = logging.getLogger("saboteur.test")
    log.debug("token %s, key %r", TOKEN, SECRET_KEY)
    log.info("webhook secret: %(s)s", {"s": webhook_secret(SECRET_KEY)})
    log.warning("database postgresql://saboteur:%s@db/saboteur", DB_PASSWORD)
    log.error("URL-encoded: bot%s", TOKEN.replace(":", "%3A"))
    try:
        raise RuntimeError(f"cannot reach https://api.telegram.org/bot{TOKEN}/getUpdates")
    except RuntimeError:
        log.exception("polling failed")
    log.critical("stack", stack_info=True, extra={"unused": TOKEN})
    logged = captured.getvalue()
    for secret in (TOKEN, SECRET_KEY, webhook_secret(SECRET_KEY), DB_PASSWORD, "AAHf3-kq9Zq"):
        assert secret not in logged
    assert logged.count(redaction.REDACTED) >= 6
    assert "polling failed" in logged and "RuntimeError: cannot reach" in logged


def test_arguments_keep_their_shape_for_formatters_that_read_them(
    captured: io.StringIO,
) -> None:
    # uvicorn's access log unpacks record.args itself.
    _install()
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    log = logging.getLogger("uvicorn.access")
    # A uvicorn started earlier in this process may have configured (or disabled) it.
    level, disabled = log.level, log.disabled
    log.setLevel(logging.INFO)
    log.disabled = False
    log.addHandler(handler)
    try:
        log.info('%s - "%s %s HTTP/%s" %d', "1.2.3.4", "POST", f"/hook/{TOKEN}", "1.1", 200)
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
        log.disabled = disabled
    (record,) = records
    assert record.args == ("1.2.3.4", "POST", f"/hook/{redaction.REDACTED}", "1.1", 200)


ENTRY_POINTS = {
    # The bot, the web process and every other subcommand go through saboteur-bot's main.
    "saboteur-bot": "from tgbot.cli import main; main(['migrate'])",
    # `celery -A infra.celery_app worker` and `... beat` import the app module first.
    "celery worker and beat": "import infra.celery_app",
    # The release step may run alembic directly.
    "alembic": "from infra.migrations import upgrade; upgrade(os.environ['DATABASE_URL'])",
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_every_process_redacts_its_secrets(entry: str, tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import logging, os, sys
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, force=True)
        {ENTRY_POINTS[entry]}
        log = logging.getLogger("probe")
        log.debug("token %s", os.environ["TELEGRAM_BOT_TOKEN"])
        log.info("key %s", os.environ["SECRET_KEY"])
        log.warning("redis %s", os.environ["REDIS_URL"])
        print("done", file=sys.stderr)
        """
    )
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "SECRET_KEY": SECRET_KEY,
        "REDIS_URL": f"redis://:{DB_PASSWORD}@127.0.0.1:6399/0",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'app.db'}",
        "LOG_LEVEL": "DEBUG",
    }
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = result.stdout + result.stderr
    assert "done" in output, output
    assert "probe:token [REDACTED]" in output
    for secret in (TOKEN, SECRET_KEY, DB_PASSWORD):
        assert secret not in output


def test_an_argument_that_cannot_be_formatted_does_not_break_the_call(
    captured: io.StringIO,
) -> None:
    _install()

    class Broken:
        def __str__(self) -> str:
            raise RuntimeError("no")

        __repr__ = __str__

    logging.getLogger("saboteur.test").warning("value %s and %s", Broken(), TOKEN)
    logged = captured.getvalue()
    assert TOKEN not in logged
