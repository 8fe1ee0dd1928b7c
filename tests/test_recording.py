from __future__ import annotations

from harness.cell.recording import crashed_worker


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
