"""The shardmatrix pytest plugin (entry point `pytest11`): options, devices, needs, and what each case reports.

Inert unless asked: without --shardmatrix-out the module-level hooks only add options and the marker. With it,
pytest_configure registers CellPlugin, whose hooks run in every process (controller and
xdist workers); recording runs on the controller only, in the Recorder it also registers.
"""

from __future__ import annotations

import faulthandler
import sys
import time
import warnings
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

from harness import vocabulary
from harness.case import MARKER
from harness.cell import (
    caseapi,
    declared,
    deprecations,
    devices,
    environment,
    exceptions,
    health,
    known,
    quickexit,
    snapshot,
    stack,
    timeline,
)
from harness.cell.collect import IMPORT_WARNINGS, ResilientModule
from harness.cell.needs import first_unmet
from harness.cell.outcomes import TIMEOUT_MARK
from harness.cell.recording import Recorder, collection_record
from harness.cell.records import IN_PROCESS, case_id_from_nodeid, first_line
from harness.cell.timing import CompileClock, median_timing, split
from harness.celldocuments import write_collection, write_machine
from harness.cellrecord import CellFiles
from harness.results import JsonlWriter, recorded_case_ids, write_inflight

CLOCK = pytest.StashKey[CompileClock]()
#: The timing of each run of a case's body (--shardmatrix-repeats of them), each as timing.split gives it.
CALL_RUNS = pytest.StashKey[list[dict[str, float | None]]]()
DEVICE_INFO = pytest.StashKey[dict[str, object]]()
FAULT_LOG = pytest.StashKey[Any]()
INFLIGHT = pytest.StashKey[Path]()
PROBLEM = pytest.StashKey[health.Unusable]()
BREAKAGE = pytest.StashKey[known.Breakage]()
PHASE_WARNINGS = pytest.StashKey[list[str]]()
TIMELINE = pytest.StashKey[timeline.Timeline]()
EXIT_STATUS = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("shardmatrix", "shardmatrix compatibility recording")
    group.addoption("--shardmatrix-out", metavar="DIR", help="record results under DIR/results/<run>/<cell>.jsonl")
    group.addoption("--shardmatrix-run", metavar="ID", default="adhoc", help="run id of the records")
    group.addoption("--shardmatrix-cell", metavar="ID", default="local", help="cell id of the records")
    group.addoption("--shardmatrix-hard-grace", type=float, default=10.0, metavar="S",
                    help="a case stuck in C code past its timeout is stopped S seconds later by ending its worker")
    group.addoption("--shardmatrix-known", action="append", default=[], metavar="FILE",
                    help="known upstream breakages (TOML) applied as strict xfail where their version ranges match")
    group.addoption("--shardmatrix-repeats", type=int, default=1, metavar="N",
                    help="run each passing case N times; its timing is the median (compile and execute apart)")
    group.addoption("--shardmatrix-skip-recorded", action="store_true",
                    help="deselect cases that already have a record in this run and cell (resume)")
    group.addoption("--shardmatrix-deselect", action="append", default=[], metavar="CASE_ID",
                    help="leave this case out on purpose (<file stem>::<test>, with or without its parameters)")
    group.addoption("--shardmatrix-only", action="append", default=[], metavar="CASE_ID",
                    help="run only this case (repeatable; a re-run of chosen cases, as the precision re-run does)")
    group.addoption("--shardmatrix-quick-exit", action="store_true",
                    help="once pytest has finished, end the process without pytest's cleanup and Python's teardown "
                         "(jax's atexit handlers and freeing what it compiled take seconds), with pytest's exit status")
    group.addoption("--shardmatrix-module", action="append", default=[], metavar="NAME",
                    help="the module part of the case ids of a test file whose stem another one shares: the end of "
                         "its path that tells it apart, e.g. core/misc_util_test (repeatable; the host names them)")
    group.addoption("--shardmatrix-case-api", action="store_true",
                    help="the cases import shardmatrix's case API (`from harness.case import case`): answer it with "
                         "this plugin's own modules")
    group.addoption(
        "--shardmatrix-devices",
        type=int,
        metavar="N",
        default=0,
        help="the simulated CPU devices the host asked for in this process's XLA_FLAGS before it started, which "
             "records are measured against (0: none asked; the plugin itself never sets them)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(family, devices, needs): a shardmatrix case; unmet needs or too few devices make it "
        "not_applicable",
    )
    out = config.getoption("--shardmatrix-out")
    if not out:
        # Inert unless asked (as pytest-reportlog): an environment with shardmatrix installed runs pytest as usual.
        _refuse_options_without_out(config)
        return
    # The devices were asked for in the environment the host gave this process (harness.host.runner), before any
    # conftest, plugin or sitecustomize of a project could import jax: nothing is set, or warned about, here.
    config.stash[CLOCK] = CompileClock()
    config.pluginmanager.register(CellPlugin(), "shardmatrix-cell")
    run, cell = config.getoption("--shardmatrix-run"), config.getoption("--shardmatrix-cell")
    if hasattr(config, "workerinput"):
        _watch_for_faults(config, CellFiles(Path(out), run, cell).fault_log(config.workerinput["workerid"]))
        return
    if not getattr(config.option, "numprocesses", None):
        # Cases run in this very process: a death is pinned on the case named in the in-flight file, and the
        # runner starts a fresh process for the rest (see harness.host.runner.run_pytest).
        _watch_for_faults(config, CellFiles(Path(out), run, cell).fault_log(IN_PROCESS))
        config.stash[INFLIGHT] = CellFiles(Path(out), run, cell).inflight
    # Only the xdist controller (or the single process) writes records, and keeps the case sources for reproducers.
    snapshot.snapshot(config.args, CellFiles(Path(out), run, cell).sources, config.getoption("--shardmatrix-module"))
    context = _context(run, cell)

    def read_fault_log(worker: str) -> str:
        path = CellFiles(Path(out), run, cell).fault_log(worker)
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    qualified = tuple(config.getoption("--shardmatrix-module") or ())
    marks = timeline.Timeline(CellFiles(Path(out), run, cell).results, config.stash.get(timeline.CONFTESTS_AT, None),
                              qualified)
    config.stash[TIMELINE] = marks
    config.pluginmanager.register(marks, "shardmatrix-timeline")
    recorder = Recorder(JsonlWriter(CellFiles(Path(out), run, cell).results), context, read_fault_log, qualified)
    config.pluginmanager.register(recorder, "shardmatrix-recorder")
    config.pluginmanager.register(Collection(CellFiles(Path(out), run, cell).results, cell, qualified),
                                  "shardmatrix-collection")
    config.pluginmanager.register(Machine(CellFiles(Path(out), run, cell).results, cell), "shardmatrix-machine")


