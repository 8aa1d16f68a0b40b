"""The faults of the delivery audit, each repeated on real bot processes: after each, every
pending decision shows its prompt (0 decisions without a live prompt)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import time
from collections.abc import Awaitable, Callable

import pytest

from tests.cluster.cluster import JSON, Cluster, Instance, read_button, until
from tests.cluster.conftest import StartCluster
from tests.cluster.players import (
    Audit,
    Played,
    StopAt,
    Table,
    action_data,
    play,
    set_up,
    settle,
)
from tests.infra.pg_proxy import pg_proxy
from tgbot.presenter import keyboards as kb

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

GAMES = 4
FAULTS = 3  # each fault, repeated this often in one test
AFTER_FAULTS = 5.0  # seconds played on after the last fault


def command_pressed(cluster: Cluster, query_id: str) -> bool:
    """Whether a press was of a button that makes a move (not a step inside a prompt)."""
    raw = cluster.api.press_data.get(query_id, "")
    data = read_button(raw)
    return data is not None and data.action in kb.COMMAND_ACTIONS


async def playing(
    cluster: Cluster, tables: list[Table], seconds: float, faults: Callable[[], Awaitable[None]]
) -> Played:
    """Play while ``faults()`` runs beside, and :data:`AFTER_FAULTS` seconds more once it
    is over (``seconds`` at most)."""
    stop = StopAt(time.monotonic() + seconds)

    async def faulting() -> None:
        try:
            await faults()
        finally:
            stop.soon(AFTER_FAULTS)

    played, _ = await asyncio.gather(play(cluster.api, tables, seconds, stop=stop), faulting())
    return played


def lobby_in(cluster: Cluster, group: int) -> JSON | None:
    """The group's lobby: the message with a Join button."""
    for message in cluster.api.messages_in(group):
        with contextlib.suppress(AssertionError):
            action_data(message, kb.JOIN)
            return message
    return None


def assert_every_decision_prompted(cluster: Cluster, found: Audit, played: Played) -> None:
    report = (
        f"{played.presses} presses ({played.unanswered} unanswered, errors {played.errors}),"
        f" {found.decisions} decisions, longest gap {found.longest_gap:.2f} s,"
        f" still owed {cluster.owed()}"
    )
    print(report)
    assert found.not_live == [], report  # 0 decisions without a live prompt
    assert found.timed_out == 0, report
    assert found.duplicate_versions == [], report
    assert found.duplicate_prompts == [], report
    assert found.group_repeats == [], report


async def test_kill_soon_after_a_move_is_accepted_with_telegram_slow(
    start_cluster: StartCluster,
) -> None:
    cluster = await start_cluster(size=2)
    tables = await set_up(cluster.api, GAMES)
    for method in ("sendPhoto", "editMessageMedia"):
        cluster.api.slow(method, 1.5)
    rng = random.Random(7)
    loop = asyncio.get_running_loop()
    kills: list[str] = []
    restarts: list[asyncio.Task[float]] = []
    armed = asyncio.Event()

    def kill(instance: Instance) -> None:
        if instance.alive and sum(i.alive for i in cluster.instances) > 1:
            instance.kill()
            kills.append(instance.name)
            restarts.append(loop.create_task(cluster.restart(instance)))

    def on_answer(query_id: str, params: dict[str, object]) -> None:
        if not armed.is_set() or params.get("show_alert") or not command_pressed(cluster, query_id):
            return
        assert cluster.forwarder is not None
        button = read_button(cluster.api.press_data[query_id])
        assert button is not None
        game = button.game
        target = cluster.holder_of(game) or cluster.forwarder.instance_of(query_id)
        if target is not None:
            armed.clear()
            loop.call_later(rng.uniform(0.0, 0.3), kill, target)

    async def faults() -> None:
        cluster.api.on_answer = on_answer
        for _ in range(FAULTS):
            armed.set()
            await until(lambda: not armed.is_set(), 20)
            await asyncio.sleep(0.4)
            await asyncio.gather(*restarts)
        cluster.api.on_answer = None

    played = await playing(cluster, tables, 30, faults)
    found = await settle(cluster, tables)
    assert len(kills) >= FAULTS - 1, kills
    assert_every_decision_prompted(cluster, found, played)


