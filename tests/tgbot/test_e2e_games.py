"""Whole games played only by pressing the buttons the bot sent, through the fake Bot API."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from sqlalchemy import select

from domain.cards import Role, deck
from domain.events import GoldPicked, TheftResolved
from domain.view import describe
from infra.migrations import upgrade
from infra.schema import games
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import Table, bot_services, press_and_wait, running_bot, settle
from tgbot.app import BotApplication
from tgbot.notifier import public_line
from tgbot.texts import Texts

pytestmark = pytest.mark.timeout(240)

GROUP = -1001


@pytest.fixture
def db(empty_database: Callable[[str], str]) -> str:
    url = empty_database("sqlite")
    upgrade(url)
    return url


async def open_lobby(api: FakeBotAPI, app: object, players: list[int], edition: str) -> int:
    """The first player opens a game, the others press Join; returns the lobby message."""
    api.send_text(GROUP, players[0], f"/newgame {edition}")
    await settle(api, app)  # type: ignore[arg-type]
    lobby = next(m for m in api.messages_in(GROUP) if api.keyboard(m))
    join = next(b for row in api.keyboard(lobby) for b in row if "Join" in b.text)
    for player in players[1:]:
        answer = await press_and_wait(
            api, app, GROUP, player, lobby["message_id"], join.callback_data
        )  # type: ignore[arg-type]
        assert "url" not in answer
    return int(lobby["message_id"])


async def start_game(api: FakeBotAPI, app: object, creator: int, lobby: int) -> None:
    message = api.messages[GROUP][lobby]
    start = next(b for row in api.keyboard(message) for b in row if "Start" in b.text)
    await press_and_wait(api, app, GROUP, creator, lobby, start.callback_data)  # type: ignore[arg-type]


def role_words() -> set[str]:
    """Role names as the catalogs spell them (lower case: "Saboteur" is the edition)."""
    texts = Texts("en")
    return {texts.role_name(r.value) for r in Role}


def group_texts(api: FakeBotAPI) -> list[str]:
    """Every text and caption the bot sent or edited into the group, in order."""
    found = []
    for call in api.calls:
        if str(call.get("chat_id")) != str(GROUP):
            continue
        media = call.get("media")
        caption = media.get("caption") if isinstance(media, dict) else None
        found.append(call.get("text") or call.get("caption") or caption or "")
    return found


def assert_no_secret_in_group(api: FakeBotAPI) -> None:
    """No group message names a role, except the round-end reveal; none lists a hand."""
    roles = role_words()
    for text in group_texts(api):
        if "is over" in text:
            continue
        for role in roles:
            assert not re.search(rf"\b{re.escape(role)}\b", text), (role, text)
        assert "Your cards" not in text and "Your dwarf card" not in text, text


async def play_game(db: str, edition: str, count: int, seed: int) -> FakeBotAPI:
    async with FakeBotAPI() as api:
        api.group(GROUP, "Mine", admins=(1,))
        players = list(range(1, count + 1))
        for p in players:
            api.user(p, f"P{p}", "en")
            api.send_text(p, p, "/start")
        async with running_bot(api, db, seed=seed) as app:
            await settle(api, app)
            lobby = await open_lobby(api, app, players, edition)
            await start_game(api, app, players[0], lobby)
            table = Table(api, app, GROUP, players)
            await table.play_to_end()
            await settle(api, app)
            texts = api.texts_in(GROUP)
            assert any("Game over" in t for t in texts), texts[-3:]
            assert_no_secret_in_group(api)
            assert_the_end_is_on_the_board(api, app)
            await replay_from_game_over(api, app, players[0])
        return api


def finished_game(app: BotApplication) -> str:
    bot_services(app).projector.catch_up()
    with bot_services(app).store.engine.connect() as conn:
        found = conn.execute(select(games.c.stream_id).where(games.c.chat_id == GROUP)).scalar()
    assert found is not None
    return str(found)


def assert_the_end_is_on_the_board(api: FakeBotAPI, app: BotApplication) -> None:
    """One board picture per round, edited through the round's end; the last one shows
    the game over (nobody awaited), and every gold pick and theft was told to the group."""
    photos = [c for c in api.calls_of("sendPhoto") if str(c["chat_id"]) == str(GROUP)]
    assert len(photos) == 3
    board = [m for m in api.messages_in(GROUP) if "photo" in m][-1]
    assert "The game is over" in board["caption"], board["caption"]
    assert "Waiting for" not in board["caption"] and "your turn" not in board["caption"]
    services = bot_services(app)
    game_id = finished_game(app)
    state, _ = services.load(game_id)
    told = "\n".join(group_texts(api))
    ends = [
        e for e in services.service.events(game_id) if isinstance(e, GoldPicked | TheftResolved)
    ]
    for event in ends:
        line = public_line(describe(event, None), state, Texts("en"))
        assert line is not None and line in told, line


async def replay_from_game_over(api: FakeBotAPI, app: object, player: int) -> None:
    """The game-over message carries a Replay button; pressing it opens the replay."""
    over = next(m for m in api.messages_in(GROUP) if "Game over" in m.get("text", ""))
    replay = next(b for row in api.keyboard(over) for b in row if "Replay" in b.text)
    sent = len(api.messages_in(GROUP))
    await press_and_wait(api, app, GROUP, player, over["message_id"], replay.callback_data)  # type: ignore[arg-type]
    opened = api.messages_in(GROUP)[sent:]
    assert any("photo" in m and "Replay" in m.get("caption", "") for m in opened), opened


async def test_a_three_player_base_game_is_played_to_the_end_by_pressing_buttons(db: str) -> None:
    api = await play_game(db, "base", 3, seed=11)
    assert len(deck("base")) == 67
    assert api.calls_of("editMessageMedia")


@pytest.mark.slow
async def test_a_five_player_saboteur2_game_is_played_to_the_end_by_pressing_buttons(
    db: str,
) -> None:
    await play_game(db, "saboteur2", 5, seed=5)
