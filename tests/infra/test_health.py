"""Readiness checks against real services: what answers, and why what does not."""

from __future__ import annotations

from pathlib import Path

from infra.db import make_engine
from infra.health import broker_problem, problems


def test_a_reachable_database_and_broker_make_the_process_ready(
    db_url: str, redis_url: str, tmp_path: Path
) -> None:
    engine = make_engine(db_url)
    try:
        assert problems(engine, redis_url) == []
        assert problems(engine, f"sqla+sqlite:///{tmp_path / 'broker.db'}") == []
    finally:
        engine.dispose()


def test_an_unreachable_broker_or_database_is_named_without_its_password(
    tmp_path: Path,
) -> None:
    broker = broker_problem("redis://:hunter2@127.0.0.1:1/0", timeout=0.5)
    engine = make_engine("postgresql://postgres:hunter2@127.0.0.1:1/nothing")
    try:
        [database, redis] = problems(engine, "redis://:hunter2@127.0.0.1:1/0")
    finally:
        engine.dispose()

    assert broker is not None and broker.startswith("broker redis://")
    assert database.startswith("database postgresql+psycopg://postgres:***@127.0.0.1:1")
    assert redis == broker
    assert "hunter2" not in broker + database
