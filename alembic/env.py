"""Alembic environment: the URL comes from ``-x url=``, ``sqlalchemy.url`` or settings."""

from __future__ import annotations

import importlib
from contextlib import suppress
from logging.config import fileConfig

from alembic import context

from infra.db import make_engine
from infra.schema import metadata
from infra.settings import load_settings, normalise_database_url

# Modules that register their tables on infra.schema.metadata, so `alembic check`
# compares them too.
TABLE_MODULES = ("infra.botstate", "infra.deadlines", "infra.history", "infra.archive")
for _name in TABLE_MODULES:
    with suppress(ImportError):
        importlib.import_module(_name)

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
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
        with engine.connect() as connection:
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


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
