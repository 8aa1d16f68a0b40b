"""The web process under a hostile body: ``python -m benchmarks.bench_web``.

One ``saboteur-bot web`` process on a fresh SQLite database, Telegram being the fake
Bot API (in this process), a base game of three players started in its group through the
game service. Measured:

- start: from ``exec`` of the process to ``/readyz`` answering 200 (``--starts`` times);
- ``/healthz`` latency, p50 / p99 / max, polled every 20 ms: idle, then while a seated
  player posts ``--bodies`` bodies of ``--megabytes`` MB to the Mini App's move endpoint
  one after the other (each with valid initData: as far as a real player's client gets).

Target: ``/healthz`` p99 under 50 ms while the bodies are posted (they are refused before
they are read). The machine's load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from domain.commands import CreateGame, JoinGame, StartGame
from infra.bootstrap import bootstrap
from infra.migrations import upgrade
from infra.settings import load_settings
from tgbot.miniapp import initdata
from tgbot.offline.fakeapi import FakeBotAPI
from tgbot.telegram.context import game_id_for

GROUP = -4242
PLAYERS = [71, 72, 73]
KEY = "a-secret-key-of-the-benchmark-0123456"
TARGET_P99_MS = 50.0


def _quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def _figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    return (
        f"p50 {_quantile(ordered, 0.5):6.1f} ms  p99 {_quantile(ordered, 0.99):6.1f} ms"
        f"  max {ordered[-1] if ordered else 0.0:6.1f} ms  ({len(ordered)} polls)"
    )


def _started_game(db: str, token: str) -> str:
    services = bootstrap(load_settings(_env_file=None, telegram_bot_token=token, database_url=db))
    try:
        game = game_id_for(GROUP, 1, b"bench")
        handle = services.games.handle
        handle(game, CreateGame(PLAYERS[0], f"P{PLAYERS[0]}", "base", GROUP))
        for player in PLAYERS[1:]:
            handle(game, JoinGame(player, f"P{player}"))
        handle(game, StartGame(PLAYERS[0]))
        return game
    finally:
        services.close()


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _start(
    env: dict[str, str], cwd: Path, url: str
) -> tuple[asyncio.subprocess.Process, float]:
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tgbot.cli",
        "web",
        env=env,
        cwd=cwd,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    async with aiohttp.ClientSession() as http:
        for _ in range(1200):
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(f"{url}/readyz") as response:
                    if response.status == 200:
                        return process, time.perf_counter() - started
            await asyncio.sleep(0.01)
    process.kill()
    raise SystemExit("the web process did not get ready")


async def _poll(url: str, until: asyncio.Event) -> list[float]:
    samples: list[float] = []
    async with aiohttp.ClientSession() as http:
        while not until.is_set():
            began = time.perf_counter()
            async with http.get(f"{url}/healthz") as response:
                await response.read()
            samples.append((time.perf_counter() - began) * 1000)
            await asyncio.sleep(0.02)
    return samples


async def _post_bodies(
    url: str, headers: dict[str, str], megabytes: float, bodies: int
) -> list[int]:
    body = (
        b'{"version": 1, "key": "tap-00001", "move": {}, "pad": "'
        + b"x" * int(megabytes * 1_000_000)
        + b'"}'
    )
    statuses = []
    async with aiohttp.ClientSession() as http:
        for _ in range(bodies):
            try:
                async with http.post(url, data=body, headers=headers) as response:
                    statuses.append(response.status)
            except aiohttp.ClientError:
                statuses.append(0)  # closed before the whole body was sent
    return statuses


async def main(starts: int, megabytes: float, bodies: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-web-"))
    db = f"sqlite:///{folder}/bench.db"
    upgrade(db)
    async with FakeBotAPI() as api:
        api.group(GROUP, "Bench", admins=(PLAYERS[0],))
        for player in PLAYERS:
            api.user(player, f"P{player}")
        game = _started_game(db, api.token)
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "WEBHOOK_"))}
        env.update(
            TELEGRAM_BOT_TOKEN=api.token,
            TELEGRAM_API_URL=f"http://127.0.0.1:{api.port}",
            DATABASE_URL=db,
            WEBHOOK_URL=f"{url}/hook",
            PORT=str(port),
            SECRET_KEY=KEY,
            EMBEDDED_WORKER="off",
            LOG_LEVEL="WARNING",
        )
        times = []
        for n in range(starts):
            process, seconds = await _start(env, folder, url)
            times.append(seconds)
            if n < starts - 1:
                process.terminate()
                await process.wait()
        print(f"load average {os.getloadavg()[0]:.2f}")
        print("start, exec to /readyz 200: " + ", ".join(f"{t:.2f} s" for t in times))
        try:
            stop = asyncio.Event()
            poll = asyncio.create_task(_poll(url, stop))
            await asyncio.sleep(2.0)
            stop.set()
            print(f"/healthz idle:          {_figures(await poll)}")

            fields = {
                "auth_date": str(int(time.time())),
                "user": f'{{"id": {PLAYERS[0]}, "first_name": "P"}}',
            }
            headers = {"Authorization": f"tma {initdata.sign(fields, api.token)}"}
            move = f"{url}/miniapp/api/game/{game}/move"
            stop = asyncio.Event()
            poll = asyncio.create_task(_poll(url, stop))
            statuses = await _post_bodies(move, headers, megabytes, bodies)
            stop.set()
            during = await poll
            what = f"{bodies} x {megabytes:g} MB moves"
            print(f"/healthz during {what}: {_figures(during)}  answers {sorted(set(statuses))}")
            p99 = _quantile(sorted(during), 0.99)
            verdict = "PASS" if p99 < TARGET_P99_MS else "FAIL"
            target = f"target < {TARGET_P99_MS:g} ms"
            print(f"{verdict}: /healthz p99 {p99:.1f} ms while the bodies are posted ({target})")
        finally:
            process.terminate()
            await process.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--megabytes", type=float, default=5.0)
    parser.add_argument("--bodies", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.starts, args.megabytes, args.bodies))
