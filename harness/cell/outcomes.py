"""How pytest's phase reports of one case become one shardmatrix status: the only place that decides it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness import vocabulary
from harness.cell.health import CellUnusable
from harness.cell.shortage import devices_asked

#: pytest-timeout's failure message starts with this.
TIMEOUT_MARK = "Timeout (>"
#: pytest's report text for a strict xfail that passed.
STRICT_XPASS_MARK = vocabulary.STRICT_XPASS_MARK
#: In the report text of every case of a cell that cannot run cases (its backend does not start, its jax or flax do
#: not import): retrying such a case is pointless.
CELL_UNUSABLE_MARK = CellUnusable.__name__
#: pytest-xdist's report text when the worker running a case died.
CRASH_MARK = "crashed while running"
#: Exceptions of a case that could not import what it uses: a name this cell lacks (`failed`, see
#: harness.cell.health.missing_name), else a module that is not installed at all (`error`).
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
UNIMPORTABLE = "the case could not import a module it uses"
#: The reason of a test module that could not be collected for another cause than a module or name it lacks.
COLLECTION_FAILED = "collection failed"
#: jax's exceptions for an error of the runtime (XlaRuntimeError, renamed JaxRuntimeError in jax 0.8).
RUNTIME_ERRORS = frozenset({"XlaRuntimeError", "JaxRuntimeError"})
#: The status code of the runtime's out-of-memory error, at the start of its message.
OUT_OF_MEMORY_MARK = "RESOURCE_EXHAUSTED"


@dataclass(frozen=True)
class Phase:
    """What one phase (setup, call or teardown) of a case reported."""

    when: str
    outcome: str
    message: str = ""
    xfail_reason: str | None = None
    error_type: str | None = None
    exit_code: str = ""
    #: Why no case of the cell can run (harness.cell.health); decides the status before anything else.
    cell_problem: str | None = None
    #: Whether its xfail is a known breakage of ours (harness.cell.known), not a mark of the test's own.
    known_breakage: bool = False
    #: 'jax.sharding has no use_mesh (jax 0.4.30)' when the phase raised an ImportError of a missing name.
    missing_name: str | None = None
    #: What to do about a module the cell lacks entirely (harness.cell.imports.hint), when the phase raised that.
    import_hint: str | None = None
    #: The first line of the exception the phase raised.
    error_message: str = ""
    #: The devices jax reports in this cell (the record's device_count), None where it did not start.
    device_count: int | None = None
    #: The CPU devices the harness asked XLA for, on a CPU cell (None elsewhere, or when it asked for none).
    cpu_devices_asked: int | None = None


@dataclass(frozen=True)
class Verdict:
    """A case's status and, where there is one, the reason (skip, xfail or crash detail)."""

    status: str
    reason: str | None = None


def verdict(phases: list[Phase]) -> Verdict:
    """Combine a case's phases into its status (see harness.vocabulary for the vocabulary)."""
    problem = next((phase.cell_problem for phase in phases if phase.cell_problem), None)
    if problem is not None:
        return Verdict(vocabulary.ERROR, problem)
    result: Verdict | None = None
    for phase in phases:
        if phase.when == "setup" and phase.outcome != "passed":
            return _early(phase)
        if phase.when == "call":
            result = _call(phase)
        if phase.when == "teardown" and phase.outcome == "failed" and result in (None, Verdict(vocabulary.PASSED)):
            return Verdict(vocabulary.ERROR, "teardown failed")
        if phase.when not in ("setup", "call", "teardown") and phase.outcome == "failed":
            result = _call(phase)  # xdist reports a dead worker's case under an unusual phase name
    return result or Verdict(vocabulary.ERROR, "the case reported no call phase")


def _early(phase: Phase) -> Verdict:
    if phase.outcome == "skipped":
        if phase.xfail_reason is not None:
            return Verdict(vocabulary.XFAILED, phase.xfail_reason)
        return Verdict(vocabulary.NOT_APPLICABLE, skip_reason(phase.message))
    if TIMEOUT_MARK in phase.message:
        return Verdict(vocabulary.TIMEOUT)
    short = _short_of_resources(phase)
    if short is not None:
        return short
    if phase.missing_name is not None:
        return Verdict(vocabulary.FAILED)
    if phase.error_type in IMPORT_ERRORS:
        return Verdict(vocabulary.ERROR, phase.import_hint or UNIMPORTABLE)
    return Verdict(vocabulary.ERROR)


