"""Commands: what each one answers, in which chats, and the menus that list them."""

from __future__ import annotations

import json
import re

import pytest
from telegram.ext import CommandHandler

from domain.commands import ComeBack, TimeOut
from infra.event_store import ConcurrencyError
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    game_running,
    running_bot,
    seat,
    settle,
    start_game,
)
from tgbot.presenter import i18n
from tgbot.telegram.app import BotApplication

GROUP = -4004
PLAYERS = [41, 42, 43]

pytestmark = pytest.mark.timeout(120)


def registered(app: BotApplication) -> set[str]:
    return {
        name
        for handlers in app.handlers.values()
        for handler in handlers
        if isinstance(handler, CommandHandler)
        for name in handler.commands
    }


def menus(api: FakeBotAPI) -> dict[tuple[str, str], set[str]]:
    """(scope, language) -> the command names the bot set for that menu."""
    found = {}
    for key, commands in api.commands.items():
        scope, language = json.loads(key)
        found[(scope["type"], language)] = {c["command"] for c in commands}
    return found


async def test_every_command_the_texts_mention_works_and_is_in_a_menu(db: str) -> None:
    async with FakeBotAPI() as api, running_bot(api, db) as app:
        await settle(api, app)
        handled = registered(app)
        mentioned = {
            name
            for lang in i18n.LANGUAGES
            for text in i18n.catalog(lang).values()
            for name in re.findall(r"(?<![\w/<])/([a-z_]+)", text)  # not </a>
        }
        assert {"newgame", "settings", "hand", "join"} <= mentioned
        assert sorted(mentioned - handled) == []

        found = menus(api)
        for lang in ("", *i18n.LANGUAGES):
            group = found[("all_group_chats", lang)]
            private = found[("all_private_chats", lang)]
            assert sorted(handled - group - private) == []
            assert sorted((group | private) - handled) == []
            assert {"newgame", "settings", "cancel", "hand"} <= group
            assert {"start", "hand"} <= private and "newgame" not in private


async def test_hand_in_private_sends_dwarf_cards_and_gold_at_any_time(db: str) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        state, _ = bot_services(app).load(game_id)
        assert state.pending is not None
        waiting = next(p for p in PLAYERS if p != state.pending.player)
        before = len(api.messages_in(waiting))

        api.send_text(waiting, waiting, "/hand")
        await settle(api, app)

        sent = api.messages_in(waiting)[before:]
        assert len(sent) == 1
        text = sent[0]["text"]
        assert "Your dwarf card" in text and "Your cards:" in text and "Your gold: 0" in text
        assert not api.keyboard(sent[0])


async def test_hand_in_the_group_sends_the_prompt_again_in_private(db: str) -> None:
    async with FakeBotAPI() as api, game_running(api, db, GROUP, PLAYERS) as (app, game_id):
        state, _ = bot_services(app).load(game_id)
        assert state.pending is not None
        player = state.pending.player
        first = api.last_message(player)
        assert api.keyboard(first)

        api.send_text(GROUP, player, "/hand")
        await settle(api, app)

        again = api.last_message(player)
        assert api.keyboard(again) and "Your turn in" in again["caption"]
        assert not api.keyboard(api.messages[player][first["message_id"]])  # one live prompt
        assert "in private" in api.last_message(GROUP)["text"]
        # One live prompt: the earlier one lost its buttons.
        live = [m for m in api.messages_in(player) if api.keyboard(m)]
        assert live == [api.last_message(player)] and live[0] != first


async def test_hand_from_someone_not_playing_says_so(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        api.user(49, "Kibitz", "en")
        async with running_bot(api, db) as app:
            await settle(api, app)
            await start_game(api, app, GROUP, PLAYERS)
            api.send_text(49, 49, "/hand")
            await settle(api, app)
            assert "no running game" in api.last_message(49)["text"]


async def test_replay_in_private_with_no_id_answers_once_with_its_usage(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            before = len(api.messages_in(PLAYERS[1]))
            api.send_text(PLAYERS[1], PLAYERS[1], "/replay")
            await settle(api, app)
            said = [m["text"] for m in api.messages_in(PLAYERS[1])[before:]]
            assert said == [i18n.t("en", "replay.usage_group")]  # not the pointer to /help too


async def test_back_in_private_tells_the_outcome_in_every_game_the_player_was_away_in(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    other_group = GROUP - 1
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        seat(api, other_group, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            games = [await start_game(api, app, group, PLAYERS) for group in (GROUP, other_group)]
            services = bot_services(app)
            player = PLAYERS[1]
            for game_id in games:  # everyone's time runs out until the player is away
                state, _ = services.load(game_id)
                while player not in state.away:
                    assert state.pending is not None
                    services.service.handle(game_id, TimeOut(state.pending.id))
                    state, _ = services.load(game_id)
            await settle(api, app)
            # The first game's return collides with another move; the second's goes through.
            handle = services.service.handle

            def colliding(game_id: str, command: object, **kwargs: object) -> object:
                if game_id == games[0] and isinstance(command, ComeBack):
                    raise ConcurrencyError(game_id, 0)
                return handle(game_id, command, **kwargs)  # type: ignore[arg-type]

            monkeypatch.setattr(services.service, "handle", colliding)

            api.send_text(player, player, "/back")
            await settle(api, app)

            reply = api.last_message(player)["text"]
            assert "Welcome back" in reply and "try again" in reply
            assert player in services.load(games[0])[0].away
            assert player not in services.load(games[1])[0].away
