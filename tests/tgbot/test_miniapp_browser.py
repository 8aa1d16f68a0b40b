"""The Mini App in a real headless browser (Debian's chromium driven by Playwright), served
beside the real bot on the fake Bot API: one player plays a whole game on the board while
the others press the chat's buttons; forged initData is refused; a stale tab's tap is
refused and its board redrawn. Screenshots at 390×844 go to ``$MINIAPP_SHOTS`` (else the
test's temporary folder)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from domain.cards import BREAKS, PATHS, Action, card
from domain.commands import (
    ChooseTheftVictim,
    Command,
    DiscardToRemove,
    Pass,
    PickGold,
    PlacePath,
    PlayAction,
)
from domain.events import (
    CardsDiscarded,
    FrontCardRemoved,
    GoldPicked,
    TheftPlanned,
    TheftResolved,
)
from domain.moves import legal_moves
from domain.state import GameState
from tests.conftest import unavailable
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    Table,
    bot_services,
    game_running,
    move_outside_the_bot,
    settle,
)
from tests.tgbot.miniapp_harness import GROUP, init_data, launch_url, miniapp_served
from tgbot.presenter.icons import Icon, legend
from tgbot.presenter.keyboards import unplayable_reason
from tgbot.presenter.texts import Texts
from tgbot.telegram.app import BotApplication
from tgbot.telegram.handlers.common import error_text

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
RAW_KEY = re.compile(r"\b(?:miniapp|turn|legend|bot|error|prompt)\.[a-z_]+\b")
BOARD_PLAYER = 11
PLAYERS = [BOARD_PLAYER, 12, 13]
EN = Texts("en")


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    if not CHROMIUM.exists():
        unavailable("chromium", f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        yield launched
        await launched.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("MINIAPP_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass
class Tab:
    """One open Mini App page, with what went wrong in it."""

    page: Any
    errors: list[str] = field(default_factory=list)

    async def showing(self, version: int) -> None:
        """Until the page shows the game at ``version`` and waits for nobody."""
        from playwright.async_api import TimeoutError as PageTimeout

        try:
            await self.page.wait_for_function(
                "v => document.body.dataset.version === v && document.body.dataset.mode !== 'busy'",
                arg=str(version),
                timeout=15_000,
            )
        except PageTimeout:
            shown = await self.page.evaluate("({...document.body.dataset})")
            toast = await self.page.locator("#toast").inner_text()
            raise AssertionError(
                f"the page shows {shown}, not version {version}; {await self.prompt()!r}; "
                f"toast {toast!r}; errors {self.errors}"
            ) from None

    async def prompt(self) -> str:
        return str(await self.page.locator("#prompt").inner_text())

    async def worded(self) -> None:
        """Every text on the page is a catalog's sentence, never a message's key."""
        shown = await self.page.evaluate("document.body.innerText")
        assert not RAW_KEY.findall(shown), shown


async def open_tab(browser: Any, url: str, *, live: bool = True) -> Tab:
    page = await browser.new_page(viewport=PHONE, device_scale_factor=2)
    tab = Tab(page)
    page.on("pageerror", lambda error: tab.errors.append(str(error)))
    # Offline, as the tests are: Telegram's script cannot load, and the page does without.
    await page.route("https://telegram.org/**", lambda route: route.abort())
    if not live:
        await page.route("**/live", lambda route: route.abort())
    await page.goto(url)
    return tab


class BoardPlayer:
    """Plays the decisions it owes by tapping the page, choosing at random (seeded)."""

    def __init__(self, tab: Tab, rng: random.Random, shots: Path | None = None) -> None:
        self.tab = tab
        self.page = tab.page
        self.rng = rng
        self.shots = shots
        self.moves: dict[str, int] = {}
        self.seen: set[str] = set()

    async def shot(self, name: str) -> None:
        """The page's first look at each step of a decision, for a person to check."""
        if self.shots is not None and name not in self.seen:
            self.seen.add(name)
            await self.page.screenshot(path=str(self.shots / f"step-{name}.png"))

    async def tap(self, locator: Any) -> None:
        """A finger on the middle of ``locator`` (a cell of the board, a button)."""
        box = await locator.bounding_box()
        assert box is not None
        await self.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    async def choices(self) -> list[Any]:
        buttons = self.page.locator("#choices button")
        return [buttons.nth(i) for i in range(await buttons.count())]

    async def button(self, text: str) -> Any:
        for button in await self.choices():
            if (await button.inner_text()).strip() == text:
                return button
        raise AssertionError(f"no button {text!r}: {await self.tab.prompt()}")

    async def play(self, kind: str) -> None:
        if kind not in self.seen:
            await self.tab.worded()
        await self.shot(kind)
        if kind in ("gold_pick", "theft"):
            await self.tap(self.rng.choice(await self.choices()))
            self.moves[kind] = self.moves.get(kind, 0) + 1
            return
        cards = self.page.locator("#hand .card:not(.idle)")
        if await cards.count() and self.rng.random() < 0.85:
            await self.tap(cards.nth(self.rng.randrange(await cards.count())))
            mode = await self.page.evaluate("document.body.dataset.mode")
            await self.shot(mode)
            if mode == "path":
                await self.place(self.page.locator("#marks g.ghost"), EN.t("miniapp.place"))
            else:
                await self.act()
            return
        await self.tap(await self.button(EN.t("turn.button_pass")))
        await self.shot("pass")
        hand = self.page.locator("#hand .card")
        await self.tap(hand.nth(self.rng.randrange(await hand.count())))
        if await self.page.evaluate("document.body.dataset.mode") == "pass":
            # Saboteur 2 ticks 1 to 3 cards, then confirms; the base game's tap discards.
            await self.tap(await self.button(EN.t("turn.button_confirm")))
        self.moves["pass"] = self.moves.get("pass", 0) + 1

    async def place(self, cells: Any, confirm: str) -> None:
        """Tap one of the lit ``cells``, then tap it again or the confirming button."""
        count = await cells.count()
        assert count, "a card with moves lights up no cell"
        cell = cells.nth(self.rng.randrange(count))
        await self.tap(cell)
        await self.shot(f"{await self.page.evaluate('document.body.dataset.mode')}-chosen")
        if self.rng.random() < 0.5:
            await self.tap(cell)
        else:
            await self.tap(await self.button(confirm))
        self.moves["cell"] = self.moves.get("cell", 0) + 1

    async def act(self) -> None:
        targets = self.page.locator("#marks circle.target")
        if await targets.count():
            await self.place(targets, EN.t("miniapp.play"))
            return
        back = EN.t("turn.button_back")
        players = [b for b in await self.choices() if (await b.inner_text()).strip() != back]
        await self.tap(self.rng.choice(players))
        confirm = EN.t("turn.button_confirm")
        shown = "[...document.querySelectorAll('#choices button')].map((b) => b.innerText.trim())"
        if confirm in await self.page.evaluate(shown):  # (the tap rendered at once)
            await self.shot("self-harm")  # one's own tool: asked once more
            await self.tap(await self.button(confirm))
        self.moves["player"] = self.moves.get("player", 0) + 1