async def test_a_killed_instance_never_started_again_leaves_its_games_to_the_survivor(
    start_cluster: StartCluster,
) -> None:
    """The survivor's takeover does not wait for the dead instance's restart: a is killed
    right after it answered a move on a game it holds (the move recorded, its prompts
    owed by a) and never started again; b announces every pending decision of a's
    games."""
    cluster = await start_cluster(size=2)
    tables = await set_up(cluster.api, GAMES)
    a, b = cluster.instances
    await until(lambda: any(cluster.holder_of(t.game) is a for t in tables), 30)
    killed: list[float] = []
    held: list[str] = []
    pressed: list[str] = []  # the game whose move a answered, its prompts owed by a
    armed = asyncio.Event()

    def on_answer(query_id: str, params: dict[str, object]) -> None:
        if not armed.is_set() or params.get("show_alert") or not command_pressed(cluster, query_id):
            return
        button = read_button(cluster.api.press_data[query_id])
        if button is None or cluster.holder_of(button.game) is not a:
            return
        armed.clear()
        pressed.append(button.game)
        held.extend(t.game for t in tables if cluster.holder_of(t.game) is a)
        a.kill()
        killed.append(time.time())

    async def faults() -> None:
        cluster.api.on_answer = on_answer
        armed.set()
        await until(lambda: killed, 60)
        cluster.api.on_answer = None

    played = await playing(cluster, tables, 30, faults)
    found = await settle(cluster, tables)
    assert killed and held
    assert not a.alive and b.alive  # never started again
    assert_every_decision_prompted(cluster, found, played)
    assert found.without_prompt == []
    # The game whose move a answered just before it died showed its owed prompt after
    # the kill: b's, as a is dead. (a's other games may have had nothing left to show.)
    (game,) = pressed
    assert any(s.game == game and s.at > killed[0] for s in cluster.api.seen), game
    assert all(cluster.holder_of(game) in (b, None) for game in held)


async def test_sigterm_loses_no_update_and_leaves_no_decision_unprompted(
    start_cluster: StartCluster,
) -> None:
    cluster = await start_cluster(size=2)
    tables = await set_up(cluster.api, GAMES)
    for method in ("sendPhoto", "editMessageMedia"):
        cluster.api.slow(method, 1.5)  # a stop is likely to come mid-send

    async def faults() -> None:
        for n in range(2):
            await asyncio.sleep(3)
            instance = cluster.instances[n % 2]
            await asyncio.to_thread(instance.terminate)
            await cluster.restart(instance)

    played = await playing(cluster, tables, 20, faults)
    found = await settle(cluster, tables)
    assert played.unanswered == 0  # every update was handled: none lost on the way out
    assert_every_decision_prompted(cluster, found, played)


@pytest.mark.parametrize(
    "marker",
    [b"announced_games", b"deliveries"],
    ids=["after the announced version's commit", "after the outbox's commit"],
)
async def test_connection_dropped_right_after_the_announcers_commit(
    start_cluster: StartCluster, database: str, marker: bytes
) -> None:
    with pg_proxy(database) as proxy:
        cluster = await start_cluster(size=2, instance_database_url=proxy.url)
        tables = await set_up(cluster.api, GAMES)

        def cut_since(count: int) -> bool:
            return proxy.cuts > count

        async def faults() -> None:
            for _ in range(FAULTS):
                before = proxy.cuts
                proxy.cut("after", marker=marker)
                await until(functools.partial(cut_since, before), 20)
                await asyncio.sleep(1)

        played = await playing(cluster, tables, 30, faults)
        found = await settle(cluster, tables)
    assert proxy.cuts >= FAULTS
    assert_every_decision_prompted(cluster, found, played)


