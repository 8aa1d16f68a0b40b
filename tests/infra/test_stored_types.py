"""The stored event type names are a promise to every event already in a database.

Renaming one (changing an event's ``TYPE``) would leave the stored events of that type
undecodable and invisible to the projections, so the names are pinned here: changing
this list is a data migration, never a refactoring. A new event type is added to it; a
retired one stays, read through :mod:`domain.upcasting`.
"""

from __future__ import annotations

from domain.codec import EVENT_TYPES
from domain.upcasting import RETIRED
from infra.projector import _HANDLERS as PROJECTED

STORED_TYPES = {
    "action_played",
    "card_drawn",
    "cards_discarded",
    "computer_level_set",
    "computer_player_added",
    "computer_player_removed",
    "decision_opened",
    "decision_timed_out",
    "front_card_removed",
    "game_cancelled",
    "game_created",
    "game_ended",
    "game_started",
    "goal_revealed",
    "gold_paid",
    "gold_pick_started",
    "gold_picked",
    "hands_swapped",
    "hats_swapped",
    "map_looked",
    "path_placed",
    "player_came_back",
    "player_freed",
    "player_imprisoned",
    "player_joined",
    "player_left",
    "player_reminded",
    "player_went_away",
    "rockfall_played",
    "role_inspected",
    "round_ended",
    "round_started",
    "seat_handed_over",
    "settings_changed",
    "theft_planned",
    "theft_resolved",
    "theft_stopped",
    "thefts_started",
    "tool_broken",
    "tool_repaired",
}


def test_every_stored_event_type_keeps_its_name() -> None:
    # A retired type (action_played) is still read, as the events that replaced it.
    assert set(EVENT_TYPES) | set(RETIRED) == STORED_TYPES
    assert not set(EVENT_TYPES) & set(RETIRED)


def test_the_read_models_project_only_stored_types() -> None:
    assert set(PROJECTED) <= STORED_TYPES