def _case_id(config: pytest.Config, nodeid: str) -> str:
    """A node's case id as the host names it too: by its file's stem, or the name the host gave a file whose stem
    another one shares (--shardmatrix-module)."""
    return case_id_from_nodeid(nodeid, config.getoption("--shardmatrix-module") or ())


class Machine:
    """Records the stack the cell ran on (harness.cell.stack), once, on the controller, when the session ends: by then
    the cases have started the backend in this process, or (with xdist) the workers are done with the device, so
    asking jax here takes no device memory a case needs."""

    def __init__(self, results: Path, cell: str) -> None:
        self._results, self._cell = results, cell

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        write_machine(self._results, self._cell, stack.describe())


class Collection:
    """Records the cases the cell was expected to run (harness.celldocuments.write_collection): what pytest collected
    after deselection, on the controller only. Without xdist the session's items; with it, the ids a worker collected
    (each worker collects the same cases, and its deselection has run)."""

    def __init__(self, results: Path, cell: str, qualified: Sequence[str] = ()) -> None:
        self._results, self._cell, self._qualified = results, cell, tuple(qualified)
        self._written = False

    def _write(self, nodeids: list[str]) -> None:
        if not self._written:
            self._written = True
            write_collection(self._results, self._cell,
                             [case_id_from_nodeid(nodeid, self._qualified) for nodeid in nodeids])

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._write([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self._write(list(ids))


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> Generator[None, None, None]:
    # Before any conftest or case is imported, so each finds the case API as the plugin's own modules.
    if getattr(early_config.known_args_namespace, "shardmatrix_case_api", False):
        caseapi.bind()
    # A conftest.py beside the cases that cannot be imported (it imports the project, which the cell lacks) stops
    # pytest before any session: its record is the only trace the cell keeps of why.
    try:
        loaded = yield
        early_config.stash[timeline.CONFTESTS_AT] = time.time()
        return loaded
    except Exception as exc:
        known = early_config.known_args_namespace
        if getattr(known, "shardmatrix_out", None) and not hasattr(early_config, "workerinput"):
            _record_conftest_failure(Path(known.shardmatrix_out), known.shardmatrix_run, known.shardmatrix_cell, exc)
        raise


def _record_conftest_failure(out: Path, run: str, cell: str, exc: Exception) -> None:
    """conftest::<collection>, `error` with the exception and what to do about a module the cell lacks."""
    failed = Path(getattr(exc, "path", "conftest.py"))
    writer = JsonlWriter(CellFiles(out, run, cell).results)
    try:
        facts = exceptions.exception_facts(exceptions.unwrapped(exc), failed)
        writer.write(collection_record(_context(run, cell), failed.name, facts, str(exc)))
    finally:
        writer.close()


def _context(run: str, cell: str) -> dict[str, Any]:
    """What every record of this cell's run carries besides its case: run, cell, package versions, interpreter."""
    return {"run_id": run, "cell_id": cell, **environment.package_versions(), **environment.interpreter()}


def _refuse_options_without_out(config: pytest.Config) -> None:
    given = [arg.split("=")[0] for arg in config.invocation_params.args
             if isinstance(arg, str) and arg.startswith("--shardmatrix-")]
    if given:
        raise pytest.UsageError(f"{given[0]} does nothing without --shardmatrix-out DIR (shardmatrix records, and "
                                "changes how cases run, only when asked to record)")


def _watch_for_faults(config: pytest.Config, path: Path) -> None:
    """Where cases run (an xdist worker, or the cell's own process): fatal signals and hard timeouts leave a
    traceback that the controller, or the runner, reads to name the fault."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("a", encoding="utf-8")
    config.stash[FAULT_LOG] = handle
    config.add_cleanup(handle.close)


class CellPlugin:
    """The hooks that run a cell's cases; registered by pytest_configure only when --shardmatrix-out is given."""

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        handle = session.config.stash.get(FAULT_LOG, None)
        if handle is not None:  # after pytest's own faulthandler plugin, which points it at stderr
            faulthandler.enable(file=handle, all_threads=True)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        inflight = item.config.stash.get(INFLIGHT, None)
        if inflight is not None:
            write_inflight(inflight, item.nodeid)
        handle = item.config.stash.get(FAULT_LOG, None)
        limit = declared.time_limit(item)
        if handle is None or not limit:
            return (yield)
        # pytest-timeout's alarm cannot interrupt code stuck in C; this watchdog thread can, by ending the worker.
        grace = item.config.getoption("--shardmatrix-hard-grace")
        attempts = 1 + int(getattr(item.config.option, "reruns", 0) or 0)  # retries run inside this protocol
        faulthandler.dump_traceback_later(limit * attempts + grace, exit=True, file=handle)
        try:
            return (yield)
        finally:
            faulthandler.cancel_dump_traceback_later()

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        """A log line, never a warning (a project's -Werror would make it an error), where the project's own CPU
        device count replaced the one the host asked for; said after the fact, from what jax reported to records."""
        if hasattr(config, "workerinput"):
            return
        asked = int(config.getoption("--shardmatrix-devices") or 0)
        info = config.stash.get(DEVICE_INFO, None)
        if asked > 0 and info is not None and info.get("backend") == "cpu" and devices.chosen_by_project(asked):
            terminalreporter.write_line(f"shardmatrix: the tests ran on {info.get('device_count')} CPU devices, the "
                                        f"count the project chose (the harness asked for {asked})")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        # A finished session leaves no in-flight case: a file left behind means the process died mid-case.
        inflight = session.config.stash.get(INFLIGHT, None)
        if inflight is not None:
            inflight.unlink(missing_ok=True)
        session.config.stash[EXIT_STATUS] = int(exitstatus)

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        # Last of all: every record, the machine file, the timeline's last mark and the log are written by now
        # (pluggy calls the plugins registered after this one first). An xdist worker's end is execnet's to manage.
        if (config.getoption("--shardmatrix-quick-exit") and EXIT_STATUS in config.stash
                and not hasattr(config, "workerinput")):
            quickexit.leave(config.stash[EXIT_STATUS])

    def pytest_pycollect_makemodule(self, module_path: Path, parent: pytest.Collector) -> pytest.Module:
        return ResilientModule.from_parent(parent, path=module_path)

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector) -> Generator[None, Any, Any]:
        report = yield
        call = getattr(report, "call", None)  # pytest keeps it there for pytest_exception_interact
        if report.failed and call is not None and call.excinfo is not None:
            report.shardmatrix = exceptions.exception_facts(exceptions.unwrapped(call.excinfo.value), collector.path)
        return report

    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """The one place where what a case needs is compared with what the cell has."""
        if config.getoption("--shardmatrix-deselect"):
            _deselect_asked(config, items, set(config.getoption("--shardmatrix-deselect")))
        if config.getoption("--shardmatrix-only"):
            _deselect_asked(config, items, set(config.getoption("--shardmatrix-only")), keep=True)
        if config.getoption("--shardmatrix-skip-recorded"):
            _deselect_recorded(config, items)
        marks = config.stash.get(TIMELINE, None)
        if marks is not None:
            marks.mark(timeline.MODULES_COLLECTED)
        problem = health.check() if items else None
        if marks is not None:
            marks.mark(timeline.BACKEND_READY)
        if problem is not None:
            # Nothing a case could tell is about its API: each one is `error` with the cell's problem.
            for item in items:
                item.stash[PROBLEM] = problem
            return
        breakages = [entry for path in config.getoption("--shardmatrix-known") for entry in known.load(Path(path))]
        installed = known.installed_versions()
        available: int | None = None
        for item in items:
            mark = item.get_closest_marker(MARKER)
            change = mark.kwargs.get("changed") if mark is not None else None
            # Inside its change's `since` a removed API is the very thing the case catches: it runs and fails with
            # the declared exception instead of reading not applicable.
            removed = change is not None and change.in_effect(installed)
            settled = declared.settled_failure(change) if removed else None
            if settled is not None:
                _not_retried_when(item, settled)
            reason = first_unmet(tuple(mark.kwargs.get("needs", ()))) if mark is not None and not removed else None
            wanted = int(mark.kwargs.get("devices", 1)) if mark is not None else 1
            if reason is None and wanted > 1:
                if available is None:
                    available = int(str(_device_info(config).get("device_count") or 0))
                if available < wanted:
                    reason = vocabulary.devices_reason(wanted, available)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
                continue
            breakage = known.matching(breakages, _case_id(item.config, item.nodeid), installed)
            if breakage is not None:
                item.stash[BREAKAGE] = breakage
                item.add_marker(pytest.mark.xfail(strict=True, reason=breakage.describe()))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, object, object]:
        problem = item.stash.get(PROBLEM, None)
        if problem is not None:
            raise health.CellUnusable(problem)
        with deprecations.recording() as caught:
            try:
                return (yield)
            finally:
                _keep_warnings(item, caught)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, object, object]:
        with deprecations.recording() as caught:
            try:
                return (yield)
            finally:
                _keep_warnings(item, caught)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        clock = item.config.stash[CLOCK]
        listening = clock.listen()
        before = clock.total()
        start = time.perf_counter()
        runs: list[dict[str, float | None]] = []
        with deprecations.recording() as caught:
            try:
                result = yield
                runs.append(split(time.perf_counter() - start, before, clock.total(), listening))
                # Timing is the median of --shardmatrix-repeats runs of the body alone, each timed on its own (the
                # call phase's duration holds them all); each starts cold so each compiles alike.
                for _ in range(item.config.getoption("--shardmatrix-repeats") - 1):
                    runs.append(_timed_repeat(item, clock, listening))
                return result
            finally:
                _keep_warnings(item, caught)
                if not runs:  # the first run raised: its timing is the case's
                    runs.append(split(time.perf_counter() - start, before, clock.total(), listening))
                item.stash[CALL_RUNS] = runs

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        data: dict[str, Any] = {
            "case_id": _case_id(item.config, item.nodeid),
            "family": declared.family(item),
            "change": declared.declared_change(item),
            "smoke": declared.is_smoke(item),
            "device": _device_info(item.config) if "jax" in sys.modules else None,
            "known_breakage": BREAKAGE in item.stash,
        }
        if data["device"] is not None and data["device"].get("backend") == "cpu":
            # What the record's device_count is measured against: a too-few-devices error is a shortage only in a
            # cell that has the CPU devices the harness asked for (harness.cell.outcomes).
            data["cpu_devices_asked"] = _devices_asked(item.config)
        if call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception):
            data.update(_error(item, call.excinfo.value, report))
        if call.when == "call":
            runs = item.stash.get(CALL_RUNS, None)
            # Without runs (the body never started under the hook above), the phase's duration is all there is.
            data.update(median_timing(runs) if runs else split(report.duration, 0.0, 0.0, False))
        module = item.getparent(pytest.Module)
        imported: list[str] = module.stash.get(IMPORT_WARNINGS, []) if module is not None else []
        phases: list[str] = item.stash.get(PHASE_WARNINGS, [])
        data["warnings"] = deprecations.merge(imported, phases)
        report.shardmatrix = data
        return report


