"""What the in-cell recorder derives from pytest: case ids from node ids, families, one-line messages.

Where records live and their schema are harness.cellrecord's; how a results file is written and read,
harness.results'."""

from __future__ import annotations

from pathlib import Path

from harness.vocabulary import COLLECTION_CASE

#: The fault log of a cell's own pytest process when cases run in it (no xdist worker).
IN_PROCESS = "main"


def case_id_from_nodeid(nodeid: str) -> str:
    """'cases/sharded_gathers.py::test_take[x]' -> 'sharded_gathers::test_take[x]'."""
    path, _, rest = nodeid.partition("::")
    return f"{Path(path).stem}::{rest or COLLECTION_CASE}"


def family_from_nodeid(nodeid: str) -> str:
    """The family of a case that declares none: its module's name."""
    return Path(nodeid.partition("::")[0]).stem


def first_line(text: object, limit: int = 500) -> str:
    """The first non-empty line of a message, trimmed, so one record stays one readable line."""
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""
