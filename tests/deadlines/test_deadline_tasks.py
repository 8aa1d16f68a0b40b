"""The tasks' runtime and the Celery configuration (no worker needed)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from infra import tasks


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
