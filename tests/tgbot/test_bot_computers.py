"""Computer players in the group: seated from the lobby, playing their turns like anyone,
taking over the seats of people who leave, are handed over, or are away."""

from __future__ import annotations

from typing import Any

import pytest

from domain.cards import Role
from domain.events import ComputerLevelSet, ComputerPlayerAdded
from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import (
    Table,
    bot_services,
    button,
    buttons,
    open_game,
    press_and_wait,
    running_bot,
    seat,
    settle,
)
from tgbot.presenter.texts import Texts

GROUP = -7013
PLAYERS = [131, 132, 133]
CREATOR = PLAYERS[0]

pytestmark = pytest.mark.timeout(180)


async def press_lobby(api: FakeBotAPI, app: Any, user: int, lobby_id: int, label: str) -> Any:
    lobby = api.messages[GROUP][lobby_id]
    return await press_and_wait(api, app, GROUP, user, lobby_id, button(api, lobby, label))


async def test_the_creator_seats_and_unseats_computer_players_named_with_a_robot(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS[:1])
        async with running_bot(api, db) as app:
            lobby_id = (await open_game(api, app, GROUP, PLAYERS[:1]))["message_id"]
            for _ in range(2):
                await press_lobby(api, app, CREATOR, lobby_id, "Add computer player")
            services = bot_services(app)
            game_id = str(services.active_game(GROUP))
            state, _ = services.load(game_id)
            assert len(state.computers) == 2
            names = [state.names[p] for p in state.seating[1:]]
            assert all(name.startswith("🤖 ") for name in names)
            shown = api.messages[GROUP][lobby_id]["text"]
            tagged = f"{names[0]} · normal, {names[1]} · normal"
            assert f"Players (3/10): P{CREATOR}, {tagged}" in shown

            await press_lobby(api, app, CREATOR, lobby_id, "Remove computer player")
            state, _ = services.load(game_id)
            assert [state.names[p] for p in state.computers] == names[:1]
            assert names[1] not in api.messages[GROUP][lobby_id]["text"]

            await press_lobby(api, app, CREATOR, lobby_id, "Remove computer player")
            answer = await press_lobby(api, app, CREATOR, lobby_id, "Remove computer player")
            assert answer["text"] == "There is no computer player to remove."
            assert answer["show_alert"]


async def test_a_player_neither_creator_nor_admin_may_not_seat_or_unseat_computers(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS[:2])
        async with running_bot(api, db) as app:
            lobby_id = (await open_game(api, app, GROUP, PLAYERS[:2]))["message_id"]
            await press_lobby(api, app, CREATOR, lobby_id, "Add computer player")
            services = bot_services(app)
            game_id = str(services.active_game(GROUP))
            _, before = services.load(game_id)
            for label in ("Add computer player", "Remove computer player"):
                answer = await press_lobby(api, app, PLAYERS[1], lobby_id, label)
                assert answer["text"] == "Only the game's creator or a group admin may do that."
            _, after = services.load(game_id)
            assert after == before


