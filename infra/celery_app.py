"""The Celery application: workers fire deadlines and reminders and make the computer
players' moves, beat runs the sweeper.

Without Redis, ``saboteur-bot run`` starts a worker and beat as its own child processes
(:mod:`infra.embedded_celery`). Run by hand, or as the Procfile does::

    celery -A infra.celery_app worker --pool=solo --loglevel=INFO
    celery -A infra.celery_app beat --loglevel=INFO

The broker comes from the settings: Redis when ``REDIS_URL`` (or ``CELERY_BROKER_URL``)
is set, else kombu's SQLAlchemy transport on a SQLite file, so a single machine needs no
service at all. Either way the broker is disposable: deadlines live in the database
(:mod:`infra.deadlines`) and a lost message is sent again by the next sweeps.
"""

from __future__ import annotations

import sys
from typing import Any

from celery import Celery

from infra import redaction
from infra.settings import ConfigurationError, Settings, load_settings

# A sent task not acknowledged within this long is handed to another worker by Redis.
# Tasks take milliseconds; the sweeper's lease, not this, bounds how late a lost one is.
VISIBILITY_TIMEOUT_SECONDS = 300
SQL_POLLING_SECONDS = 0.1
SWEEP_TASK = "saboteur.sweep"
FIRE_TASK = "saboteur.fire_deadline"
REMIND_TASK = "saboteur.send_reminder"
COMPUTER_TASK = "saboteur.computer_move"


def celery_config(settings: Settings) -> dict[str, Any]:
    """The Celery configuration for ``settings`` (a plain dict, easy to check)."""
    broker = settings.broker_url
    transport: dict[str, Any]
    if broker.startswith(("redis://", "rediss://", "unix://")):
        transport = {"visibility_timeout": VISIBILITY_TIMEOUT_SECONDS}
    else:
        transport = {}
    interval = settings.sweep_interval_seconds
    return {
        "broker_url": broker,
        "broker_transport_options": transport,
        "broker_connection_retry_on_startup": True,
        "result_backend": None,
        "task_ignore_result": True,
        # A task is acknowledged when it finished, not when it was received: a worker
        # that dies mid-task leaves it to be delivered again.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_serializer": "json",
        "accept_content": ["json"],
        "enable_utc": True,
        "timezone": "UTC",
        "beat_schedule": {
            "sweep-deadlines": {
                "task": SWEEP_TASK,
                "schedule": interval,
                # A sweep still queued when the next is due is worthless: drop it.
                "options": {"expires": max(interval, 1.0)},
            }
        },
        "beat_max_loop_interval": min(interval, 5.0),
    }


def create_app(settings: Settings | None = None) -> Celery:
    """A Celery app configured from ``settings`` (read from the environment if omitted)."""
    config = celery_config(settings or load_settings())
    if config["broker_url"].startswith(("sqla+", "sqlalchemy+")):
        # kombu's SQL transport polls its table once a second and hands every transport
        # option to create_engine(), so its polling interval can only be set here.
        from kombu.transport import sqlalchemy as sql_transport

        sql_transport.Transport.polling_interval = SQL_POLLING_SECONDS
    app = Celery("saboteur", include=["infra.tasks"])
    app.conf.update(config)
    return app


def _app_or_exit() -> Celery:
    # `celery -A infra.celery_app ...` imports this module: a setting that cannot be used
    # ends the worker or beat with one line, as it ends saboteur-bot.
    try:
        settings = load_settings()
        redaction.install(settings)  # before the worker or beat logs anything
        return create_app(settings)
    except ConfigurationError as error:
        print(f"celery: {redaction.redact(str(error))}", file=sys.stderr)
        raise SystemExit(2) from None


app = _app_or_exit()
