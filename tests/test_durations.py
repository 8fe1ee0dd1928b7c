"""Cell durations kept per machine, and the longest-first order that keeps every core busy to the end."""

from __future__ import annotations

from pathlib import Path

from harness.host import durations


def test_a_cells_seconds_are_its_last_recorded_run_and_unreadable_entries_are_skipped(tmp_path: Path) -> None:
    durations.record("a", 40.0, tmp_path)
    durations.record("a", 44.5, tmp_path)
    durations.record("b", 3.25, tmp_path)
    (tmp_path / "c.json").write_text("{broken", encoding="utf-8")
    (tmp_path / "d.json").write_text('{"seconds": true}', encoding="utf-8")
    assert durations.cell_seconds(tmp_path) == {"a": 44.5, "b": 3.25}
    assert durations.cell_seconds(tmp_path / "nothing-here") == {}
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically, nothing left behind


def test_the_default_folder_is_the_one_the_tests_redirect(durations_folder: Path) -> None:
    durations.record("cell", 2.0)
    assert durations.cell_seconds() == {"cell": 2.0} and (durations_folder / "cell.json").exists()


def test_longest_first_puts_unknown_work_first_then_the_longest_keeping_ties_in_order() -> None:
    seconds = {"short": 5.0, "long": 60.0, "tie1": 20.0, "tie2": 20.0}
    order = durations.longest_first(["short", "tie1", "new", "long", "tie2"], seconds.get)
    assert order == ["new", "long", "tie1", "tie2", "short"]
