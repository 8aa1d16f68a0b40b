"""What Telegram shows of the bot before anyone played: its description and short
description in each language, and /start's way into a group."""

from __future__ import annotations

import pytest

from tests.fakebotapi import FakeBotAPI
from tests.tgbot.bot_harness import running_bot, settle
from tgbot.presenter import i18n

pytestmark = pytest.mark.timeout(120)

USER = 201


async def test_the_bot_sets_its_description_and_short_description_in_each_language(
    db: str,
) -> None:
    async with FakeBotAPI() as api:
        async with running_bot(api, db) as app:
            await settle(api, app)
        assert api.description_for("es").startswith("⛏ Dirijo partidas de Saboteur")
        assert api.description_for("pl", short=True).startswith("⛏ Sabotażysta i Sabotażysta 2")
        assert api.description_for("de").startswith("⛏ Ich leite Partien Saboteur")
        assert api.description_for("fr") == api.description_for("en")  # the default: English
        for lang in i18n.LANGUAGES:
            assert api.descriptions[lang] == i18n.t(lang, "profile.description")
            assert api.short_descriptions[lang] == i18n.t(lang, "profile.short_description")
            assert "/newgame" in api.descriptions[lang]
            # Within Telegram's limits, so never cut.
            assert len(api.descriptions[lang]) <= 512 and len(api.short_descriptions[lang]) <= 120

        # Started again: nothing changed, so nothing is written again.
        written = len(api.calls_of("setMyDescription") + api.calls_of("setMyShortDescription"))
        async with running_bot(api, db) as app:
            await settle(api, app)
        again = len(api.calls_of("setMyDescription") + api.calls_of("setMyShortDescription"))
        assert written == 2 * (1 + len(i18n.LANGUAGES)) and again == written


async def test_start_in_private_offers_a_link_that_adds_the_bot_to_a_group(db: str) -> None:
    async with FakeBotAPI() as api:
        api.user(USER, "Ann", "es")
        async with running_bot(api, db) as app:
            api.send_text(USER, USER, "/start")
            await settle(api, app)
        welcome = api.last_message(USER)
        assert welcome["text"].startswith("¡Hola, Ann!")
        link = '<a href="https://t.me/saboteur_test_bot?startgroup=new">➕ Añádeme a un grupo</a>'
        assert link in welcome["text"]
        assert not api.keyboard(welcome)  # buttons in the private chat are the game's
