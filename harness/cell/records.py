"""What the in-cell recorder derives from pytest: case ids from node ids, families, one-line messages.

Where records live and their schema are harness.cellrecord's; how a results file is written and read,
harness.results'."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path, PurePosixPath

from harness.vocabulary import COLLECTION_CASE

#: The fault log of a cell's own pytest process when cases run in it (no xdist worker).
IN_PROCESS = "main"


def case_id_from_nodeid(nodeid: str, qualified: Collection[str] = ()) -> str:
    """'cases/sharded_gathers.py::test_take[x]' -> 'sharded_gathers::test_take[x]'; a test file named in `qualified`
    (its stem shared by another test file of the corpus) by that name: misc_util_test.py's test_x in the folder
    tests/core is 'core/misc_util_test::test_x' (module_name)."""
    path, _, rest = nodeid.partition("::")
    return f"{module_name(path, qualified)}::{rest or COLLECTION_CASE}"


def module_name(path: str, qualified: Collection[str] = ()) -> str:
    """The module part of a case id of the test file at `path`: its stem, or the name in `qualified` its path ends
    with. `qualified` holds the names the host gave each test file whose stem another one shares (the end of its path
    that tells it from them, folders joined by '/', harness.host.corpus.qualified_names): a project's `tests/core`
    beside `tests/deprecated/v1` each with a misc_util_test.py. The host passes the names (--shardmatrix-module), as
    a node id is named from a rootdir only pytest knows, and every name ends the same way whatever the rootdir."""
    file = PurePosixPath(path.replace("\\", "/"))
    parts = (*file.parent.parts, file.stem)
    for name in qualified:
        named = tuple(name.split("/"))
        if named[-1] == file.stem and parts[-len(named):] == named:
            return name
    return file.stem


def family_from_nodeid(nodeid: str) -> str:
    """The family of a case that declares none: its module's name."""
    return Path(nodeid.partition("::")[0]).stem


def first_line(text: object, limit: int = 500) -> str:
    """The first non-empty line of a message, trimmed, so one record stays one readable line."""
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""
