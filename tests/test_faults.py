"""Each fault in tests/faults/ run through the real harness: the fault gets its status, its neighbours survive.

By default cases run in the cell's own pytest process, restarted after a death; the last tests repeat two faults
with an xdist worker instead.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from harness.cellrecord import CellFiles
from harness.host import cellrun, matrix, runner
from harness.host.options import Options

FAULTS = Path(__file__).parent / "faults"
# The cell is this test environment itself: it has the harness and needs no jax for these cases.
CELL = matrix.parse('[[cell]]\nid="faults"\njax="0.0.0"\njaxlib="0.0.0"\nflax="0.0.0"\npython="3.11"\n')[0]


def run_fault(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch, **overrides: object) -> tuple[int, dict]:
    monkeypatch.setenv("SHARDMATRIX_FAULT_STATE", str(tmp_path))
    settings: dict = {"out": tmp_path / "out", "run_id": "faults", "timeout": 30.0, "hard_grace": 1.0}
    settings.update(overrides)
    options = Options(**settings)
    code = cellrun.installed(CELL, Path(sys.prefix), options, [FAULTS / f"test_{name}.py"])
    lines = CellFiles(options.out, options.run_id, CELL.id).results.read_text().splitlines()
    records: dict[str, list[dict]] = {}
    for line in lines:
        record = json.loads(line)
        records.setdefault(record["case_id"].split("::")[1], []).append(record)
    return code, records


#: Runs one module of tests/faults/ by name through the harness, as `run_fault` in the test's own folder.
Fault = Callable[..., tuple[int, dict]]


@pytest.fixture
def fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Fault:
    """`run_fault` in this test's folder: fault(name, **overrides) -> (exit code, records by test name)."""
    return partial(run_fault, tmp_path, monkeypatch=monkeypatch)


def assert_neighbours_survived(records: dict, module: str) -> None:
    assert [r["status"] for r in records["test_before"]] == ["passed"], module
    assert [r["status"] for r in records["test_after"]] == ["passed"], module


def test_abort_is_crashed_with_the_signal(fault: Fault) -> None:
    code, records = fault("abort")
    assert code == 0
    assert records["test_abort"][-1]["status"] == "crashed"
    assert records["test_abort"][-1]["reason"] == "Fatal Python error: Aborted"
    assert_neighbours_survived(records, "abort")


def test_segfault_is_crashed_with_the_signal(fault: Fault) -> None:
    _, records = fault("segfault")
    assert records["test_segfault"][-1]["status"] == "crashed"
    assert records["test_segfault"][-1]["reason"] == "Fatal Python error: Segmentation fault"
    assert_neighbours_survived(records, "segfault")


def test_sys_exit_is_crashed_with_the_exit_code(fault: Fault) -> None:
    _, records = fault("exit")
    assert records["test_exit"][-1]["status"] == "crashed"
    assert records["test_exit"][-1]["reason"] == "the case called sys.exit(3)"
    assert_neighbours_survived(records, "exit")


def test_hangs_are_timeouts_whether_or_not_the_alarm_reaches_them(fault: Fault) -> None:
    _, records = fault("hang")
    soft = records["test_hangs_in_python"]
    assert [r["status"] for r in soft] == ["timeout"]  # a spent time limit is not retried
    hard = records["test_hangs_where_the_alarm_cannot_reach"][-1]
    assert hard["status"] == "timeout"
    assert hard["reason"].startswith("hard time limit")
    assert_neighbours_survived(records, "hang")


def test_retry_marks_differing_attempts_and_keeps_consistent_failures(fault: Fault) -> None:
    _, records = fault("flaky")
    flaky = records["test_fails_once_then_passes"]
    assert [(r["attempt"], r["status"]) for r in flaky] == [(1, "failed"), (2, "passed")]
    broken = records["test_always_fails"]
    assert [(r["attempt"], r["status"]) for r in broken] == [(1, "failed"), (2, "failed")]
    assert [r["status"] for r in records["test_after"]] == ["passed"]


def test_a_retry_that_dies_is_the_cases_next_attempt_and_the_rest_still_run(fault: Fault) -> None:
    # Before, the death went unrecorded (attempt 1 was already there), the runner stopped restarting, and every case
    # after it was recorded crashed without having run.
    code, records = fault("retried_abort", reruns=1)
    assert code == 0
    died = records["test_aborts_on_its_retry"]
    assert [(r["attempt"], r["status"]) for r in died] == [(1, "failed"), (2, "crashed")]
    assert died[0]["error_type"] == "AssertionError" and died[1]["reason"] == "Fatal Python error: Aborted"
    assert_neighbours_survived(records, "retried_abort")


def test_no_retry_when_reruns_is_zero(fault: Fault) -> None:
    _, records = fault("flaky", reruns=0)
    assert [r["status"] for r in records["test_fails_once_then_passes"]] == ["failed"]


def test_interrupted_cell_keeps_its_records_and_resume_runs_only_the_rest(fault: Fault, tmp_path: Path) -> None:
    code, records = fault("interrupt")
    assert code == runner.PYTEST_INTERRUPTED
    assert records["test_before"][0]["status"] == "passed"
    assert "test_after" not in records
    out = tmp_path / "out"
    assert not CellFiles(out, "faults", CELL.id).done.exists()

    code, records = fault("interrupt", resume=True)
    assert code == 0
    assert CellFiles(out, "faults", CELL.id).done.exists()
    assert {name: len(found) for name, found in records.items()} == {
        "test_before": 1, "test_interrupts_the_run_once": 1, "test_after": 1,
    }


@pytest.mark.parametrize("name", ["abort", "hang"])
def test_faults_in_xdist_workers_get_the_same_statuses(fault: Fault, name: str) -> None:
    _, records = fault(name, workers=1)
    if name == "abort":
        assert records["test_abort"][-1]["reason"] == "Fatal Python error: Aborted"
    else:
        assert records["test_hangs_where_the_alarm_cannot_reach"][-1]["status"] == "timeout"
    assert_neighbours_survived(records, name)
