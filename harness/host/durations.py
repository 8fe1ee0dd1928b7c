"""How long each cell took when it last really ran on this machine, and the order that starts the longest work
first, so that the last cells to finish do not leave a core idle while one runs alone.

A duration belongs to the machine and the cell, not to one output folder: it is kept beside the venvs
(.nox/.shardmatrix-durations/<cell id>.json, written by harness.host.cellrun when a cell finishes; harness.outputs
owns its format), so a matrix into a fresh --out, the bench and the frontier all plan by it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from harness import outputs
from harness.host.shipped import workspace

FOLDER = workspace() / outputs.DURATIONS_FOLDER
T = TypeVar("T")


def record(cell_id: str, seconds: float, folder: Path | None = None) -> None:
    """Keep a cell's wall seconds (harness.outputs writes it atomically: cells finish concurrently)."""
    outputs.write_duration(FOLDER if folder is None else folder, cell_id, seconds)


def cell_seconds(folder: Path | None = None) -> dict[str, float]:
    """{cell id: wall seconds of its last run that ran its cases}; cells never run here have no entry."""
    return outputs.read_durations(FOLDER if folder is None else folder)


def longest_first(items: Iterable[T], estimate: Callable[[T], float | None]) -> list[T]:
    """Items with no estimate first (new work may be the longest), then the longest first; ties keep their order."""
    known = [(item, estimate(item)) for item in items]
    return [item for item, seconds in sorted(known, key=lambda pair: (pair[1] is not None, -(pair[1] or 0.0)))]
