"""Whole games through the fake Bot API, base and Saboteur 2, in English, Spanish, Polish
and German, read as players read them: no English left in a chat of another language;
every private message names the group first and never a role there; one live prompt at a
time; no "not your turn" for a tap that counted; a placement never offered twice on a
cell; the legend behind every turn's "?"; each round's end says where the treasure was
(and in Saboteur 2 who won and why); no secret reaches the group before a round ends; the
replay opens from the game-over message.

One game, in Polish (a language other than English, of the most plural forms): what every
game in every language and both editions shows is read at the presenter
(tests/presenter/test_whole_game_texts.py, tests/presenter/test_announce.py,
tests/presenter/test_narration.py), and every catalog is checked whole in
tests/tgbot/test_catalogs.py; what only a running bot can get wrong (one live prompt in the
chat, no refused tap that counted, no edit that changes nothing, nothing Telegram would
refuse, the replay opening) is checked here. A whole game over HTTP costs tens of CPU
seconds: Saboteur 2 is played over HTTP in tests/tgbot/test_bot_computers.py, and players
of three languages at one table in tests/infra/test_runtime_role.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from domain.cards import Role
from tests.fakebotapi import FakeBotAPI
from tests.presenter.reading import round_end_heads, treasure_words, untranslated, why_words
from tests.tgbot.bot_harness import Table, bot_services, running_bot, settle
from tests.tgbot.test_e2e_games import (
    GROUP,
    assert_no_secret_in_group,
    assert_the_end_is_on_the_board,
    open_lobby,
    replay_from_game_over,
    start_game,
)
from tgbot.offline.transcript import transcript
from tgbot.presenter.callback import peek
from tgbot.presenter.keyboards import CARD, COME_BACK, LEGEND, PLACE
from tgbot.presenter.texts import Texts
from tgbot.telegram.app import BotApplication

pytestmark = pytest.mark.timeout(300)

TITLE = "Mine"
PLACEMENT = re.compile(r"^([A-Z]{1,2}) ")


class Reader(Table):
    """A table whose players read every message as it comes, checking what they see."""

    def __init__(self, api: FakeBotAPI, app: BotApplication, players: list[int], lang: str):
        super().__init__(api, app, GROUP, players, brisk=True)
        self.texts = Texts(lang)
        self.roles = {self.texts.role_name(r.value) for r in Role}
        self.key = bot_services(app).callback_key
        self.answers: list[dict[str, Any]] = []

    def action(self, data: str | None) -> str:
        return peek(data or "").action

    def check(self) -> None:
        for player in self.players:
            live = [
                m
                for m in self.api.messages_in(player)
                if any(
                    self.action(b.callback_data) != COME_BACK
                    for row in self.api.keyboard(m)
                    for b in row
                    if b.callback_data
                )
            ]
            assert len(live) <= 1, [m.get("caption") for m in live]  # one live prompt
            for message in live:
                actions = [
                    self.action(b.callback_data)
                    for row in self.api.keyboard(message)
                    for b in row
                    if b.callback_data
                ]
                if CARD in actions:
                    assert LEGEND in actions  # the "?" beside a turn's cards
                cells = [
                    found.group(1)
                    for row in self.api.keyboard(message)
                    for b in row
                    if b.callback_data
                    and self.action(b.callback_data) == PLACE
                    and (found := PLACEMENT.match(b.text))
                ]
                shapes = {b.text for row in self.api.keyboard(message) for b in row}
                for cell in set(cells):
                    same = [s for s in shapes if s.startswith(f"{cell} ")]
                    looks = {s.removesuffix(" ↻") for s in same}
                    assert len(looks) == len(same), same  # one button per look of a cell

    async def play_one(self) -> bool:
        calls = len(self.api.calls)
        pressed = await super().play_one()
        for call in self.api.calls[calls:]:
            if call.method == "answerCallbackQuery":
                self.answers.append(dict(call.params))
        self.check()
        return pressed


def private_texts(api: FakeBotAPI, players: list[int]) -> list[str]:
    """Every text and caption sent or written into a player's chat once the game began."""
    chats = {str(p) for p in players}
    started = next(
        i
        for i, c in enumerate(api.calls)
        if c.method == "sendPhoto" and str(c["chat_id"]) == str(GROUP)
    )
    found = []
    for call in api.calls[started:]:
        if str(call.get("chat_id")) not in chats:
            continue
        media = call.get("media")
        caption = media.get("caption") if isinstance(media, dict) else None
        text = call.get("text") or call.get("caption") or caption
        if text:
            found.append(str(text))
    return found


def round_ends(api: FakeBotAPI, texts: Texts) -> list[str]:
    """The group's round-end messages (texts: the board's captions are not among them)."""
    heads = round_end_heads(texts)
    return [
        m["text"]
        for m in api.messages_in(GROUP)
        if "text" in m and any(m["text"].startswith(f"🏁 {h}") for h in heads)
    ]


@pytest.mark.parametrize(
    ("edition", "lang", "seed"),
    [("base", "pl", 23)],
)
async def test_a_whole_game_reads_right_in_each_language(
    db: str, edition: str, lang: str, seed: int
) -> None:
    texts = Texts(lang)
    async with FakeBotAPI() as api:
        api.group(GROUP, TITLE, admins=(1,))
        players = [1, 2, 3, 4]
        for p in players:
            api.user(p, f"P{p}", lang)
            api.send_text(p, p, "/start")
        async with running_bot(api, db, seed=seed) as app:
            await settle(api, app)
            lobby = await open_lobby(api, app, players, edition)
            await start_game(api, app, players[0], lobby)
            table = Reader(api, app, players, lang)
            await table.play_to_end()
            await settle(api, app)

            told = private_texts(api, players)
            assert len(told) > 30
            for text in told:
                first = text.split("\n")[0]
                assert TITLE in first, text
                assert not any(role in first for role in table.roles), first
            refusals = {texts.t("error.not_your_turn"), texts.t("error.already_joined")}
            assert not [a for a in table.answers if a.get("text") in refusals]

            ends = round_ends(api, texts)
            assert len(ends) == 3
            lay = treasure_words(texts)
            assert all(lay in end for end in ends), ends
            if edition == "saboteur2":
                for end in ends:
                    assert any(word in end for word in why_words(texts)), end
            assert_no_secret_in_group(api, app, lang, {lang})
            assert_the_end_is_on_the_board(api, app, lang)
            await replay_from_game_over(api, app, players[0], lang)
            if lang != "en":
                assert untranslated(everything_read(api), lang, [TITLE]) == set()
            # Not one edit that changes nothing: Telegram would answer "not modified".
            edits = [c for c in api.calls if c.method.startswith("edit")]
            unchanged = [r for r in api.refusals if "not modified" in r.description]
            assert len(edits) > 100 and unchanged == [], unchanged
            assert "refused:" not in "\n".join(transcript(api, {}))


def everything_read(api: FakeBotAPI) -> list[str]:
    """Every text, caption, button and answer the bot sent to any chat."""
    found: list[str] = []
    for call in api.calls:
        media = call.get("media")
        for text in (call.get("text"), call.get("caption")):
            if text:
                found.append(str(text))
        if isinstance(media, dict) and media.get("caption"):
            found.append(str(media["caption"]))
        markup = call.get("reply_markup")
        if isinstance(markup, dict):
            found += [b.get("text", "") for row in markup.get("inline_keyboard", []) for b in row]
    return found
