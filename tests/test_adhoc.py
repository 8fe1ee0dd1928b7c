"""Command-line cells: finding stored results to reuse."""

from __future__ import annotations

import json
from pathlib import Path

from harness.host.adhoc import statuses_of, stored_run
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
    path.write_text('{"case_id": "m::a", "status": "failed"}\nnot json\n{"case_id": "m::a", "status": "passed"}\n')
    assert statuses_of(tmp_path, "r", "c")["m::a"]["status"] == "passed"
