"""The tasks' runtime and the Celery configuration (no worker needed)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from types import SimpleNamespace

import pytest

from infra import tasks
from infra.celery_app import SWEEP_TASK, celery_config
from infra.settings import load_settings


def test_eight_threads_starting_tasks_at_once_build_one_runtime(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[object] = []
    another = threading.Event()

    def bootstrap() -> object:
        built.append(object())
        if len(built) > 1:
            another.set()
        # Stay in here a while, as building an engine does, or until a second build starts.
        another.wait(timeout=0.5)
        return built[-1]

    monkeypatch.setattr(tasks, "_default", None)
    monkeypatch.setattr(tasks, "_configured", None)
    monkeypatch.setattr(tasks, "bootstrap", bootstrap)
    monkeypatch.setattr(tasks, "runtime_from", lambda services: services)
    start = threading.Barrier(8)

    def first_task(_: int) -> object:
        start.wait(timeout=10)
        return tasks.runtime()

    with ThreadPoolExecutor(8) as pool:
        runtimes = list(pool.map(first_task, range(8)))
    assert len(built) == 1
    assert all(runtime is built[0] for runtime in runtimes)


@pytest.mark.parametrize(
    ("environment", "broker"),
    [
        ({"redis_url": "redis://cache:6379/0"}, "redis://cache:6379/0"),
        ({"celery_broker_url": "redis://other:6379/2"}, "redis://other:6379/2"),
        ({}, "sqla+sqlite:///"),
    ],
)
def test_celery_acknowledges_late_one_task_at_a_time_in_utc_on_the_configured_broker(
    environment: dict[str, str], broker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "SWEEP_INTERVAL_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    config = celery_config(load_settings(_env_file=None, **environment))
    assert config["broker_url"].startswith(broker)
    assert config["task_acks_late"] is True
    assert config["task_reject_on_worker_lost"] is True
    assert config["worker_prefetch_multiplier"] == 1
    assert config["enable_utc"] is True and config["timezone"] == "UTC"
    redis = broker.startswith("redis")
    # Redis hands an unacknowledged task to another worker only after this timeout.
    assert ("visibility_timeout" in config["broker_transport_options"]) is redis
    sweep = config["beat_schedule"]["sweep-deadlines"]
    assert sweep["task"] == SWEEP_TASK and sweep["schedule"] == 2.0


def test_the_lease_the_lookahead_and_the_computers_pause_come_from_the_settings() -> None:
    settings = load_settings(
        _env_file=None,
        deadline_lease_seconds=7,
        sweep_interval_seconds=3,
        computer_pause_seconds=0.25,
    )
    games = SimpleNamespace(handle=lambda *args: [])
    services = SimpleNamespace(engine=None, store=None, games=games, settings=settings)
    runtime = tasks.runtime_from(services)  # type: ignore[arg-type]
    assert runtime.lease == timedelta(seconds=7)
    assert runtime.lookahead == timedelta(seconds=3)
    assert runtime.computer_pause == timedelta(seconds=0.25) and runtime.computer is not None


def test_the_computers_pause_defaults_to_a_second_and_a_half() -> None:
    assert load_settings(_env_file=None).computer_pause_seconds == 1.5
