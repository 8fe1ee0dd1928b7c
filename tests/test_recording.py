from __future__ import annotations

import pytest

from harness.cell.recording import crashed_worker, phase_of


def test_crashed_worker_pair() -> None:
    assert crashed_worker("worker 'gw3' crashed while running 'cases/x.py::test_y'") == "gw3"
    assert crashed_worker("AssertionError: values differ") is None


def test_the_error_line_is_read_from_pytests_long_form_and_from_a_native_traceback() -> None:
    from harness.cell.recording import _last_error_line

    long_form = ("    def test():\n>       f()\nE       TypeError: jit() got an unexpected keyword\n\n"
                 "cases/x.py:3: TypeError")
    assert _last_error_line(long_form) == "TypeError: jit() got an unexpected keyword"
    native = ('Traceback (most recent call last):\n  File "cases/x.py", line 3, in test\n    f()\n'
              "TypeError: jit() got an unexpected keyword")
    assert _last_error_line(native) == "TypeError: jit() got an unexpected keyword"
    assert _last_error_line("collection failed\nmore") == "collection failed"


def test_a_phase_retried_by_rerunfailures_is_a_failed_phase_and_keeps_its_facts() -> None:
    report = pytest.TestReport("m.py::t", ("m.py", 1, "t"), {}, "rerun", "E   AssertionError: first", "call")
    report.shardmatrix = {"error_type": "AssertionError", "error_message": "first"}
    phase = phase_of(report)
    assert (phase.outcome, phase.error_type) == ("failed", "AssertionError")
    passed = pytest.TestReport("m.py::t", ("m.py", 1, "t"), {}, "passed", None, "call")
    assert phase_of(passed).outcome == "passed"
