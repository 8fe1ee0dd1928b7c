"""harness.host.unreported: records written for cases pytest could not report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.host import matrix, unreported
from harness.host.options import Options

CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def folder_of_two_cases(tmp_path: Path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "test_one.py").write_text("def test_a(): ...\ndef test_b(): ...\n")
    return folder


def test_record_unrun_writes_every_case_with_pins(tmp_path: Path) -> None:
    opts = Options(out=tmp_path / "out", run_id="r")
    folder = folder_of_two_cases(tmp_path)
    unreported.record_unrun(CELL, opts, [folder], "install_error", "InstallError", "Because no wheel")
    records = read(tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl")
    assert [r["case_id"] for r in records] == ["test_one::test_a", "test_one::test_b"]
    assert {r["status"] for r in records} == {"install_error"}
    assert records[0]["jax"] == "0.4.38" and records[0]["flax"] == "0.10.2" and records[0]["python"] == "3.11"
    assert records[0]["error_message"] == "Because no wheel"


def test_record_unrun_only_missing_keeps_what_was_recorded(tmp_path: Path) -> None:
    opts = Options(out=tmp_path / "out", run_id="r")
    target = tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"case_id": "test_one::test_a", "status": "passed"}) + "\n{corrupt\n")
    folder = folder_of_two_cases(tmp_path)
    unreported.record_unrun(CELL, opts, [folder], "crashed", "CellProcessDied", "killed by SIGSEGV", only_missing=True)
    statuses = [(r.get("case_id"), r.get("status")) for r in map(json.loads, target.read_text().splitlines()[::2])]
    assert statuses == [("test_one::test_a", "passed"), ("test_one::test_b", "crashed")]


def test_record_missing_cells_names_the_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opts = Options(out=tmp_path / "out", run_id="r", cases=[str(folder_of_two_cases(tmp_path))])
    ghost = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.99"\n')[0]
    assert unreported.record_missing_cells([ghost], opts) == [ghost.id]
    record = read(tmp_path / "out" / "results" / "r" / f"{ghost.id}.jsonl")[0]
    assert record["status"] == "install_error"
    assert record["error_message"].startswith("interpreter python3.99 not found")
    # Finished, so a report reads it as not built rather than interrupted.
    assert (tmp_path / "out" / "results" / "r" / f"{ghost.id}.done.json").exists()


def test_record_missing_cells_leaves_cells_that_ran(tmp_path: Path) -> None:
    opts = Options(out=tmp_path / "out", run_id="r")
    done = tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl"
    done.parent.mkdir(parents=True)
    done.write_text("")
    assert unreported.record_missing_cells([CELL], opts) == []


def test_exit_description() -> None:
    assert unreported.exit_description(-11) == "cell process killed by SIGSEGV"
    assert unreported.exit_description(3) == "pytest exited with code 3"


def test_infrastructure_problems_pair(tmp_path: Path) -> None:
    opts = Options(out=tmp_path / "out", run_id="r")
    target = tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"case_id": "m::a", "status": "passed"}) + "\n"
                      + json.dumps({"case_id": "m::b", "status": "failed"}) + "\n")
    assert unreported.infrastructure_problems([CELL], opts) == []
    with target.open("a") as handle:
        handle.write(json.dumps({"case_id": "m::c", "status": "timeout"}) + "\n"
                     + json.dumps({"case_id": "m::d", "status": "crashed"}) + "\n")
    assert unreported.infrastructure_problems([CELL], opts) == [f"{CELL.id}: 1 crashed, 1 timeout"]


def test_infrastructure_problems_count_each_case_by_its_final_record(tmp_path: Path) -> None:
    opts = Options(out=tmp_path / "out", run_id="r")
    target = tmp_path / "out" / "results" / "r" / f"{CELL.id}.jsonl"
    target.parent.mkdir(parents=True)
    attempts = [("m::twice", "crashed"), ("m::twice", "crashed"), ("m::healed", "crashed"), ("m::healed", "passed"),
                ("m::once", "crashed")]
    target.write_text("".join(json.dumps({"case_id": c, "status": s}) + "\n" for c, s in attempts))
    assert unreported.infrastructure_problems([CELL], opts) == [f"{CELL.id}: 2 crashed"]
    with target.open("a") as handle:  # both crashed cases pass on a resumed run
        handle.write(json.dumps({"case_id": "m::twice", "status": "passed"}) + "\n"
                     + json.dumps({"case_id": "m::once", "status": "passed"}) + "\n")
    assert unreported.infrastructure_problems([CELL], opts) == []