async def test_computer_players_are_seated_up_to_the_editions_maximum(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS[:1])
        async with running_bot(api, db) as app:
            lobby_id = (await open_game(api, app, GROUP, PLAYERS[:1]))["message_id"]
            for _ in range(9):  # the base game seats ten
                await press_lobby(api, app, CREATOR, lobby_id, "Add computer player")
            answer = await press_lobby(api, app, CREATOR, lobby_id, "Add computer player")
            assert answer["text"] == "The game is full."
            services = bot_services(app)
            state, _ = services.load(str(services.active_game(GROUP)))
            assert len(state.seating) == 10 and len(state.computers) == 9


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
async def test_a_person_and_computer_players_play_a_game_to_the_end(db: str, edition: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS[:1])
        async with running_bot(api, db) as app:
            lobby_id = (await open_game(api, app, GROUP, PLAYERS[:1], edition))["message_id"]
            for _ in range(3 if edition == "base" else 2):
                await press_lobby(api, app, CREATOR, lobby_id, "Add computer player")
            await press_lobby(api, app, CREATOR, lobby_id, "Start")
            services = bot_services(app)
            game_id = str(services.active_game(GROUP))
            table = Table(api, app, GROUP, PLAYERS[:1])
            made = await table.play_with_computers(game_id)
            state, _ = services.load(game_id)
            assert state.phase == "finished"
            assert made > 0 and table.presses > 0
            # The computers' moves are told to the group like anyone's, with no role.
            names = [
                e.name
                for e in services.service.events(game_id)
                if isinstance(e, ComputerPlayerAdded)
            ]
            captions = [str(m.get("caption", "")) for m in api.messages_in(GROUP)]
            told = [c for c in captions if any(n in c for n in names)]
            assert told
            roles = [Texts("en").role_name(r.value) for r in Role]
            assert not [c for c in told if any(f"({r})" in c for r in roles)]
            assert "The game is over" in "\n".join(captions)

            # Statistics keep the person and the computer players apart.
            api.send_text(GROUP, CREATOR, "/stats")
            await settle(api, app)
            stats = api.last_message(GROUP)["text"]
            assert f"Computer players here — seats: {len(names)}, " in stats
            assert "This group — 1 finished game, " in stats


async def test_the_settings_choose_what_away_seats_do_and_how_gold_is_picked(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS[:2])
        async with running_bot(api, db) as app:
            lobby_id = (await open_game(api, app, GROUP, PLAYERS[:2]))["message_id"]
            services = bot_services(app)
            game_id = str(services.active_game(GROUP))
            state, _ = services.load(game_id)
            assert (state.away_play, state.gold_pick) == ("computer", "auto")

            await press_lobby(api, app, CREATOR, lobby_id, "Settings")
            settings_shown = api.messages[GROUP][lobby_id]
            refused = await press_and_wait(
                api, app, GROUP, PLAYERS[1], lobby_id, button(api, settings_shown, "pass")
            )
            assert refused["text"] == "Only the game's creator or a group admin may do that."
            assert services.load(game_id)[0].away_play == "computer"

            await press_lobby(api, app, CREATOR, lobby_id, "Away players pass")
            await press_lobby(api, app, CREATOR, lobby_id, "each picks")
            state, _ = services.load(game_id)
            assert (state.away_play, state.gold_pick) == ("pass", "manual")
            marks = [b.text for b in buttons(api, api.messages[GROUP][lobby_id])]
            assert "✅ Away players pass" in marks and "✅ 💰 Gold: each picks" in marks

            # Saboteur 2 pays its gold without a pick: no such choice there.
            await press_lobby(api, app, CREATOR, lobby_id, "Saboteur 2")
            marks = [b.text for b in buttons(api, api.messages[GROUP][lobby_id])]
            assert not [m for m in marks if "Gold:" in m]


LEVEL_BUTTONS = ["🤖 Easy", "🤖 Normal", "🤖 Hard"]


async def practise(
    api: FakeBotAPI, app: Any, player: int, size: str, command: str = "/practice", level: str = ""
) -> dict[str, Any]:
    """``command`` in private, the base game chosen, then (``level``: its button) the
    computers' level, then ``size`` players; returns the message the choices were made on
    (as it first read)."""
    api.send_text(player, player, command)
    await settle(api, app)
    chosen = api.last_message(player)
    base = buttons(api, chosen)[0].callback_data
    assert base is not None
    await press_and_wait(api, app, player, player, chosen["message_id"], base)
    sizes = api.messages[player][chosen["message_id"]]
    assert sizes["text"].startswith("Saboteur: how many players, you included?\n")
    labels = [b.text for b in buttons(api, sizes)]
    assert labels[:8] == [str(n) for n in range(3, 11)]
    assert [label.removeprefix("✅ ") for label in labels[8:]] == LEVEL_BUTTONS
    if level:
        await press_and_wait(
            api, app, player, player, chosen["message_id"], button(api, sizes, level)
        )
        sizes = api.messages[player][chosen["message_id"]]
    await press_and_wait(api, app, player, player, chosen["message_id"], button(api, sizes, size))
    return chosen


