"""Who reads which language: a group its own (chosen, else its game creator's Telegram
language), each player theirs in private (chosen with /language, else their Telegram
language); both kept in the database across a restart."""

from __future__ import annotations

from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import open_game, press_and_wait, running_bot, seat, settle
from tgbot.presenter.i18n import t

GROUP = -5120
PLAYERS = [121, 122, 123]


def help_head(lang: str) -> str:
    return t(lang, "help.text").split("\n")[0]


async def test_a_group_and_each_player_keep_their_language_across_a_restart(db: str) -> None:
    admin, polish, english = PLAYERS
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            api.send_text(GROUP, admin, "/language de")
            api.send_text(polish, polish, "/language pl")
            await settle(api, app)
            assert api.last_message(GROUP)["text"] == "Sprache auf Deutsch gestellt."
            assert api.last_message(polish)["text"] == t("pl", "language.chosen")

        async with running_bot(api, db) as app:  # only the database carries over
            await settle(api, app)
            api.send_text(GROUP, english, "/help")
            await settle(api, app)
            assert api.last_message(GROUP)["text"].startswith(help_head("de"))
            for player, lang in ((polish, "pl"), (english, "en"), (admin, "en")):
                api.send_text(player, player, "/help")
                await settle(api, app)
                assert api.last_message(player)["text"].startswith(help_head(lang)), player


async def test_a_german_speaking_creator_opens_a_german_lobby_and_reads_german_in_private(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS, lang="de-AT")
        async with running_bot(api, db) as app:
            lobby = await open_game(api, app, GROUP, PLAYERS[:2])
            assert "Bedenkzeit" in lobby["text"]
            assert "Mitspielende (2/10)" in api.messages[GROUP][lobby["message_id"]]["text"]
            api.send_text(PLAYERS[1], PLAYERS[1], "/language")
            await settle(api, app)
            assert api.last_message(PLAYERS[1])["text"].startswith(t("de", "language.prompt"))


async def test_language_offers_a_button_per_language_and_a_press_sets_it(db: str) -> None:
    # "/language" answered with commands to type.
    async with FakeBotAPI() as api:
        seat(api, GROUP, PLAYERS)
        async with running_bot(api, db) as app:
            await settle(api, app)
            player = PLAYERS[1]
            api.send_text(player, player, "/language")
            await settle(api, app)
            asked = api.last_message(player)
            labels = [b.text for row in api.keyboard(asked) for b in row]
            assert labels == [t(code, "language.button") for code in ("en", "es", "pl", "de")]
            polish = next(b for row in api.keyboard(asked) for b in row if b.text == labels[2])
            await press_and_wait(
                api, app, player, player, asked["message_id"], polish.callback_data
            )
            assert api.messages[player][asked["message_id"]]["text"] == t("pl", "language.chosen")
            api.send_text(player, player, "/help")
            await settle(api, app)
            assert api.last_message(player)["text"].startswith(t("pl", "help.text")[:20])
