"""``saboteur-bot demo``: a whole game played by scripts, offline.

The real bot (handlers, announcer, presenter, outbox, renderer) runs against an in-process
fake of the Telegram Bot API and a SQLite database in ``--out`` (or ``--database``).
Scripted people press buttons the bot sent them, chosen at random (seeded) as a player who
gets on with the game chooses (:func:`onward`), with Telegram set to ``--language``.
``--computers K``: K of the ``--players`` seats are the bot's own computer players, seated
from the lobby's button and playing their strategy as the worker plays it (at once, with
no pause). A line per round is printed (``--show group``: the group's messages; ``all``:
every chat's) and every picture a chat received is written to ``--out``; the transcript
(``--transcript FILE``, by default ``OUT/transcript.txt``) holds everything every chat
received (messages, captions, buttons, edits, alerts, where each picture went). Who won,
the game's id and database and the commands to try next are printed last (run as
``$SABOTEUR_COMMAND``, which ``./scripts/run`` sets to itself; else ``saboteur-bot``).

``--forum``: the group is a forum supergroup with the topics "Table 1" and "Table 2";
the game is opened, and played, in "Table 1" (the transcript says each message's topic).

``--miniapp``: the Mini App is served on localhost and the first seat is yours. Open the
printed address in a browser (no Telegram needed): it signs you in as that player, with
initData signed by the fake Bot API's token as Telegram would sign it — a sign-in that
exists only here, beside the fake. The other players wait for your moves.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from domain.cards import PLAYER_LIMITS, VARIANT_EDITIONS, VARIANTS
from domain.state import GameState
from infra.computer import computer_move, move_key
from infra.migrations import upgrade
from infra.settings import load_settings
from tgbot.miniapp import DemoPlayer
from tgbot.miniapp.api import mini_app
from tgbot.miniapp.server import serving
from tgbot.offline.devserver import fake_bot_api
from tgbot.offline.transcript import save_pictures, transcript
from tgbot.presenter.callback import peek
from tgbot.presenter.icons import Icon
from tgbot.presenter.keyboards import COMMAND_ACTIONS, LEGEND, UNPLAYABLE
from tgbot.presenter.texts import LANGUAGES
from tgbot.telegram.app import ANNOUNCER_KEY, BotApplication, polling_bot
from tgbot.telegram.context import SERVICES_KEY, BotServices

GROUP = -100500
GROUP_TITLE = "Demo mine"
TOPICS = ("Table 1", "Table 2")  # --forum: the forum's topics
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
    p.add_argument(
        "--variants",
        type=_variants,
        default=(),
        metavar="V,V|all",
        help="base: variants switched on in the lobby's settings (docs/rules.md §8), "
        f"comma-separated, of {', '.join(VARIANTS)}; or all",
    )
    p.add_argument("--language", choices=LANGUAGES, default="en", help="the players' language")
    p.add_argument(
        "--out", type=Path, default=Path("demo-out"), help="folder for the pictures and database"
    )
    p.add_argument("--database", default="", help="database URL (default: OUT/demo.db, made anew)")
    p.add_argument(
        "--transcript",
        type=Path,
        help="write all that every chat received to this text file (default: OUT/transcript.txt)",
    )
    p.add_argument(
        "--show",
        choices=("progress", "group", "all"),
        default="progress",
        help="print a line per round (default), the group's messages, or every chat's",
    )
    p.add_argument("--quiet", action="store_true", help="the same as --show group")
    p.add_argument(
        "--miniapp", action="store_true", help="play the first seat yourself, on the Mini App"
    )
    p.add_argument("--port", type=int, default=8080, help="the Mini App's local port")
    p.add_argument(
        "--forum", action="store_true", help="the group is a forum: the game is in a topic"
    )
    return p


def _variants(text: str) -> tuple[str, ...]:
    """``"greedy_dwarf,selfish_dwarf"`` or ``"all"``: the variants switched on.

    >>> _variants("selfish_dwarf,greedy_dwarf")
    ('greedy_dwarf', 'selfish_dwarf')
    """
    names = VARIANTS if text == "all" else tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown variants {unknown}; of {', '.join(VARIANTS)}")
    return tuple(v for v in VARIANTS if v in names)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(list(argv or []))
    # The demo's own database is brought up to date quietly (a line says it is ready).
    logging.getLogger("alembic").setLevel(logging.WARNING)
    low, high = PLAYER_LIMITS[args.edition]
    if not low <= args.players <= high:
        parser().error(f"--players must be {low} to {high} for --edition {args.edition}")
    if args.variants and args.edition not in VARIANT_EDITIONS:
        parser().error("--variants are played in the base edition")
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
    began = time.monotonic()
    if args.quiet:
        args.show = "group"
    if args.transcript is None:
        args.transcript = args.out / "transcript.txt"
    upgrade(url)
    api = fake_bot_api()
    await api.start()
    rng = random.Random(args.seed)
    seeds = iter(range(args.seed * 1000, args.seed * 1000 + 1_000_000))
    # Its players are scripts pressing as fast as the bot answers: no throttling.
    settings = load_settings(telegram_bot_token=api.token, database_url=url, throttle_presses=0)
    players = list(range(1, args.players - args.computers + 1))  # the people
    for p in players:
        api.user(p, NAMES[(p - 1) % len(NAMES)], args.language)
    topic: int | None = None
    if args.forum:  # a forum with two topics; the game is played in the first
        api.forum(GROUP, GROUP_TITLE, admins=(players[0],))
        topic = api.create_topic(GROUP, TOPICS[0], by=players[0])
        api.create_topic(GROUP, TOPICS[1], by=players[0])
    else:
        api.group(GROUP, GROUP_TITLE, admins=(players[0],))
    game_id = None
    try:
        async with polling_bot(
            settings,
            base_url=api.base_url,
            base_file_url=api.base_file_url,
            poll_interval=0.05,
            rate_limit=False,
            seeds=lambda: next(seeds),
        ) as app:
            for p in players:
                api.send_text(p, p, "/start")
            await settle(api, app)
            api.send_text(GROUP, players[0], f"/newgame {args.edition}", thread=topic)
            await settle(api, app)
            lobby_id = next(m for m in api.messages_in(GROUP) if api.keyboard(m))["message_id"]

            def lobby_button(index: int) -> str | None:  # as the lobby shows it now
                lobby = api.messages[GROUP][lobby_id]
                return [b for row in api.keyboard(lobby) for b in row][index].callback_data

            for p in players[1:]:
                await press(api, app, GROUP, p, lobby_id, lobby_button(0))  # Join
            for _ in range(args.computers):
                await press(api, app, GROUP, players[0], lobby_id, lobby_button(4))  # Add computer
            if args.variants:
                # ⚙️ Settings, each variant's 🎲 button (in the catalog's order), then back.
                await press(api, app, GROUP, players[0], lobby_id, lobby_button(3))
                for name in args.variants:
                    lobby = api.messages[GROUP][lobby_id]
                    dice = [
                        b for r in api.keyboard(lobby) for b in r if Icon.VARIANTS.emoji in b.text
                    ]
                    toggle = dice[VARIANTS.index(name)].callback_data
                    await press(api, app, GROUP, players[0], lobby_id, toggle)
                back = api.keyboard(api.messages[GROUP][lobby_id])[-1][0].callback_data
                await press(api, app, GROUP, players[0], lobby_id, back)
            await press(api, app, GROUP, players[0], lobby_id, lobby_button(2))  # Start
            bot_services: BotServices = app.bot_data[SERVICES_KEY]
            game_id = bot_services.active_game(GROUP, topic)
            assert game_id is not None
            progress = Progress(bot_services, game_id, began) if args.show == "progress" else None
            if args.miniapp:
                played = await with_miniapp(args, api, app, players, rng, game_id, progress)
            else:
                played = await play_out(api, app, players, rng, game_id, progress)
            await settle(api, app)
            final, _ = await asyncio.to_thread(bot_services.load, game_id)
            skipped = bot_services.shown.skipped
    finally:
        await api.stop()
    names = {GROUP: GROUP_TITLE, **{p: api.users[p]["first_name"] for p in players}}
    pictures = save_pictures(api, args.out, names)
    if args.show != "progress":
        only = GROUP if args.show == "group" else None
        for block in transcript(api, names, only=only, full=False):
            print(block)
    text = "\n".join(transcript(api, names, pictures))
    args.transcript.parent.mkdir(parents=True, exist_ok=True)
    args.transcript.write_text(text + "\n", "utf-8")
    moves = f"{played.moves} computer moves; " if args.computers else ""
    print(f"\n{winners_line(final)} ({time.monotonic() - began:.0f} s)")
    print(
        f"{played.presses} button presses; {moves}{len(pictures)} pictures written to {args.out}/"
    )
    refused = len(api.refusals)
    unchanged = sum(1 for r in api.refusals if "not modified" in r.description)
    print(
        f"{len(api.calls)} calls to Telegram, {refused} of them refused by its rules"
        f" ({unchanged} edits that changed nothing); {skipped} such edits not sent"
    )
    print(f"transcript of every chat: {args.transcript}")
    command = os.environ.get("SABOTEUR_COMMAND", "saboteur-bot")
    print(f"game {game_id} in {url}; replay it with:")
    print(
        f"  {command} replay {game_id} --database-url {url} "
        f"--lang {args.language} --out {args.out / 'replay.gif'}"
    )
    print("play a seat yourself, on the Mini App in your browser:")
    print(f"  {command} demo --miniapp --language {args.language}")
    print("the real bot: put TELEGRAM_BOT_TOKEN=… (from @BotFather) in .env, then:")
    print(f"  {command}" + (" run" if command == "saboteur-bot" else ""))
    return 0


def winners_line(state: GameState) -> str:
    """Who won the game and everyone's gold: ``game over: Ann won; gold: Ann 7, Bo 3``."""
    if state.phase != "finished":
        return f"the game did not end ({state.phase})"
    won = ", ".join(state.names.get(p, "?") for p in state.winners) or "nobody"
    gold = ", ".join(
        f"{state.names.get(p, '?')} {g}"
        for p, g in sorted(state.gold.items(), key=lambda pg: -pg[1])
    )
    return f"game over: {won} won; gold: {gold}"


