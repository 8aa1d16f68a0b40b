"""Secrets never reach a log: every log record is redacted as it is made.

What is redacted, at every level and whichever library logs it (python-telegram-bot,
httpx, aiohttp, Celery, uvicorn, SQLAlchemy):

- anything shaped like a Telegram bot token (``123456789:AA...``), so a request URL
  ``.../bot<token>/getMe`` logged at DEBUG shows ``.../bot[REDACTED]/getMe``;
- the password of any URL (``postgresql://user:[REDACTED]@host/db``, ``redis://:...@``);
- the configured secrets themselves, as written and URL-encoded: TELEGRAM_BOT_TOKEN,
  SECRET_KEY and SECRET_KEY_PREVIOUS, the webhook's secret token derived from them, and
  the passwords of DATABASE_URL, MIGRATION_DATABASE_URL, REDIS_URL and
  CELERY_BROKER_URL.

:func:`install` puts :class:`SecretFilter` into the logging module's record factory, so
it applies to every record of the process before any handler or filter sees it,
including handlers configured later (Celery's worker and beat configure their own).
Every process calls it when it starts: ``saboteur-bot`` (bot, web, migrate and every
other subcommand), Celery's worker and beat (:mod:`infra.celery_app`) and Alembic.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, unquote

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from infra.settings import ConfigurationError, Settings, load_settings, webhook_secret

REDACTED = "[REDACTED]"
# Shorter configured values are left alone: replacing "pw" everywhere would garble logs
# (a URL's password is redacted by its place in the URL whatever its length).
MIN_SECRET_LENGTH = 6

# A bot token: the bot's numeric id, a colon, 35 characters of base64url.
_BOT_TOKEN = r"\d{5,}(?::|%3A)[A-Za-z0-9_-]{30,}"
# A URL's password: scheme://user:PASSWORD@
_URL_PASSWORD = r"(?<=://)(?P<user>[^\s/:@]*):(?P<password>[^\s/@]+)(?=@)"

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] = re.compile(f"{_URL_PASSWORD}|{_BOT_TOKEN}")


def _compile(secrets: Iterable[str]) -> re.Pattern[str]:
    known = sorted(secrets, key=len, reverse=True)  # the longest first
    alternatives = [_URL_PASSWORD, _BOT_TOKEN, *(re.escape(s) for s in known)]
    return re.compile("|".join(alternatives))


def _replace(match: re.Match[str]) -> str:
    if match.group("password") is not None:
        return f"{match.group('user')}:{REDACTED}"
    return REDACTED


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED]``.

    >>> redact("POST https://api.telegram.org/bot123456789:AAE7x-abcdefghijklmnopqrstuvwxyz12/getMe")
    'POST https://api.telegram.org/bot[REDACTED]/getMe'
    >>> redact("postgresql://saboteur:s3cr%40t@db:5432/app and redis://:pw@cache:6379/0")
    'postgresql://saboteur:[REDACTED]@db:5432/app and redis://:[REDACTED]@cache:6379/0'
    >>> redact("nothing to hide")
    'nothing to hide'
    """
    return _pattern.sub(_replace, text)


def add_secrets(*values: str | None) -> None:
    """Redact these values too (and their URL-encoded forms) from now on."""
    global _pattern
    new = set()
    for value in values:
        if value and len(value) >= MIN_SECRET_LENGTH:
            new.update({value, quote(value, safe=""), unquote(value)})
    with _lock:
        if new <= _secrets:
            return
        _secrets.update(new)
        _pattern = _compile(_secrets)


def _password(url: str) -> str | None:
    try:
        return make_url(url).password if url else None
    except ArgumentError:
        return None


def settings_secrets(settings: Settings) -> list[str]:
    """Every secret ``settings`` holds."""
    keys = [settings.telegram_bot_token, settings.secret_key, *settings.secrets]
    keys += [s.strip() for s in settings.secret_key_previous.split(",")]
    derived = [webhook_secret(k) for k in keys if k]
    urls = (
        settings.database_url,
        settings.migration_database_url,
        settings.redis_url,
        settings.celery_broker_url,
    )
    passwords = [_password(url) for url in urls]
    return [s for s in (*keys, *derived, *passwords) if s]


class SecretFilter(logging.Filter):
    """Redacts a record in place (its message, arguments, traceback and stack); it never
    drops one."""

    def filter(self, record: logging.LogRecord) -> bool:
        scrub(record)
        return True


def _clean(value: Any) -> Any:
    if value is None or isinstance(value, int | float | bool):
        return value
    try:
        text = value if isinstance(value, str) else str(value)
    except Exception:
        return value  # the handler reports an argument that cannot be formatted
    cleaned = redact(text)
    if isinstance(value, str) or cleaned != text:
        return cleaned
    return value  # kept as it is, so %r and %d still format it


def scrub(record: logging.LogRecord) -> None:
    """Redact ``record``'s message, arguments, traceback and stack in place.

    Arguments are cleaned one by one so that formatters reading ``record.args`` (as
    uvicorn's access log does) still find them where they expect.
    """
    if isinstance(record.msg, str):
        record.msg = redact(record.msg)
    elif record.msg is not None:
        record.msg = _clean(record.msg)
    if isinstance(record.args, tuple):
        record.args = tuple(_clean(a) for a in record.args)
    elif isinstance(record.args, dict):
        record.args = {k: _clean(v) for k, v in record.args.items()}
    try:
        message = record.getMessage()
    except Exception:
        try:
            record.msg, record.args = redact(f"{record.msg!r} {record.args!r}"), None
        except Exception:
            record.msg, record.args = "unformattable log message (redacted)", None
    else:
        if redact(message) != message:  # a secret only whole once formatted
            record.msg, record.args = redact(message), None
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        text = logging.Formatter().formatException(record.exc_info)
        if redact(text) != text:
            record.exc_text = redact(text)
    elif record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


_installed = False


def install(settings: Settings | None = None, *secrets: str) -> None:
    """Redact every log record of this process from now on (idempotent), including the
    secrets of ``settings`` and ``secrets``."""
    global _installed
    if settings is not None:
        add_secrets(*settings_secrets(settings))
    add_secrets(*secrets)
    with _lock:
        if _installed:
            return
        previous = logging.getLogRecordFactory()
        secret_filter = SecretFilter()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            secret_filter.filter(record)
            return record

        logging.setLogRecordFactory(factory)
        _installed = True


def install_from_environment() -> None:
    """:func:`install` with the settings of the environment; with settings that cannot
    be read, the patterns alone (the command reports the bad setting itself)."""
    try:
        settings = load_settings()
    except ConfigurationError:
        settings = None
    install(settings)
