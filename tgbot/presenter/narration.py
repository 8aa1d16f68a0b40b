"""One narration per event type: what each event says, to the group, to one player, or —
once the game is over — to anyone, with every secret.

Live play (the board's caption, the prompts, the private news), reminders, round and game
ends and the replay's captions all tell events through :func:`narrate`, so a card or a
move is named the same everywhere. Secrets come in two ways only: from the reader's own
:func:`domain.view.view_for` (``Scene.after``), and from an event's own fields, each read
only when :meth:`Scene.sees` allows it (the reader is the player concerned, or the game
is over).
"""

from __future__ import annotations

from typing import assert_never

from domain import events as ev
from domain.events import Cell, Event, PlayerId
from tgbot.presenter import results
from tgbot.presenter.icons import ACTION, Icon, Line
from tgbot.presenter.scene import GOAL_PLACES as GOAL_PLACES
from tgbot.presenter.scene import Scene as Scene
from tgbot.presenter.texts import cell_text, computer_html, hidden, name_html


def line(icon: Icon | None, text: str, *, own: bool = False) -> Line:
    """A told line, its first letter a capital (a goal or a card may open it)."""
    return Line(icon, text[:1].upper() + text[1:], own)


def narrate(event: Event, scene: Scene) -> list[Line]:
    """What ``event`` says to ``scene``'s reader: no line when it says nothing to them."""
    t = scene.texts.t
    match event:
        case ev.GameCreated():
            edition = t(f"edition.{event.edition}")
            return [line(None, t("story.created", name=scene.name(event.creator), edition=edition))]
        case ev.PlayerJoined():
            return [line(None, t("story.joined", name=name_html(event.name)))]
        case ev.PlayerLeft() | ev.ComputerPlayerRemoved():
            return [line(None, t("story.left", name=scene.name(event.player)))]
        case ev.ComputerPlayerAdded():
            name = computer_html(event.name, event.level, scene.texts)
            return [line(None, t("story.computer_joined", name=name))]
        case ev.ComputerLevelSet():
            level = t(f"level.{event.level}")
            if event.player is None:
                return [line(Icon.COMPUTER, t("story.level_set_all", level=level))]
            return [
                line(
                    Icon.COMPUTER, t("story.level_set", name=scene.name(event.player), level=level)
                )
            ]
        case ev.SeatHandedOver():
            if event.player == scene.viewer and not scene.full:
                key = f"bot.handed_over_private_{event.reason}"
                return [line(Icon.COMPUTER, t(key), own=True)]
            who = scene.name(event.player)
            by = name_html(scene.by_name) if scene.by_name else scene.name(event.by)
            key = f"story.handed_over_{event.reason}"
            return [line(Icon.COMPUTER, t(key, name=who, by=by))]
        case ev.SettingsChanged():
            edition = t(f"edition.{event.edition}")
            timer = scene.texts.timer(event.turn_seconds)
            return [line(None, t("story.settings", edition=edition, timer=timer))]
        case ev.GameCancelled():
            who = name_html(scene.by_name) if scene.by_name else scene.name(event.by)
            return [line(Icon.CANCELLED, t("story.cancelled", name=who))]
        case ev.GameStarted():
            if scene.viewer is not None:
                return []  # a player learns the start with the first round's deal
            edition = t(f"edition.{scene.edition}")
            return [line(None, t("lobby.started", count=len(event.seating), edition=edition))]
        case ev.RoundStarted():
            return _round_started(event, scene)
        case ev.DecisionOpened():
            return []
        case ev.PathPlaced():
            card = scene.card(event.card, event.rotated)
            text = t(
                "move.path_placed",
                name=scene.actor(event.player),
                card=card,
                cell=cell_text(event.cell),
            )
            return [line(None, text)]
        case ev.GoalRevealed():
            if event.kind == "goal_treasure":
                return [line(Icon.TREASURE, t("move.goal_treasure", goal=scene.goal(event.cell)))]
            return [line(Icon.STONE, t("move.goal_stone", goal=scene.goal(event.cell)))]
        case (
            ev.ToolBroken()
            | ev.ToolRepaired()
            | ev.RockfallPlayed()
            | ev.MapLooked()
            | ev.RoleInspected()
            | ev.HandsSwapped()
            | ev.HatsSwapped()
            | ev.TheftPlanned()
            | ev.TheftStopped()
            | ev.PlayerImprisoned()
            | ev.PlayerFreed()
        ):
            return _action(event, scene)
        case ev.CardsDiscarded():
            if scene.sees(event.player):
                text = t(
                    "move.passed_cards",
                    name=scene.actor(event.player),
                    count=len(event.cards),
                    cards=scene.cards(event.cards),
                )
            else:
                text = t("move.passed", name=scene.name(event.player), count=len(event.cards))
            return [line(Icon.PASS, text)]
        case ev.FrontCardRemoved():
            front = scene.texts.front_name(event.removed)
            if scene.sees(event.player):
                text = t(
                    "move.front_removed_cards",
                    name=scene.actor(event.player),
                    card=front,
                    cards=scene.cards(event.cards),
                )
            else:
                text = t("move.front_removed", name=scene.name(event.player), card=front)
            return [line(Icon.REMOVE, text)]
        case ev.CardDrawn():
            if not scene.full:
                return []  # the hand is shown with the prompt
            text = t("move.drew", name=scene.name(event.player), card=scene.card(event.card))
            return [line(None, text)]
        case ev.DecisionTimedOut():
            return [line(Icon.TIMEOUT, t("move.timed_out", name=scene.actor(event.player)))]
        case ev.PlayerReminded():
            return []  # the reminder is the player's prompt again (see presenter.prompt)
        case ev.PlayerWentAway():
            if event.player == scene.viewer and not scene.full:
                if scene.after.away_play == "computer":
                    return []  # the seat handed over next tells them
                return [line(Icon.AWAY, t("bot.away_private"), own=True)]
            return [line(Icon.AWAY, t("away.went", name=scene.name(event.player)))]
        case ev.PlayerCameBack():
            return [line(Icon.BACK, t("away.back", name=scene.name(event.player)))]
        case ev.RoundEnded():
            return results.round_ended(event, scene)
        case ev.GoldPaid():
            return _gold_paid(event, scene)
        case ev.GoldPickStarted():
            first = event.order[0] if event.order else None
            text = t(
                "move.gold_pick_started",
                count=len(event.nuggets),
                order=scene.names_of(dict.fromkeys(event.order)),
            )
            lines = [line(Icon.GOLD, text)]
            if scene.sees(first) and event.nuggets:
                values = ", ".join(str(v) for v in sorted(event.nuggets, reverse=True))
                lines.append(line(Icon.GOLD, t("move.nuggets_drawn", values=values), own=True))
            return lines
        case ev.GoldPicked():
            if event.player == scene.viewer and not scene.full:  # to them: "You kept …"
                total = scene.after.gold if scene.after.gold is not None else event.value
                text = t("move.gold_picked_you", count=event.value, total=total)
                return [line(Icon.GOLD, text, own=True)]
            if scene.sees(event.player):
                text = t(
                    "move.gold_picked_value", name=scene.actor(event.player), count=event.value
                )
                return [line(Icon.GOLD, text, own=not scene.full)]
            return [line(Icon.GOLD, t("move.gold_picked", name=scene.name(event.player)))]
        case ev.TheftsStarted():
            return [line(Icon.THEFT, t("move.thefts_started", names=scene.names_of(event.order)))]
        case ev.TheftResolved():
            if event.victim is None:
                return [line(Icon.THEFT, t("move.theft_nobody", thief=scene.actor(event.thief)))]
            text = t("move.theft", thief=scene.actor(event.thief), victim=scene.name(event.victim))
            return [line(Icon.THEFT, text)]
        case ev.GameEnded():
            return results.game_ended(event, scene)
    return []  # pragma: no cover - every event type is matched above


