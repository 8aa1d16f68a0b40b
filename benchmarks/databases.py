"""Scratch PostgreSQL databases for the benchmarks, on the tests' server."""

from __future__ import annotations

import os
import uuid

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

SERVER = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def create_database(template: str | None = None) -> str:
    """A new database (a copy of the database ``template``, when given: nobody may be
    connected to that one)."""
    name = f"saboteur_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(SERVER, isolation_level="AUTOCOMMIT")
    copy = f' TEMPLATE "{template}"' if template else ""
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"{copy}'))
    admin.dispose()
    return make_url(SERVER).set(database=name).render_as_string(hide_password=False)


def drop_database(url: str) -> None:
    admin = create_engine(SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
    admin.dispose()
