"""harness.host.unreported: records written for cases pytest could not report."""

from __future__ import annotations

import json
from pathlib import Path

from harness.host import matrix, unreported
from harness.host.cellfiles import CellFiles

CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def folder_of_two_cases(tmp_path: Path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "test_one.py").write_text("def test_a(): ...\ndef test_b(): ...\n")
    return folder


def test_record_unrun_writes_every_case_with_pins(tmp_path: Path) -> None:
    files = CellFiles(tmp_path / "out", "r", CELL.id)
    folder = folder_of_two_cases(tmp_path)
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
    target.write_text(json.dumps({"case_id": "test_one::test_a", "status": "passed"}) + "\n{corrupt\n")
    folder = folder_of_two_cases(tmp_path)
    unreported.record_unrun(CELL, files, [folder], "crashed", "CellProcessDied", "killed by SIGSEGV", only_missing=True)
    statuses = [(r.get("case_id"), r.get("status")) for r in map(json.loads, target.read_text().splitlines()[::2])]
    assert statuses == [("test_one::test_a", "passed"), ("test_one::test_b", "crashed")]


def test_exit_description() -> None:
    assert unreported.exit_description(-11) == "cell process killed by SIGSEGV"
    assert unreported.exit_description(3) == "pytest exited with code 3"
