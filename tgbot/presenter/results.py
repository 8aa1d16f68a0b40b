"""How a round and a game end, told so they explain themselves (docs/rules.md §6).

The round's end names who reached the treasure and where it lay, turns every dwarf card
up, and — in Saboteur 2 — says which doors stood on the way, which team or teams won and
why, and what the boss, the profiteer and the geologists get (the crystals counted). Shares
follow from public facts (the roles turned up, the crystals on the table); each player's
gold stays their own until the game ends.
"""

from __future__ import annotations

from domain import board as geo
from domain import events as ev
from domain.cards import Role
from domain.scoring import SABOTEUR2_DISCOUNT, base_saboteur_share, saboteur2_share
from tgbot.presenter.icons import Icon, Line
from tgbot.presenter.scene import Scene
from tgbot.presenter.variants import variant_names

TEAMS = (Role.BLUE_DIGGER.value, Role.GREEN_DIGGER.value)


def round_ended(event: ev.RoundEnded, scene: Scene) -> list[Line]:
    t = scene.texts.t
    if event.treasure_reached and event.reached_by is not None:
        head = t("move.round_ended_treasure", round=event.round, name=scene.name(event.reached_by))
    else:
        head = t("move.round_ended_blocked", round=event.round)
    lines = [Line(Icon.ROUND_END, head)]
    treasure = treasure_cell(scene)
    if treasure is not None:
        lines.append(Line(Icon.TREASURE, t("results.treasure_was", goal=scene.goal(treasure))))
    roles = ", ".join(
        t("story.role_of", name=scene.name(p), role=scene.role(r)) for p, r in event.roles
    )
    lines.append(Line(Icon.DWARF, t("move.roles", roles=roles)))
    if event.spare:  # base: the dwarf card nobody was dealt; saboteur2: none
        spare = ", ".join(scene.role(r) for r in event.spare)
        lines.append(Line(Icon.DWARF, t("move.spare", roles=spare)))
    if scene.edition == "saboteur2":
        lines.extend(_saboteur2(event, scene))
    else:
        lines.extend(_base(event, scene))
    return lines


def treasure_cell(scene: Scene) -> geo.Cell | None:
    """Where the treasure lay: face up on the board, or under a goal the round's end
    turned up."""
    view = scene.after
    for cell, tile in view.board.items():
        if tile.face_up and tile.kind == geo.TREASURE_KIND:
            return cell
    for cell, kind in view.revealed_goals.items():
        if kind == geo.TREASURE_KIND:
            return cell
    return None


def _winners(event: ev.RoundEnded, scene: Scene) -> Line:
    t = scene.texts.t
    if not event.winners:
        return Line(Icon.WINNERS, t("move.no_winners"))
    key = "move.winners" if len(event.winners) > 1 else "move.winner"
    return Line(Icon.WINNERS, t(key, names=scene.names_of(event.winners)))


def _base(event: ev.RoundEnded, scene: Scene) -> list[Line]:
    t = scene.texts.t
    lines = [_winners(event, scene)]
    saboteurs = [p for p, r in event.roles if r == Role.SABOTEUR.value]
    if not event.winners and not saboteurs and not event.treasure_reached:
        # Nobody wins: the tunnel failed and nobody held the dwarf card that wins then.
        lines = [Line(Icon.WINNERS, t("move.no_winners_no_saboteur"))]
    if event.treasure_reached:
        lines.extend(_treasure_paid(event, scene))
    elif saboteurs:
        share = base_saboteur_share(len(saboteurs))
        key = "results.base_saboteurs" if len(saboteurs) > 1 else "results.base_saboteur"
        lines.append(Line(Icon.GOLD, t(key, count=share)))
    return lines


def _treasure_paid(event: ev.RoundEnded, scene: Scene) -> list[Line]:
    """Who shares a base treasure's gold: the gold-diggers, or under the variants
    (docs/rules.md §8) the selfish dwarf alone, and not the greedy ones with a broken tool."""
    t = scene.texts.t
    roles = dict(event.roles)
    finder = event.reached_by
    selfish = finder is not None and roles.get(finder) == Role.SELFISH_DWARF.value
    if selfish and event.winners == (finder,):
        return [Line(Icon.GOLD, t("results.selfish_alone", name=scene.name(finder)))]
    lines = [Line(Icon.GOLD, t("results.base_diggers"))] if event.winners else []
    if "greedy_dwarf" in scene.after.variants:
        left = [p for p, r in event.roles if r == Role.GOLD_DIGGER.value and p not in event.winners]
        if left:
            lines.append(Line(Icon.GOLD, t("results.greedy_left_out", names=scene.names_of(left))))
    return lines


