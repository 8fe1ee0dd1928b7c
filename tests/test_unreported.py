"""harness.host.unreported: records written for cases pytest could not report."""

from __future__ import annotations

import json
from pathlib import Path

from matrix_factory import case_folder, cell_toml

from harness.cellrecord import CellFiles, make_record
from harness.host import matrix, unreported
from harness.results import write_inflight

CELL = matrix.parse(cell_toml("0.4.38", "0.10.2", "3.11"))[0]


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_record_unrun_writes_every_case_with_pins(tmp_path: Path) -> None:
    files = CellFiles(tmp_path / "out", "r", CELL.id)
    folder = case_folder(tmp_path)
    unreported.record_unrun(CELL, files, [folder], "install_error", "InstallError", "Because no wheel")
    records = read(tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl")
    assert [r["case_id"] for r in records] == ["test_one::test_a", "test_one::test_b"]
    assert {r["status"] for r in records} == {"install_error"}
    assert records[0]["jax"] == "0.4.38" and records[0]["flax"] == "0.10.2" and records[0]["python"] == "3.11"
    assert records[0]["error_message"] == "Because no wheel"


def test_record_unrun_only_missing_keeps_what_was_recorded(tmp_path: Path) -> None:
    files = CellFiles(tmp_path / "out", "r", CELL.id)
    target = tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(make_record(case_id="test_one::test_a", status="passed")) + "\n{corrupt\n")
    folder = case_folder(tmp_path)
    unreported.record_unrun(CELL, files, [folder], "crashed", "CellProcessDied", "killed by SIGSEGV", only_missing=True)
    statuses = [(r.get("case_id"), r.get("status")) for r in map(json.loads, target.read_text().splitlines()[::2])]
    assert statuses == [("test_one::test_a", "passed"), ("test_one::test_b", "crashed")]


def test_exit_description() -> None:
    assert unreported.exit_description(-11) == "cell process killed by SIGSEGV"
    assert unreported.exit_description(3) == "pytest exited with code 3"


def died_during(tmp_path: Path, recorded: list[dict], reruns: int) -> tuple[bool, list[dict]]:
    """record_death after the process died while test_one::test_a was in flight, with `recorded` already written."""
    files = CellFiles(tmp_path / "out", "r", CELL.id)
    files.results.parent.mkdir(parents=True)
    files.results.write_text("".join(json.dumps(make_record(case_id="test_one::test_a", **r)) + "\n" for r in recorded))
    folder = case_folder(tmp_path)
    write_inflight(files.inflight, f"{folder / 'test_one.py'}::test_before")  # ended: an earlier line names it
    write_inflight(files.inflight, f"{folder / 'test_one.py'}::test_a")
    return unreported.record_death(CELL, files, tmp_path / "no-fault-log", [folder], reruns), read(files.results)


def test_a_death_on_a_retry_is_the_cases_next_attempt(tmp_path: Path) -> None:
    pinned, records = died_during(tmp_path, [{"status": "failed", "attempt": 1}], reruns=1)
    assert pinned and [(r["attempt"], r["status"]) for r in records] == [(1, "failed"), (2, "crashed")]


def test_a_death_after_the_cases_last_attempt_is_not_pinned_on_it(tmp_path: Path) -> None:
    pinned, records = died_during(tmp_path, [{"status": "failed", "attempt": 1}], reruns=0)
    assert not pinned and len(records) == 1
    pinned, records = died_during(tmp_path / "passed", [{"status": "passed", "attempt": 1}], reruns=1)
    assert not pinned and len(records) == 1


def test_record_unrun_only_missing_leaves_a_module_its_collection_record_answers_for(tmp_path: Path) -> None:
    files = CellFiles(tmp_path / "out", "r", CELL.id)
    folder = case_folder(tmp_path)
    (folder / "broken_test.py").write_text("import unittest\n\nclass BrokenTest(unittest.TestCase):\n"
                                           "    def test_never(self): ...\n")
    files.results.parent.mkdir(parents=True)
    files.results.write_text(json.dumps(make_record(case_id="broken_test::<collection>", status="error")) + "\n")
    unreported.record_unrun(CELL, files, [folder], "crashed", "CellProcessDied", "killed by SIGSEGV", only_missing=True)
    assert [(r["case_id"], r["status"]) for r in read(files.results)] == [
        ("broken_test::<collection>", "error"), ("test_one::test_a", "crashed"), ("test_one::test_b", "crashed")]


def test_record_unrun_answers_only_for_the_tests_the_cells_minus_k_leaves_in(tmp_path: Path) -> None:
    # aimz under `-k test_sample_prior_predictive_lm`: a conftest that stopped pytest was recorded for every test of
    # the source scan, and those the baseline never ran were "recorded on one side only".
    files = CellFiles(tmp_path / "out", "r", CELL.id)
    folder = case_folder(tmp_path, tests=("test_sample_lm", "test_predict"))
    unreported.record_unrun(CELL, files, [folder], "error", "ImportError", "cannot import name 'xla_pmap_p'",
                            left_out=["-k", "test_sample"])
    assert [r["case_id"] for r in read(files.results)] == ["test_one::test_sample_lm"]
    unreported.record_unrun(CELL, CellFiles(tmp_path / "out", "r2", CELL.id), [folder], "error", "ImportError", "x")
    assert len(read(CellFiles(tmp_path / "out", "r2", CELL.id).results)) == 2  # nothing left out: every test
