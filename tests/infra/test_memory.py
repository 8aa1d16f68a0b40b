"""Free memory the C allocator keeps goes back to the system, now and then."""

from __future__ import annotations

from pathlib import Path

import pytest

from infra.memory import FreeMemory, limit_arenas


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def test_memory_freed_between_objects_still_in_use_leaves_the_resident_set() -> None:
    memory = FreeMemory(every=0)
    if memory.trim is None:
        pytest.skip("no malloc_trim in this C library")
    # 40 MB in 4 kB pieces (each its own malloc), of which one in ten lives on: the
    # freed ones lie between, so malloc cannot give them back by shrinking its heap.
    pieces = [bytes(4000) for _ in range(10_000)]
    kept = pieces[::10]
    del pieces
    before = resident_mb()

    assert memory.release()

    assert before - resident_mb() > 20  # most of the 36 MB freed
    assert len(kept) == 1000


def test_memory_is_given_back_at_most_once_per_interval() -> None:
    now = [0.0]
    calls: list[int] = []

    def trim(pad: int) -> int:
        calls.append(pad)
        return 1

    memory = FreeMemory(every=30.0, clock=lambda: now[0], trim=trim)

    done = []
    for second in range(0, 100, 5):  # a game ends every 5 s
        now[0] = float(second)
        done.append(memory.release())

    assert calls == [0, 0, 0, 0]  # at 0, 30, 60 and 90 s
    assert done.count(True) == 4


def test_a_failing_release_is_only_logged(caplog: pytest.LogCaptureFixture) -> None:
    def broken(pad: int) -> int:
        raise OSError("no")

    assert not FreeMemory(every=0, trim=broken).release()
    assert "giving free memory back failed" in caplog.text


def test_malloc_keeps_to_a_few_arenas_unless_the_environment_says_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if FreeMemory().trim is None:
        pytest.skip("not glibc")
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert limit_arenas()
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert not limit_arenas()  # the environment's word, read by malloc itself