async def test_practice_in_private_plays_a_whole_game_there_with_computers_uncounted(
    db: str,
) -> None:
    player = PLAYERS[1]
    async with FakeBotAPI() as api:
        seat(api, GROUP, [player])
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(GROUP, player, "/practice")
            await settle(api, app)
            assert "our private chat" in api.last_message(GROUP)["text"]

            chosen = await practise(api, app, player, "3")
            assert "does not count in any statistics" in chosen["text"]
            services = bot_services(app)
            game_id = services.active_game(player)
            assert game_id is not None
            state, _ = services.load(game_id)
            assert state.practice and state.phase == "playing" and state.edition == "base"
            assert state.humans() == (player,) and len(state.computers) == 2

            table = Table(api, app, player, [player])
            await table.play_with_computers(game_id)
            assert services.load(game_id)[0].phase == "finished"
            captions = [str(m.get("caption", "")) for m in api.messages_in(player)]
            assert "The game is over" in "\n".join(captions)  # the board, in the private chat
            # Its prompts name the practice game, not a group it is not played in.
            assert any(c.startswith("Practice: done, the game goes on.") for c in captions)
            assert not any("your group" in c for c in captions)
            assert {c.get("chat_id") for c in api.calls if c.get("chat_id")} <= {GROUP, player}

            api.send_text(player, player, "/stats")
            await settle(api, app)
            assert (
                f"P{player} — 0 games played, 0 wins, 0 gold." in (api.last_message(player)["text"])
            )


async def test_a_practice_game_can_be_cancelled_in_the_private_chat(db: str) -> None:
    player = PLAYERS[2]
    async with FakeBotAPI() as api:
        seat(api, GROUP, [player])
        async with running_bot(api, db) as app:
            await settle(api, app)
            await practise(api, app, player, "3")
            services = bot_services(app)
            game_id = services.active_game(player)
            assert game_id is not None

            api.send_text(player, player, "/cancel")
            await settle(api, app)
            question = api.last_message(player)
            assert "Cancel the running game?" in question["text"]
            await press_and_wait(
                api, app, player, player, question["message_id"], button(api, question, "Yes")
            )
            assert services.load(game_id)[0].phase == "cancelled"
            assert services.active_game(player) is None


async def test_practice_seats_its_computers_at_the_level_asked_for(db: str) -> None:
    player = PLAYERS[0]
    async with FakeBotAPI() as api:
        seat(api, GROUP, [player])
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(player, player, "/practice godlike")
            await settle(api, app)
            assert (
                "/practice easy, /practice normal or /practice hard"
                in (api.last_message(player)["text"])
            )
            assert bot_services(app).active_game(player) is None

            # /practice hard, then the size step's Easy button: the button has the last word.
            await practise(api, app, player, "4", "/practice hard", level="Easy")
            services = bot_services(app)
            game_id = services.active_game(player)
            assert game_id is not None
            seated = [
                e for e in services.service.events(game_id) if isinstance(e, ComputerPlayerAdded)
            ]
            assert [e.level for e in seated] == ["easy"] * 3
            api.send_text(player, player, "/cancel")
            await settle(api, app)
            question = api.last_message(player)
            await press_and_wait(
                api, app, player, player, question["message_id"], button(api, question, "Yes")
            )

            chosen = await practise(api, app, player, "3", "/practice hard")
            sizes_text = api.messages[player][chosen["message_id"]]["text"]
            assert "Computer players: hard" in sizes_text
            game_id = services.active_game(player)
            assert game_id is not None
            state, _ = services.load(game_id)
            assert [state.level_of(p) for p in state.computers] == ["hard", "hard"]


