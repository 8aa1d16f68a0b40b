"""A player's private prompt: the call to action (naming the group) first, the deadline,
the news since their last prompt, their secrets; the board with their hand below it, and
the buttons of the decision they owe. Also its steps (a card's cells, the pass and discard
screens, the legend), its last word once the decision is made, and the player's status.

No private message shows the player's role in its first line: that line appears in the
phone's lock-screen preview.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from domain.cards import Action, card
from domain.commands import Command
from domain.moves import legal_moves
from domain.state import GameState, PlayerId
from domain.view import view_for
from tgbot.presenter import keyboards as kb
from tgbot.presenter.audience import Table
from tgbot.presenter.board import hand_cards, picture
from tgbot.presenter.caption import caption_pages, deadline_line, fit_caption
from tgbot.presenter.icons import FRONT, Icon, Line, legend
from tgbot.presenter.lobby import start_link
from tgbot.presenter.messages import Alert, ClosedPrompt, PrivateText, Prompt, PromptStep, Text
from tgbot.presenter.miniapp_links import prompt_button
from tgbot.presenter.narration import GOAL_PLACES, line
from tgbot.presenter.texts import Texts, hidden, mention, name_html

# Saboteur 2: a pass discards up to three cards; a front card goes for two (docs/rules.md §3.2).
MAX_PASSED: Final = 3
REMOVE_DISCARDS: Final = 2
CALLS = {
    "turn": (Icon.TURN, "prompt.turn"),
    "gold_pick": (Icon.GOLD, "prompt.gold_pick"),
    "theft": (Icon.THEFT, "prompt.theft"),
}


def status_lines(state: GameState, player: PlayerId, texts: Texts, *, hand: bool) -> list[str]:
    """The player's secrets, from their own view: dwarf card, gold, what lies in front
    of them, goals they mapped, roles they inspected (``hand``: their cards as text)."""
    view = view_for(state, player)
    lines: list[str] = []
    if view.phase not in ("playing", "finished") or view.viewer is None:
        return lines
    if view.role is not None:
        lines.append(
            f"{Icon.DWARF.emoji} "
            + texts.t("turn.your_role", role=hidden(texts.role_name(view.role)))
        )
    if view.allies:  # the saboteurs who know each other (docs/rules.md §8)
        mates = ", ".join(name_html(s.name) for s in view.seats if s.player in view.allies)
        lines.append(f"{Icon.DWARF.emoji} {texts.t('move.allies', names=hidden(mates))}")
    if view.gold is not None:
        lines.append(f"{Icon.GOLD.emoji} {texts.t('turn.your_gold', count=view.gold)}")
    if hand:
        cards = ", ".join(texts.card_name(view.edition, c) for c in sorted(view.hand)) or "—"
        lines.append(f"{Icon.CARDS.emoji} {texts.t('turn.your_hand', cards=cards)}")
    me = next((s for s in view.seats if s.player == view.viewer), None)
    if me is not None and me.front:
        front = ", ".join(f"{FRONT.get(k, '')} {texts.front_name(k)}" for k in me.front)
        lines.append(texts.t("turn.front_cards", cards=front))
    for cell, kind in sorted(view.known_goals.items()):
        goal = texts.t("goal.at", place=texts.t(_place(cell)), cell=f"{cell[0]},{cell[1]}")
        text = texts.t("turn.map_result", goal=goal, kind=texts.t(f"goal.{kind}"))
        lines.append(line(Icon.MAP, text).html())  # a sentence: "The middle goal …"
    names = {s.player: s.name for s in view.seats}
    for other, role in view.inspected.items():
        text = texts.t(
            "turn.inspection_result",
            name=name_html(names.get(other, "?")),
            role=hidden(texts.role_name(role)),
        )
        lines.append(f"{Icon.INSPECTION.emoji} {text}")
    if view.gold_pick_offer:
        values = ", ".join(str(v) for v in sorted(view.gold_pick_offer, reverse=True))
        lines.append(f"{Icon.GOLD.emoji} {texts.t('turn.gold_offer', values=values)}")
    return lines


def _place(cell: tuple[int, int]) -> str:
    return GOAL_PLACES.get(cell, "goal.middle")


def caption(
    state: GameState,
    player: PlayerId,
    table: Table,
    news: Sequence[Line] = (),
    first: str | None = None,
    now_ms: int | None = None,
) -> str:
    """The prompt's caption: ``first`` (else the call to action), the deadline (the time
    left counted from ``now_ms``, by default the table's now), the ``news``, the player's
    secrets. Too long, the oldest news go first, then the secrets from the last; the first
    two lines stay."""
    return fit_caption(*_caption_lines(state, player, table, news, first, now_ms))


def _caption_lines(
    state: GameState,
    player: PlayerId,
    table: Table,
    news: Sequence[Line] = (),
    first: str | None = None,
    now_ms: int | None = None,
    *,
    status: bool = True,
) -> tuple[list[str], list[int]]:
    """:func:`caption`'s lines (without the secrets unless ``status``), and the order in
    which they are left out when too long."""
    audience = table.player(player)
    texts = audience.texts
    pending = state.pending
    head: list[str] = []
    if pending is not None and pending.player == player and state.phase == "playing":
        icon, key = CALLS[pending.kind]
        head.append(first or f"{icon.emoji} {table.said(texts, key)}")
        now = table.now_ms if now_ms is None else now_ms
        head.append(deadline_line(audience, pending.deadline, now))
    elif first:
        head.append(first)
    secrets = status_lines(state, player, texts, hand=False)
    told = [n.html() for n in news if n.html() not in secrets]  # the deal's role: once
    lines = [*head, *told, *(secrets if status else [])]
    drop = [
        *range(len(head), len(head) + len(told)),
        *reversed(range(len(head) + len(told), len(lines))),
    ]
    return lines, drop


def decision(
    state: GameState,
    version: int,
    player: PlayerId,
    table: Table,
    news: Sequence[Line] = (),
    first: str | None = None,
    now_ms: int | None = None,
) -> Prompt:
    """The prompt of the decision ``player`` owes now, as a new message."""
    texts = table.player(player).texts
    moves = legal_moves(state, player)
    rows = root_rows(state, player, moves, table, texts)
    view = view_for(state, player)
    return Prompt(
        player,
        picture(view, hand=hand_cards(state, player, texts, kb.playable(moves))),
        caption(state, player, table, news, first, now_ms),
        kb.keyboard(rows),
        table.game_id,
        version,
        unreachable=unreachable_notice(state, player, table),
    )


def root_rows(
    state: GameState, player: PlayerId, moves: Sequence[Command], table: Table, texts: Texts
) -> list[kb.Row]:
    """A decision's first screen: its buttons, and the way onto the Mini App's board
    (when set up) below them."""
    rows = kb.root_rows(state, player, moves, texts)
    button = prompt_button(table, texts)
    if rows and button is not None:
        rows.append([button])
    return rows


def reminder(
    state: GameState, version: int, player: PlayerId, table: Table, which: str, at_ms: int
) -> Prompt:
    """A reminder is the prompt again, as the newest message with the buttons, opening
    with the time left when it was due (``at_ms``) — never the hand as a second wall of
    text."""
    texts = table.player(player).texts
    pending = state.pending
    left = (pending.deadline - at_ms) / 1000 if pending is not None else 0
    first = f"{Icon.DEADLINE.emoji} " + table.said(
        texts, f"reminder.{which}", left=texts.remaining(left)
    )
    return decision(state, version, player, table, (), first, at_ms)


def closed(
    state: GameState,
    version: int,
    player: PlayerId,
    table: Table,
    why: str,
    news: Sequence[Line] = (),
    keyboard: kb.Keyboard = (),
) -> ClosedPrompt:
    """The player's prompt once their decision is over: ``why`` (a ``prompt.closed_*``
    key: done, timed out, cancelled …) naming the group, then what happened — never a
    call to action."""
    texts = table.player(player).texts
    if why == "done" and state.phase == "finished":
        why = "game_over"
    first = table.said(texts, f"prompt.closed_{why}")
    icons = {
        "timed_out": Icon.TIMEOUT,
        "cancelled": Icon.CANCELLED,
        "game_over": Icon.ROUND_END,
        "handed_over": Icon.COMPUTER,
    }
    icon = icons.get(why)
    lines = [f"{icon.emoji} {first}" if icon else first, *(n.html() for n in news)]
    return ClosedPrompt(
        player,
        fit_caption(lines, list(range(1, len(lines)))),
        keyboard,
        or_send=any(n.own for n in news),
        game=table.game_id,
        version=version,
    )


def news_text(
    state: GameState,
    version: int,
    player: PlayerId,
    table: Table,
    news: Sequence[Line],
    keyboard: kb.Keyboard = (),
    with_status: bool = False,
) -> PrivateText:
    """News for a player who owes nothing now: the group named first, then the news (and
    their secrets, ``with_status``: a new round's dwarf card and hand)."""
    texts = table.player(player).texts
    lines = [table.said(texts, "news.head"), *(n.html() for n in news)]
    if with_status:
        lines += [
            line
            for line in status_lines(state, player, texts, hand=True)
            if not line.startswith(Icon.DWARF.emoji) or not any(n.icon is Icon.DWARF for n in news)
        ]
    return PrivateText(
        player,
        "\n".join(lines),
        keyboard,
        table.game_id,
        version,
        unreachable=unreachable_notice(state, player, table),
    )


def status(state: GameState, version: int, player: PlayerId, table: Table) -> PrivateText:
    """/hand with no decision owed: the player's dwarf card, gold, cards and the rest."""
    texts = table.player(player).texts
    view = view_for(state, player)
    head = table.said(texts, "prompt.status", round=view.round)
    lines = [f"{Icon.CARDS.emoji} {head}", *status_lines(state, player, texts, hand=True)]
    return PrivateText(
        player,
        "\n".join(lines),
        (),
        table.game_id,
        version,
        unreachable=unreachable_notice(state, player, table),
    )


def unreachable_notice(state: GameState, player: PlayerId, table: Table) -> Text:
    """What the group is told, once per game, when ``player`` cannot be written to."""
    return blocked_notice(state, [player], table)


def blocked_notice(state: GameState, players: Sequence[PlayerId], table: Table) -> Text:
    """The group told which players must open the private chat, with the deep link."""
    texts = table.group().texts
    link = start_link(table.bot_username, f"r{table.game_id}")
    names = ", ".join(mention(p, state.names.get(p, "?")) for p in players)
    return Text(
        table.chat_id,
        f"⚠️ {texts.t('blocked.notice', name=names)}",
        kb.keyboard([[kb.Button(texts.t("lobby.button_open_private"), url=link)]]),
        table.game_id,
        about=tuple(players),
    )


# ------------------------------------------------------------------------ steps


def step(
    state: GameState,
    version: int,
    player: PlayerId,
    press: kb.Press,
    table: Table,
    message_id: int,
    opening: Sequence[Line] = (),
) -> PromptStep | Alert:
    """A step inside the player's decision, drawn in place of the pressed prompt; or
    an alert (a card that cannot be played now: why). Every step but the legend keeps on
    top what the decision's prompt opened with (``opening``: the moves since the
    player's last turn, see :func:`tgbot.presenter.announce.opening`). Raises
    :class:`kb.BadPress`."""
    texts = table.player(player).texts
    moves = legal_moves(state, player)
    view = view_for(state, player)
    playable = kb.playable(moves)
    hand = hand_cards(state, player, texts, playable)

    def asking(question: str, *, status: bool) -> str:
        """The prompt's lines (its secrets if ``status``), then ``question``."""
        lines, drop = _caption_lines(state, player, table, opening, status=status)
        return fit_caption([*lines, "", question], drop)

    def drawn(caption_text: str, rows: list[kb.Row], pic: object = None) -> PromptStep:
        return PromptStep(
            player,
            message_id,
            caption_text,
            kb.keyboard(rows),
            pic,  # type: ignore[arg-type]
            table.game_id,
            version,
        )

    match press.action:
        case kb.CARD if press.card is not None and press.card in state.hand(player):
            if press.card not in playable:
                return Alert(texts.t(kb.unplayable_reason(state, player, press.card)))
            rows, labels = kb.card_rows(state, moves, press.card, texts, player)
            orientations = None
            if labels and kb.is_path_card(state, press.card):
                orientations = card(state.edition, press.card).kind
            text = asking(choose_text(state, press.card, texts), status=True)
            return drawn(text, rows, picture(view, labels, orientations, hand))
        case kb.PASS_MENU if state.edition != "base" and _ticked(press) > MAX_PASSED:
            return Alert(texts.t("turn.pass_three_only"))
        case kb.REMOVE_MENU if (press.page or 0) > 0 and _ticked(press) > REMOVE_DISCARDS:
            return Alert(texts.t("turn.remove_two_only"))
        case kb.PASS_MENU:
            rows = kb.pass_rows(state, player, moves, press.value or 0, texts)
            key = "turn.pass_base" if state.edition == "base" else "turn.pass_many"
            return drawn(asking(f"{Icon.PASS.emoji} {texts.t(key)}", status=False), rows)
        case kb.REMOVE_MENU:
            page = press.page or 0
            rows = kb.remove_rows(state, player, moves, page, press.value or 0, texts)
            kinds = kb.front_kinds(state, player)
            if 0 < page <= len(kinds):
                text = texts.t("turn.remove_cards", card=texts.front_name(kinds[page - 1]))
            else:
                text = texts.t("turn.remove_which")
            return drawn(asking(f"{Icon.REMOVE.emoji} {text}", status=False), rows)
        case kb.LEGEND:
            # Saboteur 2's legend is longer than a caption may be: it comes in pages.
            title, *lines = legend(texts, state.edition).split("\n")
            # Each page keeps the call to play (naming the group) on top.
            call = caption(state, player, table).split("\n")[0]
            pages = caption_pages([call, "", title], lines)
            page = min(press.page or 0, len(pages) - 1)
            row = [kb.Button(texts.t("turn.button_back"), kb.Press(kb.MENU))]
            if page > 0:
                row.append(
                    kb.Button(texts.t("legend.previous"), kb.Press(kb.LEGEND, page=page - 1))
                )
            if page + 1 < len(pages):
                row.append(kb.Button(texts.t("legend.next"), kb.Press(kb.LEGEND, page=page + 1)))
            return drawn(pages[page], [row])
        case kb.MENU:
            rows = root_rows(state, player, moves, table, texts)
            text = caption(state, player, table, opening)
            return drawn(text, rows, picture(view, hand=hand))
    raise kb.BadPress(press.action)


def _ticked(press: kb.Press) -> int:
    """How many cards a toggle screen's press has ticked."""
    return (press.value or 0).bit_count()


def choose_text(state: GameState, card_id: int, texts: Texts) -> str:
    """What the player is asked after picking a card."""
    played = card(state.edition, card_id)
    name = texts.card_name(state.edition, card_id)
    if played.path is not None:
        return texts.t("turn.choose_cell", card=name)
    if played.action is Action.ROCKFALL:
        return texts.t("turn.choose_path")
    if played.action is Action.MAP:
        return texts.t("turn.choose_goal")
    return texts.t("turn.choose_player", card=name)