async def until(predicate: Any, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("the game did not move on")
        await asyncio.sleep(0.01)


def on_turn(app: BotApplication, game: str) -> tuple[int, int]:
    """The player who owes a decision, and the game's version."""
    state, version = bot_services(app).load(game)
    assert state.pending is not None
    return state.pending.player, version


# The other players press the chat's buttons this many times, then move through the game
# service: the page's moves mixed with the chat's presses, and a whole game on the board,
# at a fraction of the CPU a whole game of presses costs.
OTHERS_PRESSES = 24


@pytest.fixture
async def bot_and_game(db: str) -> AsyncIterator[tuple[FakeBotAPI, BotApplication, str]]:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS, seed=5) as (app, game):
        yield api, app, game


async def test_one_player_plays_a_whole_game_on_the_board_while_the_others_press_buttons(
    browser: Any, bot_and_game: tuple[FakeBotAPI, BotApplication, str], shots: Path
) -> None:
    api, app, game = bot_and_game
    services = bot_services(app)
    others = Table(api, app, GROUP, PLAYERS[1:], rng=random.Random(3), brisk=True)
    moving = random.Random(6)
    async with miniapp_served(app, api) as (page_url, _):
        tab = await open_tab(browser, launch_url(page_url, init_data(api, BOARD_PLAYER, game=game)))
        player = BoardPlayer(tab, random.Random(4), shots)
        for _ in range(3000):
            await settle(api, app)
            state, version = services.load(game)
            if state.phase == "finished":
                break
            assert state.pending is not None
            if state.pending.player != BOARD_PLAYER:
                if others.presses < OTHERS_PRESSES:
                    assert await others.play_one(), "nobody was prompted"
                else:  # their moves through the game service (their presses: enough)
                    move = moving.choice(legal_moves(state, state.pending.player))
                    services.service.handle(game, move)
                    services.wake.set()
                continue
            await tab.showing(version)
            pile = await tab.page.locator("#pile").text_content() or ""
            assert re.fullmatch(r"Draw pile: (?:1 card|(?!1 )\d+ cards)", pile), pile
            await player.play(state.pending.kind)
            await until(lambda v=version: services.store.version(game) > v)
        else:
            raise AssertionError("the game did not end")

        await tab.showing(services.store.version(game))
        await tab.page.screenshot(path=str(shots / "game-over.png"))
        # The end as the group was told it: who won, and everyone's gold.
        final, _ = services.load(game)
        shown = await tab.prompt()
        winners = ", ".join(final.names[p] for p in final.winners)
        ended = "move.game_ended_one" if len(final.winners) == 1 else "move.game_ended"
        assert EN.t(ended, names=winners) in shown, shown
        for p, gold in final.gold.items():
            assert EN.t("move.score_line", name=final.names[p], count=gold) in shown, shown
    assert tab.errors == []
    assert player.moves.get("cell", 0) >= 5 and player.moves.get("pass", 0) >= 1
    # The board player's moves went through the page, never through the chat's buttons.
    presses = [c for c in api.calls_of("answerCallbackQuery")]
    assert presses and all(
        api.answered[c["callback_query_id"]] for c in presses
    )  # every chat press answered