def _round_started(event: ev.RoundStarted, scene: Scene) -> list[Line]:
    t = scene.texts.t
    roles = dict(event.roles)
    dealt = not scene.full and scene.viewer in roles  # a player's news: their new deal
    lines = [
        line(
            Icon.ROUND,
            t("move.round_started", round=event.round, name=scene.name(event.first_player)),
            own=dealt,
        )
    ]
    if scene.full:
        dwarves = ", ".join(
            t("story.role_of", name=scene.name(p), role=scene.role(r)) for p, r in event.roles
        )
        lines.append(line(Icon.DWARF, t("move.roles", roles=dwarves)))
        goals = ", ".join(
            t("story.goal_is", goal=scene.goal(c), kind=t(f"goal.{k}"))
            for c, k in zip(scene.after.goal_cells, event.goals, strict=True)
        )
        lines.append(line(None, t("story.goals", goals=goals)))
        if scene.edition == "base" and event.dwarf_pile:
            spare = ", ".join(scene.role(r) for r in event.dwarf_pile)
            lines.append(line(Icon.DWARF, t("move.spare", roles=spare)))
        lines.append(line(Icon.CARDS, t("story.hands")))
        lines.extend(
            line(None, t("story.hand_of", name=scene.name(p), cards=scene.cards(sorted(h))))
            for p, h in event.hands
        )
    elif dealt:
        role = hidden(scene.role(roles[scene.viewer]))  # type: ignore[index]
        lines.append(line(Icon.DWARF, t("turn.your_role", role=role), own=True))
        told = "saboteurs_know_each_other" in scene.after.variants
        if told and roles[scene.viewer] == "saboteur":  # type: ignore[index]
            # The saboteurs who know each other (docs/rules.md §8) are told the others.
            allies = scene.after.allies
            text = (
                t("move.allies", names=hidden(scene.names_of(allies)))
                if allies
                else t("move.allies_none")
            )
            lines.append(line(Icon.DWARF, text, own=True))
    return lines


