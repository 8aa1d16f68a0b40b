"""The replay through the real bot against the fake Bot API: /replay, the step buttons
(edited in place), round jumps, the GIF, /history, /stats, and the refusals."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from functools import partial

import pytest
from PIL import Image

from domain import codec
from domain.commands import CancelGame, CreateGame, Envelope, JoinGame
from domain.decide import decide
from domain.events import Event
from domain.evolve import evolve, initial_state
from infra.botstate import BotState
from infra.db import make_engine
from infra.event_store import EventStore
from infra.migrations import upgrade
from tests.fakebotapi import Call, FakeBotAPI
from tests.replay.games import PlayedGame, play
from tests.replay.test_history_figures import folded_group, store_game
from tests.replay.test_replay_gif import small_board
from tests.tgbot.bot_harness import bot_services, running_bot
from tgbot.replay.gif import replay_gif, shots
from tgbot.replay.steps import Replay, text
from tgbot.telegram.handlers import history as handlers
from tgbot.telegram.handlers import replays

GROUP = -3001
USER = 101


@pytest.fixture(scope="module")
def group_games() -> list[PlayedGame]:
    return [
        play(31, players=3, edition="base", chat_id=GROUP),
        play(32, players=3, edition="saboteur2", chat_id=GROUP),
        play(33, players=3, edition="base", chat_id=GROUP, finish=False),
    ]


def buttons(message: dict) -> list[tuple[str, str]]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [(b["text"], b["callback_data"]) for row in rows for b in row]


def sent_message(api: FakeBotAPI, caption: str) -> dict:
    """The bot's newest message in the group with this caption, as edited since."""
    return next(m for m in reversed(api.messages_in(GROUP)) if m.get("caption") == caption)


async def replay_photo(api: FakeBotAPI, after: int) -> Call:
    """The first replay photo the bot sent after call ``after`` (the announcer also sends
    the running game's board to the group)."""

    def found() -> Call | None:
        return next(
            (
                c
                for c in api.calls[after:]
                if c.method == "sendPhoto" and c.get("caption", "").startswith("Replay")
            ),
            None,
        )

    return await api.wait_for(found, 20)


async def reply(api: FakeBotAPI, after: int, containing: str) -> Call:
    """The bot's first group message after call ``after`` containing ``containing`` (the
    announcer announces the stored games to the group meanwhile)."""

    def found() -> Call | None:
        return next(
            (
                c
                for c in api.calls[after:]
                if c.method == "sendMessage"
                and c.get("chat_id") == GROUP
                and containing in c.get("text", "")
            ),
            None,
        )

    return await api.wait_for(found, 20)


def by_id(api: FakeBotAPI, message_id: int) -> dict:
    return next(m for m in api.messages_in(GROUP) if m["message_id"] == message_id)


def button(message: dict, label: str) -> str:
    return next(data for text, data in buttons(message) if text.strip("·") == label)


