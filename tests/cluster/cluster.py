"""Several bot instances as real processes, as an operator runs them.

Each instance is ``saboteur-bot web`` (the ``web`` process of the Procfile) on a port of
its own, on one PostgreSQL database and one Redis, with a real Celery worker and beat
beside them. Telegram is the fake Bot API (:mod:`tgbot.offline.fakeapi`), served by this process;
every instance reaches it through a proxy of its own (:class:`ApiProxy`), which can cut
that instance off. Updates reach the instances as Telegram's webhook reaches a load
balancer: :class:`Forwarder` posts each one to the next instance in turn, and to the next
again when one refuses it or cannot be reached.

The tests observe what players observe (messages and buttons in the fake Telegram, the
answers to their presses) and the event log, and wait on conditions with a bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
from sqlalchemy import text
from sqlalchemy.engine import Engine

from infra.db import make_engine
from infra.settings import webhook_secret
from tgbot.offline.fakeapi import FakeBotAPI
from tgbot.presenter import keyboards as kb
from tgbot.presenter.callback import CallbackData, peek

ROOT = Path(__file__).resolve().parents[2]
SECRET_KEY = "cluster-test-secret-key-0123456789abcdef"
WEBHOOK_URL = "https://bot.example/hook"  # what the instances give Telegram: the balancer's
SWEEP_INTERVAL = 0.5
START_SECONDS = 60.0  # bound on an instance (or the worker) becoming ready

T = TypeVar("T")
JSON = dict[str, Any]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def until(condition: Callable[[], T | None], timeout: float, every: float = 0.05) -> T:
    """Poll ``condition`` until it returns something truthy; fail after ``timeout`` s."""
    limit = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > limit:
            raise AssertionError(f"condition not met within {timeout} s: {condition}")
        await asyncio.sleep(every)


def read_button(raw: str) -> CallbackData | None:
    """What a button the bot drew means (read as Telegram keeps it; its signature, bound
    to its chat, is the bot's business), or None for data the bot did not write."""
    try:
        return peek(raw)
    except ValueError:
        return None


def prompt_buttons(message: JSON) -> list[tuple[str, CallbackData]]:
    """A message's buttons that belong to a player's prompt: raw data and decoded."""
    found = []
    for row in message.get("reply_markup", {}).get("inline_keyboard", []):
        for button in row:
            raw = button.get("callback_data")
            if not raw:
                continue
            data = read_button(raw)
            if data is not None and data.action in kb.PROMPT_ACTIONS:
                found.append((raw, data))
    return found


# ------------------------------------------------------------------------------ Telegram


@dataclass(frozen=True)
class Seen:
    """A prompt with buttons that reached a chat: when (Unix s), where, for which game
    and version."""

    at: float
    chat_id: int
    message_id: int
    game: str
    version: int
    sent: bool  # a new message (else an edit of one)


class Telegram(FakeBotAPI):
    """The fake Bot API, noting every prompt it was given and who answered which press;
    updates go out through :class:`Forwarder` (nothing polls)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Seen] = []
        self.sent: dict[int, list[JSON]] = {}  # chat id -> messages sent, as first sent
        self.outgoing: asyncio.Queue[JSON] = asyncio.Queue()
        self.pressed_at: dict[str, float] = {}
        self.press_data: dict[str, str] = {}  # callback query id -> its button's data
        # Called with the data just before a press goes out: the tests' faults.
        self.on_press: Callable[[str], None] | None = None
        self.answered_at: dict[str, float] = {}
        # Called with the query id right after a press was answered (before the answer
        # goes back to the instance): the tests' kills.
        self.on_answer: Callable[[str, JSON], None] | None = None

    def _push(self, update: JSON) -> None:
        update = {"update_id": next(self._update_ids), **update}
        self.outgoing.put_nowait(update)
        if "callback_query" in update:
            query = update["callback_query"]
            self.pressed_at[query["id"]] = time.time()
            self.press_data[query["id"]] = query.get("data", "")
            if self.on_press is not None:
                self.on_press(query.get("data", ""))

    def _bot_message(self, chat: JSON, params: JSON, content: JSON) -> JSON:
        message = super()._bot_message(chat, params, content)
        self.sent.setdefault(chat["id"], []).append(message)
        self._note(message, sent=True)
        return message

    def _edit(self, params: JSON, changes: JSON, drop: tuple[str, ...] = ()) -> JSON:
        message = super()._edit(params, changes, drop)
        self._note(message, sent=False)
        return message

    def _note(self, message: JSON, *, sent: bool) -> None:
        for _, data in prompt_buttons(message)[:1]:
            self.seen.append(
                Seen(
                    time.time(),
                    message["chat"]["id"],
                    message["message_id"],
                    data.game,
                    data.version,
                    sent,
                )
            )

    async def _api_answerCallbackQuery(self, params: JSON, files: dict[str, bytes]) -> bool:
        query_id = str(params.get("callback_query_id", ""))
        done = await super()._api_answerCallbackQuery(params, files)
        self.answered_at.setdefault(query_id, time.time())
        if self.on_answer is not None:
            self.on_answer(query_id, params)
        return done

    def sent_in(self, chat_id: int) -> list[JSON]:
        return self.sent.get(chat_id, [])

    def live_prompts(self, chat_id: int, game: str) -> list[tuple[JSON, int]]:
        """The messages in a chat that show buttons of a prompt of ``game``, with the
        version they were drawn for."""
        found = []
        for message in self.messages.get(chat_id, {}).values():
            versions = [d.version for _, d in prompt_buttons(message) if d.game == game]
            if versions:
                found.append((message, max(versions)))
        return found


class ApiProxy:
    """A TCP proxy between one instance and the fake Bot API; ``cut()`` drops every
    connection through it and every new one until ``mend()``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.cut_off = False
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()

    def cut(self) -> None:
        self.cut_off = True
        for writer in list(self._writers):
            writer.transport.abort()

    def mend(self) -> None:
        self.cut_off = False

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut_off:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.IncompleteReadError):
                while data := await src.read(65536):
                    if self.cut_off:
                        break
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort() if self.cut_off else dst.close()

        try:
            await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
        finally:
            self._writers -= {writer, up_writer}


