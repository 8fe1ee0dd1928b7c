"""harness.host.completeness: the one rule `nox -s matrix` and `planned --check` apply to a cell of a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.celldocuments import write_collection
from harness.cellrecord import CellFiles, make_record
from harness.host import completeness


def cell(tmp_path: Path, attempts: list[tuple[str, str]], done: bool = True) -> CellFiles:
    """A cell whose cases ended as `attempts` say, each (case, status) one more attempt of its case."""
    files = CellFiles(tmp_path / "out", "r", "c")
    files.results.parent.mkdir(parents=True, exist_ok=True)
    numbers: dict[str, int] = {}
    lines = []
    for case, status in attempts:
        numbers[case] = numbers.get(case, 0) + 1
        lines.append(json.dumps(make_record(case_id=case, status=status, attempt=numbers[case])) + "\n")
    files.results.write_text("".join(lines))
    write_collection(files.results, "c", list(numbers))
    if done:
        files.done.write_text('{"returncode": 0}')
    return files


def test_a_cell_that_passed_and_failed_to_its_end_was_fully_run(tmp_path: Path) -> None:
    assert completeness.problems([cell(tmp_path, [("m::a", "passed"), ("m::b", "failed")])]) == []


@pytest.mark.parametrize("status", ["crashed", "timeout", "install_error", "passed_mostly"])
def test_an_infrastructure_or_unknown_status_was_not(tmp_path: Path, status: str) -> None:
    # Before, `nox -s matrix` counted the infrastructure class only: a status it did not know exited 0.
    assert completeness.problems([cell(tmp_path, [("m::a", "passed"), ("m::b", status)])]) == [f"c: 1 {status}"]


def test_each_case_counts_once_by_its_final_record(tmp_path: Path) -> None:
    attempts = [("m::twice", "crashed"), ("m::twice", "crashed"), ("m::healed", "crashed"), ("m::healed", "passed"),
                ("m::once", "crashed")]
    assert completeness.problems([cell(tmp_path, attempts)]) == ["c: 2 crashed"]


def test_two_records_of_one_attempt_that_disagree_count(tmp_path: Path) -> None:
    files = cell(tmp_path, [("m::a", "passed")])
    with files.results.open("a") as stream:
        stream.write(json.dumps(make_record(case_id="m::a", status="failed", attempt=1)) + "\n")
    why = completeness.not_fully_run(files) or ""
    assert why.startswith("1 conflicting_records, 1 unaccounted (first: ")
    assert why.endswith("c.jsonl:2: m::a attempt 1 is recorded as passed and failed: conflicting records)")


def test_no_results_no_records_and_no_done_marker_each_count(tmp_path: Path) -> None:
    assert completeness.problems([CellFiles(tmp_path, "r", "gone")], "its job produced no results") == [
        "gone: missing (its job produced no results)"]
    assert completeness.not_fully_run(cell(tmp_path / "empty", [])) == "no records"
    assert completeness.not_fully_run(cell(tmp_path / "stopped", [("m::a", "passed")], done=False)) == (
        "incomplete (no done marker: its run stopped after 1 case(s), before its end: interrupted, or timed out)")
