"""New events of one game, as the messages they call for.

:func:`announce` is given the state before, the new events (each with when it was
recorded and who really pressed), and the game's :class:`~tgbot.presenter.audience.Table`;
it folds the events and returns, in order, what each chat must get: the lobby redrawn or
closed, the group's board of the round (a new one when a round begins, the ended round's
board first getting its last moves), the round's and the game's end, the players' prompts
closed with their last word, each new decision's prompt, reminders, and private news.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from domain import events as ev
from domain.events import Event
from domain.evolve import evolve
from domain.state import Decision, GameState, PlayerId
from domain.view import view_for
from tgbot.presenter import board, lobby, prompt, standings
from tgbot.presenter import keyboards as kb
from tgbot.presenter.audience import Table, is_person
from tgbot.presenter.icons import Icon, Line
from tgbot.presenter.messages import Board, Message, Text
from tgbot.presenter.miniapp_links import board_button
from tgbot.presenter.narration import Scene, narrate
from tgbot.presenter.roundlog import NOT_MOVES, Entry, add, public_scene, since_last_turn
from tgbot.presenter.texts import Texts

LOBBY_EVENTS = (
    ev.GameCreated,
    ev.PlayerJoined,
    ev.PlayerLeft,
    ev.ComputerPlayerAdded,
    ev.ComputerPlayerRemoved,
    ev.ComputerLevelSet,
    ev.SettingsChanged,
)
# Told in a message of their own after the board, not among the board's moves.
ENDINGS = (ev.RoundEnded, ev.GameEnded, ev.GameCancelled, ev.GameStarted)
CLOSED_BY = {ev.DecisionTimedOut: "timed_out", ev.GameCancelled: "cancelled"}


@dataclass(frozen=True, slots=True)
class Told:
    """An event to announce: when it was recorded, and who really pressed (an admin who
    acted for the creator), if anyone."""

    event: Event
    at_ms: int = 0
    by_name: str = ""


def scene(
    state: GameState,
    viewer: PlayerId | None,
    texts: Texts,
    by_name: str = "",
    before: GameState | None = None,
) -> Scene:
    """The scene of the event that led to ``state`` from ``before``: the players are named
    as either knew them (one who just left is named still)."""
    names = state.names if before is None else {**before.names, **state.names}
    return Scene(texts, viewer, state.edition, names, view_for(state, viewer), by_name=by_name)


def game_over_lines(state: GameState, table: Table) -> list[str]:
    """What the game-over message says beyond the game's end: the rating changes and the
    achievements earned."""
    group = table.group().texts
    named = scene(state, None, group)
    lines = [
        standings.rating_line(table.ratings, named.name, group),
        standings.award_line(table.awards, named.name, group),
    ]
    return [line.html() for line in lines if line is not None]


def award_notes(state: GameState, table: Table) -> list[Text]:
    """The new achievements, told in private to each person who earned some: one
    message each. Who left the game hears nothing more of it (the group's line names
    theirs; /achievements lists them)."""
    by_player: dict[PlayerId, list[str]] = {}
    for player, achievement in table.awards:
        if is_person(state, player) and state.handed_over.get(player) != "left":
            by_player.setdefault(player, []).append(achievement)
    notes = []
    for player, names in by_player.items():
        texts = table.player(player).texts
        note = standings.award_note(names, table.group_name(texts), texts)
        notes.append(Text(player, note, game=table.game_id))
    return notes


def game_over_keyboard(table: Table, texts: Texts) -> kb.Keyboard:
    """The buttons under the game-over message, one row each: its replay, play again,
    notify me of new games here."""
    replay = [kb.replay_button(table.game_id, texts.t("bot.button_replay"))]
    return kb.keyboard([replay, *kb.after_game_rows(texts)])


@dataclass
class _Batch:
    table: Table
    state: GameState
    version: int
    missing: frozenset[PlayerId]
    earlier: Sequence[Event] = ()
    out: list[Message] = field(default_factory=list)
    moves: list[Entry] = field(default_factory=list)
    recap: dict[PlayerId, list[Entry]] = field(default_factory=dict)
    opening: dict[PlayerId, list[Line]] = field(default_factory=dict)
    after: list[Text] = field(default_factory=list)
    news: dict[PlayerId, list[Line]] = field(default_factory=lambda: defaultdict(list))
    closed: dict[PlayerId, str] = field(default_factory=dict)
    reminded: dict[PlayerId, tuple[str, int]] = field(default_factory=dict)
    went_away: set[PlayerId] = field(default_factory=set)
    board_changed: bool = False
    new_board: bool = False
    lobby_changed: bool = False
    by_name: str = ""

    def run(self, told: Sequence[Told]) -> list[Message]:
        table = self.table
        group = table.group().texts
        start_pending = self.state.pending
        self.remember(group)
        for item in told:
            event = item.event
            if isinstance(event, ev.RoundStarted):
                self.flush_board()  # the ended round's board gets its last lines first
                self.new_board = True
                self.recap = {}
            before = self.state
            self.state = state = evolve(before, event)
            self.version += 1
            if before.pending is not None and (
                state.pending is None or state.pending.id != before.pending.id
            ):
                self.closed.setdefault(before.pending.player, CLOSED_BY.get(type(event), "done"))
            public = narrate(event, scene(state, None, group, item.by_name, before))
            if public and not isinstance(event, (*ENDINGS, *LOBBY_EVENTS)):
                add(self.moves, event, public)
                self.board_changed = True
            for player in state.seating:
                if is_person(state, player):
                    texts = table.player(player).texts
                    self.news[player].extend(
                        narrate(event, scene(state, player, texts, before=before))
                    )
            self.react(event, before, item, public)
        # A practice game has no lobby: it is filled and started at once, in private.
        if self.lobby_changed and self.state.phase == "lobby" and not table.practice:
            self.out.append(lobby.lobby(self.state, self.version, table))
        self.flush_board()
        self.private(start_pending)
        return self.out

    def remember(self, group: Texts) -> None:
        """The round so far, from the ``earlier`` events: the board's moves, and each
        person's moves since their last prompt."""
        state = self.state
        if not self.earlier or state.round == 0:
            return
        # Only the last moves fit the board's caption: only they are told again.
        start, moves = len(self.earlier), 0
        while start > 0 and moves < board.BOARD_MOVES:
            start -= 1
            event = self.earlier[start]
            moves += not isinstance(event, (*NOT_MOVES, ev.GoalRevealed))
        public = public_scene(state, group)
        for event in self.earlier[start:]:
            add(self.moves, event, narrate(event, public))
        for player in state.seating:
            if is_person(state, player):
                texts = self.table.player(player).texts
                mine = scene(state, player, texts)
                self.recap[player] = since_last_turn(player, self.earlier, mine)

    def react(self, event: Event, before: GameState, item: Told, public: list[Line]) -> None:
        table, state = self.table, self.state
        text = "\n".join(line.html() for line in public)
        match event:
            case _ if isinstance(event, LOBBY_EVENTS):
                self.lobby_changed = True
            case ev.GameStarted():
                if not table.practice:
                    self.out.append(lobby.closed(before, table, text))
                missing = [p for p in state.seating if p in self.missing and is_person(state, p)]
                if missing:
                    self.out.append(prompt.blocked_notice(state, missing, table))
            case ev.GameCancelled():
                self.by_name = item.by_name
                self.lobby_changed = False
                if before.phase == "lobby":
                    self.out.append(lobby.closed(before, table, text, or_send=True))
                else:
                    self.after.append(Text(table.chat_id, text, game=table.game_id))
                    self.board_changed = True
                    for player in state.seating:
                        self.closed[player] = "cancelled"
            case ev.DecisionOpened():
                self.board_changed = True
            case ev.PlayerWentAway():
                self.went_away.add(event.player)
            case ev.SeatHandedOver():
                self.went_away.add(event.player)
                if before.pending is not None and before.pending.player == event.player:
                    self.closed[event.player] = "handed_over"
            case ev.PlayerReminded():
                self.reminded[event.player] = (event.which, item.at_ms)
            case ev.RoundEnded():
                self.board_changed = True
                self.after.append(Text(table.chat_id, text, game=table.game_id))
            case ev.GameEnded():
                self.board_changed = True
                text = "\n".join([text, *game_over_lines(state, table)])
                keys = game_over_keyboard(table, table.group().texts)
                self.after.append(Text(table.chat_id, text, keys, table.game_id, self.version))
                self.after.extend(award_notes(state, table))
            case _:
                pass

    def flush_board(self) -> None:
        """The board as the state now is (when it changed), then the messages that follow
        it: a round's or the game's end, a cancel."""
        state = self.state
        if state.round > 0 and (self.board_changed or self.new_board):
            group = self.table.group()
            self.out.append(
                Board(
                    self.table.chat_id,
                    board.picture(view_for(state, None)),
                    board.caption(
                        state, group, self.table, [m.html() for m in self.moves], self.by_name
                    ),
                    self.new_board,
                    self.board_keyboard(),
                    game=self.table.game_id,
                    version=self.version,
                )
            )
        self.moves = []
        self.board_changed = self.new_board = False
        self.out.extend(self.after)
        self.after = []

    def board_keyboard(self) -> kb.Keyboard:
        """The board's buttons: the round's log (📜), one to hand a person's seat to the
        computer while the game runs (the creator's or an admin's to press: it opens a
        chooser of the seats), and the way into the Mini App (when set up); a cancelled
        game's board has none."""
        state, texts = self.state, self.table.group().texts
        rows: list[kb.Row] = [[kb.log_button(texts)]] if state.phase != "cancelled" else []
        if state.phase == "playing" and kb.handable_seats(state):
            rows.append(kb.hand_seat_row(texts))
        button = board_button(self.table, texts)
        if button is not None and state.phase != "cancelled":
            rows.append([button])
        return kb.keyboard(rows)

    def private(self, start_pending: Decision | None) -> None:
        table, state, version = self.table, self.state, self.version
        pending = state.pending
        opened = (
            pending.player
            if pending is not None
            and state.phase == "playing"
            and (start_pending is None or start_pending.id != pending.id)
            # An away player's turns pass at once, and the computer makes its own
            # decisions: no prompt until they are back.
            and pending.player not in state.away
            and not pending.computer
            else None
        )
        for player in state.seating:
            if not is_person(state, player):
                continue
            if state.handed_over.get(player) == "left" and player not in self.went_away:
                continue  # who left is told so once, then nothing of the seat's secrets
            news = self.news.get(player, [])
            back = self.back_button(player)
            if player in self.closed:
                said = [] if player == opened else news
                self.out.append(
                    prompt.closed(state, version, player, table, self.closed[player], said, back)
                )
                if player != opened:
                    continue
            if player == opened:
                recap = [entry.line for entry in self.recap.get(player, [])]
                lines = self.opening[player] = [*recap, *news]
                self.out.append(prompt.decision(state, version, player, table, lines))
            elif player in self.reminded and pending is not None and pending.player == player:
                which, at_ms = self.reminded[player]
                self.out.append(prompt.reminder(state, version, player, table, which, at_ms))
            elif any(line.own for line in news):
                own = [line for line in news if line.own]
                # A new round: its dwarf card and hand come with the news.
                dealt = any(line.icon is Icon.ROUND for line in own)
                self.out.append(prompt.news_text(state, version, player, table, own, back, dealt))

    def back_button(self, player: PlayerId) -> kb.Keyboard:
        """An "I'm back" button for a player who went away or whose seat was handed over in
        these events (and still is; one who left does not come back)."""
        state = self.state
        handed = state.handed_over.get(player)
        if player not in self.went_away or handed == "left":
            return ()
        if player not in state.away and handed is None:
            return ()
        texts = self.table.player(player).texts
        return kb.keyboard([[kb.Button(texts.t("bot.button_come_back"), kb.Press(kb.COME_BACK))]])


def announce(
    table: Table,
    state: GameState,
    version: int,
    told: Sequence[Told],
    *,
    missing: frozenset[PlayerId] = frozenset(),
    earlier: Sequence[Event] = (),
) -> tuple[list[Message], GameState]:
    """The messages ``told`` (the events after ``version``, applied to ``state``) call for,
    in order, and the state they lead to. ``missing``: players who never opened the
    private chat (named in the group when the game starts). ``earlier``: the events of
    ``state``'s round up to ``version``, from its start: the board shows the round's last
    moves, and each prompt opens with the moves since its player's last one."""
    batch = _Batch(table, state, version, missing, earlier)
    return batch.run(told), batch.state


def opening(
    table: Table,
    state: GameState,
    version: int,
    told: Sequence[Told],
    player: PlayerId,
    *,
    earlier: Sequence[Event] = (),
) -> list[Line]:
    """What the prompt that ``told`` opened for ``player`` begins with, as
    :func:`announce` sends it (the moves since their last prompt, then the news of
    ``told``); empty when ``told`` opens them no prompt. Each step inside that decision,
    and the prompt sent again, keeps these lines on top."""
    batch = _Batch(table, state, version, frozenset(), earlier)
    batch.run(told)
    return batch.opening.get(player, [])
