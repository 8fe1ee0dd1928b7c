"""How long each cell took when it last really ran on this machine, and the order that starts the longest work
first, so that the last cells to finish do not leave a core idle while one runs alone.

A duration belongs to the machine and the cell, not to one output folder: it is kept beside the venvs
(.nox/.shardmatrix-durations/<cell id>.json, written by harness.host.cellrun when a cell finishes), so a matrix into a
fresh --out, the bench and the frontier all plan by it.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from harness.host.shipped import workspace

FOLDER = workspace() / ".shardmatrix-durations"
T = TypeVar("T")


def record(cell_id: str, seconds: float, folder: Path | None = None) -> None:
    """Keep a cell's wall seconds (atomically: cells finish concurrently)."""
    folder = FOLDER if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        json.dump({"cell_id": cell_id, "seconds": round(seconds, 2)}, stream)
    os.replace(temporary, folder / f"{cell_id}.json")


def cell_seconds(folder: Path | None = None) -> dict[str, float]:
    """{cell id: wall seconds of its last run that ran its cases}; cells never run here have no entry."""
    found: dict[str, float] = {}
    for path in Path(FOLDER if folder is None else folder).glob("*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            seconds = data["seconds"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
            found[path.stem] = float(seconds)
    return found


def longest_first(items: Iterable[T], estimate: Callable[[T], float | None]) -> list[T]:
    """Items with no estimate first (new work may be the longest), then the longest first; ties keep their order."""
    known = [(item, estimate(item)) for item in items]
    return [item for item, seconds in sorted(known, key=lambda pair: (pair[1] is not None, -(pair[1] or 0.0)))]