async def test_forged_init_data_is_refused_in_the_browser(
    browser: Any, bot_and_game: tuple[FakeBotAPI, BotApplication, str], shots: Path
) -> None:
    api, app, game = bot_and_game
    _, version = bot_services(app).load(game)
    forged = init_data(api, BOARD_PLAYER, game=game, token="42:somebody-elses-token")
    async with miniapp_served(app, api) as (page_url, _):
        tab = await open_tab(browser, launch_url(page_url, forged))
        cover = tab.page.locator("#cover.refused")
        await cover.wait_for(timeout=10_000)
        await tab.page.screenshot(path=str(shots / "forged.png"))
        assert await cover.inner_text() == EN.t("miniapp.auth_forged")
        assert await tab.page.locator("#hand .card").count() == 0
    assert bot_services(app).load(game)[1] == version


async def test_a_stale_tabs_tap_is_refused_and_the_board_refreshes(
    browser: Any, bot_and_game: tuple[FakeBotAPI, BotApplication, str], shots: Path
) -> None:
    api, app, game = bot_and_game
    services = bot_services(app)
    mover, version = on_turn(app, game)
    async with miniapp_served(app, api) as (page_url, _):
        # A tab that hears no live updates (its connection dropped): it stays behind.
        tab = await open_tab(
            browser, launch_url(page_url, init_data(api, mover, game=game)), live=False
        )
        await tab.showing(version)
        move_outside_the_bot(app, game)  # the same player, from the chat's buttons
        await settle(api, app)
        moved = services.store.version(game)

        player = BoardPlayer(tab, random.Random(1))
        await player.play("turn")
        toast = tab.page.locator("#toast")
        await toast.wait_for(timeout=10_000)
        await tab.showing(moved)
        await tab.page.screenshot(path=str(shots / "stale.png"))

        assert await toast.inner_text() == error_text(EN, "stale_button")
        assert services.store.version(game) == moved
        now, _ = services.load(game)
        assert now.pending is not None
        waiting_for = now.names[now.pending.player]
        assert await tab.prompt() == EN.t("turn.waiting", name=waiting_for)
        assert await tab.page.locator("#hand .card:not(.idle)").count() == 0
    assert tab.errors == []


# Telegram's WebApp object as telegram-web-app.js makes it, recording what the page asks.
TELEGRAM_STUB = """
window.calls = [];
const record = (name) => (...args) =>
  window.calls.push([name, ...args.filter((a) => typeof a !== "function")]);
window.Telegram = { WebApp: {
  initData: INIT_DATA,
  initDataUnsafe: { start_param: GAME },
  version: "8.0",
  platform: "tdesktop",
  colorScheme: "light",
  themeParams: {
    bg_color: "#ffffff", text_color: "#222222", hint_color: "#707579",
    button_color: "#3390ec", button_text_color: "#ffffff", secondary_bg_color: "#f1f1f4",
  },
  isVersionAtLeast: () => true,
  ready: record("ready"),
  expand: record("expand"),
  disableVerticalSwipes: record("disableVerticalSwipes"),
  onEvent: record("onEvent"),
  BackButton: {
    handler: null,
    show: record("BackButton.show"),
    hide: record("BackButton.hide"),
    onClick(handler) { this.handler = handler; },
    offClick(handler) { if (this.handler === handler) this.handler = null; },
  },
  HapticFeedback: {
    selectionChanged: record("HapticFeedback.selectionChanged"),
    notificationOccurred: record("HapticFeedback.notificationOccurred"),
    impactOccurred: record("HapticFeedback.impactOccurred"),
  },
} };
"""