class Progress:
    """A line per round as the demo plays: ``round 1/3 over: 38 moves, 14 s``."""

    def __init__(self, services: BotServices, game_id: str, began: float) -> None:
        self.services = services
        self.game_id = game_id
        self.began = began
        self.told = 0  # the rounds told so far
        self.moves = 0

    async def moved(self) -> None:
        self.moves += 1
        state, _ = await asyncio.to_thread(self.services.load, self.game_id)
        ended = len(state.round_results)
        if ended > self.told:
            self.told = ended
            took = time.monotonic() - self.began
            print(f"round {ended}/3 over: {self.moves} moves, {took:.0f} s", flush=True)
            self.moves = 0


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
    api: Any,
    app: BotApplication,
    people: list[int],
    rng: random.Random,
    game_id: str,
    progress: Progress | None = None,
) -> Played:
    """Until nobody of ``people`` is prompted and the computer owes no decision: the
    computer players make theirs, the people press a button of their prompt at random."""
    played = Played()
    while played.presses + played.moves < 50_000:
        if await computer_moves_once(api, app, game_id):
            played.moves += 1
            if progress is not None:
                await progress.moved()
            continue
        turn = prompt_owner(api, people)
        if turn is None:
            break
        player, message = turn
        choices = [b for row in api.keyboard(message) for b in row if b.callback_data]
        choice = onward(choices, rng)
        await press(api, app, player, player, message["message_id"], choice.callback_data)
        played.presses += 1
        if progress is not None:
            await progress.moved()
    return played


