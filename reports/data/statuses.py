"""The statuses a report shows, in order, and the words every table names them by.

harness.vocabulary's statuses plus DEPRECATED, a pass that warned: which status a result shows, the order of
statuses (counts, problems worst first) and their labels are data the verdicts read (an attempts' history in a
comparison is text), so they live here, below the views; reports/views/present.py draws them (marks, colours, legend).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness import vocabulary as v

#: A display-only status: passed, but the case emitted warnings (usually deprecations) -- an early warning.
DEPRECATED = "passed_deprecated"

#: Every status a report knows, in order: the vocabulary's, with the warned variant of passed right after passed.
LABELS: dict[str, str] = {
    v.PASSED: "passed",
    DEPRECATED: "passed, warned",
    v.FAILED: "failed",
    v.ERROR: "error",
    v.NOT_APPLICABLE: "not applicable",
    v.XFAILED: "xfailed",
    v.XPASSED: "xpassed",
    v.CRASHED: "crashed",
    v.TIMEOUT: "timeout",
    v.INSTALL_ERROR: "install error",
}


def display_status(status: str, warnings: Sequence[str] | None) -> str:
    """The status a report shows: DEPRECATED for a pass that warned, else the record's own status."""
    if status == v.PASSED and warnings is not None and len(warnings) > 0:
        return DEPRECATED
    return status


def label(status: str) -> str:
    """The words a status is named by: its label, or its own name for a status this reader does not know."""
    return LABELS.get(status, str(status))


def ordered(shown: Iterable[str]) -> list[str]:
    """Every known status in order, then any unknown status among `shown`, in first-seen order."""
    return [*LABELS, *(status for status in dict.fromkeys(shown) if status not in LABELS)]


def attempts_text(history: Sequence[str]) -> str:
    """The statuses of a result's attempts in order: 'failed → passed'."""
    return " → ".join(label(status) for status in history)