async def test_inside_telegram_the_page_takes_its_theme_back_button_and_haptics(
    browser: Any, bot_and_game: tuple[FakeBotAPI, BotApplication, str], shots: Path
) -> None:
    api, app, game = bot_and_game
    services = bot_services(app)
    mover, version = on_turn(app, game)
    stub = TELEGRAM_STUB.replace("INIT_DATA", json.dumps(init_data(api, mover, game=game))).replace(
        "GAME", json.dumps(game)
    )
    async with miniapp_served(app, api) as (page_url, _):
        page = await browser.new_page(viewport=PHONE, device_scale_factor=2)
        await page.add_init_script(stub)
        await page.route("https://telegram.org/**", lambda route: route.abort())
        await page.goto(page_url)  # no launch parameters: all from Telegram's object
        tab = Tab(page)
        await tab.showing(version)
        calls = lambda: page.evaluate("window.calls.map((c) => c.join(' '))")  # noqa: E731

        background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(255, 255, 255)"
        assert {"ready", "expand", "disableVerticalSwipes"} <= set(await calls())
        # On a desktop, no full screen: it would cover the chats beside the window.
        assert "requestFullscreen" not in await calls()

        player = BoardPlayer(tab, random.Random(2))
        await player.tap(page.locator("#hand .card:not(.idle)").first)
        await page.screenshot(path=str(shots / "telegram-light-theme.png"))
        assert "BackButton.show" in await calls()
        assert "HapticFeedback.selectionChanged" in await calls()

        await page.evaluate("window.Telegram.WebApp.BackButton.handler()")
        assert await page.evaluate("document.body.dataset.mode") == "root"
        assert (await calls())[-1] == "BackButton.hide"

        # The icons' legend, as the chat's "?" button shows it; Telegram's Back closes it.
        opener = page.locator("#legend-open")
        assert await opener.inner_text() == EN.t("legend.button")
        await player.tap(opener)
        shown = page.locator("#legend")
        await shown.wait_for(timeout=5_000)
        await page.screenshot(path=str(shots / "legend.png"))
        title, *lines = legend(EN, "base").split("\n")
        assert await shown.locator("h2").inner_text() == title
        assert await shown.locator("p").all_inner_texts() == lines
        assert (await calls())[-1] == "BackButton.show"
        await page.evaluate("window.Telegram.WebApp.BackButton.handler()")
        await shown.wait_for(state="hidden", timeout=5_000)

        await player.play("turn")
        await until(lambda: services.store.version(game) > version)
        success = "HapticFeedback.notificationOccurred success"
        await page.wait_for_function(f"window.calls.some((c) => c.join(' ') === '{success}')")


def digging(state: GameState, player: int) -> Command:
    """A move that hurries the round to its end: a theft first, then the path card that
    reaches furthest towards the goals, a repair of one's own tools, else a pass."""
    moves = legal_moves(state, player)
    played = [m for m in moves if isinstance(m, PlayAction)]
    thefts = [m for m in played if card(state.edition, m.card).action is Action.THEFT]
    paths = [
        m
        for m in moves
        if isinstance(m, PlacePath) and not card(state.edition, m.card).path.is_dead_end  # type: ignore[union-attr]
    ]
    repairs = [m for m in played if m.target_player == player and m.tool is not None]
    passes = [m for m in moves if isinstance(m, Pass)]
    if thefts:
        return thefts[0]
    if paths:
        return max(paths, key=lambda m: (m.cell[0], -abs(m.cell[1])))
    return (repairs or passes or moves)[0]


@pytest.mark.parametrize(
    ("edition", "seed", "kind"), [("base", 1, "gold_pick"), ("saboteur2", 6, "theft")]
)
async def test_a_gold_pick_and_a_theft_are_chosen_on_the_board(
    browser: Any, db: str, shots: Path, edition: str, seed: int, kind: str
) -> None:
    # A gold pick is a choice when the group asks for manual picks (the default is the
    # automatic pick).
    settings = {"gold_pick": "manual"} if kind == "gold_pick" else None
    async with (
        FakeBotAPI() as api,
        game_running(api, db, GROUP, PLAYERS, edition, settings, seed=seed) as (app, game),
    ):
        services = bot_services(app)
        for _ in range(500):  # everybody digs, as in a hurry, until the round's end
            state, version = services.load(game)
            assert state.phase == "playing" and state.pending is not None
            if state.pending.kind == kind:
                break
            services.service.handle(game, digging(state, state.pending.player))
        else:
            raise AssertionError(f"no {kind} came")
        await settle(api, app)
        chooser = state.pending.player
        offered = legal_moves(state, chooser)
        async with miniapp_served(app, api) as (page_url, _):
            tab = await open_tab(browser, launch_url(page_url, init_data(api, chooser, game=game)))
            await tab.showing(version)
            await tab.page.screenshot(path=str(shots / f"{kind}.png"))
            prompt = f"{Icon.THEFT.emoji} {EN.t('miniapp.theft')}"
            if kind == "gold_pick":
                values = ", ".join(str(v) for v in sorted(state.gold_pick_offer))
                prompt = f"{Icon.GOLD.emoji} {EN.t('miniapp.gold_pick', values=values)}"
            assert await tab.prompt() == prompt
            await tab.worded()
            player = BoardPlayer(tab, random.Random(seed))
            buttons = [(await b.inner_text()).strip() for b in await player.choices()]
            assert len(buttons) == len(offered) >= 1
            await player.tap((await player.choices())[-1])
            await until(lambda: services.store.version(game) > version)
        tapped = offered[-1]  # the last button
        told = services.service.events(game, version)
        if isinstance(tapped, PickGold):
            assert GoldPicked(chooser, tapped.value) in told
        else:
            assert isinstance(tapped, ChooseTheftVictim)
            assert TheftResolved(chooser, tapped.victim) in told
        assert tab.errors == []


