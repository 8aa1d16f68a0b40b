"""The ``saboteur-bot`` command: one subcommand per job, each a thin call into a module.

    saboteur-bot run                  the bot (TELEGRAM_BOT_TOKEN set) or the offline demo;
                                      without Redis also Celery's worker and beat
    saboteur-bot web                  the web process: the webhook on $PORT, /healthz,
                                      /readyz and the Mini App (several may run side by side)
    saboteur-bot demo [...]           the offline demo
    saboteur-bot simulate [...]       bots play whole games against the rules engine
    saboteur-bot tournament [...]     computer players play seeded games: win rates, speed
    saboteur-bot replay GAME_ID --out FILE   a finished game as an animated GIF
    saboteur-bot export GAME_ID       a game's events as JSON lines
    saboteur-bot import FILE          load exported events under a new game id
    saboteur-bot migrate              bring the database schema up to date (as
                                      MIGRATION_DATABASE_URL's owner, granting
                                      DATABASE_URL's runtime role its privileges)
    saboteur-bot projections rebuild  rebuild the read models from the event log
    saboteur-bot verify [GAME_ID]     check the hash chain of one game's events, or all

To add a subcommand: a ``_name(args) -> int`` function and one ``sub.add_parser`` call
in :func:`parser` with ``set_defaults(func=_name)``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from infra import redaction
from infra.settings import ConfigurationError, Settings, load_settings


def _module(name: str) -> Any:
    """The module behind a subcommand, imported when it runs (each pulls in a different
    part of the dependencies: the bot, Pillow, the rules engine alone)."""
    return importlib.import_module(name)


def _settings() -> Settings:
    settings = load_settings()
    redaction.install(settings)
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    return settings


def _run(args: argparse.Namespace) -> int:
    settings = _settings()
    if settings.telegram_bot_token and settings.webhook_url:
        # Updates by webhook: served by the one webhook server there is, the web process's.
        return _serve(settings, _module("tgbot.web").serve)
    if settings.telegram_bot_token:
        return _serve(settings, _module("tgbot.app").run_bot)
    print("TELEGRAM_BOT_TOKEN is not set: running the offline demo.", file=sys.stderr)
    # The demo tells its progress itself: the bot's INFO lines would drown it.
    root = logging.getLogger()
    root.setLevel(max(root.level, logging.WARNING))
    return _demo(args)


def _web(args: argparse.Namespace) -> int:
    settings = _settings()
    if not settings.telegram_bot_token:
        raise ConfigurationError("TELEGRAM_BOT_TOKEN is not set: the web process needs it")
    if not settings.webhook_url:
        raise ConfigurationError(
            "WEBHOOK_URL is not set: the web process receives updates by webhook "
            "(on one machine, `saboteur-bot run` polls instead)"
        )
    settings.require_secret_key("web")
    return _serve(settings, _module("tgbot.web").serve)


def _serve(settings: Settings, serve: Callable[[Settings], int]) -> int:
    """Check the schema, then ``serve`` the bot with, when there is no Redis, Celery's
    worker and beat beside it (EMBEDDED_WORKER), so turn deadlines fire with nothing else
    started."""
    from infra.db import make_engine
    from infra.embedded_celery import embedded_celery
    from infra.migrations import require_current

    engine = make_engine(settings.database_url)
    try:
        require_current(engine)
    finally:
        engine.dispose()
    with embedded_celery(settings):
        return int(serve(settings) or 0)


def _demo(args: argparse.Namespace) -> int:
    result = _module("tgbot.demo").main(list(args.rest))
    return int(result or 0)


def _simulate(args: argparse.Namespace) -> int:
    # The domain has no clock: the command lends it the wall and CPU clocks.
    result = _module("domain.simulate").main(
        list(args.rest), clock=time.perf_counter, cpu_clock=time.process_time
    )
    return int(result or 0)


def _tournament(args: argparse.Namespace) -> int:
    result = _module("domain.tournament").main(
        list(args.rest), clock=time.perf_counter, cpu_clock=time.process_time
    )
    return int(result or 0)


def _replay(args: argparse.Namespace) -> int:
    result = _module("tgbot.replay_gif").main_replay(list(args.rest))
    return int(result or 0)


def _export(args: argparse.Namespace) -> int:
    result = _module("infra.archive").main_export(list(args.rest))
    return int(result or 0)


def _import(args: argparse.Namespace) -> int:
    result = _module("infra.archive").main_import(list(args.rest))
    return int(result or 0)


def _migrate(args: argparse.Namespace) -> int:
    from infra.db import make_engine
    from infra.migrations import upgrade
    from infra.roles import grant_runtime_role, runtime_role_of

    settings = _settings()
    upgrade(settings.migration_url)
    print(f"database is at the latest schema ({_safe(settings.migration_url)})")
    runtime = runtime_role_of(settings.database_url, settings.migration_url)
    if runtime is None:
        return 0
    engine = make_engine(settings.migration_url)
    try:
        with engine.begin() as conn:
            granted = grant_runtime_role(conn, *runtime)
    finally:
        engine.dispose()
    made = "created and granted" if granted.created else "granted"
    print(
        f"runtime role {granted.role!r} {made}: may read and append "
        f"{', '.join(granted.append_only)}, read {', '.join(granted.read_only)}, "
        f"read and write {len(granted.read_write)} read-model and state tables"
    )
    return 0


def _projections_rebuild(args: argparse.Namespace) -> int:
    from infra.achievements import AchievementsProjector
    from infra.bootstrap import bootstrap
    from infra.deadlines import rebuild as rebuild_deadlines
    from infra.history import HistoryProjector
    from infra.migrations import require_current
    from infra.ratings import RatingsProjector

    # The same services as the running bot: the same store, so the same upcasting.
    services = bootstrap(_settings())
    try:
        require_current(services.engine)
        count = services.projector.rebuild()
        HistoryProjector(services.engine, services.store).rebuild()
        RatingsProjector(services.engine, services.store).rebuild()
        AchievementsProjector(services.engine, services.store).rebuild()
        pause = timedelta(seconds=services.settings.computer_pause_seconds)
        rebuild_deadlines(services.engine, services.store, pause)
    finally:
        services.close()
    models = "games, statistics, history, ratings, achievements, deadlines"
    print(f"read models ({models}) rebuilt from {count} events")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from infra.db import make_engine
    from infra.event_store import EventStore
    from infra.migrations import require_current

    settings = _settings()
    engine = make_engine(settings.database_url)
    try:
        require_current(engine)
        store = EventStore(engine)  # the events as stored: the chain seals those
        if args.game_id is not None:
            if store.version(args.game_id) == 0:
                print(f"no game {args.game_id!r}", file=sys.stderr)
                return 1
            found = store.verify(args.game_id)
            breaks = [] if found is None else [found]
            checked = f"game {args.game_id!r} ({store.version(args.game_id)} events)"
        else:
            result = store.verify_all()
            breaks = result.breaks
            checked = f"{result.streams} streams, {result.events} events"
    finally:
        engine.dispose()
    for found in breaks:
        print(f"BROKEN: {found}")
    if breaks:
        print(f"{len(breaks)} broken of {checked}", file=sys.stderr)
        return 1
    print(f"hash chains hold: {checked}")
    return 0


def _safe(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="saboteur-bot", description="Play Saboteur in Telegram group chats."
    )
    root.set_defaults(func=_run, rest=[])
    sub = root.add_subparsers(title="commands", metavar="COMMAND")

    run = sub.add_parser("run", help="run the bot, or the offline demo without a token")
    run.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    run.set_defaults(func=_run)

    web = sub.add_parser(
        "web", help="serve the webhook, /healthz, /readyz and the Mini App on $PORT"
    )
    web.set_defaults(func=_web)

    demo = sub.add_parser("demo", help="play an offline demo game", add_help=False)
    demo.add_argument("rest", nargs=argparse.REMAINDER)
    demo.set_defaults(func=_demo)

    simulate = sub.add_parser("simulate", help="simulate games between bots", add_help=False)
    simulate.add_argument("rest", nargs=argparse.REMAINDER)
    simulate.set_defaults(func=_simulate)

    tournament = sub.add_parser(
        "tournament", help="computer players play seeded games", add_help=False
    )
    tournament.add_argument("rest", nargs=argparse.REMAINDER)
    tournament.set_defaults(func=_tournament)

    for name, func, text in (
        ("replay", _replay, "write a finished game's animated GIF: GAME_ID --out FILE"),
        ("export", _export, "write a game's events as JSON lines: GAME_ID"),
        ("import", _import, "load exported events under a new game id: FILE"),
    ):
        command = sub.add_parser(name, help=text, add_help=False)
        command.add_argument("rest", nargs=argparse.REMAINDER)
        command.set_defaults(func=func)

    migrate = sub.add_parser(
        "migrate",
        help="bring the database schema up to date (as MIGRATION_DATABASE_URL, granting "
        "DATABASE_URL's role what the processes need)",
    )
    migrate.set_defaults(func=_migrate)

    verify = sub.add_parser(
        "verify", help="check the hash chain of a game's events (GAME_ID), or of all"
    )
    verify.add_argument("game_id", nargs="?", metavar="GAME_ID")
    verify.set_defaults(func=_verify)

    projections = sub.add_parser("projections", help="manage the read models")
    projections_sub = projections.add_subparsers(title="actions", metavar="ACTION", required=True)
    rebuild = projections_sub.add_parser("rebuild", help="rebuild the read models from the log")
    rebuild.set_defaults(func=_projections_rebuild)
    return root


# These hand every argument after their name to their own parser, options included.
PASSTHROUGH = {
    "demo": _demo,
    "simulate": _simulate,
    "tournament": _tournament,
    "replay": _replay,
    "export": _export,
    "import": _import,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Before anything can log: no secret ever reaches a log of this process.
    redaction.install_from_environment()
    if argv and argv[0] in PASSTHROUGH:
        args = argparse.Namespace(func=PASSTHROUGH[argv[0]], rest=argv[1:])
    else:
        args = parser().parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except ConfigurationError as error:
        print(f"saboteur-bot: {redaction.redact(str(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
