"""Write the perft file: legal-move counts of fixed seeded positions, both editions.

    .venv/bin/python scripts/perft.py            rewrite tests/domain/perft.txt
    .venv/bin/python scripts/perft.py --check    compare with it instead (exit 1 if any differs)

The counts are ground truth only as far as the rules were right when they were written:
rewrite the file when a rule changes on purpose, and say which in the commit. The test
``tests/domain/test_perft.py`` recounts every position of the file.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.perft import Position, Record, format_record, measure, parse

FILE = Path(__file__).resolve().parent.parent / "tests" / "domain" / "perft.txt"
DEPTH = 3
POSITIONS = (
    # base: the first turn, the maze growing, a full table, and the nugget picks.
    Position("base", 3, 7, 0),
    Position("base", 3, 7, 10),
    Position("base", 3, 7, 30),
    Position("base", 5, 7, 0),
    Position("base", 5, 7, 20),
    Position("base", 10, 3, 40),
    Position("base", 6, 2, 25, dig=True),
    Position("base", 4, 4, 1500, "gold_pick", dig=True),
    Position("base", 3, 6, 1500, "gold_pick", dig=True),
    # saboteur2: passes of 1 to 3 cards, discards to remove, doors and ladders, thefts.
    Position("saboteur2", 2, 7, 0),
    Position("saboteur2", 4, 7, 10),
    Position("saboteur2", 4, 7, 30),
    Position("saboteur2", 7, 5, 40),
    Position("saboteur2", 12, 1, 60),
    Position("saboteur2", 4, 2, 30, dig=True),
    Position("saboteur2", 5, 4, 1500, "theft"),
    Position("saboteur2", 3, 24, 1500, "theft"),
)
HEADER = """\
# Perft: legal-move counts of fixed positions (domain/perft.py), as python-chess keeps
# for chess. Written by scripts/perft.py; tests/domain/test_perft.py recounts each.
#
# id           the position's name
# game         how it is reached: edition, players, the seed of the deal and of the
#              random play, the decisions played (or the bound on them, with until=,
#              to the first decision of that kind); dig=1: path cards go nearest a goal
# fingerprint  a hash of the state reached (a different state, not a different count)
# moves        the moves pending there, by kind
# perft N      how many sequences of N legal moves there are from it
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the file")
    args = parser.parse_args(argv)
    started = time.process_time()
    records = [measure(p, DEPTH) for p in POSITIONS]
    seconds = time.process_time() - started
    if args.check:
        kept: list[Record] = parse(FILE.read_text())
        differ = [r.position.name for r, k in zip(records, kept, strict=False) if r != k]
        if differ or len(kept) != len(records):
            print(f"differs from {FILE.name}: {', '.join(differ) or 'the positions listed'}")
            return 1
        print(f"{len(records)} positions as in {FILE.name} ({seconds:.1f} CPU s)")
        return 0
    FILE.write_text(HEADER + "".join(f"\n{format_record(r)}\n" for r in records))
    print(f"wrote {len(records)} positions to {FILE} ({seconds:.1f} CPU s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
