"""Whole games played only by pressing the buttons the bot sent, through the fake Bot API,
and what is checked after one: no secret in the group, the end on the board, the replay
from the game-over message.

The games: one in Polish in tests/tgbot/test_transcripts.py (each language's texts of
whole games of both editions are read at the presenter), and a table of three languages in
tests/infra/test_runtime_role.py (on PostgreSQL as the runtime role). Each game costs tens
of CPU seconds, so no other test plays one over HTTP for the same checks."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from domain.cards import Role
from domain.events import Event, GameEnded, GoldPicked, RoundEnded, TheftResolved
from domain.evolve import evolve, initial_state
from domain.state import GameState
from infra.schema import games
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    Table,
    bot_services,
    finish_outside_the_bot,
    lobby_button,
    press_and_wait,
    running_bot,
    settle,
)
from tgbot.presenter.announce import scene
from tgbot.presenter.narration import narrate
from tgbot.presenter.texts import Texts
from tgbot.telegram.app import BotApplication

pytestmark = pytest.mark.timeout(240)

GROUP = -1001


async def open_lobby(api: FakeBotAPI, app: BotApplication, players: list[int], edition: str) -> int:
    """The first player opens a game, the others press Join; returns the lobby message."""
    api.send_text(GROUP, players[0], f"/newgame {edition}")
    await settle(api, app)
    lobby = next(m for m in api.messages_in(GROUP) if api.keyboard(m))
    for player in players[1:]:
        data = lobby_button(api, lobby, 0)
        answer = await press_and_wait(api, app, GROUP, player, lobby["message_id"], data)
        assert "url" not in answer
    return int(lobby["message_id"])


async def start_game(api: FakeBotAPI, app: BotApplication, creator: int, lobby: int) -> None:
    data = lobby_button(api, api.messages[GROUP][lobby], 2)
    await press_and_wait(api, app, GROUP, creator, lobby, data)


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


def told_to_group(event: Event, state: GameState, lang: str) -> str:
    """What ``event`` told the group (``state``: once it was applied)."""
    return "\n".join(line.html() for line in narrate(event, scene(state, None, Texts(lang))))


def finished_game(app: BotApplication) -> str:
    bot_services(app).projector.catch_up()
    with bot_services(app).store.engine.connect() as conn:
        found = conn.execute(select(games.c.stream_id).where(games.c.chat_id == GROUP)).scalar()
    assert found is not None
    return str(found)


def assert_no_secret_in_group(
    api: FakeBotAPI, app: BotApplication, group_lang: str, langs: set[str]
) -> None:
    """No group message names a role or lists a hand a player held at any time, in any
    language of the game; only the round-end and game-end messages reveal the roles."""
    services = bot_services(app)
    events = services.service.events(finished_game(app))
    state = initial_state()
    hands: set[str] = set()
    reveals: set[str] = set()
    for event in events:
        state = evolve(state, event)
        for player in state.seating:
            held = sorted(state.hand(player))
            if len(held) >= 2:  # one card alone is named by the move that plays it
                for lang in langs:
                    texts = Texts(lang)
                    hands.add(", ".join(texts.card_name(state.edition, c) for c in held))
        if isinstance(event, RoundEnded | GameEnded):
            reveals.add(told_to_group(event, state, group_lang))
    assert hands and len(reveals) == 4
    roles = {Texts(lang).role_name(r.value) for r in Role for lang in langs}
    # In German the saboteur is called as the game is (Saboteur): its name alone tells nothing.
    roles -= {Texts(lang).t("edition.base") for lang in langs}
    private = {Texts(lang).t("turn.your_hand", cards="") for lang in langs} | {
        Texts(lang).t("turn.your_role", role="").rstrip(" .") for lang in langs
    }
    told = group_texts(api)

    def revealing(text: str) -> bool:
        # The game-over message goes on with the ratings and achievements, after the roles.
        return any(text == reveal or text.startswith(reveal + "\n") for reveal in reveals)

    assert any(revealing(text) for text in told)
    for text in told:
        if revealing(text):
            continue
        for role in roles:
            assert not re.search(rf"(?<!\w){re.escape(role)}(?!\w)", text), (role, text)
        for secret in hands | private:
            assert secret not in text, (secret, text)


def assert_the_end_is_on_the_board(api: FakeBotAPI, app: BotApplication, lang: str) -> None:
    """One board picture per round, edited through the round's end; the last one shows
    the game over (nobody awaited), and every gold pick and theft was told to the group."""
    texts = Texts(lang)
    photos = [c for c in api.calls_of("sendPhoto") if str(c["chat_id"]) == str(GROUP)]
    assert len(photos) == 3
    board = [m for m in api.messages_in(GROUP) if "photo" in m][-1]
    assert texts.t("bot.board_game_over") in board["caption"], board["caption"]
    assert "tg://user" not in board["caption"]  # nobody is mentioned as awaited
    services = bot_services(app)
    game_id = finished_game(app)
    told = "\n".join(group_texts(api))
    state = initial_state()
    for event in services.service.events(game_id):
        state = evolve(state, event)
        if isinstance(event, GoldPicked | TheftResolved):
            line = told_to_group(event, state, lang)
            assert line and line in told, line


async def replay_from_game_over(
    api: FakeBotAPI, app: BotApplication, player: int, lang: str
) -> None:
    """The game-over message carries a Replay button; pressing it opens the replay."""
    texts = Texts(lang)
    head = texts.t("move.game_ended", names="").split("!")[0]  # one winner or several
    over = next(m for m in api.messages_in(GROUP) if head in m.get("text", ""))
    label = texts.t("bot.button_replay")
    replay = next(b for row in api.keyboard(over) for b in row if b.text == label)
    assert replay.callback_data is not None
    sent = len(api.messages_in(GROUP))
    await press_and_wait(api, app, GROUP, player, over["message_id"], replay.callback_data)
    opened = api.messages_in(GROUP)[sent:]
    assert any("photo" in m for m in opened), opened


async def play_game(
    db: str,
    edition: str,
    count: int,
    seed: int,
    langs: tuple[str, ...] = ("en",),
    brisk: bool = False,
    presses: int | None = None,
) -> FakeBotAPI:
    """Players (speaking ``langs`` in turn; the first one's language becomes the group's)
    play a whole game by pressing buttons (``brisk``: getting on with it, see
    :class:`Table`; ``presses``: that many, the game then played to its end through the
    game service)."""
    async with FakeBotAPI() as api:
        api.group(GROUP, "Mine", admins=(1,))
        players = list(range(1, count + 1))
        for p in players:
            api.user(p, f"P{p}", langs[(p - 1) % len(langs)])
            api.send_text(p, p, "/start")
        async with running_bot(api, db, seed=seed) as app:
            await settle(api, app)
            lobby = await open_lobby(api, app, players, edition)
            await start_game(api, app, players[0], lobby)
            table = Table(api, app, GROUP, players, brisk=brisk)
            if presses is None:
                await table.play_to_end()
            else:
                for _ in range(presses):
                    assert await table.play_one()
                game_id = bot_services(app).active_game(GROUP)
                assert game_id is not None
                await finish_outside_the_bot(api, app, [game_id])
            await settle(api, app)
            group_lang = langs[0]
            assert_no_secret_in_group(api, app, group_lang, set(langs))
            assert_the_end_is_on_the_board(api, app, group_lang)
            await replay_from_game_over(api, app, players[0], group_lang)
        return api