async def test_a_finished_game_is_replayed_step_by_step_in_one_message(
    empty_database: Callable[[str], str],
    group_games: list[PlayedGame],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(handlers, "replay_gif", partial(replay_gif, renderer=small_board))
    url = empty_database("sqlite")
    upgrade(url)
    store = EventStore(make_engine(url))
    first, second, running = (store_game(store, g.events, day) for day, g in enumerate(group_games))
    async with FakeBotAPI() as api, running_bot(api, url) as app:
        api.group(GROUP)
        api.user(USER, "Ann")
        key = bot_services(app).callback_key

        # /replay opens the group's last finished game at its first step.
        sent = len(api.calls)
        api.send_text(GROUP, USER, "/replay")
        call = await replay_photo(api, sent)
        assert "1/" in call["caption"] and "Round 1" in call["caption"]
        message = sent_message(api, call["caption"])
        labels = [t.strip("·") for t, _ in buttons(message)]
        assert labels[:4] == ["⏮", "◀", "▶", "⏭"]
        assert labels[4:10] == [  # not "R1▶ R1■ R2▶ …"
            "▶ Round 1: start",
            "■ Round 1: end",
            "▶ Round 2: start",
            "■ Round 2: end",
            "▶ Round 3: start",
            "■ Round 3: end",
        ]
        replay = Replay(second, [codec.decode(e.type, e.payload) for e in store.load(second)])

        # ▶ edits the same message to the next step; a round-end jump goes there.
        sent = len(api.calls)
        api.press(GROUP, USER, message["message_id"], button(message, "▶"))
        message_id = message["message_id"]
        await api.wait_for_call("editMessageMedia", 20, after=sent, message_id=message_id)
        message = await api.wait_for(
            lambda: (m := by_id(api, message_id)) and f"2/{len(replay)}" in m["caption"] and m, 20
        )
        sent = len(api.calls)
        api.press(GROUP, USER, message["message_id"], button(message, "■ Round 2: end"))
        end = replay.jumps()[1][2]
        message = await api.wait_for(
            lambda: (
                (m := by_id(api, message_id)) and f"{end + 1}/{len(replay)}" in m["caption"] and m
            ),
            20,
        )
        assert "Round 2 is over" in message["caption"]
        assert (
            sum(c.get("caption", "").startswith("Replay") for c in api.calls_of("sendPhoto")) == 1
        )

        # The GIF button sends the whole game: its path cards and actions, a few to a frame.
        sent = len(api.calls)
        api.press(GROUP, USER, message["message_id"], button(message, "🎞 GIF"))
        animation = await api.wait_for_call("sendAnimation", 30, after=sent, chat_id=GROUP)
        gif = Image.open(io.BytesIO(next(iter(animation.files.values()))))
        assert gif.n_frames == len(shots(replay))
        assert "every path card and action" in animation["caption"]

        # A replay button of one game pressed under another game's replay is refused.
        other = replays.replay_button(first, key, GROUP)
        sent = len(api.calls)
        api.press(GROUP, USER, message["message_id"], other.callback_data)  # type: ignore[arg-type]
        opened = await replay_photo(api, sent)
        first_message = sent_message(api, opened["caption"])
        assert first_message["message_id"] != message["message_id"]
        before = message["caption"]
        query = api.press(GROUP, USER, message["message_id"], button(first_message, "⏭"))
        answer = await api.wait_for(lambda: api.answered.get(query), 20)
        assert answer.get("show_alert") and "another replay" in answer["text"]
        assert by_id(api, message["message_id"])["caption"] == before

        # A running game cannot be replayed: the button says so.
        query = api.press(
            GROUP,
            USER,
            message["message_id"],
            replays.replay_button(running, key, GROUP).callback_data,  # type: ignore[arg-type]
        )
        answer = await api.wait_for(lambda: api.answered.get(query), 20)
        assert "still running" in answer["text"]

        # /history lists both finished games with a Replay button each; /stats counts them.
        sent = len(api.calls)
        api.send_text(GROUP, USER, "/history")
        listing = await reply(api, sent, "Finished games")
        assert listing["text"].count("\n") == 2
        assert "Saboteur 2" in listing["text"]
        sent = len(api.calls)
        api.send_text(GROUP, USER, "/stats")
        stats = await reply(api, sent, "finished games")
        assert "2 games played" in stats["text"] and "2 finished games" in stats["text"]
        games, wins, gold, (roles, rounds), _top = folded_group(group_games[:2], GROUP)
        win_s = "winner" if wins == 1 else "winners"  # one per winner of each game
        assert f"{games} finished games, {wins} {win_s}, gold mined: {gold}" in stats["text"]
        names = ", ".join(text("en", f"role.{role}") for role in roles)
        round_s = "round" if rounds == 1 else "rounds"
        assert f"won as {names} ({rounds} {round_s})" in stats["text"]


OTHER_GROUP = -3002
STRANGER = 999
OUTSIDER = 998


def cancelled_lobby(chat_id: int) -> tuple[Event, ...]:
    state, events = initial_state(), []
    for envelope in (
        Envelope(CreateGame(USER, "Ann", "base", chat_id=chat_id), at=1_000),
        Envelope(JoinGame(102, "Bo"), at=2_000),
        Envelope(CancelGame(USER), at=3_000),
    ):
        for event in decide(state, envelope):
            state = evolve(state, event)
            events.append(event)
    return tuple(events)


async def reply_in(api: FakeBotAPI, chat: int, after: int, method: str = "sendMessage") -> Call:
    return await api.wait_for_call(method, 20, after=after, chat_id=chat)


async def test_history_pages_and_replay_by_id_only_where_the_game_belongs(
    empty_database: Callable[[str], str],
    group_games: list[PlayedGame],
) -> None:
    url = empty_database("sqlite")
    upgrade(url)
    store = EventStore(make_engine(url))
    finished = group_games[0].events
    ours = [store_game(store, finished, day) for day in range(12)]  # ours[-1] is the newest
    theirs = store_game(store, play(34, players=3, chat_id=OTHER_GROUP).events, day=20)
    cancelled = store_game(store, cancelled_lobby(GROUP), day=21)
    # The bot starts after these games: its announcer has nothing of them to announce.
    BotState(store.engine).save_position(store.last_position())
    async with FakeBotAPI() as api, running_bot(api, url):
        api.group(GROUP)
        api.group(OTHER_GROUP)
        api.user(USER, "Ann")
        api.user(STRANGER, "Zed")
        api.user(OUTSIDER, "Out")

        # /history shows the ten newest games with their ids, and a button to older ones.
        sent = len(api.calls)
        api.send_text(GROUP, USER, "/history")
        listing = await reply_in(api, GROUP, sent)
        lines = listing["text"].splitlines()[1:]
        assert len(lines) == 10 and ours[-1] in lines[0] and ours[2] in lines[-1]
        message = api.last_message(GROUP)
        labels = [label for label, _ in buttons(message)]
        assert labels[-1] == "Older ▶" and "◀ Newer" not in labels

        # Older ▶ edits the same message to the two oldest games; ◀ Newer goes back.
        sent = len(api.calls)
        api.press(GROUP, USER, message["message_id"], button(message, "Older ▶"))
        edited = await reply_in(api, GROUP, sent, "editMessageText")
        assert edited["message_id"] == message["message_id"]
        assert [line[:3] for line in edited["text"].splitlines()[1:]] == ["11.", "12."]
        assert ours[0] in edited["text"] and ours[2] not in edited["text"]
        page = by_id(api, message["message_id"])
        assert [label for label, _ in buttons(page)][-1] == "◀ Newer"
        sent = len(api.calls)
        api.press(GROUP, USER, message["message_id"], button(page, "◀ Newer"))
        edited = await reply_in(api, GROUP, sent, "editMessageText")
        assert edited["text"] == listing["text"]

        # Another group's game: refused to a stranger, opened for one of its players.
        sent = len(api.calls)
        api.send_text(GROUP, STRANGER, f"/replay {theirs}")
        refusal = await reply_in(api, GROUP, sent)
        assert "another group" in refusal["text"]
        assert not any(c.method == "sendPhoto" for c in api.calls[sent:])
        sent = len(api.calls)
        api.send_text(GROUP, USER, f"/replay {theirs}")
        opened = await reply_in(api, GROUP, sent, "sendPhoto")
        assert opened["caption"].startswith(f"Replay {theirs}")

        # In a private chat: only a player of the game or a member of its group (the
        # stranger wrote in the group: Telegram counts them in) may open it.
        sent = len(api.calls)
        api.send_text(OUTSIDER, OUTSIDER, f"/replay {ours[0]}")
        refusal = await reply_in(api, OUTSIDER, sent)
        assert "another group" in refusal["text"]
        sent = len(api.calls)
        api.send_text(STRANGER, STRANGER, f"/replay {ours[0]}")
        opened = await reply_in(api, STRANGER, sent, "sendPhoto")
        assert opened["caption"].startswith(f"Replay {ours[0]}")
        sent = len(api.calls)
        api.send_text(USER, USER, f"/replay {ours[0]}")
        opened = await reply_in(api, USER, sent, "sendPhoto")
        assert opened["caption"].startswith(f"Replay {ours[0]}")

        # A cancelled game has its own answer.
        sent = len(api.calls)
        api.send_text(GROUP, USER, f"/replay {cancelled}")
        answer = await reply_in(api, GROUP, sent)
        assert "cancelled" in answer["text"] and "still running" not in answer["text"]


async def test_the_gif_is_made_once_and_a_press_while_it_is_made_is_answered(
    empty_database: Callable[[str], str],
    group_games: list[PlayedGame],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[str] = []
    release = threading.Event()

    def slow_gif(replay: Replay, *, lang: str = "en") -> bytes:
        made.append(replay.game_id)
        release.wait(timeout=20)  # until the test has pressed again
        return replay_gif(replay, lang=lang, renderer=small_board)

    monkeypatch.setattr(handlers, "replay_gif", slow_gif)
    url = empty_database("sqlite")
    upgrade(url)
    store = EventStore(make_engine(url))
    game = store_game(store, group_games[0].events, day=0)
    BotState(store.engine).save_position(store.last_position())
    async with FakeBotAPI() as api, running_bot(api, url):
        api.group(GROUP)
        api.user(USER, "Ann")
        sent = len(api.calls)
        api.send_text(GROUP, USER, f"/replay {game}")
        opened = await reply_in(api, GROUP, sent, "sendPhoto")
        message = sent_message(api, opened["caption"])
        gif_button = button(message, "🎞 GIF")

        first = api.press(GROUP, USER, message["message_id"], gif_button)
        await api.wait_for(lambda: api.answered.get(first), 20)
        second = api.press(GROUP, USER, message["message_id"], gif_button)
        answer = await api.wait_for(lambda: api.answered.get(second), 20)
        assert "still being made" in answer["text"]
        release.set()
        await api.wait_for_call("sendAnimation", 30, after=sent, chat_id=GROUP)

        # Pressed again later: the same GIF is sent, not made again.
        sent = len(api.calls)
        third = api.press(GROUP, USER, message["message_id"], gif_button)
        await api.wait_for_call("sendAnimation", 30, after=sent, chat_id=GROUP)
        assert api.answered.get(third) is not None
        assert made == [game]
        assert len(api.calls_of("sendAnimation")) == 2
