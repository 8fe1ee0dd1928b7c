"""harness.host.celllog: the cell's log file and its one progress line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.cellrecord import make_record
from harness.host import celllog

NOISY = [sys.executable, "-c", "import sys; print('collected 2 items'); sys.stderr.write('Traceback: boom\\n')"]


def write_records(path: Path, *records: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(make_record(**record)) + "\n" for record in records) + "{torn\n")
    return path


def test_final_records_keep_the_last_record_of_each_case(tmp_path: Path) -> None:
    results = write_records(tmp_path / "c.jsonl", {"case_id": "m::a", "status": "crashed", "attempt": 1},
                            {"case_id": "m::b", "status": "passed"},
                            {"case_id": "m::a", "status": "passed", "attempt": 2})
    assert {case: r["status"] for case, r in celllog.final_records(results).items()} == {"m::a": "passed",
                                                                                        "m::b": "passed"}


def test_two_statuses_for_one_attempt_make_the_case_unknown(tmp_path: Path) -> None:
    results = write_records(tmp_path / "c.jsonl", {"case_id": "m::a", "status": "failed", "attempt": 1},
                            {"case_id": "m::a", "status": "passed", "attempt": 1})
    final = celllog.final_records(results)["m::a"]
    assert final["status"] == "conflicting_records" and "attempt 1 was recorded as failed and passed" in final["reason"]
    assert celllog.status_counts({"m::a": final}) == {"conflicting_records": 1}


def test_status_counts_follow_the_vocabulary_order_with_unknown_statuses_last() -> None:
    finals = {str(i): {"status": s} for i, s in enumerate(["not_applicable", "passed", "weird", "failed", "passed"])}
    assert list(celllog.status_counts(finals).items()) == [("passed", 2), ("failed", 1), ("not_applicable", 1),
                                                          ("weird", 1)]


def test_progress_line_counts_cases_once_and_names_the_log(tmp_path: Path) -> None:
    results = write_records(tmp_path / "c.jsonl", {"case_id": "m::a", "status": "failed"},
                            {"case_id": "m::a", "status": "failed"}, {"case_id": "m::b", "status": "passed"})
    log = tmp_path / "c.log"
    log.write_text("")
    line = celllog.progress_line("cell", results, log, expected=["m::a", "m::b", "m::c"], seconds=41.4)
    assert line == f"cell: 2/3 cases, 41 s: 1 passed, 1 failed (log: {log})"



def test_progress_line_counts_parametrized_tests_as_pytest_does(tmp_path: Path) -> None:
    # A trainer's 15 tests in 7 functions once read "7/7 cases ... 15 passed".
    records = [{"case_id": f"m::f{f}[{p}]", "status": "passed"} for f in range(7) for p in range(3 if f < 4 else 1)]
    results = write_records(tmp_path / "c.jsonl", *records)
    line = celllog.progress_line("cell", results, tmp_path / "c.log", expected=[f"m::f{f}" for f in range(7)],
                                seconds=None)
    assert line == "cell: 15/15 cases: 15 passed"


def test_a_parametrized_test_not_yet_run_counts_once_beside_the_recorded_ones(tmp_path: Path) -> None:
    results = write_records(tmp_path / "c.jsonl", {"case_id": "m::f[1]", "status": "passed"},
                            {"case_id": "m::f[2]", "status": "passed"})
    line = celllog.progress_line("cell", results, tmp_path / "c.log", expected=["m::f", "m::g"], seconds=None)
    assert line == "cell: 2/3 cases: 2 passed"

def test_a_module_that_did_not_import_is_done_by_its_collection_record_and_only_that_module(tmp_path: Path) -> None:
    results = write_records(tmp_path / "c.jsonl", {"case_id": "m::<collection>", "status": "error"},
                            {"case_id": "n::a", "status": "passed"})
    expected = ["m::ClippingTest::test_a", "m::ClippingTest::test_b", "n::a", "n::b"]
    line = celllog.progress_line("cell", results, tmp_path / "c.log", expected=expected, seconds=None)
    assert line == "cell: 2/3 cases: 1 passed, 1 error"


def test_progress_line_says_what_it_does_not_know(tmp_path: Path) -> None:
    line = celllog.progress_line("cell", tmp_path / "none.jsonl", tmp_path / "none.log", expected=None,
                                seconds=None, note="interrupted")
    assert line == "cell: 0 cases, interrupted: no records"


def test_start_log_empties_a_new_run_and_keeps_a_resumed_one(tmp_path: Path) -> None:
    log = tmp_path / "c.log"
    log.write_text("earlier attempt\n")
    celllog.start_log(log, keep=True)
    assert log.read_text() == "earlier attempt\n"
    celllog.start_log(log, keep=False)
    assert log.read_text() == ""


def test_run_logged_keeps_the_terminal_quiet(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "c.log"
    assert celllog.run_logged(NOISY, {}, log, verbose=False) == 0
    assert celllog.run_logged([sys.executable, "-c", "raise SystemExit(3)"], {}, log, verbose=False) == 3
    terminal = capfd.readouterr()
    assert terminal.out == "" and terminal.err == ""
    text = log.read_text()
    assert "collected 2 items" in text and "Traceback: boom" in text and text.count("=== run") == 2


def test_run_logged_verbose_streams_and_still_logs(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "c.log"
    assert celllog.run_logged(NOISY, {}, log, verbose=True) == 0
    terminal = capfd.readouterr().out
    assert "collected 2 items" in terminal and "Traceback: boom" in terminal
    assert "Traceback: boom" in log.read_text()


def test_copy_into_log_adds_the_installer_transcript(tmp_path: Path) -> None:
    log = tmp_path / "c.log"
    transcript = tmp_path / "c.install.log"
    celllog.copy_into_log(log, transcript)  # none yet: nothing to add
    assert not log.exists()
    transcript.write_text("$ uv pip sync\nResolved 12 packages")
    celllog.copy_into_log(log, transcript)
    assert log.read_text() == "=== c.install.log\n$ uv pip sync\nResolved 12 packages\n"


def test_a_cell_whose_process_stopped_before_any_case_counts_none_as_run_and_says_why(tmp_path: Path) -> None:
    # A project's -Werror once turned a warning of ours into an INTERNALERROR: "63/63 cases: 63 crashed".
    died = {"status": "crashed", "error_type": "CellProcessDied", "error_message": "pytest exited with code 3",
            "reason": "pytest exited with code 3"}
    results = write_records(tmp_path / "c.jsonl", *({"case_id": f"m::t{n}", **died} for n in range(63)))
    line = celllog.progress_line("cell", results, tmp_path / "c.log", expected=[f"m::t{n}" for n in range(63)],
                                seconds=None)
    assert line == "cell: 0/63 cases ran: 63 crashed; 63 never started: pytest exited with code 3"


def test_a_case_its_process_died_in_ran(tmp_path: Path) -> None:
    results = write_records(tmp_path / "c.jsonl", {"case_id": "m::a", "status": "passed", "duration_s": 0.1},
                            {"case_id": "m::b", "status": "crashed", "error_type": "ProcessDied",
                             "error_message": "Fatal Python error: Segmentation fault"})
    line = celllog.progress_line("cell", results, tmp_path / "c.log", expected=["m::a", "m::b"], seconds=None)
    assert line == "cell: 2/2 cases: 1 passed, 1 crashed"
