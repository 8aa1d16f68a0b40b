"""The Mini App's HTTP side: the page, its JSON API and its live updates (Starlette).

Every API call carries Telegram's ``initData`` in ``Authorization: tma <initData>``,
checked by :mod:`tgbot.miniapp.initdata`; :class:`~tgbot.miniapp.access.Access` decides
as whom the user sees the game. A move is a button press by other means: it takes the
same use case (:class:`infra.actions.Actions`), so the game version the page was drawn
for must still hold and the move must be one of :func:`~domain.moves.legal_moves`; it
runs with an idempotency key per tap, refused with the same texts (:func:`error_text`).

``GET  {prefix}/``                      the page
``GET  {prefix}/static/...``            its scripts and styles
``GET  {prefix}/api/game/{game}``       the game as the user may see it; the page's texts, icons
                                        and legend
``GET  {prefix}/api/mine``              the running games the user plays (no game named)
``POST {prefix}/api/game/{game}/move``  ``{"version": n, "key": "...", "move": {...}}``
``GET  {prefix}/api/game/{game}/live``  server-sent events: the game each time it moves
``GET  {prefix}/demo``                  the offline demo's sign-in (only when it is given)
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.responses import StreamingResponse as Stream
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from telegram import Bot

from domain.state import GameState, PlayerId
from infra import actions
from infra.lru import LRU
from infra.waiting import wait_event
from tgbot.miniapp import initdata
from tgbot.miniapp.access import Access, Membership, Refused, TelegramMembership
from tgbot.miniapp.feed import Feed, Following, Wakeup
from tgbot.miniapp.payload import (
    command_from_json,
    game_json,
    legend_json,
    news_lines,
    page_icons,
    page_texts,
)
from tgbot.miniapp.play import Play, play_here
from tgbot.presenter.callback import GAME_RE
from tgbot.presenter.i18n import pick_language
from tgbot.presenter.texts import Texts
from tgbot.telegram.bodies import MOVE_BYTES, Unreadable, parse, read_body
from tgbot.telegram.context import BotServices
from tgbot.telegram.handlers.common import error_text

log = logging.getLogger(__name__)

STATIC: Final = Path(__file__).parent / "static"
PREFIX: Final = "/miniapp"
HEARTBEAT_SECONDS: Final = 15.0
NEWS_EVENTS: Final = 40  # events read back for the news lines
CACHED_NEWS: Final = 256  # (game, version, language, reader) whose news lines are kept
KEY_RE: Final = re.compile(r"[A-Za-z0-9_-]{8,64}")
NO_STORE: Final = {"Cache-Control": "no-store"}
# The offline fake Bot API's token, tgbot.offline.fakeapi.TOKEN (the runtime never imports
# the fake; the offline demo's tests fail if the two differ): the demo's sign-in is
# served beside it and no other.
FAKE_TOKEN: Final = "123456:TEST-fake-token"


@dataclass(frozen=True, slots=True)
class DemoPlayer:
    """Somebody the offline demo lets the browser act as."""

    id: int
    name: str
    language: str = "en"


class MiniApp:
    """The endpoints, over the bot's services."""

    def __init__(
        self,
        services: BotServices,
        *,
        token: str,
        membership: Membership,
        feed: Feed,
        max_age: int = initdata.MAX_AGE,
        clock: Callable[[], float] = time.time,
        demo_players: Sequence[DemoPlayer] = (),
    ) -> None:
        if demo_players and token != FAKE_TOKEN:
            raise ValueError("the demo's sign-in exists only beside the offline fake Bot API")
        self.services = services
        self.token = token
        self.access = Access(services, membership)
        self.feed = feed
        self.max_age = max_age
        self.clock = clock
        self.demo_players = {p.id: p for p in demo_players}
        self._news: LRU[tuple[str, int, str, PlayerId | None], list[str]] = LRU(CACHED_NEWS)

    # -- the routes ----------------------------------------------------------------

    def routes(self, prefix: str = PREFIX) -> list[BaseRoute]:
        inner: list[BaseRoute] = [
            Route("/", self.page),
            Route("/api/mine", self.mine),
            Route("/api/game/{game}", self.game),
            Route("/api/game/{game}/move", self.move, methods=["POST"]),
            Route("/api/game/{game}/live", self.live),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]
        if self.demo_players:
            inner.append(Route("/demo", self.demo))
        return [Mount(prefix, routes=inner)]

    async def page(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def mine(self, request: Request) -> Response:
        checked = self._auth(request)
        if isinstance(checked, Response):
            return checked
        user = checked.user
        games = await asyncio.to_thread(self.services.games_of, user.id)
        texts = await asyncio.to_thread(self.services.texts_for_user, user.id, user.language_code)
        return JSONResponse({"games": games, "texts": page_texts(texts)}, headers=NO_STORE)

    async def game(self, request: Request) -> Response:
        opened = await self._open(request)
        if isinstance(opened, Response):
            return opened
        game_id, _, viewer, texts = opened
        state = await self._state_json(game_id, viewer, texts)
        body = {
            "state": state,
            "texts": page_texts(texts),
            "icons": page_icons(),
            "legend": legend_json(texts, state["edition"]),
        }
        return JSONResponse(body, headers=NO_STORE)

    async def move(self, request: Request) -> Response:
        try:  # before anything else: a move is a few hundred bytes
            raw = await read_body(request, MOVE_BYTES)
        except Unreadable as error:
            log.warning("refused a move: %s", error)
            texts = Texts(_claimed_language(request.headers.get("authorization", "")[4:]))
            refusal = {"code": "forged_button", "error": error_text(texts, "forged_button")}
            headers = {**NO_STORE, **error.headers}
            return JSONResponse(refusal, status_code=error.status, headers=headers)
        checked = self._auth(request)
        if isinstance(checked, Response):
            return checked
        game_id = request.path_params["game"]
        # A player's move takes one trip off the event loop: their language and the game,
        # checked, played and drawn anew. Anyone else takes the road of any request.
        played = await asyncio.to_thread(self._move_here, checked, game_id, raw)
        if played is None:
            return await self._not_a_players_move(request, raw)
        texts, answer, state_json = played
        if isinstance(answer, actions.Played | actions.AlreadyDone):
            self.services.actions.heard(answer)  # wakes the announcer
            self.feed.poke()
            return JSONResponse({"ok": True, "state": state_json}, headers=NO_STORE)
        code = answer if isinstance(answer, str) else answer.reason
        body = {"code": code, "error": error_text(texts, code), "state": state_json}
        status = 403 if code == "not_your_button" else 400 if code == "forged_button" else 409
        return JSONResponse(body, status_code=status, headers=NO_STORE)

    def _move_here(
        self, init: initdata.InitData, game_id: str, raw: bytes
    ) -> tuple[Texts, actions.Answer | str, dict[str, Any]] | None:
        """The move in ``raw`` played by ``init``'s user, and the game after it, in the
        calling thread: their language, the answer (or the code of a body that names no
        move) and the game drawn for them; None when they do not play this game."""
        texts, state = self._texts_and_game(init.user, game_id)
        viewer = None if state is None else Access.player(state, init.user.id)
        if viewer is None:
            return None
        play = _play_of(game_id, viewer, texts, raw)
        if play is None:
            return texts, "forged_button", self._build(game_id, viewer, texts)
        answer, state_json = self._play(play, init.auth_date)
        return texts, answer, state_json

    async def _not_a_players_move(self, request: Request, raw: bytes) -> Response:
        """The answer to a move from someone who does not play the game (or to a game
        there is none of): why, as any request is refused, else as a refused button."""
        opened = await self._open(request)
        if isinstance(opened, Response):
            return opened
        game_id, _, viewer, texts = opened
        code = "forged_button" if _read_move(raw) is None else "not_your_button"
        status = 403 if code == "not_your_button" else 400
        return await self._refuse(game_id, viewer, texts, code, status)

    def _play(self, play: Play, auth_date: float) -> tuple[actions.Answer, dict[str, Any]]:
        """``play`` played, and the game as it is after its answer for ``play.viewer``
        (from the state the answer holds when it holds one), in the calling thread."""
        answer = play_here(self.services, play, auth_date)
        if isinstance(answer, actions.Played | actions.Refused) and answer.state is not None:
            state, version = answer.state, answer.version
            return answer, self._drawn(play.game_id, state, version, play.viewer, play.texts)
        return answer, self._build(play.game_id, play.viewer, play.texts)

    async def _done(self, game_id: str, viewer: PlayerId | None, texts: Texts) -> Response:
        state_json = await self._state_json(game_id, viewer, texts)
        return JSONResponse({"ok": True, "state": state_json}, headers=NO_STORE)

    async def live(self, request: Request) -> Response:
        opened = await self._open(request)
        if isinstance(opened, Response):
            return opened
        game_id, init, viewer, texts = opened
        until = init.auth_date + self.max_age  # then the page must sign in afresh

        async def events() -> AsyncIterator[str]:
            async with self.feed.watch(game_id) as watcher:
                yield _sse("state", await self._state_json(game_id, viewer, texts))
                while self.clock() < until:
                    if not await wait_event(watcher.changed, HEARTBEAT_SECONDS):
                        yield ": still here\n\n"
                        continue
                    watcher.changed.clear()
                    yield _sse("state", await self._state_json(game_id, viewer, texts))

        headers = {**NO_STORE, "X-Accel-Buffering": "no"}
        return Stream(events(), media_type="text/event-stream", headers=headers)

    async def demo(self, request: Request) -> Response:
        """The offline demo only: act as one of its players, with initData signed as
        Telegram would sign it (the fake Bot API's token: no real bot can be reached)."""
        try:
            player = self.demo_players[int(request.query_params.get("as", ""))]
        except (ValueError, KeyError):
            return _demo_index(self.demo_players.values())
        games = await asyncio.to_thread(self.services.games_of, player.id)
        user = {"id": player.id, "first_name": player.name, "language_code": player.language}
        fields = {
            "auth_date": str(int(self.clock())),
            "user": json.dumps(user, separators=(",", ":")),
            "chat_type": "group",
        }
        if games:
            fields["start_param"] = games[0]
        launch = urlencode(
            {"tgWebAppData": initdata.sign(fields, self.token), "tgWebAppVersion": "8.0"}
        )
        return RedirectResponse(f"./#{launch}", status_code=303)

    # -- helpers -------------------------------------------------------------------

    def _auth(self, request: Request) -> initdata.InitData | Response:
        scheme, _, raw = request.headers.get("authorization", "").partition(" ")
        try:
            if scheme.lower() != "tma":
                raise initdata.InvalidInitData("missing")
            return initdata.validate(raw, self.token, now=self.clock(), max_age=self.max_age)
        except initdata.InvalidInitData as error:
            texts = Texts(_claimed_language(raw))
            reason = "expired" if error.reason == "expired" else "forged"
            body = {"code": f"auth_{reason}", "error": texts.t(f"miniapp.auth_{reason}")}
            return JSONResponse(body, status_code=401, headers=NO_STORE)

    async def _open(
        self, request: Request
    ) -> tuple[str, initdata.InitData, PlayerId | None, Texts] | Response:
        """The game named in the path, the checked initData, as whom the user sees the
        game and their language; or the refusal to answer with."""
        checked = self._auth(request)
        if isinstance(checked, Response):
            return checked
        user = checked.user
        game_id = request.path_params["game"]
        texts, state = await asyncio.to_thread(self._texts_and_game, user, game_id)
        if state is None:
            return _refusal(texts, "miniapp.no_game", 404)
        try:
            viewer = await self.access.viewer(state, user.id)
        except Refused as refused:
            return _refusal(texts, refused.code, 404 if refused.code == "miniapp.no_game" else 403)
        return game_id, checked, viewer, texts

    def _texts_and_game(
        self, user: initdata.WebAppUser, game_id: str
    ) -> tuple[Texts, GameState | None]:
        """The user's language, and the game named (None: no such name)."""
        texts = self.services.languages.texts_for_user(user.id, user.language_code)
        if not GAME_RE.fullmatch(game_id):
            return texts, None
        return texts, self.services.service.load(game_id).state

    async def _refuse(
        self, game_id: str, viewer: PlayerId | None, texts: Texts, code: str, status: int
    ) -> Response:
        """A refused move: why, in the same words as a refused button, and the game as it
        is now, so the page shows what really holds."""
        state = await self._state_json(game_id, viewer, texts)
        body = {"code": code, "error": error_text(texts, code), "state": state}
        return JSONResponse(body, status_code=status, headers=NO_STORE)

    async def _state_json(
        self, game_id: str, viewer: PlayerId | None, texts: Texts
    ) -> dict[str, Any]:
        return await asyncio.to_thread(self._build, game_id, viewer, texts)

    def _build(self, game_id: str, viewer: PlayerId | None, texts: Texts) -> dict[str, Any]:
        loaded = self.services.service.load(game_id)
        return self._drawn(game_id, loaded.state, loaded.version, viewer, texts)

    def _drawn(
        self,
        game_id: str,
        state: GameState,
        version: int,
        viewer: PlayerId | None,
        texts: Texts,
    ) -> dict[str, Any]:
        now_ms = self.services.service.clock_ms()
        news = self._news_of(game_id, state, version, texts, viewer)
        return game_json(game_id, state, version, viewer, texts, now_ms=now_ms, news=news)

    def _news_of(
        self,
        game_id: str,
        state: GameState,
        version: int,
        texts: Texts,
        viewer: PlayerId | None = None,
    ) -> list[str]:
        key = (game_id, version, texts.lang, viewer)
        found = self._news.get(key)
        if found is None:
            # The round so far (as the 📜 log tells it), and at least the last few events:
            # a round just begun still shows how the last one ended.
            start = min(version - NEWS_EVENTS, state.round_began - 1)
            events = self.services.service.events(game_id, max(0, start))
            found = news_lines(state, events, texts, viewer)
            self._news[key] = found
        return found


def routes(services: BotServices, *, prefix: str = PREFIX, **options: Any) -> list[BaseRoute]:
    """The Mini App's routes, mounted at ``prefix``, for any Starlette application; the
    ``options`` are :func:`mini_app`'s."""
    return mini_app(services, **options).routes(prefix)


def mini_app(
    services: BotServices,
    *,
    token: str,
    bot: Bot | None = None,
    membership: Membership | None = None,
    wakeup: Wakeup | None = None,
    poll_seconds: float = 1.0,
    max_age: int = initdata.MAX_AGE,
    demo_players: Sequence[DemoPlayer] = (),
) -> MiniApp:
    """The Mini App over the bot's ``services``.

    ``token`` is the bot's (initData is signed with it); membership of a group is asked of
    Telegram through ``bot`` unless ``membership`` is given. Live updates follow the store,
    woken by ``wakeup`` (by default the bot's own ``services.wake``, which the notification
    channel sets too on PostgreSQL) or every ``poll_seconds``. ``demo_players``: the
    offline demo's sign-in, refused with any token but the fake Bot API's.
    """
    if membership is None:
        if bot is None:
            raise ValueError("a bot (to ask Telegram who is in a group) or a membership")
        membership = TelegramMembership(bot, services.members)
    feed = Feed(services.store, wakeup or Following(services.wake), poll_seconds)
    return MiniApp(
        services,
        token=token,
        membership=membership,
        feed=feed,
        max_age=max_age,
        demo_players=demo_players,
    )


def _read_move(raw: bytes) -> tuple[int, str, object] | None:
    """The version, key and move a move's body names; None when it is no such body."""
    try:
        body = parse(raw)
        return int(body["version"]), str(body["key"]), body.get("move")
    except Unreadable as error:
        log.warning("refused a move: %s", error)
        return None
    except (ValueError, KeyError, TypeError):
        return None


def _play_of(game_id: str, viewer: PlayerId, texts: Texts, raw: bytes) -> Play | None:
    """The move ``viewer``'s page sent in ``raw``; None when it names none (forged)."""
    read = _read_move(raw)
    if read is None:
        return None
    drawn, key, move = read
    if not KEY_RE.fullmatch(key):
        return None
    try:
        command = command_from_json(viewer, move)
    except ValueError:
        return None
    return Play(game_id, viewer, texts, command, drawn, f"miniapp:{viewer}:{key}")


def _sse(event: str, data: object) -> str:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _refusal(texts: Texts, code: str, status: int) -> Response:
    key = code if "." in code else f"error.{code}"
    return JSONResponse({"code": code, "error": texts.t(key)}, status_code=status, headers=NO_STORE)


def _claimed_language(raw: str) -> str:
    """The language the (unchecked) initData claims: only to word its own refusal."""
    try:
        if len(raw) > initdata.MAX_LENGTH:
            raise ValueError("longer than any initData")
        user = json.loads(dict(parse_qsl(raw)).get("user", "{}"))
        code = user.get("language_code") if isinstance(user, dict) else None
    except (ValueError, RecursionError):
        code = None
    return pick_language(code if isinstance(code, str) else None)


def _demo_index(players: Iterable[DemoPlayer]) -> Response:
    links = "".join(f'<li><a href="demo?as={p.id}">{html.escape(p.name)}</a></li>' for p in players)
    page = (
        "<!doctype html><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        "<title>Saboteur: offline demo</title><h1>Saboteur: offline demo</h1>"
        f"<p>Open the board as:</p><ul>{links}</ul>"
    )
    return HTMLResponse(page)
