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
        return _serve(settings, _module("tgbot.telegram.web").serve)
    if settings.telegram_bot_token:
        return _serve(settings, _module("tgbot.telegram.app").run_bot)
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
    return _serve(settings, _module("tgbot.telegram.web").serve)


def _serve(settings: Settings, serve: Callable[[Settings], int]) -> int:
    """Check the schema, then ``serve`` the bot with, when there is no Redis, Celery's
    worker and beat beside it (EMBEDDED_WORKER), so turn deadlines fire with nothing else
    started."""
    from infra.embedded_celery import embedded_celery
    from infra.migrations import require_schema

    require_schema(settings.database_url)
    with embedded_celery(settings):
        return int(serve(settings) or 0)


def _demo(args: argparse.Namespace) -> int:
    result = _module("tgbot.offline.demo").main(list(args.rest))
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
    result = _module("tgbot.replay.gif").main_replay(list(args.rest))
    return int(result or 0)


def _export(args: argparse.Namespace) -> int:
    result = _module("infra.archive").main_export(list(args.rest))
    return int(result or 0)


def _import(args: argparse.Namespace) -> int:
    result = _module("infra.archive").main_import(list(args.rest))
    return int(result or 0)


def _migrate(args: argparse.Namespace) -> int:
    from infra.db import shown_url
    from infra.maintenance import grant_runtime
    from infra.migrations import upgrade

    settings = _settings()
    upgrade(settings.migration_url)
    print(f"database is at the latest schema ({shown_url(settings.migration_url)})")
    granted = grant_runtime(settings)
    if granted is None:
        return 0
    made = "created and granted" if granted.created else "granted"
    print(
        f"runtime role {granted.role!r} {made}: may read and append "
        f"{', '.join(granted.append_only)}, read {', '.join(granted.read_only)}, "
        f"read and write {len(granted.read_write)} read-model and state tables"
    )
    return 0


def _projections_rebuild(args: argparse.Namespace) -> int:
    from infra.maintenance import rebuild_read_models

    count = rebuild_read_models(_settings())
    models = "games, statistics, history, ratings, achievements, deadlines"
    print(f"read models ({models}) rebuilt from {count} events")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from infra.maintenance import verify_chains

    verified = verify_chains(_settings().database_url, args.game_id)
    if verified is None:
        print(f"no game {args.game_id!r}", file=sys.stderr)
        return 1
    for found in verified.breaks:
        print(f"BROKEN: {found}")
    if verified.breaks:
        print(f"{len(verified.breaks)} broken of {verified.checked}", file=sys.stderr)
        return 1
    print(f"hash chains hold: {verified.checked}")
    return 0


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
