"""Perft: every position of tests/domain/perft.txt still has the legal moves counted there.

The file (written by scripts/perft.py) holds fixed seeded positions of both editions and
the number of legal move sequences from each, to depth 3. A rule that adds or loses one
legal move in any of those trees fails here, naming the position and the depth.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.perft import Record, measure, parse

FILE = Path(__file__).with_name("perft.txt")
RECORDS = parse(FILE.read_text())


def test_the_file_holds_positions_of_both_editions_and_every_kind_of_decision() -> None:
    assert {r.position.edition for r in RECORDS} == {"base", "saboteur2"}
    kinds = {kind for r in RECORDS for kind, n in r.moves.items() if n}
    assert kinds == {"place", "action", "pass", "discard", "pick", "theft"}


@pytest.mark.parametrize("record", RECORDS, ids=[r.position.name for r in RECORDS])
def test_a_position_has_the_legal_moves_counted_in_the_file(record: Record) -> None:
    counted = measure(record.position, len(record.counts))

    assert counted.fingerprint == record.fingerprint, "the seeded play reached another position"
    assert counted.moves == record.moves
    assert counted.counts == record.counts
