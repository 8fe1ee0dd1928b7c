"""Command-line cells: finding stored results to reuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.host import adhoc
from harness.host.adhoc import statuses_of, stored_run
from harness.host.matrix import Cell
from harness.host.options import Options
from harness.vocabulary import done_path, results_path


def store(out: Path, run: str, cell: str, cases: list[str], done: bool = True) -> None:
    path = results_path(out, run, cell)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"case_id": c, "status": "passed"}) + "\n" for c in cases))
    if done:
        done_path(out, run, cell).write_text("{}")


def test_the_newest_complete_run_covering_the_cases_is_reused(tmp_path: Path) -> None:
    store(tmp_path, "20260101T000000Z-aaaa", "c", ["m::a", "m::b"])
    store(tmp_path, "20260102T000000Z-bbbb", "c", ["m::a", "m::b[1]"])
    assert stored_run(tmp_path, "c", {"m::a", "m::b"}) == "20260102T000000Z-bbbb"


def test_interrupted_or_partial_results_are_not_reused(tmp_path: Path) -> None:
    store(tmp_path, "r1", "c", ["m::a"])  # a bisect probe: one case only
    store(tmp_path, "r2", "c", ["m::a", "m::b"], done=False)
    assert stored_run(tmp_path, "c", {"m::a", "m::b"}) is None
    assert stored_run(tmp_path, "other", {"m::a"}) is None


def test_statuses_of_keeps_the_last_record_per_case(tmp_path: Path) -> None:
    path = results_path(tmp_path, "r", "c")
    path.parent.mkdir(parents=True)
    path.write_text('{"case_id": "m::a", "status": "failed", "attempt": 1}\nnot json\n'
                    '{"case_id": "m::a", "status": "passed", "attempt": 2}\n')
    assert statuses_of(tmp_path, "r", "c")["m::a"]["status"] == "passed"


def fake_cell_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, returncode: int) -> None:
    """runner.run as a real one ends: a finished run writes the done marker, an interrupted one (2) does not."""
    monkeypatch.setattr(adhoc, "ensure_venv", lambda cell: (tmp_path / "venv", None))

    def run(cell: Cell, venv: Path, options: Options) -> int:
        store(options.out, options.run_id, cell.id, ["m::a"], done=returncode == 0)
        return returncode

    monkeypatch.setattr(adhoc.runner, "run", run)


CELL = Cell(id="c", jax="0.4.38", jaxlib="0.4.38", flax="0.10.2", python="3.11")


def test_an_interrupted_cell_run_reads_as_incomplete_and_is_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, runner.run's return code was dropped: an interrupted candidate read as a finished cell.
    fake_cell_run(monkeypatch, tmp_path, returncode=2)
    said: list[str] = []
    ran = adhoc.run_cell(CELL, Options(out=tmp_path, run_id="r1"), {"m::a"}, say=said.append)
    assert ran.interrupted and not ran.complete and ran.returncode == 2
    assert said[-1] == "c: interrupted (exit 2); its results are incomplete and are not reused"
    assert stored_run(tmp_path, "c", {"m::a"}) is None


def test_a_finished_cell_run_reads_as_complete_and_is_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_cell_run(monkeypatch, tmp_path, returncode=0)
    ran = adhoc.run_cell(CELL, Options(out=tmp_path, run_id="r1"), {"m::a"}, say=lambda line: None)
    assert ran.complete and not ran.interrupted and not ran.reused
    again = adhoc.run_cell(CELL, Options(out=tmp_path, run_id="r2"), {"m::a"}, say=lambda line: None)
    assert again.reused and again.run_id == "r1" and again.complete


def test_a_done_marker_left_by_an_earlier_run_does_not_vouch_for_an_interrupted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store(tmp_path, "r1", "c", ["m::a"])  # a finished run under the same id, rerun with --force
    fake_cell_run(monkeypatch, tmp_path, returncode=2)
    ran = adhoc.run_cell(CELL, Options(out=tmp_path, run_id="r1"), {"m::a"}, force=True, say=lambda line: None)
    assert ran.interrupted and not done_path(tmp_path, "r1", "c").exists()
