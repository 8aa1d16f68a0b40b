"""The durable outbox on SQLite and PostgreSQL: recorded before sending, settled after,
retried with backoff, parked and logged, never dropped."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from infra.db import make_engine
from infra.deliveries import (
    PARKED,
    PENDING,
    SENT,
    SUPERSEDED,
    UNKNOWN,
    Deliveries,
    Delivery,
    backoff_ms,
)

T0 = 1_800_000_000_000


@pytest.fixture
def outbox(db_url: str) -> Iterator[Deliveries]:
    engine: Engine = make_engine(db_url)
    yield Deliveries(engine, max_attempts=3)
    engine.dispose()


def prompt(game: str, version: int, decision: int = 4, chat: int = 101) -> Delivery:
    return Delivery(
        f"{game}:{version}:prompt:{chat}",
        game,
        version,
        chat,
        "prompt",
        {"text": "Your turn", "buttons": [["pl"]]},
        decision,
    )


def new_game() -> str:
    return f"g-{uuid.uuid4().hex[:10]}"


def test_what_is_recorded_is_due_until_it_is_marked_sent(outbox: Deliveries) -> None:
    game = new_game()
    [item] = outbox.record([prompt(game, 7)], T0)

    assert item.state == PENDING and item.delivery == prompt(game, 7)
    assert [i.id for i in outbox.due([game], T0)] == [item.id]

    assert outbox.mark_sent(item.id, T0 + 5, message_id=555)
    assert outbox.due([game], T0 + 10) == [] and outbox.unsettled(game) == []
    sent = outbox.get(item.id)
    assert sent is not None and (sent.state, sent.message_id) == (SENT, 555)


def test_recording_the_same_delivery_again_keeps_the_first(outbox: Deliveries) -> None:
    game = new_game()
    [first] = outbox.record([prompt(game, 7)], T0)
    outbox.mark_sent(first.id, T0 + 1, message_id=9)

    [again] = outbox.record([prompt(game, 7)], T0 + 2)  # a takeover announces it again

    assert again.id == first.id and again.state == SENT


def test_a_failed_send_is_retried_with_backoff_then_parked_and_logged(
    outbox: Deliveries, caplog: pytest.LogCaptureFixture
) -> None:
    game = new_game()
    [item] = outbox.record([prompt(game, 7, decision=12)], T0)

    failed = outbox.mark_failed(item.id, T0, "Bad Gateway")
    assert failed is not None and failed.state == PENDING
    assert outbox.due([game], T0 + backoff_ms(1) - 1) == []
    assert [i.id for i in outbox.due([game], T0 + backoff_ms(1))] == [item.id]
    outbox.mark_failed(item.id, T0 + 1_000, "Bad Gateway")
    with caplog.at_level(logging.ERROR, logger="infra.deliveries"):
        parked = outbox.mark_failed(item.id, T0 + 3_000, "Bad Gateway")

    assert parked is not None and (parked.state, parked.attempts) == (PARKED, 3)
    assert outbox.due([game], T0 + 10**9) == []
    assert [i.id for i in outbox.parked([game])] == [item.id]
    [record] = [r for r in caplog.records if "parked" in r.getMessage()]
    assert game in record.getMessage() and "decision 12" in record.getMessage()


def test_a_send_that_may_have_arrived_stays_unsettled_for_whoever_drives_the_game(
    outbox: Deliveries,
) -> None:
    game = new_game()
    [item] = outbox.record([prompt(game, 7)], T0)

    assert outbox.mark_unknown(item.id, T0 + 1, "timed out")

    [unsettled] = outbox.unsettled(game)
    assert (unsettled.id, unsettled.state, unsettled.last_error) == (
        item.id,
        UNKNOWN,
        "timed out",
    )
    assert outbox.due([game], T0 + 10) == []  # not sent blindly again
    assert outbox.mark_sent(item.id, T0 + 20, message_id=77)  # checked: it arrived


def test_a_newer_prompt_supersedes_the_unsettled_older_ones_of_its_chat(
    outbox: Deliveries,
) -> None:
    game = new_game()
    old, other_chat, newer = outbox.record(
        [prompt(game, 7), prompt(game, 7, chat=102), prompt(game, 9, decision=5)], T0
    )
    outbox.mark_unknown(old.id, T0 + 1, "timed out")

    replaced = outbox.supersede(game, 101, "prompt", newer_than=newer.id)

    assert [(i.id, i.state) for i in replaced] == [(old.id, UNKNOWN)]
    assert outbox.get(old.id).state == SUPERSEDED  # type: ignore[union-attr]
    assert [i.id for i in outbox.unsettled(game)] == [other_chat.id, newer.id]
    assert not outbox.mark_sent(old.id, T0 + 2)  # too late: it stays superseded


def test_a_send_begins_only_once_and_only_while_its_senders_claim_lasts(
    outbox: Deliveries,
) -> None:
    """Two instances that both think they hold a game (one's claim lapsed unrenewed, the
    other took it) never both begin the same send: the delivery moves from pending to
    unknown once, and only for the instance whose claim lasts long enough."""
    from infra.claims import Claims

    game = new_game()
    [item] = outbox.record([prompt(game, 7)], T0)
    a = Claims(outbox.engine, "a", ttl_ms=2_000)
    b = Claims(outbox.engine, "b", ttl_ms=2_000)
    assert a.take([game], T0) == {game}

    # a's claim ends at T0 + 2000: a send that would run past it does not begin.
    assert not outbox.mark_unknown(item.id, T0 + 1_500, "sending", "a", T0 + 2_500)
    assert not outbox.mark_unknown(item.id, T0 + 1_500, "sending", "b", T0 + 1_600)
    assert outbox.get(item.id).state == PENDING  # type: ignore[union-attr]

    assert b.take([game], T0 + 2_001) == {game}  # a's claim lapsed: b takes the game
    assert not outbox.mark_unknown(item.id, T0 + 2_002, "sending", "a", T0 + 2_100)
    assert outbox.mark_unknown(item.id, T0 + 2_002, "sending", "b", T0 + 2_500)
    # Begun once: a second begin (a's late retry, or b's own) finds it no longer pending.
    assert not outbox.mark_unknown(item.id, T0 + 2_003, "sending", "b", T0 + 2_500)
    assert not outbox.mark_unknown(item.id, T0 + 2_003, "sending")


def test_a_try_its_sender_gave_up_before_making_is_due_at_once_and_not_counted(
    outbox: Deliveries,
) -> None:
    """The sender gave the game up between two tries (it could not reach Telegram): the
    next holder sends it at once, and the tries that instance could not make count
    toward no parking."""
    game = new_game()
    [item] = outbox.record([prompt(game, 7, decision=12)], T0)
    outbox.mark_failed(item.id, T0, "Bad Gateway")
    assert outbox.mark_unknown(item.id, T0 + backoff_ms(1), "begun")

    handed = outbox.mark_failed(item.id, T0 + backoff_ms(1) + 5, "handed over", counted=False)

    assert handed is not None and (handed.state, handed.attempts) == (PENDING, 1)
    assert [i.id for i in outbox.due([game], T0 + backoff_ms(1) + 5)] == [item.id]
