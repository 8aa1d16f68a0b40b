"""``saboteur-bot demo``: a whole game played by scripts, offline.

The real bot (handlers, announcer, presenter, outbox, renderer) runs against an in-process
fake of the Telegram Bot API and a SQLite database in ``--out`` (or ``--database``). Scripted
people press buttons the bot sent them, chosen uniformly at random (seeded), with
Telegram set to ``--language``. ``--computers K``: K of the ``--players`` seats are the
bot's own computer players, seated from the lobby's button and playing their strategy as
the worker plays it (at once, with no pause). The group's messages are printed and
every picture a chat received is written to ``--out``; ``--transcript FILE`` writes
everything every chat received (messages, captions, buttons, edits, alerts, where each
picture went). The game's id and database are printed last, for ``saboteur-bot replay``.

``--miniapp``: the Mini App is served on localhost and the first seat is yours. Open the
printed address in a browser (no Telegram needed): it signs you in as that player, with
initData signed by the fake Bot API's token as Telegram would sign it — a sign-in that
exists only here, beside the fake. The other players wait for your moves.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra.bootstrap import bootstrap
from infra.computer import computer_move, move_key
from infra.migrations import upgrade
from infra.settings import load_settings
from tgbot.app import (
    ANNOUNCER_KEY,
    BotApplication,
    build_application,
    start_background,
    stop_background,
)
from tgbot.context import SERVICES_KEY, BotServices
from tgbot.devserver import fake_bot_api
from tgbot.miniapp import DemoPlayer
from tgbot.miniapp.api import mini_app
from tgbot.miniapp.server import serving
from tgbot.texts import LANGUAGES
from tgbot.transcript import save_pictures, transcript

GROUP = -100500
GROUP_TITLE = "Demo mine"
NAMES = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kim", "Lu")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="saboteur-bot demo", description=__doc__)
    p.add_argument("--edition", choices=("base", "saboteur2"), default="base")
    p.add_argument("--players", type=int, default=4, help="3–10 (base) or 2–12 (saboteur2)")
    p.add_argument(
        "--computers",
        type=int,
        default=0,
        metavar="K",
        help="K of the seats are computer players (at least one seat stays a person's)",
    )
    p.add_argument("--seed", type=int, default=1, help="chance of the deals and the players")
    p.add_argument("--language", choices=LANGUAGES, default="en", help="the players' language")
    p.add_argument(
        "--out", type=Path, default=Path("demo-out"), help="folder for the pictures and database"
    )
    p.add_argument("--database", default="", help="database URL (default: OUT/demo.db, made anew)")
    p.add_argument(
        "--transcript", type=Path, help="write all that every chat received to this text file"
    )
    p.add_argument("--quiet", action="store_true", help="print only the group's messages")
    p.add_argument(
        "--miniapp", action="store_true", help="play the first seat yourself, on the Mini App"
    )
    p.add_argument("--port", type=int, default=8080, help="the Mini App's local port")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(list(argv or []))
    if not 0 <= args.computers < args.players:
        parser().error(f"--computers must be 0 to {args.players - 1}: one seat is a person's")
    url = args.database
    if not url:
        args.out.mkdir(parents=True, exist_ok=True)
        database = args.out / "demo.db"
        database.unlink(missing_ok=True)  # each demo on a database of its own
        url = f"sqlite:///{database}"
    return asyncio.run(play(args, url))


async def play(args: argparse.Namespace, url: str) -> int:
    upgrade(url)
    api = fake_bot_api()
    await api.start()
    rng = random.Random(args.seed)
    seeds = iter(range(args.seed * 1000, args.seed * 1000 + 1_000_000))
    # Its players are scripts pressing as fast as the bot answers: no throttling.
    settings = load_settings(telegram_bot_token=api.token, database_url=url, throttle_presses=0)
    services = bootstrap(settings, seeds=lambda: next(seeds))
    app = build_application(
        services,
        settings,
        base_url=api.base_url,
        base_file_url=api.base_file_url,
        poll_interval=0.05,
        rate_limit=False,
    )
    players = list(range(1, args.players - args.computers + 1))  # the people
    api.group(GROUP, GROUP_TITLE, admins=(players[0],))
    for p in players:
        api.user(p, NAMES[(p - 1) % len(NAMES)], args.language)
    game_id = None
    try:
        await app.initialize()
        await start_background(app)
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0.0, timeout=1)
        for p in players:
            api.send_text(p, p, "/start")
        await settle(api, app)
        api.send_text(GROUP, players[0], f"/newgame {args.edition}")
        await settle(api, app)
        lobby_id = next(m for m in api.messages_in(GROUP) if api.keyboard(m))["message_id"]

        def lobby_button(index: int) -> str | None:  # as the lobby shows it now
            lobby = api.messages[GROUP][lobby_id]
            return [b for row in api.keyboard(lobby) for b in row][index].callback_data

        for p in players[1:]:
            await press(api, app, GROUP, p, lobby_id, lobby_button(0))  # Join
        for _ in range(args.computers):
            await press(api, app, GROUP, players[0], lobby_id, lobby_button(4))  # Add computer
        await press(api, app, GROUP, players[0], lobby_id, lobby_button(2))  # Start
        bot_services: BotServices = app.bot_data[SERVICES_KEY]
        game_id = bot_services.active_game(GROUP)
        assert game_id is not None
        if args.miniapp:
            played = await with_miniapp(args, api, app, players, rng, game_id)
        else:
            played = await play_out(api, app, players, rng, game_id)
        await settle(api, app)
    finally:
        if app.running:
            assert app.updater is not None
            await app.updater.stop()
            await app.stop()
        await stop_background(app)
        await app.shutdown()
        services.close()
        await api.stop()
    names = {GROUP: GROUP_TITLE, **{p: api.users[p]["first_name"] for p in players}}
    pictures = save_pictures(api, args.out, names)
    for block in transcript(api, names, only=GROUP if args.quiet else None, full=False):
        print(block)
    if args.transcript is not None:
        text = "\n".join(transcript(api, names, pictures))
        args.transcript.write_text(text + "\n", "utf-8")
    moves = f"{played.moves} computer moves; " if args.computers else ""
    print(
        f"\n{played.presses} button presses; {moves}{len(pictures)} pictures written to {args.out}/"
    )
    refused = len(api.refusals)
    print(f"{len(api.calls)} calls to Telegram, {refused} of them refused by its rules")
    if args.transcript is not None:
        print(f"transcript of every chat: {args.transcript}")
    print(f"game {game_id} in {url}; replay it with:")
    print(
        f"  saboteur-bot replay {game_id} --database-url {url} "
        f"--lang {args.language} --out {args.out / 'replay.gif'}"
    )
    return 0


@dataclass
class Played:
    """What the scripts did: the people's presses, the computer players' moves."""

    presses: int = 0
    moves: int = 0

    def __iadd__(self, other: Played) -> Played:
        self.presses += other.presses
        self.moves += other.moves
        return self


async def play_out(
    api: Any, app: BotApplication, people: list[int], rng: random.Random, game_id: str
) -> Played:
    """Until nobody of ``people`` is prompted and the computer owes no decision: the
    computer players make theirs, the people press a button of their prompt at random."""
    played = Played()
    while played.presses + played.moves < 50_000:
        if await computer_moves_once(api, app, game_id):
            played.moves += 1
            continue
        turn = prompt_owner(api, people)
        if turn is None:
            break
        player, message = turn
        choices = [b for row in api.keyboard(message) for b in row if b.callback_data]
        choice = rng.choice(choices)
        await press(api, app, player, player, message["message_id"], choice.callback_data)
        played.presses += 1
    return played


async def computer_moves_once(api: Any, app: BotApplication, game_id: str) -> bool:
    """The decision the computer owes now made as the worker makes it (the strategy's
    move, under the decision's idempotency key); False when it owes none."""
    services: BotServices = app.bot_data[SERVICES_KEY]
    state, _ = await asyncio.to_thread(services.load, game_id)
    pending = state.pending
    if state.phase != "playing" or pending is None or not pending.computer:
        return False
    command = await asyncio.to_thread(computer_move, services.service, game_id, pending.id)
    if command is None:
        return False
    key = move_key(game_id, pending.id)
    await asyncio.to_thread(services.service.handle, game_id, command, idempotency_key=key)
    services.wake.set()
    await settle(api, app)
    return True


async def with_miniapp(
    args: argparse.Namespace,
    api: Any,
    app: BotApplication,
    players: list[int],
    rng: random.Random,
    game_id: str,
) -> Played:
    """The first seat plays on the Mini App (a browser), the others press buttons or
    are computer players, until the game is over."""
    services: BotServices = app.bot_data[SERVICES_KEY]
    seats = [DemoPlayer(p, NAMES[(p - 1) % len(NAMES)]) for p in players]
    served = mini_app(services, token=api.token, bot=app.bot, demo_players=seats[:1])
    played = Played()
    try:
        async with serving(served.routes(), port=args.port) as base:
            print(f"The board of {seats[0].name}: open {base}/miniapp/demo?as={players[0]}")
            print("(the other players wait for your moves; Ctrl-C stops the demo)")
            while True:
                played += await play_out(api, app, players[1:], rng, game_id)
                state, _ = await asyncio.to_thread(services.load, game_id)
                if state.phase != "playing":
                    break
                await asyncio.sleep(0.2)  # the first seat is thinking
    finally:
        await served.feed.close()
    return played


def prompt_owner(api: Any, players: list[int]) -> tuple[int, dict[str, Any]] | None:
    for player in players:
        for message in reversed(api.messages_in(player)):
            if api.keyboard(message):
                return player, message
    return None


async def press(
    api: Any, app: BotApplication, chat: int, user: int, message: int, data: Any
) -> None:
    query = api.press(chat, user, message, data)
    await api.wait_for(lambda: api.answered.get(query), 10.0)
    await settle(api, app)


async def settle(api: Any, app: BotApplication, timeout: float = 10.0) -> None:
    """Until the bot handled every update and announced every event."""
    announcer = app.bot_data[ANNOUNCER_KEY]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        idle = not api._updates and app.update_queue.empty()
        busy = app.update_processor.current_concurrent_updates > 0
        if idle and not busy and await asyncio.to_thread(announcer.settled):
            return
        await asyncio.sleep(0.002)
