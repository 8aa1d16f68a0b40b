"""Settings read from the environment and an optional ``.env`` file.

With nothing set, everything runs on one machine with no services: a SQLite file
database and a Celery broker kept in a SQLite file. ``DATABASE_URL`` and ``REDIS_URL``
switch to PostgreSQL and Redis.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from functools import cached_property

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

DEFAULT_DATABASE_URL = "sqlite:///./saboteur.db"
DEFAULT_BROKER_URL = "sqla+sqlite:///./celery-broker.db"
# The languages the message catalogs (tgbot/locales) are written in.
LANGUAGES = ("en", "es", "pl", "de")
MIN_SECRET_LENGTH = 16


class ConfigurationError(ValueError):
    """The configuration cannot be used; the message is one line a person can act on."""


def normalise_database_url(url: str) -> str:
    """Return a SQLAlchemy URL, with PostgreSQL going through psycopg 3.

    >>> normalise_database_url("postgres://u:p@db:5432/app")
    'postgresql+psycopg://u:p@db:5432/app'
    >>> normalise_database_url("sqlite:///./saboteur.db")
    'sqlite:///./saboteur.db'
    """
    url = url.strip()
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            url = "postgresql+psycopg://" + url[len(prefix) :]
    try:
        parsed: URL = make_url(url)
    except ArgumentError:
        # Not the URL itself: a mistyped one ("postgres//user:password@db") is no URL a
        # redaction recognises, and its password would reach the terminal or a log.
        raise ConfigurationError(
            "DATABASE_URL is not a database URL (postgresql://user:password@host/name"
            " or sqlite:///path)"
        ) from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise ConfigurationError(
            f"DATABASE_URL must be sqlite:// or postgresql://, not {parsed.drivername}://"
        )
    return url


class Settings(BaseSettings):
    """Every setting, its environment variable and its default."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", case_sensitive=False
    )

    telegram_bot_token: str = ""
    # What the processes (bot, web, worker, beat) connect as: in production a role that
    # may read and append events but never change them (`saboteur-bot db-roles`).
    database_url: str = DEFAULT_DATABASE_URL
    # What `saboteur-bot migrate` connects as: the owner of the tables (empty: DATABASE_URL).
    migration_database_url: str = ""
    redis_url: str = ""
    celery_broker_url: str = ""
    # A self-hosted Bot API server (https://github.com/tdlib/telegram-bot-api), e.g.
    # http://127.0.0.1:8081; empty: Telegram's own.
    telegram_api_url: str = ""
    webhook_url: str = ""
    webhook_port: int = Field(default=8443, ge=1, le=65535)
    # Where ``saboteur-bot web`` listens (Procfile platforms set it); else WEBHOOK_PORT.
    port: int | None = Field(default=None, ge=1, le=65535)
    # Signs the buttons' callback data and the webhook's secret token. The previous
    # keys (comma-separated) are still accepted, so a rotation invalidates no button.
    secret_key: str = ""
    secret_key_previous: str = ""
    default_language: str = "en"
    snapshot_every: int = Field(default=50, ge=1)
    sweep_interval_seconds: float = Field(default=2.0, gt=0)
    # A deadline task not done this long after its alarm fired counts as lost (its worker
    # died) and is sent again by the next sweep; each resend doubles it (up to 16 times).
    deadline_lease_seconds: float = Field(default=5.0, gt=0)
    # How long a computer player waits before it moves, so a table can follow its moves.
    computer_pause_seconds: float = Field(default=1.5, ge=0, le=60)
    log_level: str = "INFO"
    # auto: the bot runs Celery's worker and beat itself when the broker is the embedded
    # SQLite one (no REDIS_URL, no CELERY_BROKER_URL); on: always; off: never.
    embedded_worker: str = "auto"
    # The Mini App: its short name given to @BotFather (t.me/<bot>/<name> links), and
    # the public HTTPS address of its page (web_app buttons); empty: no Mini App buttons.
    miniapp_name: str = ""
    miniapp_url: str = ""
    # What one user (and one chat) may send — presses, commands, private messages — in
    # THROTTLE_SECONDS before being told to slow down; 0: no throttling.
    throttle_presses: int = Field(default=12, ge=0)
    throttle_chat_presses: int = Field(default=40, ge=0)
    throttle_seconds: float = Field(default=6.0, gt=0)

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        return normalise_database_url(value or DEFAULT_DATABASE_URL)

    @field_validator("migration_database_url")
    @classmethod
    def _migration_database_url(cls, value: str) -> str:
        if not value.strip():
            return ""
        try:
            return normalise_database_url(value)
        except ConfigurationError as error:
            raise ValueError(str(error).replace("DATABASE_URL", "MIGRATION_DATABASE_URL")) from None

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str) -> str:
        value = value.strip()
        if value and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("REDIS_URL must start with redis://, rediss:// or unix://")
        return value

    @field_validator("telegram_api_url")
    @classmethod
    def _telegram_api_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("TELEGRAM_API_URL must start with http:// or https://")
        return value

    @field_validator("secret_key")
    @classmethod
    def _secret_key(cls, value: str) -> str:
        value = value.strip()
        if value and len(value) < MIN_SECRET_LENGTH:
            raise ValueError(f"SECRET_KEY must be at least {MIN_SECRET_LENGTH} characters long")
        return value

    @field_validator("default_language")
    @classmethod
    def _default_language(cls, value: str) -> str:
        value = value.strip().lower()
        if value not in LANGUAGES:
            raise ValueError(f"DEFAULT_LANGUAGE must be one of {', '.join(LANGUAGES)}")
        return value

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, value: str) -> str:
        value = value.strip().upper()
        if value not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ValueError("LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return value

    @field_validator("embedded_worker")
    @classmethod
    def _embedded_worker(cls, value: str) -> str:
        value = value.strip().lower()
        if value not in ("auto", "on", "off"):
            raise ValueError("EMBEDDED_WORKER must be auto, on or off")
        return value

    @field_validator("miniapp_name")
    @classmethod
    def _miniapp_name(cls, value: str) -> str:
        value = value.strip()
        if value and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", value):
            raise ValueError("MINIAPP_NAME must be the Mini App's short name (3-30 of A-Z, 0-9, _)")
        return value

    @field_validator("miniapp_url")
    @classmethod
    def _miniapp_url(cls, value: str) -> str:
        value = value.strip()
        if value and not value.startswith("https://"):
            raise ValueError("MINIAPP_URL must start with https:// (Telegram opens only those)")
        return value

    @property
    def runs_embedded_worker(self) -> bool:
        """Whether the bot starts Celery's worker and beat as its own child processes."""
        if self.embedded_worker == "auto":
            return not (self.redis_url or self.celery_broker_url)
        return self.embedded_worker == "on"

    @cached_property
    def broker_url(self) -> str:
        """The Celery broker: CELERY_BROKER_URL, else REDIS_URL, else a SQLite file."""
        return self.celery_broker_url or self.redis_url or DEFAULT_BROKER_URL

    @property
    def migration_url(self) -> str:
        """What the migrations run as: MIGRATION_DATABASE_URL, else DATABASE_URL."""
        return self.migration_database_url or self.database_url

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def listen_port(self) -> int:
        """The web process's port: PORT, else WEBHOOK_PORT."""
        return self.port if self.port is not None else self.webhook_port

    @property
    def bot_api_urls(self) -> tuple[str, str] | None:
        """The Bot API's ``base_url`` and ``base_file_url`` for python-telegram-bot when
        TELEGRAM_API_URL is set (None: Telegram's own).

        >>> load_settings(_env_file=None, telegram_api_url="http://api:8081/").bot_api_urls
        ('http://api:8081/bot', 'http://api:8081/file/bot')
        """
        if not self.telegram_api_url:
            return None
        return f"{self.telegram_api_url}/bot", f"{self.telegram_api_url}/file/bot"

    @property
    def secrets(self) -> tuple[str, ...]:
        """The signing secrets, the current one first: SECRET_KEY, then
        SECRET_KEY_PREVIOUS's. Without SECRET_KEY, one derived from the bot token (stable
        while the token is: the bot token itself; see :func:`require_secret_key`).

        >>> load_settings(_env_file=None, secret_key="k" * 32,
        ...               secret_key_previous=" old-one-1234567890123456789012, ").secrets
        ('kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk', 'old-one-1234567890123456789012')
        """
        if not self.secret_key:
            return (self.telegram_bot_token,)
        previous = (s.strip() for s in self.secret_key_previous.split(","))
        return (self.secret_key, *(s for s in previous if s and s != self.secret_key))

    def require_secret_key(self, process: str) -> None:
        """A process serving several instances (``web``) must have SECRET_KEY: a key
        derived from the bot token would turn every live button into a forged one the day
        the token is revoked.

        Raises :class:`ConfigurationError`.
        """
        if self.telegram_bot_token and not self.secret_key:
            raise ConfigurationError(
                f"SECRET_KEY is not set: `saboteur-bot {process}` needs a secret of its own "
                f"(at least {MIN_SECRET_LENGTH} characters, e.g. from "
                "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )


def webhook_secret(secret: str) -> str:
    """The webhook's secret token for a signing secret (Telegram allows 1–256 of
    ``A-Za-z0-9_-``).

    >>> token = webhook_secret("some secret key")
    >>> len(token), token == webhook_secret("some secret key") != webhook_secret("other")
    (32, True)
    """
    return hmac.new(secret.encode(), b"saboteur-bot webhook", hashlib.sha256).hexdigest()[:32]


def load_settings(**overrides: object) -> Settings:
    """Read the settings, turning a validation failure into one readable line.

    Raises :class:`ConfigurationError`.
    """
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']).upper() or 'settings'}: "
            f"{e['msg'].removeprefix('Value error, ')}"
            for e in error.errors()
        )
        raise ConfigurationError(f"bad configuration: {problems}") from None
    except ConfigurationError:
        raise
