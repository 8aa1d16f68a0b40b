"""Least privilege on PostgreSQL: the processes run as a role that cannot rewrite history.

Two roles, two URLs:

- the **owner** (``MIGRATION_DATABASE_URL``) owns the tables; only ``saboteur-bot
  migrate`` (the Procfile's ``release``) connects as it;
- the **runtime role** (``DATABASE_URL``) is what ``bot``, ``web``, ``worker`` and
  ``beat`` connect as. On ``events`` and ``processed_commands`` it may only read and
  append (``SELECT``, ``INSERT``); the read models, snapshots, deadlines, claims and
  deliveries it may also change; ``alembic_version`` it may only read. Not owning
  ``events``, it can neither ``ALTER`` it (so no ``DISABLE TRIGGER``), ``DROP`` it nor
  ``TRUNCATE`` it, and ``UPDATE`` and ``DELETE`` are refused before the immutability
  triggers are even reached.

:func:`grant_runtime_role` is run by ``migrate`` after every upgrade, when the two URLs
name different users: it creates the runtime role if it is missing (with DATABASE_URL's
password; the owner needs ``CREATEROLE`` for that) and sets its privileges on every table
the migrations made, new ones included. Run again, it changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, inspect, text
from sqlalchemy.engine import make_url

from infra.settings import ConfigurationError

# Read and appended, never changed.
APPEND_ONLY = ("events", "processed_commands")
# Read only.
READ_ONLY = ("alembic_version",)


@dataclass(frozen=True, slots=True)
class Granted:
    role: str
    created: bool
    append_only: tuple[str, ...]
    read_only: tuple[str, ...]
    read_write: tuple[str, ...]


def runtime_role_of(database_url: str, migration_url: str) -> tuple[str, str | None] | None:
    """DATABASE_URL's user and password when the processes should run as a role of their
    own: both URLs on PostgreSQL, naming different users. None otherwise.

    >>> runtime_role_of("postgresql://app:pw@db/s", "postgresql://owner:x@db/s")
    ('app', 'pw')
    >>> runtime_role_of("postgresql://owner:x@db/s", "postgresql://owner:x@db/s") is None
    True
    """
    runtime, owner = make_url(database_url), make_url(migration_url)
    if runtime.get_backend_name() != "postgresql" or owner.get_backend_name() != "postgresql":
        return None
    if not runtime.username or runtime.username == owner.username:
        return None
    return runtime.username, runtime.password


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def grant_runtime_role(conn: Connection, role: str, password: str | None = None) -> Granted:
    """Give ``role`` exactly the runtime's privileges on every table of the current
    schema, creating it (LOGIN, ``password``) if it does not exist. ``conn``: the owner's.

    Raises :class:`ConfigurationError` when the role is the owner or a superuser (no
    privilege restricts those) or cannot be created.
    """
    quote = conn.dialect.identifier_preparer.quote
    name = quote(role)
    found = conn.execute(
        text("SELECT rolsuper FROM pg_roles WHERE rolname = :r"), {"r": role}
    ).first()
    owner = conn.execute(text("SELECT current_user")).scalar_one()
    if role == owner:
        raise ConfigurationError(
            f"DATABASE_URL connects as {role!r}, the owner of the tables: give it a role "
            "of its own (see the README's deployment section)"
        )
    if found is not None and found.rolsuper:
        raise ConfigurationError(
            f"DATABASE_URL's role {role!r} is a superuser: no privilege restricts it; "
            "give the processes an ordinary role"
        )
    created = found is None
    if created:
        secret = f" PASSWORD {_literal(password)}" if password else ""
        try:
            with conn.begin_nested():
                conn.execute(text(f"CREATE ROLE {name} LOGIN{secret}"))
        except Exception as error:
            raise ConfigurationError(
                f"cannot create the role {role!r} of DATABASE_URL ({type(error).__name__}): "
                "create it yourself (CREATE ROLE ... LOGIN PASSWORD ...) or let "
                "MIGRATION_DATABASE_URL's role create roles (CREATEROLE)"
            ) from None
    database = quote(conn.execute(text("SELECT current_database()")).scalar_one())
    schema_name = conn.execute(text("SELECT current_schema()")).scalar_one()
    schema = quote(schema_name)
    tables = sorted(inspect(conn).get_table_names(schema=schema_name))
    conn.execute(text(f"GRANT CONNECT ON DATABASE {database} TO {name}"))
    conn.execute(text(f"GRANT USAGE ON SCHEMA {schema} TO {name}"))
    append_only: list[str] = []
    read_only: list[str] = []
    read_write: list[str] = []
    for table in tables:
        qualified = f"{schema}.{quote(table)}"
        # Whatever it held before (a role granted too much by hand loses it).
        conn.execute(text(f"REVOKE ALL ON TABLE {qualified} FROM {name}"))
        if table in APPEND_ONLY:
            privileges, kind = "SELECT, INSERT", append_only
        elif table in READ_ONLY:
            privileges, kind = "SELECT", read_only
        else:
            privileges, kind = "SELECT, INSERT, UPDATE, DELETE", read_write
        conn.execute(text(f"GRANT {privileges} ON TABLE {qualified} TO {name}"))
        kind.append(table)
    conn.execute(text(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {name}"))
    return Granted(role, created, tuple(append_only), tuple(read_only), tuple(read_write))
