"""The Mini App's API beside the real bot: who sees what, moves as button presses by other
means (version, legality, idempotency, the same refusals), live updates, languages."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

import aiohttp
import pytest

from domain import events as ev
from domain.cards import BREAKS, card
from domain.moves import legal_moves
from domain.view import HIDDEN_GOAL
from infra.settings import LANGUAGES
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    game_running,
    move_outside_the_bot,
    settle,
)
from tests.tgbot.miniapp_harness import GROUP, auth, init_data, miniapp_served, next_state
from tgbot.miniapp.api import DemoPlayer, MiniApp, mini_app
from tgbot.miniapp.feed import Following
from tgbot.miniapp.payload import PAGE_ONLY, PAGE_TEXTS, move_json
from tgbot.miniapp.server import serving
from tgbot.presenter.icons import Icon, legend
from tgbot.presenter.keyboards import unplayable_reason
from tgbot.presenter.texts import Texts
from tgbot.telegram.app import BotApplication
from tgbot.telegram.context import WakeUp
from tgbot.telegram.handlers.common import error_text

PLAYERS = [11, 12, 13]
MEMBER = 21  # in the group, not playing
STRANGER = 31  # not in the group

pytestmark = pytest.mark.timeout(60)


@dataclass
class Served:
    api: FakeBotAPI
    app: BotApplication
    game: str
    page: str
    miniapp: MiniApp
    http: aiohttp.ClientSession

    def state(self) -> tuple[Any, int]:
        return bot_services(self.app).load(self.game)

    def on_turn(self) -> int:
        state, _ = self.state()
        assert state.pending is not None
        return int(state.pending.player)

    async def get(self, user: int, **options: Any) -> tuple[int, dict[str, Any]]:
        raw = init_data(self.api, user, game=self.game, **options)
        async with self.http.get(f"{self.page}api/game/{self.game}", headers=auth(raw)) as r:
            return r.status, await r.json()

    async def post(
        self, user: int, move: dict[str, Any], version: int, key: str = "tap-0001", **options: Any
    ) -> tuple[int, dict[str, Any]]:
        raw = init_data(self.api, user, game=self.game, **options)
        body = {"version": version, "key": key, "move": move}
        url = f"{self.page}api/game/{self.game}/move"
        async with self.http.post(url, json=body, headers=auth(raw)) as r:
            return r.status, await r.json()


@pytest.fixture
async def served(db: str) -> AsyncIterator[Served]:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game):
        api.user(MEMBER, "Watcher", "en")
        api.user(STRANGER, "Stranger", "en")
        api.chat_member(GROUP, MEMBER, "left", "member")
        await settle(api, app)
        async with miniapp_served(app, api) as (page, miniapp), aiohttp.ClientSession() as http:
            yield Served(api, app, game, page, miniapp, http)


def first_move(served: Served) -> tuple[int, dict[str, Any], int]:
    state, version = served.state()
    player = served.on_turn()
    return player, move_json(legal_moves(state, player)[0]), version


async def test_a_player_sees_their_seat_their_hand_and_only_their_legal_moves(
    served: Served,
) -> None:
    player = served.on_turn()
    state, version = served.state()

    status, body = await served.get(player)

    assert status == 200
    shown = body["state"]
    assert shown["me"] == player and shown["version"] == version
    assert [c["id"] for c in shown["hand"]] == sorted(state.hand(player))
    assert shown["role"] is not None and shown["gold"] == 0
    offered = [{k: v for k, v in m.items() if k not in PAGE_ONLY} for m in shown["moves"]]
    assert offered == [move_json(m) for m in legal_moves(state, player)]
    assert body["texts"]["miniapp.your_turn"] == Texts("en").t("miniapp.your_turn")


@pytest.fixture
async def dealt_dimmed(db: str) -> AsyncIterator[Served]:
    """A game whose first player holds cards they cannot play, and a broken tool (seed 5)."""
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS, seed=5) as (app, game):
        await settle(api, app)
        async with miniapp_served(app, api) as (page, miniapp), aiohttp.ClientSession() as http:
            yield Served(api, app, game, page, miniapp, http)


async def test_a_dimmed_card_says_why_and_oneself_as_a_target_is_marked(
    dealt_dimmed: Served,
) -> None:
    served = dealt_dimmed
    player = served.on_turn()
    state, version = served.state()
    _, body = await served.get(player)
    shown = body["state"]
    en = Texts("en")
    played = {m["card"] for m in shown["moves"] if "card" in m}
    why = {c["id"]: c.get("why") for c in shown["hand"]}
    assert why == {
        c: None if c in played else en.t(unplayable_reason(state, player, c))
        for c in state.hand(player)
    }
    assert any(why.values()), "the first hand holds a card that cannot be played"
    assert any(m.get("harm") for m in shown["moves"]), "and a broken tool"
    for move in shown["moves"]:
        if move.get("target_player") == player:
            breaks = card(state.edition, move["card"]).action in BREAKS
            assert move["self"] and move.get("harm", False) == breaks, move
            assert move["label"].startswith(en.t("miniapp.you_named", name=state.names[player]))
        else:
            assert "self" not in move and "harm" not in move, move
    # A move sent back as it came, its words and marks included, is played.
    status, _ = await served.post(player, shown["moves"][0], version)
    assert status == 200


async def test_a_player_not_on_turn_sees_their_hand_but_no_moves(served: Served) -> None:
    waiting = next(p for p in PLAYERS if p != served.on_turn())
    status, body = await served.get(waiting)
    assert status == 200
    assert body["state"]["me"] == waiting
    assert len(body["state"]["hand"]) == 6 and body["state"]["moves"] == []


async def test_a_member_of_the_group_who_does_not_play_sees_the_public_view(
    served: Served,
) -> None:
    status, body = await served.get(MEMBER)

    assert status == 200
    shown = body["state"]
    assert shown["me"] is None and shown["hand"] == [] and shown["moves"] == []
    assert shown["role"] is None and shown["gold"] is None
    goals = [t for t in shown["board"] if not t["up"]]
    assert len(goals) == 3 and all(t["kind"] == HIDDEN_GOAL and t["peek"] is None for t in goals)
    assert [s["hand"] for s in shown["seats"]] == [6, 6, 6]
    # Telegram told the bot when they joined (chat_member): it need not ask again.
    assert served.api.calls_of("getChatMember") == []


async def test_telegrams_answer_on_membership_is_remembered(served: Served) -> None:
    await served.get(STRANGER)
    await served.get(STRANGER)
    asked = served.api.calls_of("getChatMember")
    assert [(c["chat_id"], c["user_id"]) for c in asked] == [(GROUP, STRANGER)]


async def test_somebody_outside_the_group_is_refused(served: Served) -> None:
    status, body = await served.get(STRANGER)
    assert status == 403
    assert body["error"] == Texts("en").t("miniapp.not_member")
    assert "state" not in body


async def test_forged_init_data_is_refused_and_changes_nothing(served: Served) -> None:
    player, move, version = first_move(served)
    forged = init_data(served.api, player, game=served.game, token="999:not-the-bots-token")
    url = f"{served.page}api/game/{served.game}/move"
    body = {"version": version, "key": "tap-forged", "move": move}

    async with served.http.post(url, json=body, headers=auth(forged)) as r:
        status, answer = r.status, await r.json()

    assert status == 401
    assert answer["error"] == Texts("en").t("miniapp.auth_forged")
    assert served.state()[1] == version


async def test_init_data_older_than_a_day_is_refused(served: Served) -> None:
    status, body = await served.get(served.on_turn(), auth_date=time.time() - 2 * 86_400)
    assert status == 401
    assert body["error"] == Texts("en").t("miniapp.auth_expired")


async def test_a_move_from_the_page_is_played_and_announced_like_a_button_press(
    served: Served,
) -> None:
    player, move, version = first_move(served)
    board_edits = len(served.api.calls_of("editMessageMedia"))

    status, body = await served.post(player, move, version)
    await settle(served.api, served.app)

    assert status == 200 and body["ok"]
    assert body["state"]["version"] > version
    assert served.state()[1] == body["state"]["version"]
    assert served.on_turn() != player
    assert len(served.api.calls_of("editMessageMedia")) > board_edits  # the group's board


async def test_the_same_tap_sent_twice_is_played_once(served: Served) -> None:
    player, move, version = first_move(served)

    first = await served.post(player, move, version, key="tap-twice-1")
    after_first = served.state()[1]
    second = await served.post(player, move, version, key="tap-twice-1")

    assert first[0] == second[0] == 200
    assert served.state()[1] == after_first
    assert second[1]["state"]["version"] == after_first


async def test_a_tap_on_a_board_the_game_has_left_behind_is_refused_as_stale(
    served: Served,
) -> None:
    _, move, version = first_move(served)
    move_outside_the_bot(served.app, served.game)
    await settle(served.api, served.app)
    moved = served.state()[1]

    status, body = await served.post(served.on_turn(), move, version)

    assert status == 409
    assert body["error"] == error_text(Texts("en"), "stale_button")
    assert body["state"]["version"] == moved == served.state()[1]


async def test_a_move_the_rules_do_not_offer_is_refused_as_forged(served: Served) -> None:
    state, version = served.state()
    player = served.on_turn()
    path = next(c for c in state.hand(player) if card("base", c).path is not None)
    illegal = {"type": "PlacePath", "card": path, "cell": [5, 5], "rotated": False}

    status, body = await served.post(player, illegal, version)

    assert status == 400
    assert body["error"] == error_text(Texts("en"), "forged_button")
    assert served.state()[1] == version


@pytest.mark.parametrize(
    "move",
    [
        {"type": "TimeOut", "decision": 1},
        {"type": "StartGame"},
        {"type": "PlacePath", "card": "x", "cell": "y", "rotated": 1},
        {"type": "PickGold", "value": 1, "actor": 12},
        "not a move",
    ],
)
async def test_what_is_not_a_players_move_is_refused_and_changes_nothing(
    served: Served, move: Any
) -> None:
    _, version = served.state()
    status, body = await served.post(served.on_turn(), move, version)
    assert status == 400 and body["code"] == "forged_button"
    assert served.state()[1] == version


async def test_a_player_not_on_turn_is_told_so(served: Served) -> None:
    _, move, version = first_move(served)
    waiting = next(p for p in PLAYERS if p != served.on_turn())
    status, body = await served.post(waiting, move, version)
    assert status == 409
    assert body["error"] == error_text(Texts("en"), "not_your_turn")
    assert served.state()[1] == version


async def test_a_watcher_cannot_move(served: Served) -> None:
    _, move, version = first_move(served)
    status, body = await served.post(MEMBER, move, version)
    assert status == 403 and body["code"] == "not_your_button"
    assert served.state()[1] == version


async def test_a_move_from_outside_the_group_is_refused_as_any_request_is(
    served: Served,
) -> None:
    _, move, version = first_move(served)
    status, body = await served.post(STRANGER, move, version)
    assert status == 403
    assert body["error"] == Texts("en").t("miniapp.not_member")
    assert served.state()[1] == version


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"key": "tap-0001", "move": {"type": "PickGold", "value": 1}}, 400, "forged_button"),
        ({"version": 1, "key": "no spaces!", "move": "not a move"}, 403, "not_your_button"),
    ],
)
async def test_a_watchers_move_is_refused_as_unreadable_else_as_not_theirs(
    served: Served, body: dict[str, Any], status: int, code: str
) -> None:
    _, version = served.state()
    raw = init_data(served.api, MEMBER, game=served.game)
    url = f"{served.page}api/game/{served.game}/move"
    async with served.http.post(url, json=body, headers=auth(raw)) as r:
        got = (r.status, (await r.json())["code"])
    assert got == (status, code)
    assert served.state()[1] == version


async def test_the_open_board_is_pushed_the_game_each_time_it_moves(served: Served) -> None:
    raw = init_data(served.api, MEMBER, game=served.game)
    url = f"{served.page}api/game/{served.game}/live"
    _, version = served.state()
    async with served.http.get(url, headers=auth(raw)) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        first = await asyncio.wait_for(next_state(stream), 10)
        assert first["version"] == version

        move_outside_the_bot(served.app, served.game)  # as another instance would
        second = await asyncio.wait_for(next_state(stream), 10)

    assert second["version"] == served.state()[1] > version
    assert second["me"] is None and second["news"]


async def test_the_page_speaks_the_language_the_player_chose(served: Served) -> None:
    player = served.on_turn()
    served.api.send_text(player, player, "/language es")
    await settle(served.api, served.app)

    status, body = await served.get(player, lang="en")

    assert status == 200
    assert body["state"]["lang"] == "es"
    assert body["texts"]["miniapp.your_turn"] == Texts("es").t("miniapp.your_turn")
    names = {c["name"] for c in body["state"]["hand"]}
    state, _ = served.state()
    assert names == {Texts("es").card_name("base", c) for c in state.hand(player)}


async def test_a_game_nobody_created_is_not_found(served: Served) -> None:
    raw = init_data(served.api, PLAYERS[0])
    async with served.http.get(f"{served.page}api/game/gNope", headers=auth(raw)) as r:
        assert r.status == 404
        assert (await r.json())["error"] == Texts("en").t("miniapp.no_game")


async def test_opened_without_a_game_the_page_finds_the_players_running_game(
    served: Served,
) -> None:
    raw = init_data(served.api, PLAYERS[1])
    async with served.http.get(f"{served.page}api/mine", headers=auth(raw)) as r:
        assert r.status == 200
        assert (await r.json())["games"] == [served.game]


async def test_the_offline_demo_signs_the_browser_in_as_its_player(served: Served) -> None:
    demo = mini_app(
        bot_services(served.app),
        token=served.api.token,
        bot=served.app.bot,
        demo_players=[DemoPlayer(PLAYERS[0], "P11")],
    )
    try:
        async with serving(demo.routes()) as base:
            url = f"{base}/miniapp/demo?as={PLAYERS[0]}"
            async with served.http.get(url, allow_redirects=False) as r:
                assert r.status == 303
                launch = parse_qs(r.headers["Location"].split("#", 1)[1])
            raw = launch["tgWebAppData"][0]
            async with served.http.get(
                f"{base}/miniapp/api/game/{served.game}", headers=auth(raw)
            ) as r:
                assert r.status == 200
                assert (await r.json())["state"]["me"] == PLAYERS[0]
            async with served.http.get(f"{base}/miniapp/demo?as={MEMBER}") as r:
                assert "P11" in await r.text()  # nobody else: the list of who may be played
    finally:
        await demo.feed.close()


async def test_the_demos_sign_in_is_never_served_beside_a_real_bot(served: Served) -> None:
    with pytest.raises(ValueError, match="demo"):
        mini_app(
            bot_services(served.app),
            token="123:a-real-bots-token",
            bot=served.app.bot,
            demo_players=[DemoPlayer(PLAYERS[0], "P11")],
        )
    async with served.http.get(f"{served.page}demo?as={PLAYERS[0]}") as r:
        assert r.status == 404


async def test_a_wake_up_from_another_instance_reaches_the_open_board_at_once(
    served: Served,
) -> None:
    channel = WakeUp()  # what a notification channel between instances would set
    raw = init_data(served.api, MEMBER, game=served.game)
    slow_poll = 60.0
    async with (
        miniapp_served(
            served.app, served.api, wakeup=Following(channel), poll_seconds=slow_poll
        ) as (page, _),
        served.http.get(f"{page}api/game/{served.game}/live", headers=auth(raw)) as s,
    ):
        first = await asyncio.wait_for(next_state(s), 10)
        move_outside_the_bot(served.app, served.game)  # another instance's move
        channel.set()
        second = await asyncio.wait_for(next_state(s), 5)  # long before the next poll
    assert second["version"] > first["version"]


async def test_a_wake_up_the_announcer_already_cleared_still_wakes_the_boards_feed() -> None:
    wake = WakeUp()
    following = Following(wake)
    wake.set()  # events appended while the feed was reading the store ...
    wake.clear()  # ... and the announcer, woken too, cleared the wake-up
    await asyncio.wait_for(following.wait(60), 1)  # the feed looks again at once
    assert not following.event.is_set()  # then it waits for the next one
    wake.set()
    await asyncio.wait_for(following.wait(60), 1)


def test_every_text_the_page_shows_is_worded_in_every_language() -> None:
    for lang in LANGUAGES:
        texts = Texts(lang)
        unworded = [key for key in PAGE_TEXTS if texts.t(key) == key]
        assert unworded == [], lang


async def test_the_page_gets_the_icons_and_the_legend_the_chat_shows(served: Served) -> None:
    status, body = await served.get(MEMBER, lang="pl")
    assert status == 200
    assert body["icons"]["turn"] == Icon.TURN.emoji
    assert body["icons"]["actions"]["free_at_last"] == Icon.FREE.emoji
    shown = "\n".join([body["legend"]["title"], *body["legend"]["lines"]])
    assert shown == legend(Texts("pl"), "base")  # a base game: no Saboteur 2 icons


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_finished_game_tells_the_page_its_winners_and_gold_as_the_chat_does(lang: str) -> None:
    from domain.evolve import evolve
    from tests.presenter.games import play
    from tgbot.miniapp.payload import game_json

    batches = play(7, players=4, edition="saboteur2")
    state = batches[-1].before
    for event in batches[-1].events:
        state = evolve(state, event)
    assert state.phase == "finished"
    texts = Texts(lang)
    for viewer in (None, state.seating[0]):
        shown = game_json("g1", state, 99, viewer, texts, now_ms=0)["finished"]["lines"]
        winners = ", ".join(state.names[p] for p in state.winners)
        ended = "move.game_ended_one" if len(state.winners) == 1 else "move.game_ended"
        assert shown[0].endswith(texts.t(ended, names=winners)), shown
        assert {
            texts.t("move.score_line", name=state.names[p], count=g) for p, g in state.gold.items()
        } == set(shown[1:])


def test_the_news_keeps_each_events_lines_together_so_its_summary_is_a_headline() -> None:
    from domain.evolve import evolve
    from tests.presenter.games import play
    from tgbot.miniapp.payload import news_lines

    batches = play(7, players=4, edition="saboteur2")
    state, events = batches[-1].before, batches[-1].events
    for event in events:
        state = evolve(state, event)
    news = news_lines(state, events, Texts("en"))
    winners = ", ".join(state.names[p] for p in state.winners)
    newest = news[-1].split("\n")
    assert newest[0].startswith(f"{Icon.WINNERS.emoji} Game over! Winner"), news  # the headline
    assert newest[0].endswith(f": {winners}."), news
    assert len(newest) == 1 + len(state.gold)  # and everyone's gold under it


async def test_a_body_larger_than_any_move_is_refused_before_it_is_read(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    player, move, version = first_move(served)
    url = f"{served.page}api/game/{served.game}/move"
    headers = auth(init_data(served.api, player, game=served.game))
    padded = json.dumps(
        {"version": version, "key": "tap-0001", "move": move, "pad": "x" * 5_000_000}
    )

    async def chunks() -> Any:  # streamed, with no length declared
        for _ in range(1000):
            yield b"x" * 5000

    statuses = []
    for data in (padded.encode(), chunks()):
        async with served.http.post(url, data=data, headers=headers) as response:
            statuses.append(response.status)
            assert (await response.json())["code"] == "forged_button"

    assert statuses == [413, 413]
    assert served.state()[1] == version
    refused = [r for r in caplog.records if "refused a move" in r.getMessage()]
    assert len(refused) == 2 and not any(r.exc_info for r in caplog.records)


async def test_a_move_nested_deeper_than_python_recurses_is_refused_as_forged(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    player, _, version = first_move(served)
    url = f"{served.page}api/game/{served.game}/move"
    headers = auth(init_data(served.api, player, game=served.game))

    async with served.http.post(url, data=b"[" * 4000, headers=headers) as response:
        assert response.status == 400
        assert (await response.json())["code"] == "forged_button"
    assert served.state()[1] == version
    assert not any(r.exc_info for r in caplog.records)


def test_the_news_speaks_to_its_reader_and_holds_no_secret_of_theirs() -> None:
    # In the Mini App, Ann was told "Di repaired Ann's cart."
    from domain.evolve import evolve
    from tests.presenter.games import play
    from tgbot.miniapp.payload import news_lines

    texts = Texts("en")
    state = None
    for batch in play(8, players=4, edition="base"):
        for event in batch.events:
            state = evolve(state if state is not None else batch.before, event)
            if isinstance(event, ev.ToolBroken | ev.ToolRepaired) and event.target != event.player:
                target = event.target
                [said] = news_lines(state, [event], texts, target)[-1:]
                assert "your" in said and state.names[target] not in said, said
                return
    raise AssertionError("no tool broken or repaired in that game")