# ----------------------------------------------------------------------------- processes


@dataclass
class Process:
    """A child process with its output in a log file."""

    name: str
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    popen: subprocess.Popen[bytes] | None = None
    cwd: Path = ROOT  # the tree whose code it runs

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            log.write(f"\n---- start {time.strftime('%H:%M:%S')}\n".encode())
            log.flush()
            self.popen = subprocess.Popen(
                self.argv, env=self.env, cwd=self.cwd, stdout=log, stderr=subprocess.STDOUT
            )

    @property
    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL: no goodbye, nothing flushed, nothing released."""
        if self.alive:
            assert self.popen is not None
            self.popen.send_signal(signal.SIGKILL)
            self.popen.wait(10)

    def terminate(self, seconds: float = 40.0) -> None:
        """SIGTERM, and wait for the process to end by itself."""
        if self.alive:
            assert self.popen is not None
            self.popen.terminate()
            try:
                self.popen.wait(seconds)
            except subprocess.TimeoutExpired:
                self.kill()
                raise AssertionError(f"{self.name} did not stop on SIGTERM") from None


@dataclass
class Instance(Process):
    """One ``saboteur-bot web`` process."""

    port: int = 0
    proxy: ApiProxy | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def ready(self, http: aiohttp.ClientSession, timeout: float = START_SECONDS) -> None:
        async def answered() -> bool:
            with contextlib.suppress(aiohttp.ClientError, OSError):
                async with http.get(f"{self.base}/readyz") as response:
                    return response.status == 200
            return False

        limit = time.monotonic() + timeout
        while not await answered():
            if not self.alive:
                raise AssertionError(f"{self.name} died:\n{self.log()[-3000:]}")
            if time.monotonic() > limit:
                raise AssertionError(f"{self.name} not ready in {timeout} s:\n{self.log()[-3000:]}")
            await asyncio.sleep(0.1)


def base_env(database_url: str, redis_url: str, root: Path = ROOT) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        CELERY_BROKER_URL="",
        SECRET_KEY=SECRET_KEY,
        SECRET_KEY_PREVIOUS="",
        SWEEP_INTERVAL_SECONDS=str(SWEEP_INTERVAL),
        DEADLINE_LEASE_SECONDS="2",
        EMBEDDED_WORKER="off",
        LOG_LEVEL="INFO",
        PYTHONPATH=os.pathsep.join([str(root), env.get("PYTHONPATH", "")]),
        PYTHONUNBUFFERED="1",
    )
    return env


# ------------------------------------------------------------------------------ forwarder


class Forwarder:
    """Telegram's webhook behind a round-robin balancer: each update goes to the next
    instance; one refused (not 200) or unreachable goes to the next, again and again
    (with a short pause after a full round), as Telegram delivers it again."""

    def __init__(self, api: Telegram, instances: list[Instance]) -> None:
        self.api = api
        self.instances = instances
        self.turn = itertools.count()
        self.handled_by: dict[int, str] = {}  # update id -> the instance that took it
        self.query_update: dict[str, int] = {}  # callback query id -> update id
        self.header = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret(SECRET_KEY)}
        self.in_flight = 0
        self.to: Instance | None = None  # every update to this instance alone, if set
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._http: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for task in list(self._tasks):
            task.cancel()
        if self._http is not None:
            await self._http.close()

    @property
    def idle(self) -> bool:
        return self.api.outgoing.empty() and self.in_flight == 0

    async def _run(self) -> None:
        while True:
            update = await self.api.outgoing.get()
            self.in_flight += 1
            task = asyncio.create_task(self._deliver(update))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _deliver(self, update: JSON) -> None:
        assert self._http is not None
        if "callback_query" in update:
            self.query_update[update["callback_query"]["id"]] = update["update_id"]
        try:
            for attempt in itertools.count():
                instance = self.to or self.instances[next(self.turn) % len(self.instances)]
                with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
                    async with self._http.post(
                        f"{instance.base}/hook", json=update, headers=self.header
                    ) as response:
                        if response.status == 200:
                            self.handled_by[update["update_id"]] = instance.name
                            return
                if attempt % len(self.instances) == len(self.instances) - 1:
                    await asyncio.sleep(0.2)
        finally:
            self.in_flight -= 1

    def instance_of(self, query_id: str) -> Instance | None:
        """The instance a press was delivered to."""
        update = self.query_update.get(query_id)
        name = self.handled_by.get(update) if update is not None else None
        return next((i for i in self.instances if i.name == name), None)


# ------------------------------------------------------------------------------- cluster


@dataclass
class Cluster:
    """The bot instances, the worker and beat, the fake Telegram and the balancer."""

    database_url: str
    redis_url: str
    logs: Path
    size: int = 3
    extra_env: dict[str, str] = field(default_factory=dict)
    # The instances' database URL, when they reach it another way (a proxy).
    instance_database_url: str | None = None
    api: Telegram = field(default_factory=Telegram)
    instances: list[Instance] = field(default_factory=list)
    celery: list[Process] = field(default_factory=list)
    forwarder: Forwarder | None = None
    http: aiohttp.ClientSession | None = None
    engine: Engine | None = None
    names: itertools.count[int] = field(default_factory=itertools.count)
    # The tree whose code the processes run (another checkout: a benchmark's "before").
    root: Path = ROOT

    async def start(self) -> None:
        await self.api.start()
        self.http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5))
        self.engine = make_engine(self.database_url)
        env = base_env(self.database_url, self.redis_url, self.root)
        env.update(self.extra_env)
        for role in ("worker", "beat"):
            argv = [sys.executable, "-m", "celery", "-A", "infra.celery_app", role]
            if role == "worker":
                argv += ["--pool=threads", "--concurrency=4", "--without-mingle"]
                argv += ["--without-gossip", f"--hostname=w{uuid.uuid4().hex[:6]}@%h"]
            else:
                argv += [f"--schedule={self.logs / 'beat.schedule'}"]
            process = Process(
                role, [*argv, "--loglevel=INFO"], env, self.logs / f"{role}.log", cwd=self.root
            )
            process.start()
            self.celery.append(process)
        for _ in range(self.size):
            self.instances.append(await self._instance(env))
        for instance in self.instances:
            instance.start()
        assert self.http is not None
        await asyncio.gather(*(i.ready(self.http) for i in self.instances))
        self.forwarder = Forwarder(self.api, self.instances)
        await self.forwarder.start()

    async def _instance(self, env: dict[str, str]) -> Instance:
        proxy = ApiProxy(self.api.port)
        await proxy.start()
        port = free_port()
        name = f"bot{next(self.names)}"
        env = dict(env, PORT=str(port), WEBHOOK_URL=WEBHOOK_URL, TELEGRAM_API_URL=proxy.url)
        if self.instance_database_url:
            env["DATABASE_URL"] = self.instance_database_url
        env.update(TELEGRAM_BOT_TOKEN=self.api.token)
        argv = [sys.executable, "-m", "tgbot.cli", "web"]
        log = self.logs / f"{name}.log"
        return Instance(name, argv, env, log, cwd=self.root, port=port, proxy=proxy)

    async def close(self) -> None:
        if self.forwarder is not None:
            await self.forwarder.stop()
        for process in [*self.instances, *self.celery]:
            process.kill()
        for instance in self.instances:
            if instance.proxy is not None:
                await instance.proxy.stop()
        if self.http is not None:
            await self.http.close()
        if self.engine is not None:
            self.engine.dispose()
        await self.api.stop()

    async def restart(self, instance: Instance) -> float:
        """Start a stopped instance again; seconds until it is ready."""
        assert self.http is not None
        started = time.monotonic()
        instance.start()
        await instance.ready(self.http)
        return time.monotonic() - started

    def holder_of(self, game: str) -> Instance | None:
        """The instance that holds a game's claim (its pid is in the holder's name)."""
        assert self.engine is not None
        with self.engine.connect() as conn:
            holder = conn.execute(
                text("SELECT holder FROM game_claims WHERE stream_id = :g"), {"g": game}
            ).scalar()
        if holder is None:
            return None
        return next((i for i in self.instances if i.alive and f":{i.pid}:" in holder), None)

    async def settled(self, timeout: float = 30.0) -> None:
        """Wait until every update was taken and nothing is left to announce: the event
        log's last version of every game is what the instances announced, and no
        delivery is owed."""
        assert self.forwarder is not None
        forwarder = self.forwarder
        await until(lambda: forwarder.idle, timeout)
        await until(lambda: not self.owed(), timeout, every=0.2)

    def owed(self) -> list[str]:
        """What is still to be announced or sent: games whose last events nobody
        announced yet, and deliveries not settled."""
        assert self.engine is not None
        with self.engine.connect() as conn:
            behind = conn.execute(
                text(
                    "SELECT e.stream_id FROM events e "
                    "LEFT JOIN announced_games p "
                    "ON p.stream_id = e.stream_id AND p.name = 'notifier' "
                    "GROUP BY e.stream_id, p.version "
                    "HAVING max(e.version) > coalesce(p.version, 0)"
                )
            ).scalars()
            owed = [f"game {g} not announced" for g in behind]
            if has_table(conn, "deliveries"):
                owed += [
                    f"delivery {row.key}: {row.state}"
                    for row in conn.execute(
                        text(
                            "SELECT key, state FROM deliveries "
                            "WHERE state IN ('pending', 'unknown')"
                        )
                    )
                ]
        return owed


def has_table(conn: Any, name: str) -> bool:
    return bool(conn.execute(text("SELECT to_regclass(:n) IS NOT NULL"), {"n": name}).scalar())


def chunks(items: Iterable[T], size: int) -> list[list[T]]:
    out: list[list[T]] = []
    for item in items:
        if not out or len(out[-1]) == size:
            out.append([])
        out[-1].append(item)
    return out