def _saboteur2(event: ev.RoundEnded, scene: Scene) -> list[Line]:
    """Doors, teams and why, the shares; the thefts follow as their own lines."""
    t = scene.texts.t
    view = scene.after
    roles = dict(event.roles)
    trapped = [s.player for s in view.seats if "trapped" in s.front]
    lines: list[Line] = []
    if event.treasure_reached:
        blue, green = geo.teams_can_pass(view.board)
        doors = {(True, True): "both", (True, False): "blue", (False, True): "green"}
        lines.append(Line(None, t(f"results.doors_{doors.get((blue, green), 'none')}")))
        by = roles.get(event.reached_by) if event.reached_by is not None else None
        lines.append(
            Line(Icon.WINNERS, t(_why(by, blue, green), name=scene.name(event.reached_by)))
        )
    else:
        lines.append(Line(Icon.WINNERS, t(_blocked(event, roles))))
    if event.winners:
        share = saboteur2_share(len(event.winners))
        discounted = any(
            roles.get(p) in (Role.BOSS.value, Role.PROFITEER.value) for p in event.winners
        )
        if len(event.winners) == 1:
            said = t("results.share_one", name=scene.name(event.winners[0]), count=share)
        else:
            # The boss and the profiteer get less, told next: "each, except:" says so first.
            key = "results.share_except" if discounted else "results.share"
            said = t(key, names=scene.names_of(event.winners), count=share)
        lines.append(Line(Icon.GOLD, said))
        for role, key in (
            (Role.BOSS, "results.share_boss"),
            (Role.PROFITEER, "results.share_profiteer"),
        ):
            holders = [p for p in event.winners if roles.get(p) == role.value]
            if holders:
                amount = max(0, share - SABOTEUR2_DISCOUNT[role])
                lines.append(Line(Icon.GOLD, t(key, name=scene.names_of(holders), count=amount)))
    else:
        lines.append(_winners(event, scene))
    geologists = [p for p, r in event.roles if r == Role.GEOLOGIST.value and p not in trapped]
    if geologists:
        crystals = geo.crystals(view.board)
        each = crystals // len(geologists)
        lines.append(
            Line(
                Icon.CRYSTAL,
                t(
                    "results.geologists" if len(geologists) > 1 else "results.geologist",
                    names=scene.names_of(geologists),
                    crystals=crystals,
                    count=each,
                ),
            )
        )
    if trapped:
        key = "results.trapped" if len(trapped) > 1 else "results.trapped_one"
        lines.append(Line(Icon.TRAPPED, t(key, names=scene.names_of(trapped))))
    return lines


def _blocked(event: ev.RoundEnded, roles: dict[int, str]) -> str:
    """The catalog key for a round whose treasure was not reached: the saboteurs win —
    unless none was dealt, or every one is trapped (then nobody may win but a profiteer)."""
    if any(roles.get(p) == Role.SABOTEUR.value for p in event.winners):
        return "results.saboteurs_win"
    if any(r == Role.SABOTEUR.value for r in roles.values()):
        return "results.saboteurs_trapped"
    return "results.no_saboteur"


def _why(by: str | None, blue: bool, green: bool) -> str:
    """The catalog key that says which team or teams win, and why (docs/rules.md §6.2)."""
    if by in TEAMS:
        own, other = ("blue", "green") if by == TEAMS[0] else ("green", "blue")
        passes = {"blue": blue, "green": green}
        if passes[own]:
            return f"results.{own}_digger_{own}_wins"
        if passes[other]:
            return f"results.{own}_digger_{other}_wins"
        return f"results.{own}_digger_none_wins"
    if blue and green:
        return "results.other_both_win"
    if blue or green:
        return f"results.other_{'blue' if blue else 'green'}_wins"
    return "results.other_none_wins"


def game_ended(event: ev.GameEnded, scene: Scene) -> list[Line]:
    t = scene.texts.t
    winners = scene.names_of(event.winners) if event.winners else "—"
    key = "move.game_ended" if len(event.winners) != 1 else "move.game_ended_one"
    lines = [Line(Icon.WINNERS, t(key, names=winners))]
    lines.extend(
        Line(None, t("move.score_line", name=scene.name(p), count=g))
        for p, g in sorted(event.gold, key=lambda pg: -pg[1])
    )
    variants = scene.after.variants
    if variants:  # a game with variants is counted apart (docs/rules.md §8): say which
        named = variant_names(variants, scene.texts, len(scene.after.seats))
        lines.append(Line(Icon.VARIANTS, t("lobby.variants", variants=named)))
    return lines