def _error(item: pytest.Item, exc: BaseException, report: pytest.TestReport) -> dict[str, Any]:
    """The raw facts of an exception a phase raised; an xfailed known breakage that must not hide it fails."""
    if isinstance(exc, health.CellUnusable):
        cause = exc.problem.cause
        return {"cell_problem": exc.problem.reason, "error_type": type(cause).__name__,
                "error_message": first_line(cause) or type(cause).__name__}
    data = exceptions.exception_facts(exc, item.path)
    if report.skipped and getattr(report, "wasxfail", None) is not None:
        unmasked = _not_the_breakage(item, exc)
        if unmasked is not None:
            report.outcome = "failed"
            del report.wasxfail
            data["error_message"] = unmasked or data["error_message"]
    return data


def _not_the_breakage(item: pytest.Item, exc: BaseException) -> str | None:
    """Why an xfailed case is not its known breakage: '' for a time limit or an exit, which a known breakage never
    hides (they keep their own message), 'expected X, got Y: ...' for another exception than it declares."""
    if isinstance(exc, SystemExit) or TIMEOUT_MARK in str(exc):
        return ""
    breakage = item.stash.get(BREAKAGE, None)
    return breakage.unexpected(exc) if breakage is not None else None


def _not_retried_when(item: pytest.Item, pattern: str) -> None:
    """pytest-rerunfailures retries the case as the session says, except for a failure matching `pattern` too (a
    mark's `rerun_except` replaces the session's, so both are given). A case with a flaky mark of its own keeps it."""
    reruns = int(getattr(item.config.option, "reruns", 0) or 0)
    if reruns and item.get_closest_marker("flaky") is None:
        session = list(getattr(item.config.option, "rerun_except", None) or [])
        item.add_marker(pytest.mark.flaky(reruns=reruns, rerun_except=[*session, pattern]))


