"""Where a cell's wall time goes, split from what the cell recorded: its timeline's marks
(harness.results.read_timeline: the host's around pytest, harness.cell.timeline's inside it) and its records'
case-body seconds; and the same summed over a matrix run beside its lower bound, with the cores' idle time, so the gap
between the two is named.

Nothing here times anything: the arithmetic reads marks and records that a run left, so it is tested on recorded
fixtures (tests/test_time_budget.py) and any stored run can be split again.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.cell import timeline
from harness.cellrecord import CellFiles
from harness.host import cellrun, runner
from harness.results import read_records, read_timeline

#: A cell's parts, in the order of its run: (key, what it is). Together they are the cell's wall, `unmarked` being what
from harness.runs import list_runs, results_files

#: no mark accounts for (restarts after a death, a cell whose marks are missing).
CELL_PARTS: tuple[tuple[str, str], ...] = (
    ("venv", "venv sync and results-cache check"),
    ("start", "interpreter and pytest start"),
    ("plugins", "plugin and conftest load"),
    ("collection", "collection (importing the case modules, jax and flax with them)"),
    ("backend", "jax backend start (the cell's health check)"),
    ("bodies", "case bodies, first attempts, in process"),
    ("children", "case bodies that start an isolated child process"),
    ("retries", "retries of failing cases"),
    ("between", "between case bodies (setup, teardown, record writing)"),
    ("session_end", "session end and interpreter exit"),
    ("after", "after pytest (what pytest could not record, the progress line)"),
    ("unmarked", "not marked (restarts, missing marks)"),
)
#: A matrix run's parts besides its cells': the cores' idle time, before the last cell started, while the last cells
#: finish alone (the scheduling tail), and after the last cell (the report, nox's exit).
RUN_PARTS: tuple[tuple[str, str], ...] = (
    ("nox", "cores idle before the last cell starts (nox's sessions, its venvs)"),
    ("tail", "scheduling tail (cores idle while the last cells finish)"),
    ("report", "after the cells (the report, nox's exit)"),
)
#: The bare `import jax, flax` of each cell (measured apart), part of the lower bound; what collection costs beyond it
#: is `collection` less this.
IMPORT = ("import", "bare import jax, flax")
#: The parts the lower bound is made of; everything else is the gap.
BOUND = ("import", "bodies", "children")


def _first(marks: Sequence[Mapping[str, Any]], name: str) -> float | None:
    return next((float(m["at"]) for m in marks if m["mark"] == name), None)


def _last(marks: Sequence[Mapping[str, Any]], name: str) -> float | None:
    return next((float(m["at"]) for m in reversed(marks) if m["mark"] == name), None)


def _span(start: float | None, end: float | None) -> float:
    """Seconds from start to end; 0 when either mark is missing (its part is then counted as unmarked)."""
    return max(end - start, 0.0) if start is not None and end is not None else 0.0


def cell_budget(marks: Sequence[Mapping[str, Any]], records: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """A cell's wall seconds (its first mark to its last) split into CELL_PARTS, which sum to it."""
    first = {name: _first(marks, name) for name in (
        cellrun.CELL_START, cellrun.VENV_READY, runner.PYTEST_LAUNCH, timeline.PLUGIN_LOADED, timeline.SESSION_START,
        timeline.COLLECTION_START, timeline.MODULES_COLLECTED, timeline.BACKEND_READY, timeline.CASES_START)}
    last = {name: _last(marks, name) for name in (timeline.CASES_END, runner.PYTEST_EXIT, cellrun.CELL_END)}
    wall = _span(marks[0]["at"], marks[-1]["at"]) if marks else 0.0
    first_bodies = retried = 0.0
    for record in records:
        seconds = float(record.get("duration_s") or 0.0)
        if int(record.get("attempt") or 1) > 1:
            retried += seconds
        else:
            first_bodies += seconds
    children = sum(float(m.get("body_s") or 0.0) for m in marks if m["mark"] == timeline.CHILD_PROCESS)
    children = min(children, first_bodies)
    cases = _span(first[timeline.CASES_START], last[timeline.CASES_END])
    parts = {
        "venv": _span(first[cellrun.CELL_START], first[cellrun.VENV_READY]),
        "start": _span(first[cellrun.VENV_READY], first[timeline.PLUGIN_LOADED]),
        "plugins": _span(first[timeline.PLUGIN_LOADED], first[timeline.SESSION_START]),
        # Collection is everything from the session's start to the first case but the backend's start.
        "collection": _span(first[timeline.SESSION_START], first[timeline.MODULES_COLLECTED])
        + _span(first[timeline.BACKEND_READY], first[timeline.CASES_START]),
        "backend": _span(first[timeline.MODULES_COLLECTED], first[timeline.BACKEND_READY]),
        "bodies": first_bodies - children if cases else 0.0,
        "children": children if cases else 0.0,
        "retries": retried if cases else 0.0,
        "between": max(cases - first_bodies - retried, 0.0) if cases else 0.0,
        "session_end": _span(last[timeline.CASES_END], last[runner.PYTEST_EXIT]),
        "after": _span(last[runner.PYTEST_EXIT], last[cellrun.CELL_END]),
    }
    parts["unmarked"] = max(wall - sum(parts.values()), 0.0)
    return parts


