"""The Recorder: turns each case's phase reports into one JSONL record (runs on the xdist controller only)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from harness import vocabulary
from harness.cell.outcomes import CRASH_MARK, Phase, collection_verdict, crash_verdict, verdict
from harness.cell.records import case_id_from_nodeid, family_from_nodeid, first_line
from harness.cellrecord import make_record
from harness.results import JsonlWriter

#: The outcome pytest-rerunfailures gives a failed phase of an attempt it retries (the attempt did fail).
RERUN = "rerun"


def phase_of(report: pytest.TestReport) -> Phase:
    """The parts of a pytest report that decide a status."""
    if isinstance(report.longrepr, tuple):
        message = str(report.longrepr[2])
    else:
        message = report.longreprtext or ""
    data = getattr(report, "shardmatrix", {})
    return Phase(
        when=report.when or "",
        outcome=_outcome(report),
        message=message,
        xfail_reason=getattr(report, "wasxfail", None),
        error_type=data.get("error_type"),
        exit_code=str(data.get("error_message") or ""),
        cell_problem=data.get("cell_problem"),
        missing_name=data.get("missing_name"),
        import_hint=data.get("import_hint"),
        known_breakage=bool(data.get("known_breakage")),
        error_message=str(data.get("error_message") or ""),
        device_count=(data.get("device") or {}).get("device_count"),
        cpu_devices_asked=data.get("cpu_devices_asked"),
    )


def _outcome(report: pytest.TestReport) -> str:
    """The phase's outcome, with pytest-rerunfailures' 'rerun' (a failure it is about to retry) read as 'failed'."""
    return "failed" if report.outcome == RERUN else report.outcome


def crashed_worker(message: str) -> str | None:
    """The xdist worker id in "worker 'gw0' crashed while running ..."."""
    found = re.search(r"worker '([^']+)' " + CRASH_MARK, message)
    return found.group(1) if found else None


class Recorder:
    """Collects phase reports per case and writes one record when the case is complete."""

    def __init__(self, writer: JsonlWriter, context: dict[str, Any], fault_log: Callable[[str], str],
                 qualified: Sequence[str] = ()) -> None:
        #: The names of test files that share a stem (harness.cell.records.module_name), for ids from node ids.
        self._qualified = tuple(qualified)
        self._writer = writer
        self._context = context
        self._fault_log = fault_log
        self._pending: dict[str, list[pytest.TestReport]] = {}

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._pending.setdefault(report.nodeid, []).append(report)
        # A dead xdist worker's case is reported once, under an odd phase name, and never gets a teardown.
        if report.when not in ("setup", "call"):
            self._write(report.nodeid)

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self._writer.write(collection_record(self._context, report.nodeid, getattr(report, "shardmatrix", {}),
                                                 report.longreprtext or "", self._qualified))
        elif report.skipped and report.nodeid:
            # A module that skipped itself: without a record its tests vanish, and its reason with them.
            self._writer.write(skipped_module_record(self._context, report.nodeid, report, self._qualified))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        # A case whose worker died never sends its teardown: record what it did send.
        for nodeid in list(self._pending):
            self._write(nodeid)
        self._writer.close()

    def _write(self, nodeid: str) -> None:
        reports = self._pending.pop(nodeid)
        decided = verdict([phase_of(r) for r in reports])
        worker = crashed_worker(reports[-1].longreprtext or "") if _outcome(reports[-1]) == "failed" else None
        if worker is not None:
            decided = crash_verdict(self._fault_log(worker))
        data: dict[str, Any] = {}
        for report in reports:
            for key, value in getattr(report, "shardmatrix", {}).items():
                if value is not None or key not in data:
                    data[key] = value
        # An xfailed known breakage keeps the exception it raised, like a failure; so does an attempt to be retried.
        failing = next((r for r in reports if _outcome(r) == "failed"), None) or next(
            (r for r in reports if r.skipped and getattr(r, "wasxfail", None) is not None), None)
        failing_data = getattr(failing, "shardmatrix", {}) if failing is not None else {}
        timing = next((getattr(r, "shardmatrix", {}) for r in reports if r.when == "call"), {})
        error_type = failing_data.get("error_type")
        error_message = failing_data.get("error_message")
        if worker is not None:
            error_type = "WorkerTimeout" if decided.status == vocabulary.TIMEOUT else "WorkerCrashed"
            error_message = decided.reason
        elif failing is not None and not error_message:
            error_message = _last_error_line(failing.longreprtext or "")
        device = data.get("device") or {}
        self._writer.write(
            make_record(
                **self._context,
                **device,
                case_id=data.get("case_id") or case_id_from_nodeid(nodeid, self._qualified),
                family=data.get("family") or family_from_nodeid(nodeid),
                status=decided.status,
                attempt=max(getattr(r, "rerun", 0) or 0 for r in reports) + 1,
                reason=decided.reason,
                duration_s=timing.get("duration_s", sum(r.duration for r in reports)),
                compile_s=timing.get("compile_s"),
                execute_s=timing.get("execute_s"),
                error_type=error_type if failing is not None else None,
                error_message=error_message if failing is not None else None,
                warnings=data.get("warnings") or [],
                change=data.get("change"),
                smoke=data.get("smoke"),
                devices_needed=vocabulary.devices_needed(decided.status, decided.reason),
                known_breakage=bool(data.get("known_breakage")),
            )
        )


def collection_record(context: dict[str, Any], nodeid: str, facts: dict[str, Any], text: str,
                      qualified: Sequence[str] = ()) -> dict[str, Any]:
    """The record of a test module, a folder or a conftest.py that yielded no case, under vocabulary.COLLECTION_CASE:
    `facts` are the exception's (harness.cell.exceptions.exception_facts), `text` pytest's report of it when the
    exception is gone."""
    decided = collection_verdict(Phase(when="collect", outcome="failed", error_type=facts.get("error_type"),
                                       missing_name=facts.get("missing_name"), import_hint=facts.get("import_hint")))
    return make_record(
        **context,
        case_id=case_id_from_nodeid(nodeid, qualified),
        family=family_from_nodeid(nodeid),
        status=decided.status,
        reason=decided.reason,
        error_type=facts.get("error_type") or "CollectError",
        error_message=facts.get("error_message") or _last_error_line(text),
    )


def skipped_module_record(context: dict[str, Any], nodeid: str, report: pytest.CollectReport,
                          qualified: Sequence[str] = ()) -> dict[str, Any]:
    """The record of a test module that skipped itself, under vocabulary.COLLECTION_CASE: not applicable, with the
    skip's reason (pytest keeps it as the last item of the report's (path, line, message))."""
    longrepr = report.longrepr
    message = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
    decided = collection_verdict(Phase(when="collect", outcome="skipped", message=message))
    return make_record(**context, case_id=case_id_from_nodeid(nodeid, qualified), family=family_from_nodeid(nodeid),
                       status=decided.status, reason=decided.reason,
                       devices_needed=vocabulary.devices_needed(decided.status, decided.reason))


def _last_error_line(text: str) -> str:
    """The exception line of a report's text: pytest's 'E   ...' line, else (a native traceback) its last line
    that is not indented, else the first line."""
    lines = text.splitlines()
    error_lines = [line[1:].strip() for line in lines if line.startswith("E ")]
    if error_lines:
        return first_line(error_lines[0])
    if lines and lines[0].startswith("Traceback (most recent call last)"):
        last = [line for line in lines if line.strip() and not line.startswith(" ")]
        return first_line(last[-1])
    return first_line(text)