def longest_card_names(lang: str, count: int) -> list[str]:
    """The ``count`` longest names of cards in ``lang``'s catalog."""
    texts = Texts(lang)
    names = {texts.kind_name(a.value) for a in Action}
    return sorted(names, key=len, reverse=True)[:count]


def longest_stub_name(lang: str) -> str:
    """The longest name of a path card with a dead-end stub ("curva ┌ + ╵") in ``lang``."""
    texts = Texts(lang)
    names = {texts.kind_name(kind, turned) for kind in PATHS for turned in (False, True)}
    return max((n for n in names if " + " in n), key=len)


@pytest.mark.parametrize("lang", ["en", "es", "pl"])
async def test_the_hands_names_are_never_cut_on_a_phone(
    browser: Any, bot_and_game: tuple[FakeBotAPI, BotApplication, str], shots: Path, lang: str
) -> None:
    api, app, game = bot_and_game
    mover, version = on_turn(app, game)

    async def longest_names(route: Any) -> None:
        """The game as served, its hand named with the catalog's longest names."""
        answer = await route.fetch()
        body = await answer.json()
        hand = body["state"]["hand"]
        for held, name in zip(hand, longest_card_names(lang, len(hand)), strict=True):
            held["name"] = name
        hand[-1]["name"] = longest_stub_name(lang)
        await route.fulfill(response=answer, json=body)

    async with miniapp_served(app, api) as (page_url, _):
        url = launch_url(page_url, init_data(api, mover, game=game, lang=lang))
        page = await browser.new_page(viewport=PHONE, device_scale_factor=2)
        await page.route("https://telegram.org/**", lambda route: route.abort())
        await page.route("**/live", lambda route: route.abort())
        await page.route(f"**/api/game/{game}", longest_names)
        await page.goto(url)
        tab = Tab(page)
        await tab.showing(version)
        await page.screenshot(path=str(shots / f"hand-{lang}.png"))
        labels = page.locator("#hand .card .label")
        assert await labels.count() == 6
        cut = await labels.evaluate_all(
            """labels => labels.filter((l) => l.scrollHeight > l.clientHeight + 1
                || l.scrollWidth > l.clientWidth + 1
                || l.getBoundingClientRect().bottom > innerHeight)
              .map((l) => l.textContent)"""
        )
        assert cut == [], cut
        # A path card's shape stays on one line ("curva ┌ + ╵", never "curva ┌ +⏎╵").
        lines = await labels.last.evaluate(
            """l => {
                 const text = l.firstChild, at = text.data.search(/[\\u2500-\\u257f]/);
                 const range = document.createRange();
                 range.setStart(text, at);
                 range.setEnd(text, text.data.length);
                 return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
               }"""
        )
        assert lines == 1, await labels.last.inner_text()


TAP_PX = 44  # a comfortable tap, in CSS px
NEXT_FRAME = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
INSETS = {"top": 47, "bottom": 34, "left": 0, "right": 0}  # an iPhone's safe area
CONTENT_INSETS = {"top": 46, "bottom": 0, "left": 0, "right": 0}  # Telegram's buttons

# Telegram's WebApp object on a phone (Bot API 8.0): full screen when asked, safe areas.
PHONE_STUB = TELEGRAM_STUB.replace(
    'platform: "tdesktop",', 'platform: "ios", isFullscreen: false,'
).replace(
    "isVersionAtLeast: () => true,",
    f"""isVersionAtLeast: (v) => parseFloat(v) <= 8.0,
  safeAreaInset: {json.dumps(INSETS)},
  contentSafeAreaInset: {json.dumps(CONTENT_INSETS)},
  requestFullscreen() {{ window.calls.push(["requestFullscreen"]); this.isFullscreen = true; }},""",
)