def onward(buttons: list[Any], rng: random.Random) -> Any:
    """The button a person presses, as one who gets on with the game: a move when one is
    offered (placing, acting, passing, a pick), else a card that can be played or a step
    towards a move; one press in ten a side trip (any button: back, the icons' legend, a
    card that cannot be played). Uniform presses took a thousand a game, most of them
    side trips."""

    def action(button: Any) -> str:
        data = peek(button.callback_data or "")
        return data.action if data is not None else ""

    moves = [b for b in buttons if action(b) in COMMAND_ACTIONS]
    steps = [b for b in buttons if not b.text.startswith(("«", UNPLAYABLE)) and action(b) != LEGEND]
    if rng.random() < 0.9 and (moves or steps):
        return rng.choice(moves or steps)
    return rng.choice(buttons)


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
    progress: Progress | None = None,
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
                played += await play_out(api, app, players[1:], rng, game_id, progress)
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


ANSWER_WITHIN = 120.0  # seconds the demo waits for the bot to answer a press


async def press(
    api: Any, app: BotApplication, chat: int, user: int, message: int, data: Any
) -> None:
    query = api.press(chat, user, message, data)
    # (an answer comes in milliseconds; the bound is for a machine busy with other work)
    await api.wait_for(lambda: api.answered.get(query), ANSWER_WITHIN)
    await settle(api, app)


async def settle(api: Any, app: BotApplication, timeout: float = 60.0) -> None:
    """Until the bot handled every update and announced every event (or ``timeout``
    seconds: generous, as a busy machine is slow, and it returns as soon as it is so)."""
    announcer = app.bot_data[ANNOUNCER_KEY]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        idle = not api._updates and app.update_queue.empty()
        busy = app.update_processor.current_concurrent_updates > 0
        if idle and not busy and await asyncio.to_thread(announcer.settled):
            return
        await asyncio.sleep(0.002)
