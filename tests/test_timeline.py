"""The marks a cell's pytest writes into its timeline (harness/cell/timeline.py), through real pytest sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cell import timeline
from harness.results import read_timeline

CASES = """
import subprocess
import sys


def test_in_process():
    assert 1 + 1 == 2


def test_starts_a_child():
    subprocess.run([sys.executable, "-c", "sum(range(10**6))"], check=True)
"""


def run_cases(pytester: pytest.Pytester, *args: str) -> Path:
    pytester.makepyfile(toy_cases=CASES)
    out = pytester.path / "out"
    pytester.runpytest("toy_cases.py", "-p", "no:cacheprovider", *args)
    return out / "results" / "r1" / "c1.jsonl"


def recorded(pytester: pytest.Pytester) -> list[dict[str, object]]:
    return read_timeline(run_cases(pytester, "--shardmatrix-out", str(pytester.path / "out"), "--shardmatrix-run",
                                   "r1", "--shardmatrix-cell", "c1", "--shardmatrix-devices", "0"))


def test_a_recording_run_marks_each_part_in_order(pytester: pytest.Pytester) -> None:
    marks = recorded(pytester)
    names = [m["mark"] for m in marks if m["mark"] != timeline.CHILD_PROCESS]
    assert names == [timeline.PLUGIN_LOADED, timeline.CONFTESTS_LOADED, timeline.SESSION_START,
                     timeline.COLLECTION_START, timeline.MODULES_COLLECTED, timeline.BACKEND_READY,
                     timeline.CASES_START, timeline.CASES_END, timeline.UNCONFIGURED]
    times = [float(m["at"]) for m in marks if m["mark"] != timeline.PLUGIN_LOADED]  # loaded with this test session
    assert times == sorted(times)


def test_a_case_that_starts_a_child_process_is_marked_and_one_that_does_not_is_not(pytester: pytest.Pytester) -> None:
    children = [m for m in recorded(pytester) if m["mark"] == timeline.CHILD_PROCESS]
    assert [m["case_id"] for m in children] == ["toy_cases::test_starts_a_child"]
    assert float(children[0]["body_s"]) > 0 and float(children[0]["cpu_s"]) > 0  # type: ignore[arg-type]


def test_without_out_no_timeline_is_written(pytester: pytest.Pytester) -> None:
    run_cases(pytester)
    assert not list(pytester.path.rglob("timeline.jsonl"))
