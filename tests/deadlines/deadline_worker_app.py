"""The Celery app as the deadline tests run it: the project's app and tasks, wired to the
test database through the harness (``celery -A deadline_worker_app worker``)."""

from __future__ import annotations

import os

from deadline_harness import build_runtime, rules_from_env

from infra import tasks
from infra.celery_app import app

tasks.configure(build_runtime(os.environ["DATABASE_URL"], rules_from_env()))

__all__ = ["app"]
