"""The time budget's arithmetic (benchmarks/time_budget.py) on recorded marks and records: each part from the marks
that bound it, parts that sum to the wall, and the cores' idle time named."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import time_budget
from harness.cellrecord import CellFiles, make_record
from harness.results import write_mark, write_records

#: One cell's marks as a run writes them (seconds after an epoch of 1000): the host's around pytest, pytest's inside.
MARKS = [
    ("cell_start", 1000.0), ("venv_ready", 1001.0), ("pytest_launch", 1001.1), ("plugin_loaded", 1001.6),
    ("conftests_loaded", 1001.7), ("session_start", 1001.9), ("collection_start", 1002.0),
    ("modules_collected", 1005.0), ("backend_ready", 1005.5), ("cases_start", 1005.7), ("cases_end", 1015.7),
    ("unconfigured", 1016.0), ("pytest_exit", 1016.4), ("cell_end", 1016.5),
]


def marks(*extra: dict[str, object]) -> list[dict[str, object]]:
    return [*({"mark": name, "at": at} for name, at in MARKS), *extra]


def record(seconds: float, attempt: int = 1) -> dict[str, object]:
    return {"duration_s": seconds, "attempt": attempt}


def test_each_part_is_the_time_between_its_marks() -> None:
    parts = time_budget.cell_budget(marks(), [record(6.0), record(2.0), record(1.0, attempt=2)])
    assert parts["venv"] == pytest.approx(1.0)
    assert parts["start"] == pytest.approx(0.6)
    assert parts["plugins"] == pytest.approx(0.3)
    assert parts["collection"] == pytest.approx(0.1 + 3.0 + 0.2)
    assert parts["backend"] == pytest.approx(0.5)
    assert parts["bodies"] == pytest.approx(8.0)
    assert parts["retries"] == pytest.approx(1.0)
    assert parts["between"] == pytest.approx(10.0 - 9.0)
    assert parts["session_end"] == pytest.approx(0.7)
    assert parts["after"] == pytest.approx(0.1)


def test_the_parts_sum_to_the_wall() -> None:
    parts = time_budget.cell_budget(marks(), [record(6.0), record(2.0)])
    assert sum(parts.values()) == pytest.approx(16.5)
    assert parts["unmarked"] == pytest.approx(0.0)


def test_a_missing_mark_leaves_its_time_unmarked_not_lost() -> None:
    without = [m for m in marks() if m["mark"] != "backend_ready"]
    parts = time_budget.cell_budget(without, [record(6.0)])
    assert parts["backend"] == 0.0
    assert sum(parts.values()) == pytest.approx(16.5)
    assert parts["unmarked"] > 0


def test_a_child_process_body_is_its_own_part() -> None:
    child = {"mark": "child_process", "at": 1010.0, "case_id": "f::test_child", "body_s": 4.0, "cpu_s": 3.5}
    parts = time_budget.cell_budget(marks(child), [record(6.0), record(2.0)])
    assert parts["children"] == pytest.approx(4.0)
    assert parts["bodies"] == pytest.approx(4.0)


def test_a_reused_cell_ran_no_case_bodies() -> None:
    reused = [{"mark": "cell_start", "at": 0.0}, {"mark": "venv_ready", "at": 0.8}, {"mark": "cell_end", "at": 1.0}]
    parts = time_budget.cell_budget(reused, [record(6.0)])
    assert parts["bodies"] == 0.0
    assert parts["venv"] == pytest.approx(0.8)
    assert sum(parts.values()) == pytest.approx(1.0)


def test_idle_core_seconds_count_cores_nothing_runs_on() -> None:
    # two cores: one cell 0-10, one 0-4 then nothing: 6 s of one core idle
    assert time_budget.idle_core_seconds([(0.0, 10.0), (0.0, 4.0)], 2, 0.0, 10.0) == pytest.approx(6.0)
    assert time_budget.idle_core_seconds([(0.0, 10.0), (0.0, 10.0), (0.0, 10.0)], 2, 0.0, 10.0) == 0.0
    assert time_budget.idle_core_seconds([], 2, 5.0, 5.0) == 0.0


def shifted(offset: float, *extra: dict[str, object]) -> list[dict[str, object]]:
    return [{**m, "at": float(m["at"]) + offset} for m in marks(*extra)]  # type: ignore[arg-type]


def test_a_run_budget_sums_to_its_cores_times_its_wall() -> None:
    cells = {"a": (shifted(0.0), [record(6.0)]), "b": (shifted(2.0), [record(5.0)])}
    total = time_budget.run_budget(cells, {"a": 1.0, "b": 1.5}, 2, 999.0, 1020.0)
    assert sum(total.values()) == pytest.approx(2 * 21.0)
    assert total["import"] == pytest.approx(2.5)
    assert total["nox"] == pytest.approx(2 * 1.0 + 2.0)  # both idle 999-1000, one 1000-1002
    assert total["tail"] == pytest.approx(2.0)  # a ends at 1016.5, b at 1018.5
    assert total["report"] == pytest.approx(2 * 1.5)


def test_the_budget_lines_name_the_bound_then_the_gap_largest_first() -> None:
    total = {"import": 2.0, "bodies": 10.0, "children": 0.0, "venv": 4.0, "between": 6.0, "tail": 2.0}
    lines = time_budget.budget_lines(total, 2, 12.0)
    assert lines[0] == "   the bound, 6 s over 2 cores:"
    gap = lines[lines.index("   the gap, 6 s, largest first:") + 1:]
    assert [line.split(":")[0].strip() for line in gap] == [
        "between case bodies (setup, teardown, record writing)", "venv sync and results-cache check",
        "scheduling tail (cores idle while the last cells finish)"]
    assert "3.0 s (25.0 %)" in gap[0]


def test_read_cells_reads_what_a_cell_wrote(tmp_path: Path) -> None:
    files = CellFiles(tmp_path, "20260101T000000Z-0000", "cell")
    for name, at in MARKS:
        write_mark(files.results, name, at)
    write_records(files.results, [make_record(run_id=files.run_id, cell_id="cell", case_id="f::t", status="passed",
                                              duration_s=6.0)])
    found = time_budget.read_cells(tmp_path, files.run_id, ["cell", "absent"])
    assert [m["mark"] for m in found["cell"][0]] == [name for name, _ in MARKS]
    assert time_budget.cell_budget(*found["cell"])["bodies"] == pytest.approx(6.0)
    assert found["absent"] == ([], [])


def test_ran_cells_are_those_whose_pytest_ran(tmp_path: Path) -> None:
    ran = CellFiles(tmp_path, "20260101T000000Z-0000", "ran")
    reused = CellFiles(tmp_path, "20260101T000000Z-0000", "reused")
    for name, at in MARKS:
        write_mark(ran.results, name, at)
    for name, at in (("cell_start", 0.0), ("venv_ready", 0.5), ("cell_end", 0.6)):
        write_mark(reused.results, name, at)
    for files in (ran, reused):
        write_records(files.results, [make_record(run_id=files.run_id, cell_id=files.cell_id, case_id="f::t",
                                                  status="passed", duration_s=6.0)])
    found = time_budget.ran_cells(tmp_path)
    assert list(found) == [f"{ran.run_id}:ran"]
    assert found[f"{ran.run_id}:ran"]["bodies"] == pytest.approx(6.0)
