"""Forum topics through the fake Bot API: a game lives in the topic it was opened in, one
game per topic, several per group; a topic closed or deleted mid-game sends its game to
General and back."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    finish_outside_the_bot,
    lobby_button,
    press_and_wait,
    running_bot,
    settle,
)
from tgbot.presenter.callback import peek
from tgbot.presenter.i18n import t
from tgbot.presenter.keyboards import COMMAND_ACTIONS, LEGEND, UNPLAYABLE
from tgbot.telegram.app import BotApplication

pytestmark = pytest.mark.timeout(300)

FORUM = -1002024
ANN, BEN, CAT, DAN, EVE = 11, 12, 13, 14, 15


def forum(api: FakeBotAPI, lang: str = "en") -> tuple[int, int]:
    """The forum "Miners" (Ann its admin) with the topics "Table 1" and "Table 2"; every
    player opened the private chat."""
    api.forum(FORUM, "Miners", admins=(ANN,))
    for user, name in ((ANN, "Ann"), (BEN, "Ben"), (CAT, "Cat"), (DAN, "Dan"), (EVE, "Eve")):
        api.user(user, name, lang)
        api.send_text(user, user, "/start")
    return api.create_topic(FORUM, "Table 1", by=ANN), api.create_topic(FORUM, "Table 2", by=ANN)


def game_of(message: dict[str, Any], api: FakeBotAPI) -> set[str]:
    """The games whose buttons ``message`` carries."""
    found = set()
    for row in api.keyboard(message):
        for button in row:
            data = peek(button.callback_data or "")
            if data is not None:
                found.add(data.game)
    return found


async def open_table(
    api: FakeBotAPI,
    app: BotApplication,
    topic: int | None,
    players: list[int],
    edition: str = "base",
) -> tuple[str, int]:
    """``players[0]`` sends /newgame in ``topic`` (None: General), the others join, the
    creator starts: (the game, its lobby message)."""
    sent = len(api.calls)
    api.send_text(FORUM, players[0], f"/newgame {edition}", thread=topic)
    await settle(api, app)
    lobby = next(
        api.messages[FORUM][c.get("message_id") or api.results[i]["message_id"]]
        for i, c in enumerate(api.calls)
        if i >= sent and c.method == "sendMessage" and c.get("reply_markup")
    )
    for player in players[1:]:
        data = lobby_button(api, lobby, 0)
        await press_and_wait(api, app, FORUM, player, lobby["message_id"], data)
    game = (game_of(lobby, api) or {""}).pop()
    data = lobby_button(api, api.messages[FORUM][lobby["message_id"]], 2)
    await press_and_wait(api, app, FORUM, players[0], lobby["message_id"], data)
    return game, lobby["message_id"]


def live_prompt(
    api: FakeBotAPI, game: str, players: list[int]
) -> tuple[int, dict[str, Any]] | None:
    """The player of ``game`` whose prompt of that game has buttons (their decision)."""
    for player in players:
        for message in reversed(api.messages_in(player)):
            if game in game_of(message, api):
                return player, message
    return None


async def press_one(
    api: FakeBotAPI,
    app: BotApplication,
    game: str,
    players: list[int],
    rng: random.Random,
    brisk: bool = False,
) -> bool:
    """A button of ``game``'s live prompt pressed; False when it has none (it ended).
    ``brisk``: a move pressed as soon as one is offered (mostly), no card opened that
    cannot be played (a whole game in half the presses)."""
    found = live_prompt(api, game, players)
    if found is None:
        return False
    player, message = found
    buttons = [
        b
        for row in api.keyboard(message)
        for b in row
        if b.callback_data and (d := peek(b.callback_data)) is not None and d.game == game
    ]
    forward = [b for b in buttons if not b.text.startswith("«")]
    forward = [b for b in forward if (peek(b.callback_data or "") or LEGEND).action != LEGEND]
    confirm = [b for b in forward if "Confirm" in b.text]
    moves = [
        b
        for b in buttons
        if (data := peek(b.callback_data or "")) is not None and data.action in COMMAND_ACTIONS
    ]
    playable = [b for b in forward if not b.text.startswith(UNPLAYABLE)]
    if brisk and moves and rng.random() < 0.9:
        choice = rng.choice(moves)
    elif brisk and playable:
        choice = rng.choice(playable)
    else:
        choice = confirm[0] if confirm and rng.random() < 0.7 else rng.choice(forward or buttons)
    assert choice.callback_data is not None
    await press_and_wait(api, app, player, player, message["message_id"], choice.callback_data)
    return True


def sends_to_forum(api: FakeBotAPI) -> list[Any]:
    return [
        c for c in api.calls if c.method.startswith("send") and str(c.get("chat_id")) == str(FORUM)
    ]


def each_in_its_topic(
    api: FakeBotAPI, first: str, second: str, one: int, two: int
) -> tuple[list[Any], list[Any]]:
    """Every message of each game went to its topic: none to General, none to the other
    table. The messages of each topic."""
    assert api.in_topic(FORUM, None) == []
    assert all(c.get("message_thread_id") in (one, two) for c in sends_to_forum(api))
    in_one, in_two = api.in_topic(FORUM, one), api.in_topic(FORUM, two)
    assert set().union(*(game_of(m, api) for m in in_one)) == {first}
    assert set().union(*(game_of(m, api) for m in in_two)) == {second}
    return in_one, in_two


async def play_side_by_side(
    api: FakeBotAPI,
    app: BotApplication,
    going: dict[str, list[int]],
    presses: int,
    brisk: bool = False,
) -> None:
    """A press in each game in turn, ``presses`` rounds of them or until they end."""
    rng = random.Random(3)
    for _ in range(presses):
        for game, players in list(going.items()):
            if not await press_one(api, app, game, players, rng, brisk):
                del going[game]
        if not going:
            return


async def test_two_tables_side_by_side_each_message_in_its_topic(db: str) -> None:
    async with FakeBotAPI() as api:
        one, two = forum(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            first, _ = await open_table(api, app, one, [ANN, BEN, CAT])
            second, _ = await open_table(api, app, two, [ANN, DAN, EVE])  # Ann at both
            assert first != second
            await play_side_by_side(api, app, {first: [ANN, BEN, CAT], second: [ANN, DAN, EVE]}, 8)
            each_in_its_topic(api, first, second, one, two)
            # Ann's prompts say which table each is about, and each one's buttons act on
            # its own game.
            said = [m.get("text") or m.get("caption") or "" for m in api.messages_in(ANN)]
            assert any("“Miners” › “Table 1”" in text for text in said)
            assert any("“Miners” › “Table 2”" in text for text in said)
            for game in (first, second):
                state, _ = bot_services(app).load(game)
                assert state.phase == "playing" and ANN in state.seating


@pytest.mark.slow
@pytest.mark.timeout(1200)
async def test_two_games_at_once_in_two_topics_played_to_the_end(db: str) -> None:
    async with FakeBotAPI() as api:
        one, two = forum(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            first, _ = await open_table(api, app, one, [ANN, BEN, CAT])
            second, _ = await open_table(api, app, two, [ANN, DAN, EVE])  # Ann at both
            # Played to their end through the game service (the presses that drive a game
            # in its topic: the test above).
            await finish_outside_the_bot(api, app, [first, second])
            services = bot_services(app)
            for game in (first, second):
                state, _ = services.load(game)
                assert state.phase == "finished"
            # Results and game-over buttons too: each in its own topic.
            in_one, in_two = each_in_its_topic(api, first, second, one, two)
            assert any("Game over" in (m.get("text") or m.get("caption") or "") for m in in_one)
            assert any("Game over" in (m.get("text") or m.get("caption") or "") for m in in_two)
            # A replay is posted where it was asked for.
            api.send_text(FORUM, DAN, "/replay", thread=two)
            await settle(api, app)
            replay = api.in_topic(FORUM, two)[-1]
            assert "photo" in replay and game_of(replay, api) & {first, second}
            assert api.in_topic(FORUM, None) == []
            # The group's history covers both tables.
            api.send_text(FORUM, BEN, "/history")
            await settle(api, app)
            (history,) = api.in_topic(FORUM, None)
            assert game_of(history, api) == {first, second}  # a replay button each


async def test_newgame_in_a_topic_with_a_game_points_to_it_and_general_lists_them(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        one, two = forum(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(FORUM, ANN, "/newgame", thread=one)
            await settle(api, app)
            api.send_text(FORUM, BEN, "/newgame", thread=one)
            await settle(api, app)
            refusal = api.in_topic(FORUM, one)[-1]
            assert "already open in this topic" in refusal["text"]
            (go,) = [b for row in api.keyboard(refusal) for b in row]
            assert go.url == f"https://t.me/c/2024/{one}"
            # In General, with no game of its own: the group's games, linked.
            api.send_text(FORUM, BEN, "/cancel")
            await settle(api, app)
            (listed,) = api.in_topic(FORUM, None)
            assert (
                "Table 1" in listed["text"]
                and f"https://t.me/c/2024/{one}" in str(listed.get("entities")) + listed["text"]
            )
            # /newgame in General opens General's own game; /cancel there cancels it,
            # leaving Table 1's.
            api.send_text(FORUM, CAT, "/newgame", thread=None)
            await settle(api, app)
            general = [m for m in api.in_topic(FORUM, None) if api.keyboard(m)]
            assert general, "General's lobby is in General"
            api.send_text(FORUM, CAT, "/newgame", thread=two)
            await settle(api, app)
            assert any(api.keyboard(m) for m in api.in_topic(FORUM, two))
            services = bot_services(app)
            tables = dict((t, g) for g, t in services.running_games(FORUM, every=True))
            assert set(tables) == {None, one, two}
            api.send_text(FORUM, CAT, "/cancel")
            await settle(api, app)
            left = dict((t, g) for g, t in services.running_games(FORUM, every=True))
            assert set(left) == {one, two}
            # In a topic, /cancel cancels that topic's game, and no other.
            api.send_text(FORUM, CAT, "/cancel", thread=two)
            await settle(api, app)
            left = dict((t, g) for g, t in services.running_games(FORUM, every=True))
            assert set(left) == {one}
            assert all(c.get("message_thread_id") != 1 for c in sends_to_forum(api))


async def test_a_topic_closed_mid_game_sends_its_game_to_general_and_back(db: str) -> None:
    async with FakeBotAPI() as api:
        one, _ = forum(api, "es")
        async with running_bot(api, db) as app:
            await settle(api, app)
            game, _ = await open_table(api, app, one, [ANN, BEN, CAT])
            rng = random.Random(5)
            players = [ANN, BEN, CAT]
            api.close_topic(FORUM, one, by=ANN)
            await settle(api, app)
            before = len(api.in_topic(FORUM, one))
            for _ in range(6):
                assert await press_one(api, app, game, players, rng)
            general = api.in_topic(FORUM, None)
            notices = [m for m in general if "Table 1" in (m.get("text") or "")]
            assert len(notices) == 1, general
            assert "General" in notices[0]["text"]
            assert any(game in game_of(m, api) for m in general)  # its board came along
            assert len(api.in_topic(FORUM, one)) == before
            # Reopened: its messages go back to the topic.
            api.reopen_topic(FORUM, one, by=ANN)
            await settle(api, app)
            in_general = len(api.in_topic(FORUM, None))
            for _ in range(6):
                assert await press_one(api, app, game, players, rng)
            assert len(api.in_topic(FORUM, None)) == in_general
            assert len(api.in_topic(FORUM, one)) > before
            assert not api.refusals


async def test_a_topic_deleted_unheard_sends_its_game_to_general(db: str) -> None:
    async with FakeBotAPI() as api:
        one, _ = forum(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            game, _ = await open_table(api, app, one, [ANN, BEN, CAT])
            rng = random.Random(9)
            api.delete_topic(FORUM, one)  # no service message tells the bot
            for _ in range(6):
                assert await press_one(api, app, game, [ANN, BEN, CAT], rng)
            general = api.in_topic(FORUM, None)
            notices = [m for m in general if "was deleted" in (m.get("text") or "")]
            assert len(notices) == 1, [m.get("text") for m in general]
            assert "Table 1" in notices[0]["text"]
            assert any(game in game_of(m, api) for m in general)
            state, _ = bot_services(app).load(game)
            assert state.phase == "playing"
            # What Telegram refused: the send to the deleted topic, once, and the edit of
            # the board that went with it (then posted anew).
            refused = [r.description for r in api.refusals]
            assert refused.count("Bad Request: TOPIC_DELETED") == 1, refused
            assert set(refused) <= {
                "Bad Request: TOPIC_DELETED",
                "Bad Request: message to edit not found",
            }
            api.refusals.clear()


async def test_an_admin_gives_a_topic_its_own_language_the_other_topics_keep_the_groups(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        one, two = forum(api)
        async with running_bot(api, db) as app:
            await settle(api, app)
            # In a topic, as in the group, only an admin may choose.
            api.send_text(FORUM, BEN, "/language pl", thread=one)
            await settle(api, app)
            assert api.in_topic(FORUM, one)[-1]["text"] == t("en", "forum.admins_only_language")
            api.send_text(FORUM, ANN, "/language pl", thread=one)
            await settle(api, app)
            assert api.in_topic(FORUM, one)[-1]["text"] == t("pl", "language.chosen")
            assert bot_services(app).botstate.chat_language(FORUM) is None  # not the group's
            # Commands answered in a topic answer in its language: the same command by the
            # same person reads differently in "Table 1" (Polish) and "Table 2" (the group's).
            answers = {}
            for command in ("/timezone Nowhere/Else", "/achievements", "/top", "/history"):
                replies = []
                for topic in (one, two):
                    api.send_text(FORUM, ANN, command, thread=topic)
                    await settle(api, app)
                    replies.append(str(api.in_topic(FORUM, topic)[-1]["text"]))
                assert replies[0] != replies[1], command
                answers[command] = replies[0]
            assert answers["/timezone Nowhere/Else"] == t(
                "pl", "timezone.unknown", zone="Nowhere/Else"
            )
            # Each topic's lobby in its language: Polish in "Table 1", the group's in "Table 2".
            api.send_text(FORUM, BEN, "/newgame", thread=one)
            api.send_text(FORUM, CAT, "/newgame", thread=two)
            await settle(api, app)
            (polish,) = [m for m in api.in_topic(FORUM, one) if api.keyboard(m)]
            (other,) = [m for m in api.in_topic(FORUM, two) if api.keyboard(m)]
            assert "Czas na ruch" in polish["text"]
            assert "Turn timer" in other["text"]
            # /language in General is the group's, which "Table 2" follows and "Table 1",
            # with its own, does not.
            api.send_text(FORUM, ANN, "/language de")
            await settle(api, app)
            assert api.in_topic(FORUM, None)[-1]["text"] == t("de", "language.chosen")
            for lobby in (polish, other):
                data = lobby_button(api, lobby, 0)
                await press_and_wait(api, app, FORUM, DAN, lobby["message_id"], data)
            assert "Czas na ruch" in api.messages[FORUM][polish["message_id"]]["text"]
            assert "Bedenkzeit" in api.messages[FORUM][other["message_id"]]["text"]