async def test_on_a_phone_the_board_fills_the_screen_its_cells_take_a_finger_and_seats_scroll(
    browser: Any, bot_and_game: tuple[FakeBotAPI, BotApplication, str], shots: Path
) -> None:
    api, app, game = bot_and_game
    mover, version = on_turn(app, game)
    stub = PHONE_STUB.replace("INIT_DATA", json.dumps(init_data(api, mover, game=game))).replace(
        "GAME", json.dumps(game)
    )

    async def seven_seats(route: Any) -> None:
        """The game as served, at a table of seven with long names."""
        answer = await route.fetch()
        body = await answer.json()
        seats = body["state"]["seats"]
        for n in range(4):
            seats.append({**seats[0], "id": 90 + n, "name": f"Bartholomew {n}", "turn": False})
        await route.fulfill(response=answer, json=body)

    async with miniapp_served(app, api) as (page_url, _):
        page = await browser.new_page(viewport=PHONE, device_scale_factor=2)
        await page.add_init_script(stub)
        await page.route("https://telegram.org/**", lambda route: route.abort())
        await page.route("**/live", lambda route: route.abort())
        await page.route(f"**/api/game/{game}", seven_seats)
        await page.goto(page_url)
        tab = Tab(page)
        await tab.showing(version)
        rect = "e => ((r) => [r.left, r.top, r.right, r.bottom])(e.getBoundingClientRect())"
        box = lambda selector: page.locator(selector).first.evaluate(rect)  # noqa: E731

        # Full screen, asked of Telegram; the page keeps out of the notch, Telegram's
        # buttons and the home bar.
        assert ["requestFullscreen"] in await page.evaluate("window.calls")
        assert (await box("#top"))[1] >= INSETS["top"] + CONTENT_INSETS["top"]
        lowest = await page.evaluate(
            """Math.max(...[...document.body.children]
                 .filter((e) => getComputedStyle(e).position !== "fixed" && e.offsetHeight)
                 .map((e) => e.getBoundingClientRect().bottom))"""
        )
        assert lowest <= PHONE["height"] - INSETS["bottom"], lowest

        # The board's drawing fills its whole window: no blank band under the grid.
        wrap, grid = await box("#board-wrap"), await box("#board #grid")
        assert grid[1] <= wrap[1] + 1 and grid[3] >= wrap[3] - 1, (wrap, grid)
        inside = PHONE["height"] - INSETS["top"] - CONTENT_INSETS["top"] - INSETS["bottom"]
        assert wrap[3] - wrap[1] >= 0.5 * inside, wrap  # over half of the screen it has

        # Coordinates left of the start are written with a true minus sign, as in the
        # bot's pictures and messages ("at −1,0"): a hyphen shrinks to a dot on a phone.
        labels = await page.locator("#board text").all_text_contents()
        assert "−1" in labels and not any(label.startswith("-") for label in labels), labels

        # Seven seats do not fit: an arrow says so, and its taps bring the last one in.
        more = page.locator("#seats-more")
        assert await more.is_visible()
        await page.screenshot(path=str(shots / "phone-seats.png"))
        last = page.locator("#seats .seat").last
        for _ in range(10):
            if not await more.is_visible():
                break
            await more.click()
            await page.wait_for_timeout(400)  # the strip's smooth scroll
        assert not await more.is_visible()
        assert await page.locator("#seats-back").is_visible()
        assert (await last.evaluate(rect))[2] <= PHONE["width"]

        # A picked card: the board zooms to where it goes, each lit cell a finger wide.
        player = BoardPlayer(tab, random.Random(2))
        await player.tap(page.locator("#hand .card:not(.idle)").first)
        assert await page.evaluate("document.body.dataset.mode") == "path"
        await page.screenshot(path=str(shots / "phone-card-picked.png"))
        lit = await page.locator("#marks g.ghost").evaluate_all(
            "gs => gs.map((g) => g.getBoundingClientRect()).map((r) => Math.min(r.width, r.height))"
        )
        assert lit and min(lit) >= TAP_PX, lit
        tapped = page.locator("#marks g.ghost").first
        await player.tap(tapped)
        assert await page.locator("#marks g.ghost.chosen").count() == 1

        # A ticked toggle never wears the action button's colour.
        colours = await page.evaluate(
            """() => ["primary", "on"].map((cls) => {
                 const b = document.createElement("button");
                 b.className = cls;
                 document.getElementById("choices").append(b);
                 const colour = getComputedStyle(b).backgroundColor;
                 b.remove();
                 return colour;
               })"""
        )
        assert colours[0] != colours[1], colours

        # Lit cells moved out of view: an arrow at that edge counts them (read with the
        # cells in one go: a pan redraws both at the next frame).
        seen = """([left, top, right, bottom]) => ({
            beyond: [...document.querySelectorAll("#marks g.ghost")]
              .map((g) => g.getBoundingClientRect())
              .map((r) => [r.left + r.width / 2, r.top + r.height / 2])
              .map(([x, y]) => [y < top + 20 ? "up" : y > bottom ? "down" : "",
                                x < left + 20 ? "left" : x > right ? "right" : ""])
              .map((way) => way.filter(Boolean).join("-")),
            cues: [...document.querySelectorAll(".edge-cue")]
              .filter((c) => !c.hidden).map((c) => [c.className, c.textContent]),
          })"""
        wrap = await box("#board-wrap")
        arrows = {"up": "↑", "down": "↓", "left": "←", "right": "→"}
        arrows |= {"up-left": "↖", "up-right": "↗", "down-left": "↙", "down-right": "↘"}

        def cues_for(beyond: list[str]) -> list[list[str]]:
            counts = {side: beyond.count(side) for side in arrows}
            return sorted([f"edge-cue {s}", f"{arrows[s]} {n}"] for s, n in counts.items() if n)

        now = await page.evaluate(seen, wrap)
        assert set(now["beyond"]) == {""} and now["cues"] == []  # every lit cell in view
        middle = ((wrap[0] + wrap[2]) / 2, (wrap[1] + wrap[3]) / 2)
        for dx, dy in [(260, -200), (-520, 400)]:  # the board dragged one way, then the other
            await page.mouse.move(*middle)
            await page.mouse.down()
            await page.mouse.move(middle[0] + dx, middle[1] + dy, steps=8)
            await page.mouse.up()
            await page.evaluate(NEXT_FRAME)  # (the pan is drawn at the next frame)
            now = await page.evaluate(seen, wrap)
            assert set(now["beyond"]) - {""}, now  # some out of view
            assert sorted(now["cues"]) == cues_for(now["beyond"]), now
            await page.screenshot(path=str(shots / f"phone-lit-cells-out-of-view-{dx}.png"))
        # Put down, the card lights nothing: no cue.
        await player.tap(await player.button(EN.t("turn.button_back")))
        assert await page.evaluate("document.body.dataset.mode") == "root"
        assert (await page.evaluate(seen, wrap))["cues"] == []
    assert tab.errors == []


