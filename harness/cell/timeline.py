"""When each part of a cell's pytest run began: the marks of the cell's timeline (harness.results.write_mark), from
which the bench splits a cell's wall time into its parts (benchmarks/time_budget.py).

Registered by the plugin on the process that records (the xdist controller, or the cell's own process); a mark is one
short line appended at once, so the marks cost microseconds and a killed process keeps those it wrote. The host marks
the parts around pytest (harness.host.cellrun, harness.host.runner).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from pathlib import Path

import pytest

from harness.cell.records import case_id_from_nodeid
from harness.results import write_mark

try:  # POSIX only: elsewhere no case is seen to start a child process
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

#: When this module was imported: pytest imports the plugin (and so this module) right after its own start.
LOADED_AT = time.time()
#: When the initial conftest.py files had been loaded (the plugin's pytest_load_initial_conftests sets it).
CONFTESTS_AT = pytest.StashKey[float]()

#: The marks, in the order a run writes them (the host's `cell_start`, `venv_ready`, `pytest_launch`,
#: `pytest_exit` and `cell_end` around them).
PLUGIN_LOADED = "plugin_loaded"
CONFTESTS_LOADED = "conftests_loaded"
SESSION_START = "session_start"
COLLECTION_START = "collection_start"
MODULES_COLLECTED = "modules_collected"
BACKEND_READY = "backend_ready"
CASES_START = "cases_start"
CASES_END = "cases_end"
UNCONFIGURED = "unconfigured"
#: A case whose body started a child process (its own interpreter, its own backend): its case id, the body's wall
#: seconds and the children's CPU seconds.
CHILD_PROCESS = "child_process"


def children_cpu() -> float:
    """CPU seconds of this process's finished children so far (0 where the platform cannot say)."""
    if resource is None:
        return 0.0
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _marking(name: str, first: bool = True) -> Callable[[Timeline], None]:
    """A hook of Timeline's that writes mark `name` when pytest calls it, before the other plugins' work (`first`)
    or after it."""

    @pytest.hookimpl(tryfirst=first, trylast=not first)
    def hook(self: Timeline) -> None:
        self.mark(name)

    return hook


class Timeline:
    """Writes the marks of a cell's pytest run into its timeline."""

    def __init__(self, results: Path, conftests_at: float | None, qualified: Sequence[str] = ()) -> None:
        self._results = results
        self._qualified = tuple(qualified)  # harness.cell.records.module_name
        self._cases_started = False
        write_mark(results, PLUGIN_LOADED, LOADED_AT)
        if conftests_at is not None:
            write_mark(results, CONFTESTS_LOADED, conftests_at)

    def mark(self, name: str) -> None:
        """Write mark `name` now."""
        write_mark(self._results, name)

    pytest_sessionstart = _marking(SESSION_START)
    pytest_collection = _marking(COLLECTION_START)
    pytest_sessionfinish = _marking(CASES_END)
    pytest_unconfigure = _marking(UNCONFIGURED, first=False)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self) -> None:
        if not self._cases_started:
            self._cases_started = True
            self.mark(CASES_START)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        before, start = children_cpu(), time.perf_counter()
        try:
            return (yield)
        finally:
            cpu = children_cpu() - before
            if cpu > 0:
                write_mark(self._results, CHILD_PROCESS, case_id=case_id_from_nodeid(item.nodeid, self._qualified),
                           body_s=round(time.perf_counter() - start, 4), cpu_s=round(cpu, 4))
