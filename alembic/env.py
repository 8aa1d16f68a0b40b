"""Alembic environment: the URL comes from ``-x url=``, ``sqlalchemy.url`` or settings.

A URL that cannot be used, or a database that cannot be reached, stops ``alembic`` with
one line naming the variable and exit status 2. Called from Python
(:mod:`infra.migrations`), the same problems raise :class:`ConfigurationError` instead.
"""

from __future__ import annotations

import importlib
import sys
from contextlib import suppress
from logging.config import fileConfig

from alembic import context

from infra import redaction
from infra.db import connect_or_explain, make_engine
from infra.schema import metadata
from infra.settings import ConfigurationError, load_settings, normalise_database_url

# Modules that register their tables on infra.schema.metadata, so `alembic check`
# compares them too.
TABLE_MODULES = (
    "infra.bot_tables",
    "infra.deadlines",
    "infra.history",
    "infra.archive",
    "infra.claims",
    "infra.deliveries",
    "infra.ratings",
    "infra.achievements",
    "infra.topics",
)
for _name in TABLE_MODULES:
    with suppress(ImportError):
        importlib.import_module(_name)

redaction.install_from_environment()
config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _source() -> str:
    """Where the URL comes from, as the person running alembic wrote it."""
    return "-x url=" if "url" in context.get_x_argument(as_dictionary=True) else "DATABASE_URL"


def _url() -> str:
    given = context.get_x_argument(as_dictionary=True)
    if "url" in given:
        # `-x url=` with nothing after it is a mistake (an empty variable in a script),
        # never a request for the default database.
        if not given["url"].strip():
            raise ConfigurationError("-x url= is empty: give the database URL to migrate")
        try:
            return normalise_database_url(given["url"])
        except ConfigurationError as error:
            raise ConfigurationError(str(error).replace("DATABASE_URL", "-x url=", 1)) from None
    url = config.get_main_option("sqlalchemy.url")
    return normalise_database_url(url) if url else load_settings().database_url


def _include_object(
    obj: object, name: str | None, type_: str, reflected: bool, compare_to: object
) -> bool:
    # Tables that are not ours (for instance the eventsourcing library's, or Celery's
    # broker tables sharing the database) are not part of this schema.
    return not (type_ == "table" and reflected and compare_to is None)


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(_url())
    try:
        with connect_or_explain(engine, _source()) as connection:
            _run(connection)
    finally:
        engine.dispose()


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=metadata,
        include_object=_include_object,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    try:
        if context.is_offline_mode():
            run_migrations_offline()
        else:
            run_migrations_online()
    except ConfigurationError as error:
        if config.attributes.get("raise_configuration_errors"):
            raise
        print(f"alembic: {error}", file=sys.stderr)
        raise SystemExit(2) from None


main()