def _card(event: ev.ActionEvent) -> tuple[str, PlayerId | None, Cell | None, str | None]:
    """How an action card is told: its text's name under ``move.action``, the player it
    targeted, the cell, the tool its text names (a repair's)."""
    match event:
        case ev.ToolBroken():
            return f"broken_{event.tool}", event.target, None, None
        case ev.ToolRepaired():
            # Told by the tool repaired (a two-tool card's too), so a language can give it
            # its article: "la linterna", "die Lampe", "lampa, którą ma".
            return f"repair_{event.tool}", event.target, None, event.tool
        case ev.RockfallPlayed():
            return "rockfall", None, event.cell, None
        case ev.MapLooked():
            return "map", None, event.cell, None
        case ev.RoleInspected():
            return "inspection", event.target, None, None
        case ev.HandsSwapped():
            return "swap_hand", event.target, None, None
        case ev.HatsSwapped():
            return "swap_hats", event.target, None, None
        case ev.TheftPlanned():
            return "theft", event.player, None, None
        case ev.TheftStopped():
            return "hands_off", event.target, None, None
        case ev.PlayerImprisoned():
            return "trapped", event.target, None, None
        case ev.PlayerFreed():
            return "free_at_last", event.target, None, None
    assert_never(event)


def _action(event: ev.ActionEvent, scene: Scene) -> list[Line]:
    t = scene.texts
    action, target, cell, tool = _card(event)
    icon = ACTION.get(action)
    key = f"move.action.{action}"
    if target is not None and target == event.player and t.has(f"{key}.self"):
        key += ".self"  # "Bob repaired their own pickaxe"
    mine = target is not None and target == scene.viewer and target != event.player
    if mine and not scene.full and t.has(f"{key}.you"):
        key += ".you"  # "Ann broke your pickaxe"
    text = t.t(
        key,
        name=scene.actor(event.player),
        target=scene.name(target),
        cell=cell_text(cell) if cell is not None else "",
        goal=scene.goal(cell) if cell is not None else "",
        tool=t.tool_name(tool) if tool else "",
    )
    lines = [line(icon, text)]
    own = not scene.full
    # The map and the inspection show the actor; swap hats deals the target a dwarf card.
    match event:
        case ev.MapLooked() if scene.sees(event.player):
            goal = t.t(f"goal.{event.kind}")
            text = t.t("turn.map_result", goal=scene.goal(event.cell), kind=goal)
            lines.append(line(Icon.MAP, text, own=own))
        case ev.RoleInspected() if scene.sees(event.player):
            role = scene.role(event.role)
            text = t.t(
                "turn.inspection_result",
                name=scene.name(event.target),
                role=role if scene.full else hidden(role),
            )
            lines.append(line(Icon.INSPECTION, text, own=own))
        case ev.HatsSwapped() if scene.full:
            text = t.t(
                "story.swap_hats_result", name=scene.name(event.target), role=scene.role(event.role)
            )
            lines.append(line(Icon.SWAP_HATS, text))
        case ev.HatsSwapped() if scene.sees(event.target):
            role = hidden(scene.role(event.role))
            lines.append(line(Icon.DWARF, t.t("turn.swap_hats_yours", role=role), own=True))
        case ev.HandsSwapped() if event.target == scene.viewer and not scene.full:
            # One line, not "Bo swapped hands with you." and then the same again with where
            # the new cards are: told alone too, when no prompt goes with it.
            received = t.t("turn.swap_hand_received", name=scene.name(event.player))
            lines[0] = line(Icon.SWAP_HAND, received, own=True)
    return lines


def _gold_paid(event: ev.GoldPaid, scene: Scene) -> list[Line]:
    t = scene.texts.t
    if scene.full:
        paid = ", ".join(
            t("story.gold_of", name=scene.name(p), count=g) for p, g in event.payouts
        ) or t("story.nobody")
        return [line(Icon.GOLD, t("story.gold_paid", payouts=paid))]
    for player, amount in event.payouts:
        if player == scene.viewer:
            total = scene.after.gold if scene.after.gold is not None else amount
            return [
                line(Icon.GOLD, t("move.gold_paid_private", count=amount, total=total), own=True)
            ]
    return []