def _call(phase: Phase) -> Verdict:
    if phase.outcome == "passed":
        if phase.xfail_reason is not None:
            return Verdict(vocabulary.XPASSED, phase.xfail_reason)
        return Verdict(vocabulary.PASSED)
    if phase.outcome == "skipped":
        if phase.xfail_reason is not None:
            return Verdict(vocabulary.XFAILED, phase.xfail_reason)
        return Verdict(vocabulary.NOT_APPLICABLE, skip_reason(phase.message))
    if STRICT_XPASS_MARK in phase.message:
        # A known breakage that no longer fails is stale; a test's own strict xfail that passes fails, as in its CI
        # (a project's xfail_strict).
        if phase.known_breakage:
            return Verdict(vocabulary.XPASSED, phase.message.replace(STRICT_XPASS_MARK, "").strip() or None)
        return Verdict(vocabulary.FAILED)
    if TIMEOUT_MARK in phase.message:
        return Verdict(vocabulary.TIMEOUT)
    if CRASH_MARK in phase.message:
        return Verdict(vocabulary.CRASHED, phase.message)
    if phase.error_type == "SystemExit":
        return Verdict(vocabulary.CRASHED, f"the case called sys.exit({phase.exit_code})")
    if phase.error_type in IMPORT_ERRORS and phase.missing_name is None:
        return Verdict(vocabulary.ERROR, phase.import_hint or UNIMPORTABLE)
    return _short_of_resources(phase) or Verdict(vocabulary.FAILED)


def _short_of_resources(phase: Phase) -> Verdict | None:
    """A case that ran out of device memory is `error`; one that asked jax for more devices than the cell has is
    not applicable, unless the cell itself has fewer CPU devices than the harness asked for (a broken cell)."""
    if phase.error_type in RUNTIME_ERRORS and OUT_OF_MEMORY_MARK in phase.error_message:
        return Verdict(vocabulary.ERROR, vocabulary.OUT_OF_MEMORY)
    asked = devices_asked(phase.error_type, phase.error_message)
    have = phase.device_count
    if asked is None or have is None or asked <= have:
        return None
    if phase.cpu_devices_asked is not None and have < phase.cpu_devices_asked:
        return Verdict(vocabulary.ERROR, f"jax has {have} CPU devices, the harness asked for {phase.cpu_devices_asked}")
    return Verdict(vocabulary.NOT_APPLICABLE, vocabulary.devices_reason(asked, have))


def collection_verdict(phase: Phase) -> Verdict:
    """The status of a test module that yielded no case (recorded under vocabulary.COLLECTION_CASE): one that skipped
    itself (`pytest.skip(..., allow_module_level=True)`, `importorskip`) is `not_applicable` with its reason, as each
    of its tests skipping would be; a name this cell lacks is `failed` as in a case; anything else is `error`, a
    module the cell lacks saying what to do."""
    if phase.outcome == "skipped":
        return Verdict(vocabulary.NOT_APPLICABLE, skip_reason(phase.message))
    if phase.missing_name is not None:
        return Verdict(vocabulary.FAILED, COLLECTION_FAILED)
    return Verdict(vocabulary.ERROR, phase.import_hint or COLLECTION_FAILED)


def crash_verdict(fault_log: str) -> Verdict:
    """Why a worker died, from what faulthandler wrote: a hard timeout, a fatal signal, or a silent exit."""
    if re.search(r"^Timeout \(\d+:\d\d:\d\d(\.\d+)?\)!", fault_log, re.MULTILINE):
        return Verdict(vocabulary.TIMEOUT, "hard time limit: the case never returned to Python and was stopped")
    fatal = re.findall(r"^Fatal Python error: (.+)$", fault_log, re.MULTILINE)
    if fatal:
        return Verdict(vocabulary.CRASHED, f"Fatal Python error: {fatal[-1].strip()}")
    return Verdict(vocabulary.CRASHED, "the process exited without a Python error (os._exit or an external kill)")


def skip_reason(message: str) -> str:
    """The reason pytest gave for a skip, without its 'Skipped: ' prefix."""
    return message.removeprefix("Skipped: ").strip()
