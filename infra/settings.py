"""Settings read from the environment and an optional ``.env`` file.

With nothing set, everything runs on one machine with no services: a SQLite file
database and a Celery broker kept in a SQLite file. ``DATABASE_URL`` and ``REDIS_URL``
switch to PostgreSQL and Redis.
"""

from __future__ import annotations

import re
from functools import cached_property

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

DEFAULT_DATABASE_URL = "sqlite:///./saboteur.db"
DEFAULT_BROKER_URL = "sqla+sqlite:///./celery-broker.db"
# The languages the message catalogs (tgbot/locales) are written in.
LANGUAGES = ("en", "es", "pl")


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
    except ArgumentError as error:
        raise ConfigurationError(f"DATABASE_URL {url!r} is not a database URL") from error
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
    database_url: str = DEFAULT_DATABASE_URL
    redis_url: str = ""
    celery_broker_url: str = ""
    webhook_url: str = ""
    webhook_port: int = Field(default=8443, ge=1, le=65535)
    default_language: str = "en"
    snapshot_every: int = Field(default=50, ge=1)
    sweep_interval_seconds: float = Field(default=2.0, gt=0)
    # A deadline task not done this long after its alarm fired counts as lost and is
    # sent again by the next sweep.
    deadline_lease_seconds: float = Field(default=30.0, gt=0)
    log_level: str = "INFO"
    # auto: the bot runs Celery's worker and beat itself when the broker is the embedded
    # SQLite one (no REDIS_URL, no CELERY_BROKER_URL); on: always; off: never.
    embedded_worker: str = "auto"
    # The Mini App: its short name given to @BotFather (t.me/<bot>/<name> links), and
    # the public HTTPS address of its page (web_app buttons); empty: no Mini App buttons.
    miniapp_name: str = ""
    miniapp_url: str = ""

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        return normalise_database_url(value or DEFAULT_DATABASE_URL)

    @field_validator("redis_url")
    @classmethod
    def _redis_url(cls, value: str) -> str:
        value = value.strip()
        if value and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("REDIS_URL must start with redis://, rediss:// or unix://")
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
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


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
