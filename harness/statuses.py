"""The status vocabulary: every status a record may carry, defined once."""

from __future__ import annotations

PASSED = "passed"
FAILED = "failed"
ERROR = "error"
NOT_APPLICABLE = "not_applicable"
XFAILED = "xfailed"
XPASSED = "xpassed"
CRASHED = "crashed"
TIMEOUT = "timeout"
INSTALL_ERROR = "install_error"

#: Every status, in the order reports list them, with the one-line meaning the README repeats.
MEANINGS: dict[str, str] = {
    PASSED: "the case ran and every assertion held",
    FAILED: "the case ran and an assertion failed or the API under test raised",
    ERROR: "the case could not run: its module or the cell's packages failed to import, or setup failed",
    NOT_APPLICABLE: "the API or device count the case needs is absent in this cell (the reason names it)",
    XFAILED: "a known upstream breakage, declared as data, failed as expected",
    XPASSED: "a known upstream breakage no longer fails: the known-breakage entry is stale",
    CRASHED: "the process running the case died (signal or exit code recorded)",
    TIMEOUT: "the case ran past its time limit and was stopped",
    INSTALL_ERROR: "the cell's environment could not be built (installer or interpreter message recorded)",
}

ALL: tuple[str, ...] = tuple(MEANINGS)

#: Statuses that mean the harness could not give an answer for a case.
INFRASTRUCTURE: frozenset[str] = frozenset({CRASHED, TIMEOUT, INSTALL_ERROR})
