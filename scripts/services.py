"""Helpers for scripts/test: check the servers, make and drop a scratch database.

python scripts/services.py check          exit 0 when PostgreSQL and Redis answer
python scripts/services.py createdb       print the URL of a new, empty database
python scripts/services.py dropdb URL     drop that database
"""

from __future__ import annotations

import os
import sys
import uuid

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

POSTGRES = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _admin() -> str:
    return make_url(POSTGRES).render_as_string(hide_password=False)


def check() -> int:
    problems = []
    try:
        engine = create_engine(_admin(), connect_args={"connect_timeout": 3})
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
    except Exception as error:
        problems.append(f"PostgreSQL at {POSTGRES} is unreachable ({type(error).__name__})")
    try:
        import redis

        redis.Redis.from_url(REDIS, socket_connect_timeout=3).ping()
    except Exception as error:
        problems.append(f"Redis at {REDIS} is unreachable ({type(error).__name__})")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


def createdb() -> int:
    name = f"saboteur_check_{uuid.uuid4().hex[:12]}"
    engine = create_engine(_admin(), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()
        print(
            f"cannot create a database on {POSTGRES}: {reason[0] if reason else error}",
            file=sys.stderr,
        )
        return 1
    finally:
        engine.dispose()
    print(make_url(POSTGRES).set(database=name).render_as_string(hide_password=False))
    return 0


def dropdb(url: str) -> int:
    name = make_url(url).database
    engine = create_engine(_admin(), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()
    return 0


if __name__ == "__main__":
    match sys.argv[1:]:
        case ["check"]:
            raise SystemExit(check())
        case ["createdb"]:
            raise SystemExit(createdb())
        case ["dropdb", url]:
            raise SystemExit(dropdb(url))
        case _:
            print(__doc__, file=sys.stderr)
            raise SystemExit(2)
