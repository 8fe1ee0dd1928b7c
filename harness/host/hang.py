"""A cell's pytest that hangs before its first test: its collection, or a conftest's import, stuck past the budget.

pytest-timeout's session timeout is checked after each test, and its per-test timeout starts with a test: neither
reaches a suite stuck while it collects. So the host watches from outside: a pytest whose collection file
(harness.cellrecord.CellFiles.collection, written once collection finishes) is not there when the suite's budget has
passed is stopped, its whole process group (a conftest's children too), and harness.host.runner records the cell's
cases as timeout, naming the hang in one line (`CollectionWatch.reason`) and in the cell's log (HUNG_MARK).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

#: What the cell's log says of a pytest stopped in collection (the ecosystem reads a project's hang from it).
HUNG_MARK = "shardmatrix: hung in collection"


@dataclass
class CollectionWatch:
    """Stop a pytest that has not finished collecting `collected` after `seconds`; `fired` says whether it did."""

    seconds: float
    collected: Path
    fired: threading.Event = field(default_factory=threading.Event)

    @property
    def reason(self) -> str:
        """The one line a stopped cell's cases carry."""
        return f"hung in collection after {self.seconds:g} s: its pytest was stopped before any test ran"

    def watch(self, process: subprocess.Popen[str] | subprocess.Popen[bytes], ended: threading.Event) -> None:
        """Wait out the budget (or the process's end, `ended`); stop the process group if it is still collecting."""
        if ended.wait(self.seconds) or process.poll() is not None or self.collected.exists():
            return
        self.fired.set()
        stop_group(process)


def stop_group(process: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    """Kill a process started in a session of its own, and every process of its group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
