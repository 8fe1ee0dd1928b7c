"""How long each cell took when it last really ran, from the done markers under OUT/results, and the order that
starts the longest work first, so that the last cells to finish do not leave a core idle while one runs alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from harness.vocabulary import DONE_SUFFIX

T = TypeVar("T")


def cell_seconds(out: Path) -> dict[str, float]:
    """{cell id: wall seconds} of each cell's newest run that ran its cases (a reuse of stored results took no
    time worth planning by); cells never run have no entry."""
    found: dict[str, float] = {}
    # Run ids sort by their start time, so a later run's figure replaces an earlier one's.
    for marker in sorted(Path(out).glob(f"results/*/*{DONE_SUFFIX}")):
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        seconds = data.get("seconds") if isinstance(data, dict) else None
        if data.get("reused_from") or not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
            continue
        found[str(data.get("cell_id") or marker.name.removesuffix(DONE_SUFFIX))] = float(seconds)
    return found


def longest_first(items: Iterable[T], estimate: Callable[[T], float | None]) -> list[T]:
    """Items with no estimate first (new work may be the longest), then the longest first; ties keep their order."""
    known = [(item, estimate(item)) for item in items]
    return [item for item, seconds in sorted(known, key=lambda pair: (pair[1] is not None, -(pair[1] or 0.0)))]
