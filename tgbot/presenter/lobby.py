"""The group's lobby message: who joined, the settings, and its buttons."""

from __future__ import annotations

from collections.abc import Mapping

from domain.cards import PLAYER_LIMITS
from domain.state import GameState, PlayerId
from tgbot.presenter import keyboards as kb
from tgbot.presenter.audience import Table
from tgbot.presenter.icons import Icon, Line
from tgbot.presenter.messages import Lobby, LobbyClosed, PrivateText, Text
from tgbot.presenter.standings import season_name
from tgbot.presenter.texts import Texts, esc, name_html, seat_html
from tgbot.presenter.variants import variants_line


def start_link(username: str, payload: str) -> str:
    return f"https://t.me/{username}?start={payload}"


def lobby_text(
    state: GameState, texts: Texts, bot_username: str, champion: tuple[str, str] | None = None
) -> str:
    """The lobby's text; ``champion``: the group's champion of the last season in the
    lobby's edition (the season, the name), named under the title."""
    names = [seat_html(state, p, texts) for p in state.seating]
    low, high = PLAYER_LIMITS[state.edition]
    creator = esc(state.names.get(state.creator, "?")) if state.creator is not None else "?"
    lines = [
        texts.t("lobby.title", edition=texts.t(f"edition.{state.edition}"), creator=creator),
        *([champion_line(texts, *champion)] if champion else []),
        texts.t("lobby.settings", timer=texts.timer(state.turn_seconds), min=low, max=high),
        " · ".join(settings_said(state, texts)),
        *([variants_line(state.variants, texts, len(state.seating))] if state.variants else []),
        texts.t("lobby.joined", count=len(names), max=high, names=", ".join(names))
        if names
        else texts.t("lobby.nobody"),
        "",
        texts.t("lobby.hint"),
        texts.t("bot.open_private_hint", link=start_link(bot_username, "hello")),
    ]
    return "\n".join(lines)


def champion_line(texts: Texts, season: str, name: str) -> str:
    """The lobby's line naming last season's champion.

    >>> champion_line(Texts("en"), "2026Q3", "Ann")
    '🏆 Champion of Q3 2026: Ann'
    """
    said = texts.t("lobby.champion", season=season_name(season, texts), name=name_html(name))
    return Line(Icon.WINNERS, said).html()


def settings_said(state: GameState, texts: Texts) -> list[str]:
    """What the lobby's other settings are: away players, and (base) the gold's share."""
    said = [texts.t(f"lobby.away_{'computer' if state.away_play == 'computer' else 'pass'}")]
    if state.edition == "base":
        said.append(texts.t(f"lobby.gold_{'manual' if state.gold_pick == 'manual' else 'auto'}"))
    return said


def lobby(
    state: GameState,
    version: int,
    table: Table,
    *,
    settings: bool | None = None,
    anew: bool = False,
) -> Lobby:
    """The lobby as the game is now, with its buttons or its settings (``settings``;
    None: whichever it shows)."""
    texts = table.group().texts
    name = table.champions.get(state.edition)
    champion = (table.last_season, name) if name else None
    return Lobby(
        table.chat_id,
        lobby_text(state, texts, table.bot_username, champion),
        kb.keyboard(kb.lobby_rows(texts)),
        kb.keyboard(kb.settings_rows(state, texts.lang, texts)),
        settings,
        anew,
        table.game_id,
        version,
    )


def closed(state: GameState, table: Table, outcome: str, *, or_send: bool = False) -> LobbyClosed:
    """The lobby as it ended (``state``), its buttons gone, with how it ended."""
    texts = table.group().texts
    body = lobby_text(state, texts, table.bot_username).split("\n\n")[0]
    return LobbyClosed(
        table.chat_id, f"{body}\n\n{outcome}", outcome if or_send else "", table.game_id
    )


def stop_question(table: Table, version: int, texts: Texts) -> Text:
    """/cancel in a running game asks first."""
    return Text(
        table.chat_id,
        texts.t("cancel.confirm"),
        kb.keyboard(kb.stop_rows(texts)),
        table.game_id,
        version,
    )


def where(table: Table, texts: Texts) -> str:
    """The group (and the forum topic) a game is in, by name (plain text)."""
    group = table.title or texts.t("bot.your_group")
    return f"{group} › {table.topic_name}" if table.topic_name else group


def subscriber_notices(
    state: GameState, table: Table, subscribers: Mapping[PlayerId, str]
) -> list[PrivateText]:
    """The private notice each subscriber (by their language) gets when the game opened
    in their group: who opened which game where (in a forum, in which topic), with a link
    to a public group (to the topic).

    >>> from domain.state import GameState
    >>> opened = GameState(creator=1, names={1: "Ann"}, edition="base")
    >>> [n.text for n in subscriber_notices(opened, Table("g", -5, 0, title="Mine"), {2: "en"})]
    ['⛏ Ann opened a new game of Saboteur in Mine. Go to the group and press ✋ Join to play.']
    >>> forum = Table("g", -5, 0, title="Mine", topic_name="Table 2")
    >>> [n.text for n in subscriber_notices(opened, forum, {2: "en"})][0].split(". ")[0]
    '⛏ Ann opened a new game of Saboteur in Mine › Table 2'
    """
    creator = state.names.get(state.creator, "?") if state.creator is not None else "?"
    link = f"https://t.me/{table.group_username}" if table.group_username else ""
    if link and state.topic is not None:
        link += f"/{state.topic}"
    notices = []
    for player, language in subscribers.items():
        texts = Texts(language)
        text = texts.t(
            "notify.new_game",
            name=esc(creator),
            edition=texts.t(f"edition.{state.edition}"),
            group=esc(where(table, texts)),
        )
        keyboard = (
            kb.keyboard([[kb.Button(texts.t("notify.open_group"), url=link)]]) if link else ()
        )
        notices.append(PrivateText(player, text, keyboard, table.game_id))
    return notices
