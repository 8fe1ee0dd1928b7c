from __future__ import annotations

from harness.cell.recording import crashed_worker


def test_crashed_worker_pair() -> None:
    assert crashed_worker("worker 'gw3' crashed while running 'cases/x.py::test_y'") == "gw3"
    assert crashed_worker("AssertionError: values differ") is None
