"""The Celery app as the deadline tests run it: the project's app and tasks, wired to the
test database through the harness (``celery -A deadline_worker_app worker``).

``DEADLINE_TEST_HOLD_AFTER=N`` makes the worker time out N decisions and then hold the
next one mid-task, unacknowledged, until the test kills the process: a worker that dies
mid-flight at a known point rather than whenever the kill happens to land.
``COMPUTER_TEST_HOLD_AFTER=N`` does the same with the computer's moves.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading

from deadline_harness import HOLDING, build_runtime, rules_from_env

from domain.commands import Command, MakeComputerMove, TimeOut
from infra import tasks
from infra.celery_app import app

log = logging.getLogger(__name__)


def holding_after(
    done: int, handle: tasks.CommandHandler, held_type: type = TimeOut
) -> tasks.CommandHandler:
    """``handle``, except that every command of ``held_type`` after the first ``done``
    never returns."""
    lock = threading.Lock()
    count = 0

    def held(game_id: str, command: Command, key: str | None) -> object:
        nonlocal count
        if isinstance(command, held_type):
            with lock:
                hold = count >= done
                count += 1
            if hold:
                log.warning("%s: %s", HOLDING, key)
                threading.Event().wait()
        return handle(game_id, command, key)

    return held


runtime = build_runtime(os.environ["DATABASE_URL"], rules_from_env())
if hold := os.environ.get("DEADLINE_TEST_HOLD_AFTER"):
    runtime = dataclasses.replace(runtime, handle=holding_after(int(hold), runtime.handle))
if hold := os.environ.get("COMPUTER_TEST_HOLD_AFTER"):
    held = holding_after(int(hold), runtime.handle, MakeComputerMove)
    runtime = dataclasses.replace(runtime, handle=held)
tasks.configure(runtime)

__all__ = ["app"]
