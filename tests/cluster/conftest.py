"""Fixtures of the cluster tests: a PostgreSQL database of their own, Redis, and a
factory of clusters that are torn down after the test."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from infra.migrations import upgrade
from tests.cluster.cluster import Cluster

StartCluster = Callable[..., Awaitable[Cluster]]


@pytest.fixture
def database(empty_database: Callable[[str], str]) -> str:
    url = empty_database("postgres")
    upgrade(url)
    return url


@pytest_asyncio.fixture
async def start_cluster(
    database: str, redis_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[StartCluster]:
    """``await start_cluster(size=3, instance_database_url=None, **env)``: the instances,
    worker, beat, Telegram and balancer, running; stopped after the test (logs in the
    test's tmp_path, or under CLUSTER_LOGS). ``instance_database_url``: how the
    instances reach the database."""
    started: list[Cluster] = []
    logs = tmp_path
    if kept := os.environ.get("CLUSTER_LOGS"):  # where to keep the processes' logs
        logs = Path(kept) / request.node.name.replace("/", "_")[:80]
        logs.mkdir(parents=True, exist_ok=True)

    async def start(size: int = 3, instance_database_url: str | None = None, **env: str) -> Cluster:
        cluster = Cluster(
            database,
            redis_url,
            logs,
            size=size,
            extra_env=env,
            instance_database_url=instance_database_url,
        )
        started.append(cluster)
        await cluster.start()
        return cluster

    yield start
    for cluster in started:
        await cluster.close()
