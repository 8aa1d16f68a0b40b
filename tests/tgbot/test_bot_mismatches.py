"""Small mismatches between what players ask and what the bot answers: /history in
private, an edition too small for the lobby, stray text in private, /stats with ties, and
the private command menu."""

from __future__ import annotations

import json
from typing import Any

import pytest

from domain import achievements as rules
from tests.fakebotapi import FakeBotAPI
from tests.replay.games import play
from tests.replay.test_history_figures import store_game
from tests.tgbot.bot_harness import (
    bot_services,
    open_game,
    press_and_wait,
    running_bot,
    seat,
    settle,
)
from tgbot.presenter.i18n import LANGUAGES

GROUP, OTHER_GROUP = -11015, -11025
PLAYERS = [101, 102, 103]

pytestmark = pytest.mark.timeout(180)


def button(api: FakeBotAPI, message: dict[str, Any], label: str) -> str:
    found = next(b for row in api.keyboard(message) for b in row if label in b.text)
    assert found.callback_data is not None
    return found.callback_data


async def test_history_in_private_lists_the_games_the_player_finished(db: str) -> None:
    me = PLAYERS[0]
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        api.group(OTHER_GROUP, "Other mine")
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(me, me, "/history")
            await settle(api, app)
            assert api.last_message(me)["text"].startswith("You have not finished a game yet.")

            store = bot_services(app).store
            mine = store_game(store, play(11, 3, "saboteur2", chat_id=GROUP).events, 0)
            elsewhere = store_game(store, play(12, 3, "base", chat_id=OTHER_GROUP).events, 1)
            others = play(13, 3, "base", chat_id=OTHER_GROUP, first_player_id=201).events
            not_mine = store_game(store, others, 2)
            bot_services(app).wake.set()
            await settle(api, app, timeout=60)

            api.send_text(me, me, "/history")
            await settle(api, app)
            listing = api.last_message(me)
            lines = listing["text"].splitlines()
            assert lines[0] == "Your finished games:"
            assert [line.rsplit("id ", 1)[1] for line in lines[1:]] == [elsewhere, mine]
            assert not_mine not in listing["text"]
            # Its replay buttons open the game here, in private.
            sent = len(api.messages_in(me))
            await press_and_wait(
                api, app, me, me, listing["message_id"], button(api, listing, "1.")
            )
            replay = api.messages_in(me)[sent]
            assert replay["caption"].startswith(f"Replay {elsewhere}")


async def test_switching_a_full_twelve_player_lobby_to_base_says_base_allows_ten(
    db: str,
) -> None:
    players = list(range(301, 313))
    async with FakeBotAPI() as api:
        seat(api, GROUP, players)
        async with running_bot(api, db) as app:
            lobby = await open_game(api, app, GROUP, players, "saboteur2")
            creator, lobby_id = players[0], lobby["message_id"]
            await press_and_wait(api, app, GROUP, creator, lobby_id, button(api, lobby, "Settings"))
            shown = api.messages[GROUP][lobby_id]
            game_id = bot_services(app).active_game(GROUP)
            assert game_id is not None
            _, version = bot_services(app).load(game_id)

            answer = await press_and_wait(
                api, app, GROUP, creator, lobby_id, button(api, shown, "Saboteur")
            )

            assert answer.get("show_alert")
            assert answer["text"] == (
                "Saboteur allows at most 10 players, and 12 have joined: "
                "the edition stays as it is."
            )
            state, after = bot_services(app).load(game_id)
            assert (state.edition, after) == ("saboteur2", version)


async def test_random_text_in_private_gets_a_one_line_pointer_to_help(db: str) -> None:
    me = PLAYERS[0]
    async with FakeBotAPI() as api:
        seat(api, GROUP, [me])
        async with running_bot(api, db) as app:
            await settle(api, app)
            for text in ("hello?", "/dance"):
                api.send_text(me, me, text)
                await settle(api, app)
                assert api.last_message(me)["text"] == (
                    "I only understand commands. Send /help to see them."
                )


async def test_stats_shows_ties_as_ties_and_no_favourite_role_without_a_round_won(
    db: str,
) -> None:
    # Seed 11: P102 and P103 win the game; round 1 is won by P101 as profiteer and P102
    # as saboteur, and no other round is won: P103 won the game without winning a round.
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            played = play(11, 3, "saboteur2", chat_id=GROUP)
            store_game(bot_services(app).store, played.events, 0)
            bot_services(app).wake.set()
            await settle(api, app, timeout=60)

            api.send_text(GROUP, PLAYERS[2], "/stats")
            await settle(api, app)
            earned = rules.earned(rules.game_of(played.events), PLAYERS[2], rules.Earlier())
            assert api.last_message(GROUP)["text"].splitlines() == [
                "P103 — 1 game played, 1 win, 4 gold.",
                # The game's season is not the bot clock's: no season rating line.
                f"Achievements: {len(earned)} of {len(rules.NAMES)} (/achievements).",
                "",
                # One game and two who won it: "2 wins" counted winners as wins.
                "This group — 1 finished game, 2 winners, gold mined: 10.",
                "Most rounds won, a tie: profiteer, saboteur (1 round each).",
                "Top winners, a tie: P102, P103 (1 win each).",
            ]
            mine = rules.earned(rules.game_of(played.events), PLAYERS[0], rules.Earlier())
            api.send_text(PLAYERS[0], PLAYERS[0], "/stats")
            await settle(api, app)
            assert api.last_message(PLAYERS[0])["text"].splitlines() == [
                "P101 — 1 game played, 0 wins, 2 gold.",
                "Most rounds won as profiteer (1 round).",
                f"Achievements: {len(mine)} of {len(rules.NAMES)} (/achievements).",
            ]


async def test_the_private_command_menu_lists_stats_and_history(db: str) -> None:
    async with FakeBotAPI() as api, running_bot(api, db) as app:
        await settle(api, app)
        private = [
            {c["command"] for c in commands}
            for key, commands in api.commands.items()
            if json.loads(key)[0]["type"] == "all_private_chats"
        ]
        assert len(private) == 1 + len(LANGUAGES)  # the default menu and one per language
        assert all({"stats", "history"} <= names for names in private)