def _keep_warnings(item: pytest.Item, caught: list[warnings.WarningMessage]) -> None:
    earlier: list[str] = item.stash.get(PHASE_WARNINGS, [])
    item.stash[PHASE_WARNINGS] = deprecations.merge(earlier, deprecations.texts(caught))


def _deselect_asked(config: pytest.Config, items: list[pytest.Item], asked: set[str], keep: bool = False) -> None:
    """Leave out the cases asked for by id (with its parameters, or without them for every parametrization); with
    `keep`, every case but those."""
    def left_out(item: pytest.Item) -> bool:
        case_id = _case_id(config, item.nodeid)
        return (case_id in asked or case_id.split("[")[0] in asked) != keep

    dropped = [item for item in items if left_out(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if not left_out(item)]


def _deselect_recorded(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = CellFiles(Path(config.getoption("--shardmatrix-out")), config.getoption("--shardmatrix-run"),
                     config.getoption("--shardmatrix-cell")).results
    done = recorded_case_ids(path)
    keep = [item for item in items if _case_id(config, item.nodeid) not in done]
    dropped = [item for item in items if _case_id(config, item.nodeid) in done]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def _timed_repeat(item: pytest.Item, clock: CompileClock, listening: bool) -> dict[str, float | None]:
    clear = getattr(sys.modules.get("jax"), "clear_caches", None)
    if clear is not None:
        clear()
    before = clock.total()
    start = time.perf_counter()
    item.runtest()
    return split(time.perf_counter() - start, before, clock.total(), listening)


def _devices_asked(config: pytest.Config) -> int | None:
    """The CPU devices the host asked for, which the record's device count is held to; None when it asked for none
    or the project chose its own count (its tests were written for that count: the cell is as the project set it)."""
    asked = int(config.getoption("--shardmatrix-devices") or 0)
    return asked if asked > 0 and not devices.chosen_by_project(asked) else None


def _device_info(config: pytest.Config) -> dict[str, object]:
    if DEVICE_INFO not in config.stash:
        config.stash[DEVICE_INFO] = devices.describe()
    return config.stash[DEVICE_INFO]