# Telegram's own isVersionAtLeast (telegram-web-app.js): the versions compared number by
# number, "7.10" below "8.0".
VERSION_AT_LEAST = """isVersionAtLeast(want) {
    const have = this.version.split("."), wanted = want.split(".");
    for (let i = 0; i < Math.max(have.length, wanted.length); i++) {
      const a = parseInt(have[i]) || 0, b = parseInt(wanted[i]) || 0;
      if (a !== b) return a > b;
    }
    return true;
  },"""


async def test_full_screen_is_asked_only_of_a_telegram_that_has_it_since_bot_api_8(
    browser: Any, bot_and_game: tuple[FakeBotAPI, BotApplication, str]
) -> None:
    """Full screen came with Bot API 8.0: an older Telegram on a phone is never asked for
    it (its script would only answer that the method is unsupported)."""
    api, app, game = bot_and_game
    mover, game_version = on_turn(app, game)
    async with miniapp_served(app, api) as (page_url, _):
        for version, asked in [("6.9", False), ("7.10", False), ("8.0", True), ("9.1", True)]:
            stub = (
                PHONE_STUB.replace("INIT_DATA", json.dumps(init_data(api, mover, game=game)))
                .replace("GAME", json.dumps(game))
                .replace('version: "8.0",', f"version: {json.dumps(version)},")
                .replace("isVersionAtLeast: (v) => parseFloat(v) <= 8.0,", VERSION_AT_LEAST)
            )
            assert VERSION_AT_LEAST in stub and f'version: "{version}"' in stub
            page = await browser.new_page(viewport=PHONE, device_scale_factor=2)
            tab = Tab(page)
            page.on("pageerror", lambda error, tab=tab: tab.errors.append(str(error)))
            await page.add_init_script(stub)
            await page.route("https://telegram.org/**", lambda route: route.abort())
            await page.goto(page_url)
            await tab.showing(game_version)  # (Telegram's side of the page is set up first)
            calls = await page.evaluate("window.calls.map((c) => c[0])")
            assert "ready" in calls and "expand" in calls
            assert ("requestFullscreen" in calls) == asked, (version, calls)
            assert tab.errors == []
            await page.close()


async def test_targets_name_you_first_self_harm_asks_and_a_dimmed_card_says_why(
    browser: Any, bot_and_game: tuple[FakeBotAPI, BotApplication, str], shots: Path
) -> None:
    api, app, game = bot_and_game
    services = bot_services(app)
    mover, version = on_turn(app, game)
    state, _ = services.load(game)
    moves = legal_moves(state, mover)
    playable = {m.card for m in moves if isinstance(m, PlacePath | PlayAction)}
    hand = sorted(state.hands[mover])
    dimmed = [c for c in hand if c not in playable]
    breaking = [c for c in hand if card(state.edition, c).action in BREAKS]
    assert dimmed and breaking, "seed 5 deals the first player dimmed cards and a broken tool"

    async with miniapp_served(app, api) as (page_url, _):
        tab = await open_tab(
            browser, launch_url(page_url, init_data(api, mover, game=game)), live=False
        )
        page = tab.page
        await tab.showing(version)
        player = BoardPlayer(tab, random.Random(5))

        # A dimmed card says why it cannot be played, in the chat's words.
        toast = page.locator("#toast")
        for c in dimmed:
            await player.tap(page.locator(f'#hand .card[data-card="{c}"]'))
            want = EN.t(unplayable_reason(state, mover, c))
            await page.wait_for_function(
                "t => document.getElementById('toast').innerText === t", arg=want
            )
            assert await toast.is_visible()
        await page.screenshot(path=str(shots / "dimmed-why.png"))

        # A broken tool: every player by name, oneself first and marked as such.
        await player.tap(page.locator(f'#hand .card[data-card="{breaking[0]}"]'))
        back = EN.t("turn.button_back")
        labels = [(await b.inner_text()).strip() for b in await player.choices()]
        you = EN.t("miniapp.you_named", name=state.names[mover])
        others = [state.names[p] for p in state.seating if p != mover]
        assert labels == [you, *others, back], labels
        await page.screenshot(path=str(shots / "targets.png"))

        # On oneself, it asks first; Back plays nothing.
        await player.tap(await player.button(you))
        name = EN.card_name(state.edition, breaking[0])
        assert await tab.prompt() == EN.t("miniapp.self_harm", card=name)
        await page.screenshot(path=str(shots / "self-harm.png"))
        await player.tap(await player.button(back))
        assert [(await b.inner_text()).strip() for b in await player.choices()] == labels
        await player.tap(await player.button(back))
        assert services.store.version(game) == version

        # The base game's pass: one tap on the card to discard, no Confirm.
        await player.tap(await player.button(EN.t("turn.button_pass")))
        await player.tap(page.locator(f'#hand .card[data-card="{dimmed[0]}"]'))
        await until(lambda: services.store.version(game) > version)
    assert CardsDiscarded(mover, (dimmed[0],)) in services.service.events(game, version)
    assert tab.errors == []


