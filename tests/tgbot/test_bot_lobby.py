"""The group's lobby: opening a game, its settings, who may start or cancel it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from domain.commands import JoinGame
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    announcer_of,
    bot_services,
    button,
    buttons,
    open_game,
    press_and_wait,
    running_bot,
    seat,
    settle,
)
from tgbot.presenter.messages import Slot

GROUP = -5005
PLAYERS = [51, 52, 53]

pytestmark = pytest.mark.timeout(120)


async def test_the_timer_is_one_of_four_named_presets_shown_with_its_duration(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS[:1])
            assert "Turn timer: ⏱ Normal · 3 min" in lobby["text"]
            creator, lobby_id = PLAYERS[0], lobby["message_id"]

            await press_and_wait(api, app, GROUP, creator, lobby_id, button(api, lobby, "Settings"))
            shown = api.messages[GROUP][lobby_id]
            timers = [b.text for b in buttons(api, shown) if "·" in b.text]
            assert timers == [
                "⚡ Blitz · 1 min",
                "✅ ⏱ Normal · 3 min",
                "☕ Relaxed · 1 h",
                "📅 Async · 1 d",
            ]

            await press_and_wait(api, app, GROUP, creator, lobby_id, button(api, shown, "Relaxed"))
            game_id = bot_services(app).active_game(GROUP)
            state, _ = bot_services(app).load(str(game_id))
            assert state.turn_seconds == 3600
            assert "Turn timer: ☕ Relaxed · 1 h" in api.messages[GROUP][lobby_id]["text"]


async def test_an_admin_who_cancels_for_the_creator_is_named_and_recorded(db: str) -> None:
    admin = 59
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        api.group(GROUP, "Mine", admins=(admin,))
        api.user(admin, "Ada", "en")
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS[:2])
            game_id = str(bot_services(app).active_game(GROUP))

            answer = await press_and_wait(
                api, app, GROUP, admin, lobby["message_id"], button(api, lobby, "Cancel")
            )

            assert not answer.get("show_alert")
            assert "Ada cancelled the game" in api.messages[GROUP][lobby["message_id"]]["text"]
            last = bot_services(app).store.load(game_id)[-1]
            assert last.type == "game_cancelled" and last.metadata["acted_by"] == admin


@pytest.mark.parametrize("label", ["Start", "Cancel", "Settings"])
async def test_a_player_neither_creator_nor_admin_is_refused_and_nothing_changes(
    db: str, label: str
) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS)
            game_id = str(bot_services(app).active_game(GROUP))
            version = bot_services(app).store.version(game_id)
            before = api.messages[GROUP][lobby["message_id"]]

            answer = await press_and_wait(
                api, app, GROUP, PLAYERS[1], lobby["message_id"], button(api, lobby, label)
            )

            assert answer.get("show_alert") and "creator or a group admin" in answer["text"]
            assert bot_services(app).store.version(game_id) == version
            assert api.messages[GROUP][lobby["message_id"]] == before


async def test_a_group_speaks_its_game_creators_language_to_everyone_until_it_chooses(
    db: str,
) -> None:
    creator, polish, english = PLAYERS
    async with FakeBotAPI() as api:
        api.group(GROUP, "Mina", admins=(creator,))
        for player, lang in ((creator, "es"), (polish, "pl"), (english, "en")):
            api.user(player, f"P{player}", lang)
            api.send_text(player, player, "/start")
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, [creator])
            assert "Tiempo por turno" in lobby["text"]

            answer = await press_and_wait(
                api, app, GROUP, polish, lobby["message_id"], button(api, lobby, "Unirse")
            )
            assert answer["text"] == "Te has unido a la partida."
            api.send_text(GROUP, english, "/help")
            await settle(api, app)
            assert api.last_message(GROUP)["text"].startswith("⛏ Dirijo partidas")

            api.send_text(GROUP, creator, "/language en")  # an admin chooses
            await settle(api, app)
            api.send_text(GROUP, polish, "/help")
            await settle(api, app)
            assert api.last_message(GROUP)["text"].startswith("⛏ I run games")
            api.send_text(GROUP, polish, "/leave")  # the lobby is redrawn, in English now
            await settle(api, app)
            assert "Turn timer" in api.messages[GROUP][lobby["message_id"]]["text"]


def marked(api: FakeBotAPI, message: dict[str, object]) -> list[str]:
    return [b.text for b in buttons(api, message) if b.text.startswith("✅")]


async def test_the_settings_stay_open_and_marked_right_while_they_are_changed(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS[:1])
            creator, lobby_id = PLAYERS[0], lobby["message_id"]

            def shown() -> dict[str, object]:
                return api.messages[GROUP][lobby_id]

            await press_and_wait(api, app, GROUP, creator, lobby_id, button(api, lobby, "Settings"))
            for label in ("Relaxed", "Blitz", "Saboteur 2"):
                await press_and_wait(
                    api, app, GROUP, creator, lobby_id, button(api, shown(), label)
                )
                assert any(label in text for text in marked(api, shown())), marked(api, shown())
            assert marked(api, shown()) == [
                "✅ Saboteur 2",
                "✅ ⚡ Blitz · 1 min",
                "✅ 🤖 Away players: the computer plays",
                "✅ 🤖 Normal",
                "✅ 🇬🇧 English",
            ]

            await press_and_wait(api, app, GROUP, creator, lobby_id, button(api, shown(), "Back"))
            assert [b.text for b in buttons(api, shown())][:2] == ["✋ Join", "🚪 Leave"]
            assert "Saboteur 2" in str(shown()["text"]) and "Blitz" in str(shown()["text"])


async def test_the_settings_command_brings_the_one_lobby_down_with_its_settings(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS[:2])
            creator = PLAYERS[0]

            api.send_text(GROUP, creator, "/settings")
            await settle(api, app)

            assert lobby["message_id"] not in api.messages[GROUP]  # the old one is gone
            lobbies = [m for m in api.messages_in(GROUP) if api.keyboard(m)]
            assert len(lobbies) == 1 and lobbies[0]["message_id"] > lobby["message_id"]
            now = lobbies[0]
            assert "P52" in str(now["text"]) and marked(api, now)[1] == "✅ ⏱ Normal · 3 min"
            await press_and_wait(
                api, app, GROUP, creator, now["message_id"], button(api, now, "Async")
            )
            now = api.messages[GROUP][now["message_id"]]
            assert marked(api, now)[1] == "✅ 📅 Async · 1 d" and "Async" in str(now["text"])

            api.send_text(GROUP, PLAYERS[1], "/settings")  # neither creator nor admin
            await settle(api, app)
            assert "creator or a group admin" in api.last_message(GROUP)["text"]


@pytest.mark.parametrize(("edition", "shown"), [("base", "3–10 players"), ("saboteur2", "2–12")])
async def test_newgame_opens_the_edition_asked_for(db: str, edition: str, shown: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS[:1], edition)
            game_id = str(bot_services(app).active_game(GROUP))
            state, _ = bot_services(app).load(game_id)
            assert state.edition == edition and state.seating == (PLAYERS[0],)
            assert shown in lobby["text"]


async def test_newgame_with_an_unknown_edition_explains_and_opens_nothing(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(GROUP, PLAYERS[0], "/newgame chess")
            await settle(api, app)
            assert "Usage: /newgame [base|saboteur2]" in api.last_message(GROUP)["text"]
            assert bot_services(app).active_game(GROUP) is None


async def test_a_group_has_one_game_at_a_time(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            await open_game(api, app, GROUP, PLAYERS[:1])
            first = bot_services(app).active_game(GROUP)
            events = bot_services(app).store.last_position()

            api.send_text(GROUP, PLAYERS[1], "/newgame saboteur2")
            await settle(api, app)

            assert "already open" in api.last_message(GROUP)["text"]
            assert bot_services(app).active_game(GROUP) == first
            assert bot_services(app).store.last_position() == events


async def test_players_beyond_the_editions_limit_are_refused_and_too_few_cannot_start(
    db: str,
) -> None:
    players = list(range(101, 112))  # eleven: base allows 3 to 10
    async with FakeBotAPI() as api:
        seat(api, GROUP, players)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, players[:2])
            lobby_id = lobby["message_id"]
            answer = await press_and_wait(
                api, app, GROUP, players[0], lobby_id, button(api, lobby, "Start")
            )
            assert answer.get("show_alert") and "Not enough players" in answer["text"]

            for player in players[2:10]:
                await press_and_wait(api, app, GROUP, player, lobby_id, button(api, lobby, "Join"))
            answer = await press_and_wait(
                api, app, GROUP, players[10], lobby_id, button(api, lobby, "Join")
            )
            assert answer.get("show_alert") and "full" in answer["text"]
            state, _ = bot_services(app).load(str(bot_services(app).active_game(GROUP)))
            assert len(state.seating) == 10 and players[10] not in state.seating


async def test_a_group_admin_may_start_the_creators_game(db: str) -> None:
    admin = 59
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        api.group(GROUP, "Mine", admins=(admin,))
        api.user(admin, "Ada", "en")
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS)
            await press_and_wait(
                api, app, GROUP, admin, lobby["message_id"], button(api, lobby, "Start")
            )
            state, _ = bot_services(app).load(str(bot_services(app).active_game(GROUP)))
            assert state.phase == "playing"


async def test_language_in_a_group_is_for_its_admins_and_changes_what_the_group_reads(
    db: str,
) -> None:
    admin, member = PLAYERS[0], PLAYERS[1]
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(GROUP, member, "/language pl")
            await settle(api, app)
            assert "Only a group admin" in api.last_message(GROUP)["text"]
            assert bot_services(app).botstate.chat_language(GROUP) is None

            api.send_text(GROUP, admin, "/language pl")
            await settle(api, app)
            assert api.last_message(GROUP)["text"] == "Ustawiono język polski."
            api.send_text(GROUP, member, "/newgame")
            await settle(api, app)
            assert "Czas na ruch" in api.last_message(GROUP)["text"]


class HeldDelete:
    """The bot's Telegram calls, of which the first ``delete_message`` is carried out and
    then answered only once ``release`` is set."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.deleted = asyncio.Event()
        self.release = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    async def delete_message(self, **kwargs: Any) -> Any:
        done = await self.bot.delete_message(**kwargs)
        if not self.deleted.is_set():
            self.deleted.set()
            await self.release.wait()
        return done


