"""harness.host.hang: a pytest stuck before its first test is stopped at the budget, its process group with it."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from harness.host import celllog, hang

#: A conftest that never finishes importing, and starts a child that would outlive a pytest killed alone.
SLEEPING_CONFTEST = """import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
time.sleep(60)
"""


def test_a_suite_whose_conftest_hangs_is_stopped_at_the_budget_with_its_children(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(SLEEPING_CONFTEST)
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    watch = hang.CollectionWatch(2.0, tmp_path / "never.collected.json")
    started = time.monotonic()
    code = celllog.run_logged([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "tests"], {}, tmp_path / "log",
                              verbose=False, cwd=tmp_path, watch=watch.watch)
    assert watch.fired.is_set() and code < 0 and time.monotonic() - started < 30
    assert watch.reason == "hung in collection after 2 s: its pytest was stopped before any test ran"


def test_a_suite_that_collected_is_left_to_its_own_limits(tmp_path: Path) -> None:
    """Pair: once the collection file is there, the budget is pytest-timeout's to keep, not the watch's."""
    collected = tmp_path / "c.collected.json"
    script = f"import pathlib, time; pathlib.Path({str(collected)!r}).write_text('[]'); time.sleep(3)"
    watch = hang.CollectionWatch(1.0, collected)
    assert celllog.run_logged([sys.executable, "-c", script], {}, tmp_path / "log", verbose=False,
                              watch=watch.watch) == 0
    assert not watch.fired.is_set()