async def test_the_lobby_settings_choose_every_computer_players_level(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS[:1])
        async with running_bot(api, db) as app:
            lobby_id = (await open_game(api, app, GROUP, PLAYERS[:1]))["message_id"]
            await press_lobby(api, app, CREATOR, lobby_id, "Add computer player")
            services = bot_services(app)
            game_id = str(services.active_game(GROUP))

            await press_lobby(api, app, CREATOR, lobby_id, "Settings")
            marks = [b.text for b in buttons(api, api.messages[GROUP][lobby_id])]
            assert "✅ 🤖 Normal" in marks and "🤖 Hard" in marks
            await press_lobby(api, app, CREATOR, lobby_id, "🤖 Hard")
            marks = [b.text for b in buttons(api, api.messages[GROUP][lobby_id])]
            assert "✅ 🤖 Hard" in marks
            await press_lobby(api, app, CREATOR, lobby_id, "Back")
            await press_lobby(api, app, CREATOR, lobby_id, "Add computer player")
            state, _ = services.load(game_id)
            names = [state.names[p] for p in state.seating[1:]]
            assert [state.level_of(p) for p in state.seating[1:]] == ["hard", "hard"]
            shown = api.messages[GROUP][lobby_id]["text"]
            assert f"{names[0]} · hard, {names[1]} · hard" in shown


async def test_the_lobby_settings_choose_one_computer_players_level(db: str) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS[:2])
        async with running_bot(api, db) as app:
            lobby_id = (await open_game(api, app, GROUP, PLAYERS[:2]))["message_id"]
            for _ in range(2):
                await press_lobby(api, app, CREATOR, lobby_id, "Add computer player")
            services = bot_services(app)
            game_id = str(services.active_game(GROUP))
            state, _ = services.load(game_id)
            first, second = (p for p in state.seating if state.is_computer(p))
            one, other = state.names[first], state.names[second]

            await press_lobby(api, app, CREATOR, lobby_id, "Settings")
            drawn = api.messages[GROUP][lobby_id]
            labels = [b.text for b in buttons(api, drawn)]
            assert f"{one} · normal" in labels and f"{other} · normal" in labels

            # A player neither the creator nor an admin is refused; nothing changes.
            refused = await press_lobby(api, app, PLAYERS[1], lobby_id, f"{one} · normal")
            assert refused["text"] == "Only the game's creator or a group admin may do that."
            assert refused["show_alert"]
            assert services.load(game_id)[0].level_of(first) == "normal"

            # The creator's press moves that one computer player to the next level.
            answer = await press_lobby(api, app, CREATOR, lobby_id, f"{one} · normal")
            assert answer["text"] == f"{one} now plays at level hard."
            shown = api.messages[GROUP][lobby_id]
            assert f"P{PLAYERS[1]}, {one} · hard, {other} · normal" in shown["text"]
            labels = [b.text for b in buttons(api, shown)]
            assert f"{one} · hard" in labels and f"{other} · normal" in labels
            # The levels differ now: the row that sets them all ticks none.
            levels = ("✅ 🤖 Easy", "✅ 🤖 Normal", "✅ 🤖 Hard")
            assert not [label for label in labels if label in levels]

            # The buttons drawn before: the same press again counted once; another seat's
            # button, drawn before the lobby changed, is out of date.
            again = await press_and_wait(
                api, app, GROUP, CREATOR, lobby_id, button(api, drawn, f"{one} · normal")
            )
            assert not again.get("text") and not again.get("show_alert")
            stale = await press_and_wait(
                api, app, GROUP, CREATOR, lobby_id, button(api, drawn, f"{other} · normal")
            )
            assert stale["text"] == "That button is out of date: the game has moved on."
            state, _ = services.load(game_id)
            assert (state.level_of(first), state.level_of(second)) == ("hard", "normal")

            await press_lobby(api, app, CREATOR, lobby_id, "Back")
            await press_lobby(api, app, CREATOR, lobby_id, "Start")
            state, _ = services.load(game_id)
            assert state.phase == "playing"
            assert (state.level_of(first), state.level_of(second)) == ("hard", "normal")
            chosen = [
                e for e in services.service.events(game_id) if isinstance(e, ComputerLevelSet)
            ]
            assert chosen == [ComputerLevelSet("hard", first)]
