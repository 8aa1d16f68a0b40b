"""The base game's variants through the bot (docs/rules.md §8): switched on and off in the
lobby's settings, named in the lobby, on the board's caption and at the game's end, and the
saboteurs who know each other told in private."""

from __future__ import annotations

import asyncio

import pytest

from domain.events import GameCreated
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    bot_services,
    button,
    buttons,
    open_game,
    press_and_wait,
    running_bot,
    seat,
    settle,
    start_game,
)

GROUP = -5015
PLAYERS = [71, 72, 73]

pytestmark = pytest.mark.timeout(120)


async def test_the_creator_switches_variants_in_the_settings_and_the_lobby_names_them(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            lobby = await open_game(api, app, GROUP, PLAYERS)
            creator, lobby_id = PLAYERS[0], lobby["message_id"]
            services = bot_services(app)
            game_id = str(services.active_game(GROUP))
            assert "Variants" not in str(lobby["text"])

            def shown() -> dict[str, object]:
                return api.messages[GROUP][lobby_id]

            await press_and_wait(api, app, GROUP, creator, lobby_id, button(api, lobby, "Settings"))
            dice = [b.text for b in buttons(api, shown()) if "🎲" in b.text]
            assert dice == [
                "🎲 maximum saboteurs",
                "🎲 saboteurs know each other",
                "🎲 greedy dwarf",
                "🎲 middle treasure",
                "🎲 selfish dwarf",
            ]
            for label in ("selfish dwarf", "maximum saboteurs"):
                await press_and_wait(
                    api, app, GROUP, creator, lobby_id, button(api, shown(), label)
                )
            on = [b.text for b in buttons(api, shown()) if b.text.startswith("✅ 🎲")]
            assert on == ["✅ 🎲 maximum saboteurs", "✅ 🎲 selfish dwarf"]
            text = str(shown()["text"])
            assert (
                "🎲 Variants: maximum saboteurs (1 saboteur among 3 players), selfish dwarf" in text
            )
            state, _ = await asyncio.to_thread(services.load, game_id)
            assert state.variants == ("maximum_saboteurs", "selfish_dwarf")

            # Another player's press is refused and changes nothing.
            version = services.store.version(game_id)
            answer = await press_and_wait(
                api, app, GROUP, PLAYERS[1], lobby_id, button(api, shown(), "greedy dwarf")
            )
            assert answer.get("show_alert") and "creator or a group admin" in answer["text"]
            assert services.store.version(game_id) == version

            # Pressed again, a variant is switched off.
            await press_and_wait(
                api, app, GROUP, creator, lobby_id, button(api, shown(), "selfish dwarf")
            )
            state, _ = await asyncio.to_thread(services.load, game_id)
            assert state.variants == ("maximum_saboteurs",)

            # Saboteur 2 has no variants: they are switched off and their buttons go.
            await press_and_wait(
                api, app, GROUP, creator, lobby_id, button(api, shown(), "Saboteur 2")
            )
            assert not [b for b in buttons(api, shown()) if "🎲" in b.text]
            assert "Variants" not in str(shown()["text"])
            state, _ = await asyncio.to_thread(services.load, game_id)
            assert state.variants == ()


async def test_a_variant_game_names_its_variants_on_the_board_in_polish(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS, lang="pl")
        async with running_bot(api, db) as app:
            await settle(api, app)
            # Maximum saboteurs: the one saboteur of three players is always dealt.
            variants = ("maximum_saboteurs", "saboteurs_know_each_other", "greedy_dwarf")
            game_id = await start_game(api, app, GROUP, PLAYERS, settings={"variants": variants})
            await settle(api, app)
            services = bot_services(app)
            stored = services.store.load(game_id)
            assert stored[0].type == GameCreated.TYPE and stored[0].payload["variants"] == []
            state, _ = await asyncio.to_thread(services.load, game_id)
            assert state.variants == variants
            board = next(m for m in reversed(api.messages_in(GROUP)) if m.get("photo"))
            assert (
                "🎲 Warianty: maksimum sabotażystów (1 sabotażysta na 3 graczy), sabotażyści znają"
                " się nawzajem, chciwy górnik" in board["caption"]
            )
            # The saboteur is told, in private, that no other was dealt.
            saboteur = next(p for p in PLAYERS if state.roles[p].value == "saboteur")
            told = " ".join(
                str(m.get("text", m.get("caption", ""))) for m in api.messages_in(saboteur)
            )
            assert "W tej rundzie nie rozdano innego sabotażysty." in told
            digger = next(p for p in PLAYERS if p != saboteur)
            heard = " ".join(
                str(m.get("text", m.get("caption", ""))) for m in api.messages_in(digger)
            )
            assert "sabotaż" not in heard.replace("sabotażyści znają się", "")