def idle_core_seconds(intervals: Sequence[tuple[float, float]], cores: int, start: float, end: float) -> float:
    """Core-seconds in [start, end] with no interval running on them: `cores` less the intervals running, never
    below none (more intervals than cores share them)."""
    if end <= start:
        return 0.0
    edges = sorted({start, end, *(t for pair in intervals for t in pair if start < t < end)})
    idle = 0.0
    for left, right in itertools.pairwise(edges):
        middle = (left + right) / 2
        running = sum(1 for a, b in intervals if a <= middle < b)
        idle += max(cores - running, 0) * (right - left)
    return idle


def run_budget(cells: Mapping[str, tuple[Sequence[Mapping[str, Any]], Sequence[Mapping[str, Any]]]],
               imports: Mapping[str, float], cores: int, start: float, end: float) -> dict[str, float]:
    """A matrix run's core-seconds, `cores` x (end - start), split into IMPORT, CELL_PARTS and RUN_PARTS: the cells'
    parts summed (their collection less their bare import), and the cores' idle time. `cells`: each cell's marks and
    records; `imports`: each cell's bare `import jax, flax` seconds."""
    total = {key: 0.0 for key, _ in (IMPORT, *CELL_PARTS, *RUN_PARTS)}
    intervals = []
    for cell_id, (marks, records) in cells.items():
        for key, seconds in cell_budget(marks, records).items():
            total[key] += seconds
        bare = imports.get(cell_id, 0.0)
        total["import"] += bare
        total["collection"] -= bare
        if marks:
            intervals.append((float(marks[0]["at"]), float(marks[-1]["at"])))
    if intervals:
        last_start = max(a for a, _ in intervals)
        last_end = max(b for _, b in intervals)
        total["nox"] = idle_core_seconds(intervals, cores, start, last_start)
        total["tail"] = idle_core_seconds(intervals, cores, last_start, last_end)
        total["report"] = cores * max(end - last_end, 0.0)
    else:
        total["report"] = cores * max(end - start, 0.0)
    return total


def read_cells(out: Path, run_id: str, cell_ids: Iterable[str]
               ) -> dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """Each cell's timeline marks and records in one run."""
    found = {}
    for cell_id in cell_ids:
        path = CellFiles(out, run_id, cell_id).results
        found[cell_id] = (read_timeline(path), list(read_records(path)) if path.is_file() else [])
    return found


def ran_cells(out: Path) -> dict[str, dict[str, float]]:
    """The budget of every cell under OUT/results that ran its cases (a reused cell ran none), by RUN:CELL."""
    found = {}
    for run_id in list_runs(out / "results").ids:
        for path in results_files(out / "results" / run_id):
            marks = read_timeline(path)
            if any(m["mark"] == runner.PYTEST_LAUNCH for m in marks):
                found[f"{run_id}:{path.stem}"] = cell_budget(marks, list(read_records(path)))
    return found


def _titles() -> dict[str, str]:
    return dict((IMPORT, *CELL_PARTS, *RUN_PARTS))


def budget_lines(total: Mapping[str, float], cores: int, wall: float) -> list[str]:
    """The budget as printed: the bound's parts, then the gap's, largest first; each in seconds of wall (core-seconds
    over the cores) and its share of the wall."""
    titles = _titles()

    def line(key: str) -> str:
        seconds = total.get(key, 0.0) / cores
        return f"     {titles[key]}: {seconds:.1f} s ({100 * seconds / wall:.1f} %)" if wall else f"     {titles[key]}"

    bound = sum(total.get(key, 0.0) for key in BOUND) / cores
    gap = [key for key in titles if key not in BOUND]
    lines = [f"   the bound, {bound:.0f} s over {cores} cores:", *map(line, BOUND),
             f"   the gap, {wall - bound:.0f} s, largest first:"]
    lines += [line(key) for key in sorted(gap, key=lambda k: -total.get(k, 0.0)) if round(total.get(key, 0.0), 1)]
    return lines


def cell_lines(title: str, parts: Mapping[str, float]) -> list[str]:
    """One cell's budget as printed: its wall, then each part that took time, largest first, with its share."""
    wall = sum(parts.values())
    titles = _titles()
    lines = [f"   {title}: {wall:.1f} s"]
    lines += [f"     {titles[key]}: {seconds:.1f} s ({100 * seconds / wall:.0f} %)"
              for key, seconds in sorted(parts.items(), key=lambda pair: -pair[1]) if round(seconds, 1) and wall]
    return lines
