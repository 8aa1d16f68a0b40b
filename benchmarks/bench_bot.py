"""The bot under load: many concurrent games through the fake Bot API, on PostgreSQL.

Each game is a group of computer players pressing buttons the bot sent them (seeded,
uniformly at random), in both editions, one after the other. Measured:

- button presses handled per second, and the latency from a press reaching the bot to its
  answer (p50 / p99);
- Telegram calls per turn per game, every call counted (everything but ``getUpdates``):
  all of them (the acting player's own presses — answers, preview edits — included), the
  notifier's, and those the group sees (the group's churn: the target);
- the board pictures rendered (time and PNG size).

A turn is a decision opened (a turn, a gold pick, a theft), counted over every game —
finished ones included. Targets: ≥ 100 updates/s, p99 < 150 ms, ≤ 3 calls per turn per
game in the group (and from the notifier), render < 50 ms, PNG < 150 KB. Run (PostgreSQL at
TEST_POSTGRES_URL or 127.0.0.1):

    python -m benchmarks.bench_bot --games 20 --seconds 30

Telegram's own flood limits (AIORateLimiter) are off: they would measure Telegram's
quotas, not the bot.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import random
import statistics
import time
import uuid
from collections import Counter
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from infra.bootstrap import bootstrap
from infra.migrations import upgrade
from infra.settings import load_settings
from tgbot import notifier as notifier_module
from tgbot.app import NOTIFIER_KEY, build_application, start_background, stop_background
from tgbot.context import SERVICES_KEY, BotServices
from tgbot.fakeapi import FakeBotAPI

SERVER = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
PLAYERS = {"base": 3, "saboteur2": 4}
NOTIFIER_METHODS = (
    "send_message",
    "send_photo",
    "edit_message_text",
    "edit_message_caption",
    "edit_message_media",
    "edit_message_reply_markup",
    "delete_message",
)


class TimedAPI(FakeBotAPI):
    """The fake Bot API, noting when each button press was answered."""

    def __init__(self) -> None:
        super().__init__()
        self.answered_at: dict[str, float] = {}

    async def _api_answerCallbackQuery(self, params: Any, files: Any) -> bool:
        self.answered_at[str(params.get("callback_query_id", ""))] = time.perf_counter()
        return await super()._api_answerCallbackQuery(params, files)


def create_database() -> str:
    name = f"saboteur_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return make_url(SERVER).set(database=name).render_as_string(hide_password=False)


def drop_database(url: str) -> None:
    admin = create_engine(SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
    admin.dispose()


async def run(edition: str, games: int, seconds: float, seed: int) -> dict[str, float]:
    url = create_database()
    try:
        upgrade(url)
        return await _run(url, edition, games, seconds, seed)
    finally:
        drop_database(url)


async def _run(url: str, edition: str, games: int, seconds: float, seed: int) -> dict[str, float]:
    renders: list[float] = []
    sizes: list[int] = []
    original_png = notifier_module._png.__wrapped__

    def timed_png(*args: Any) -> bytes:
        started = time.perf_counter()
        png = original_png(*args)
        renders.append(time.perf_counter() - started)
        sizes.append(len(png))
        return png

    notifier_module._png = functools.lru_cache(maxsize=256)(timed_png)
    notifier_calls: Counter[str] = Counter()
    original_call = notifier_module.Outbox.call

    async def counted(self: Any, chat_id: int, method: str, **kwargs: Any) -> Any:
        notifier_calls[method] += 1
        return await original_call(self, chat_id, method, **kwargs)

    notifier_module.Outbox.call = counted  # type: ignore[method-assign]
    api = TimedAPI()
    await api.start()
    seeds = iter(range(seed * 10_000, seed * 10_000 + 10_000_000))
    settings = load_settings(telegram_bot_token=api.token, database_url=url)
    services = bootstrap(settings, seeds=lambda: next(seeds))
    app = build_application(
        services,
        settings,
        base_url=api.base_url,
        base_file_url=api.base_file_url,
        poll_interval=0.05,
        rate_limit=False,
    )
    bot: BotServices = app.bot_data[SERVICES_KEY]
    latencies: list[float] = []
    presses = 0
    groups: set[str] = set()
    try:
        await app.initialize()
        await start_background(app)
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0.0, timeout=1)
        tables = []
        for g in range(games):
            group = -10_000 - g
            groups.add(str(group))
            players = [1000 * (g + 1) + i for i in range(PLAYERS[edition])]
            api.group(group, f"Mine {g}", admins=(players[0],))
            for p in players:
                api.user(p, f"P{p}", "en")
                api.send_text(p, p, "/start")
            tables.append((group, players))
        await _quiet(api, app, bot)
        for group, players in tables:
            api.send_text(group, players[0], f"/newgame {edition}")
        await _quiet(api, app, bot)
        for group, players in tables:
            lobby = next(m for m in api.messages_in(group) if api.keyboard(m))
            buttons = [b for row in api.keyboard(lobby) for b in row]
            for p in players[1:]:
                api.press(group, p, lobby["message_id"], buttons[0].callback_data or "")
            await _quiet(api, app, bot)
            api.press(group, players[0], lobby["message_id"], buttons[2].callback_data or "")
        await _quiet(api, app, bot)
        notifier_calls.clear()
        renders.clear()
        sizes.clear()
        first_call = len(api.calls)
        first_position = bot.store.last_position()
        stop_at = time.perf_counter() + seconds
        started = time.perf_counter()

        async def drive(players: list[int], rng: random.Random) -> None:
            nonlocal presses
            while time.perf_counter() < stop_at:
                found = None
                for p in players:
                    for message in reversed(api.messages_in(p)):
                        if api.keyboard(message):
                            found = (p, message)
                            break
                    if found:
                        break
                if found is None:  # the notifier is still drawing, or the game is over
                    await asyncio.sleep(0.01)
                    continue
                player, message = found
                choices = [b for row in api.keyboard(message) for b in row if b.callback_data]
                pressed_at = time.perf_counter()
                query = api.press(
                    player, player, message["message_id"], rng.choice(choices).callback_data or ""
                )
                while query not in api.answered_at:
                    await asyncio.sleep(0.001)
                latencies.append(api.answered_at[query] - pressed_at)
                presses += 1
                # Wait for the bot to redraw this player's message before looking again.
                for _ in range(2000):
                    if api.messages[player].get(message["message_id"]) != message:
                        break
                    await asyncio.sleep(0.002)

        await asyncio.gather(
            *(drive(ps, random.Random(seed + i)) for i, (_, ps) in enumerate(tables))
        )
        elapsed = time.perf_counter() - started
        await _quiet(api, app, bot)
        calls = api.calls[first_call:]
        turns = _decisions_opened(bot, first_position)
        finished = _finished_games(bot, {int(g) for g in groups})
    finally:
        if app.running:
            assert app.updater is not None
            await app.updater.stop()
            await app.stop()
        await stop_background(app)
        await app.shutdown()
        services.close()
        await api.stop()
        notifier_module.Outbox.call = original_call  # type: ignore[method-assign]
    ordered = sorted(latencies)
    turns = max(1, turns)
    by_method = Counter(call.method for call in calls)
    in_groups = sum(1 for call in calls if str(call.get("chat_id")) in groups)
    from_notifier = sum(notifier_calls[m] for m in NOTIFIER_METHODS)
    return {
        "games": games,
        "finished_games": finished,
        "presses": presses,
        "seconds": elapsed,
        "updates_per_second": presses / elapsed,
        "p50_ms": 1000 * ordered[len(ordered) // 2],
        "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
        "turns": turns,
        "presses_per_turn": presses / turns,
        "all_calls_per_turn": len(calls) / turns,
        "answers_per_turn": by_method["answerCallbackQuery"] / turns,
        "preview_edits_per_turn": (
            by_method["editMessageMedia"]
            + by_method["editMessageReplyMarkup"]
            - notifier_calls["edit_message_media"]
            - notifier_calls["edit_message_reply_markup"]
        )
        / turns,
        "notifier_calls_per_turn": from_notifier / turns,
        "group_calls_per_turn": in_groups / turns,
        "render_mean_ms": 1000 * statistics.fmean(renders) if renders else 0.0,
        "render_p99_ms": 1000 * sorted(renders)[int(len(renders) * 0.99)] if renders else 0.0,
        "png_max_kb": max(sizes) / 1024 if sizes else 0.0,
    }


def _decisions_opened(bot: BotServices, after: int) -> int:
    """Decisions opened after ``after`` in every game, finished ones included."""
    count = 0
    position = after
    while records := bot.store.read_all(position, limit=5000):
        count += sum(1 for r in records if r.type == "decision_opened")
        position = records[-1].position
    return count


def _finished_games(bot: BotServices, groups: set[int]) -> int:
    from sqlalchemy import func, select

    from infra.schema import games

    bot.projector.catch_up()
    with bot.store.engine.connect() as conn:
        return int(
            conn.execute(
                select(func.count())
                .select_from(games)
                .where(games.c.chat_id.in_(groups), games.c.status == "finished")
            ).scalar_one()
        )


async def _quiet(api: FakeBotAPI, app: Any, bot: BotServices, timeout: float = 60.0) -> None:
    notifier = app.bot_data[NOTIFIER_KEY]
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        idle = not api._updates and app.update_queue.empty()
        busy = app.update_processor.current_concurrent_updates > 0
        if idle and not busy and notifier.position == bot.store.last_position():
            return
        await asyncio.sleep(0.005)


TARGETS = (
    ("updates_per_second", ">=", 100.0, "updates per second"),
    ("p99_ms", "<", 150.0, "p99 handling latency (ms)"),
    ("group_calls_per_turn", "<=", 3.0, "calls per turn per game the group sees"),
    ("notifier_calls_per_turn", "<=", 3.0, "calls per turn per game by the notifier"),
    ("render_p99_ms", "<", 50.0, "board render p99 (ms)"),
    ("png_max_kb", "<", 150.0, "largest PNG (KB)"),
)


def verdicts(result: dict[str, float]) -> list[str]:
    lines = []
    for key, op, bound, label in TARGETS:
        value = result[key]
        ok = value >= bound if op == ">=" else value < bound if op == "<" else value <= bound
        lines.append(f"{'PASS' if ok else 'FAIL'}  {label}: {value:.2f} {op} {bound:g}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20, help="games per edition")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds per edition")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--editions", nargs="+", default=["base", "saboteur2"])
    args = parser.parse_args()
    for edition in args.editions:
        result = asyncio.run(run(edition, args.games, args.seconds, args.seed))
        print(f"\n== {edition}: {PLAYERS[edition]} players per game")
        for key, value in result.items():
            print(f"{key:26} {value:10.2f}")
        print("\n".join(verdicts(result)))
        print(
            "(all_calls_per_turn counts every call, the acting player's own presses —"
            " answers and preview edits — included; it has no target)"
        )


if __name__ == "__main__":
    main()
