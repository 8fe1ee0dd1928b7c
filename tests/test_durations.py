"""Stored cell durations and the longest-first order that keeps every core busy to the end."""

from __future__ import annotations

import json
from pathlib import Path

from harness.host import durations
from harness.vocabulary import done_path


def mark(out: Path, run: str, cell: str, **fields: object) -> None:
    path = done_path(out, run, cell)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cell_id": cell, **fields}), encoding="utf-8")


def test_a_cells_seconds_are_its_newest_real_run_not_a_reuse_nor_a_marker_without_them(tmp_path: Path) -> None:
    mark(tmp_path, "20260101T000000Z-aaaa", "a", seconds=40.0)
    mark(tmp_path, "20260102T000000Z-aaaa", "a", seconds=44.5)
    mark(tmp_path, "20260103T000000Z-aaaa", "a", seconds=0.3, reused_from="20260102T000000Z-aaaa")
    mark(tmp_path, "20260101T000000Z-aaaa", "b")  # written before markers had seconds
    done_path(tmp_path, "20260101T000000Z-aaaa", "c").write_text("{broken", encoding="utf-8")
    assert durations.cell_seconds(tmp_path) == {"a": 44.5}
    assert durations.cell_seconds(tmp_path / "nothing-here") == {}


def test_longest_first_puts_unknown_work_first_then_the_longest_keeping_ties_in_order() -> None:
    seconds = {"short": 5.0, "long": 60.0, "tie1": 20.0, "tie2": 20.0}
    order = durations.longest_first(["short", "tie1", "new", "long", "tie2"], seconds.get)
    assert order == ["new", "long", "tie1", "tie2", "short"]