async def test_connection_dropped_right_after_the_appends_commit_is_told_it_counted(
    start_cluster: StartCluster, database: str
) -> None:
    with pg_proxy(database) as proxy:
        cluster = await start_cluster(size=2, instance_database_url=proxy.url)
        tables = await set_up(cluster.api, GAMES)
        cuts_wanted = {"left": FAULTS}

        def on_press(data: str) -> None:
            button = read_button(data)
            if button is None:
                return
            if button.action in kb.COMMAND_ACTIONS and cuts_wanted["left"] and not proxy.armed:
                cuts_wanted["left"] -= 1
                proxy.cut("after", marker=b"INSERT INTO events")

        cluster.api.on_press = on_press

        async def faults() -> None:
            await until(lambda: proxy.cuts >= FAULTS, 40)

        played = await playing(cluster, tables, 30, faults)
        cluster.api.on_press = None
        found = await settle(cluster, tables)
    assert proxy.cuts >= FAULTS
    assert played.errors == []  # each press whose move was recorded was told it counted
    assert_every_decision_prompted(cluster, found, played)


async def test_an_instance_cut_off_from_telegram_gives_its_games_up(
    start_cluster: StartCluster,
) -> None:
    cluster = await start_cluster(size=2)
    tables = await set_up(cluster.api, GAMES)
    cut = cluster.instances[0]
    assert cut.proxy is not None

    async def faults() -> None:
        await asyncio.sleep(3)
        cut.proxy.cut()  # type: ignore[union-attr]
        await asyncio.sleep(12)  # its games move over, and are played on there

    try:
        played = await playing(cluster, tables, 30, faults)
        assert cluster.forwarder is not None
        cluster.forwarder.to = cluster.instances[1]  # Telegram gave up on the cut one
        found = await settle(cluster, tables)  # while the instance is still cut off
    finally:
        cut.proxy.mend()
    assert cut.alive
    assert_every_decision_prompted(cluster, found, played)
    # The games went on (the presses the cut-off instance took were never answered).
    assert played.answered > 20


async def test_a_rolling_restart_loses_no_update(start_cluster: StartCluster) -> None:
    cluster = await start_cluster(size=3)
    tables = await set_up(cluster.api, GAMES)
    took: list[float] = []

    async def faults() -> None:
        for instance in cluster.instances:
            await asyncio.sleep(2)
            started = time.monotonic()
            await asyncio.to_thread(instance.terminate)
            await cluster.restart(instance)
            took.append(time.monotonic() - started)

    played = await playing(cluster, tables, 35, faults)
    found = await settle(cluster, tables)
    assert len(took) == 3
    assert played.unanswered == 0  # no update lost
    assert_every_decision_prompted(cluster, found, played)


async def test_a_users_start_on_instance_b_is_seen_at_once_by_instance_a(
    start_cluster: StartCluster,
) -> None:
    cluster = await start_cluster(size=2)
    api, forwarder = cluster.api, cluster.forwarder
    assert forwarder is not None
    a, b = cluster.instances
    group, creator, late = -30_001, 301, 302
    api.group(group, "Mine", admins=(creator,))
    api.user(creator, "Ann")
    api.user(late, "Bo", opened=False)
    forwarder.to = a
    api.send_text(creator, creator, "/start")
    await api.wait_for(lambda: api.messages_in(creator), 20)
    api.send_text(group, creator, "/newgame")
    lobby = await api.wait_for(lambda: lobby_in(cluster, group), 20)
    join = action_data(lobby, kb.JOIN)
    first = api.press(group, late, lobby["message_id"], join)
    answer = await api.wait_for(lambda: api.answered.get(first), 10)
    assert "url" in answer  # sent to open the private chat first

    forwarder.to = b
    api.send_text(late, late, "/start")
    await api.wait_for(lambda: api.messages_in(late), 10)  # B answered the /start

    forwarder.to = a
    again = api.press(group, late, lobby["message_id"], join)
    answer = await api.wait_for(lambda: api.answered.get(again), 10)
    assert "url" not in answer
    assert "joined" in str(answer.get("text", "")).lower()