async def test_a_join_while_settings_bring_the_lobby_down_leaves_one_lobby_showing_it(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            await open_game(api, app, GROUP, PLAYERS[:2])
            services, outbox = bot_services(app), announcer_of(app).outbox
            game_id = services.active_game(GROUP)
            assert game_id is not None
            held = HeldDelete(outbox.bot)
            monkeypatch.setattr(outbox, "bot", held)
            drawn: list[bool] = []
            draw = outbox._lobby

            async def draw_lobby(*args: Any, **kwargs: Any) -> Any:
                done = await draw(*args, **kwargs)
                drawn.append(True)
                return done

            monkeypatch.setattr(outbox, "_lobby", draw_lobby)
            asked: list[str] = []  # the games whose lobby lock was asked for, in order
            lock = outbox.lock

            @contextlib.asynccontextmanager
            async def asking(game: str) -> AsyncIterator[None]:
                asked.append(game)
                async with lock(game):
                    yield

            monkeypatch.setattr(outbox, "lock", asking)

            # /settings deletes the lobby to post it anew; before it posts, a third player
            # joins (in another instance, say) and the announcer redraws the lobby.
            api.send_text(GROUP, PLAYERS[0], "/settings")
            await asyncio.wait_for(held.deleted.wait(), 10)
            services.service.handle(game_id, JoinGame(PLAYERS[2], "P53"))
            services.wake.set()
            # The redraw finishes at once unless it waits for /settings to be done: it has
            # either drawn, or asked for the lock /settings holds (the first one asked).
            async with asyncio.timeout(120):
                while not (drawn or len(asked) > 1):
                    await asyncio.sleep(0.01)
            held.release.set()
            await settle(api, app)

            lobbies = [m for m in api.messages_in(GROUP) if api.keyboard(m)]
            assert len(lobbies) == 1, [m["text"] for m in lobbies]
            (lobby,) = lobbies
            assert "P53" in str(lobby["text"]) and marked(api, lobby)  # the settings, shown
            stored = services.botstate.message(game_id, GROUP, Slot.LOBBY)
            assert stored is not None and stored.message_id == lobby["message_id"]
