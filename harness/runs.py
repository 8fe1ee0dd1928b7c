"""Runs: a run id (the UTC time the run started, then a tag), when a run started, and the runs under OUT/results
ordered by their start, with the folders that are not runs said apart.

Read by the host and by reports/, so it imports nothing but the standard library and its dependency-free siblings
(harness.formats, harness.cellrecord).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from harness import formats
from harness.cellrecord import RESULTS_SUFFIX

#: A run id: the UTC time the run started, then a tag (new_run_id makes 4 hex digits; --run-id may name another).
_RUN_ID = re.compile(r"(?P<start>\d{8}T\d{6}Z)-[A-Za-z0-9][A-Za-z0-9._-]*")


def new_run_id(now: datetime | None = None) -> str:
    """A run id that sorts chronologically and does not collide between two runs in the same second."""
    now = now or datetime.now(timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{os.urandom(2).hex()}"


def run_start(run_id: str) -> datetime | None:
    """When a run started, as its id records it; None when `run_id` is not a run id."""
    found = _RUN_ID.fullmatch(run_id)
    if found is None:
        return None
    try:
        return datetime.strptime(found["start"], "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
    except ValueError:  # 20261399T... has the shape and no date
        return None


def is_run_id(name: str) -> bool:
    """Whether `name` is a run id: YYYYmmddTHHMMSSZ-<tag>, a real time."""
    return run_start(name) is not None


def check_run_id(run_id: str) -> str:
    """`run_id` when it is one; ShardmatrixError naming it otherwise."""
    if not is_run_id(run_id):
        raise formats.ShardmatrixError(f"run id {run_id!r} is not YYYYmmddTHHMMSSZ-<tag> (the UTC time the run "
                                       "started, e.g. 20261121T084500Z-ab12)")
    return run_id


@dataclass(frozen=True)
class Runs:
    """The runs under OUT/results, oldest first by their recorded start, and the folders that are not runs."""

    ids: tuple[str, ...]
    ignored: tuple[str, ...] = ()

    @property
    def notes(self) -> list[str]:
        """One line per folder left out, for a report to show."""
        return [f"{name}: ignored, not a run (a run's folder is named YYYYmmddTHHMMSSZ-<tag>)" for name in self.ignored]


def list_runs(results_root: Path) -> Runs:
    """The runs under `results_root` that hold any results file, ordered by their start (their id's time, then id)."""
    root = Path(results_root)
    if not root.is_dir():
        return Runs(())
    runs: list[str] = []
    ignored: list[str] = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or not entry.is_dir() or not any(entry.glob(f"*{RESULTS_SUFFIX}")):
            continue
        (runs if is_run_id(entry.name) else ignored).append(entry.name)
    return Runs(tuple(sorted(runs, key=lambda run: (run_start(run), run))), tuple(ignored))


def results_files(run_dir: Path) -> list[Path]:
    """The results files of one run folder, by cell id: one per `<cell id>.jsonl` (a folder of that name too, which
    its reading names as unreadable)."""
    return sorted(Path(run_dir).glob(f"*{RESULTS_SUFFIX}"))