def situation(state: GameState, kind: str) -> bool:
    """Whether the player on turn owes a turn with a theft card to play (``theft``), or
    with one card in front of them to remove by discarding two (``remove``)."""
    if state.pending is None or state.pending.kind != "turn":
        return False
    moves = legal_moves(state, state.pending.player)
    if kind == "theft":
        return any(
            isinstance(m, PlayAction) and card(state.edition, m.card).action is Action.THEFT
            for m in moves
        )
    return len(state.front_of(state.pending.player)) == 1 and any(
        isinstance(m, DiscardToRemove) for m in moves
    )


def hurting(state: GameState, player: int) -> Command:
    """A move that breaks another player's tool when it can (so that front cards come),
    else one that hurries the round on (:func:`digging`)."""
    for m in legal_moves(state, player):
        others = isinstance(m, PlayAction) and m.target_player not in (None, player)
        if others and card(state.edition, m.card).action in BREAKS:
            return m
    return digging(state, player)


async def test_a_theft_plays_in_one_button_and_one_front_card_needs_no_choosing(
    browser: Any, db: str, shots: Path
) -> None:
    async with (
        FakeBotAPI() as api,
        game_running(api, db, GROUP, PLAYERS, "saboteur2", seed=6) as (app, game),
    ):
        services = bot_services(app)
        async with miniapp_served(app, api) as (page_url, _):
            for kind in ("theft", "remove"):
                for _ in range(2000):
                    state, version = services.load(game)
                    assert state.phase == "playing" and state.pending is not None
                    if situation(state, kind):
                        break
                    services.service.handle(game, hurting(state, state.pending.player))
                else:
                    raise AssertionError(f"no {kind} came")
                await settle(api, app)
                mover = state.pending.player
                url = launch_url(page_url, init_data(api, mover, game=game))
                tab = await open_tab(browser, url, live=False)
                await tab.showing(version)
                player = BoardPlayer(tab, random.Random(6))
                if kind == "theft":
                    # card → one button, "theft → you": never the player's own name.
                    theft = next(
                        c
                        for c in state.hands[mover]
                        if card(state.edition, c).action is Action.THEFT
                    )
                    await player.tap(tab.page.locator(f'#hand .card[data-card="{theft}"]'))
                    name = EN.card_name(state.edition, theft)
                    want = EN.t("turn.play_on", card=name, target=EN.t("turn.yourself"))
                    shown = [(await b.inner_text()).strip() for b in await player.choices()]
                    assert shown == [want, EN.t("turn.button_back")], shown
                    await tab.page.screenshot(path=str(shots / "theft-card.png"))
                    await player.tap(await player.button(want))
                    await until(lambda v=version: services.store.version(game) > v)
                    told = services.service.events(game, version)
                    assert any(isinstance(e, TheftPlanned) and e.card == theft for e in told)
                else:
                    # One card in front: straight to the two cards to discard for it.
                    await player.tap(await player.button(EN.t("turn.button_discard_remove")))
                    assert await tab.prompt() == EN.t("miniapp.choose_remove_cards")
                    for c in sorted(state.hands[mover])[:2]:
                        await player.tap(tab.page.locator(f'#hand .card[data-card="{c}"]'))
                    await tab.page.screenshot(path=str(shots / "remove-one.png"))
                    await player.tap(await player.button(EN.t("turn.button_confirm")))
                    await until(lambda v=version: services.store.version(game) > v)
                    told = services.service.events(game, version)
                    assert any(isinstance(e, FrontCardRemoved) for e in told), told
                assert tab.errors == []
                await tab.page.close()
