"""Figure 13 of `nox -s bench`: what `shardmatrix ecosystem` costs. Each project of the list is run alone, as one job
of the fan-out workflow runs it (`shardmatrix ecosystem CANDIDATE --only NAME`, baseline and candidate cells), once
untimed to warm uv's cache and the cells' venvs, then timed with `--force` (every cell's tests run again: a warm
cache, no reused results) one job after another: its seconds, its verdict, and the list's total; then the same
projects with J jobs at a time, for each J asked, to show how the wall scales with parallel jobs.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness import ecosystem_summary

#: The command one project's job runs, less its --only and --out (a subprocess: each is the process a job is).
Runner = Callable[[str, Path, bool], tuple[float, str]]


def run_project(root: Path, candidate: Sequence[str], extra: Sequence[str] = ()) -> Runner:
    """One project's `shardmatrix ecosystem` in its own process: (wall seconds, its verdict as its summary says)."""

    def runner(name: str, out: Path, force: bool) -> tuple[float, str]:
        command = [sys.executable, "-m", "shardmatrix.command", "ecosystem", *candidate, *extra, "--only", name,
                   "--out", str(out), *(["--force"] * force)]
        started = time.perf_counter()
        subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        summary = out / "report" / ecosystem_summary.ECOSYSTEM_JSON.name
        if not summary.is_file():
            return seconds, "no report"
        (project,) = ecosystem_summary.read_ecosystem(summary)["projects"]
        return seconds, str(project["verdict"])

    return runner


def measure(names: Sequence[str], runner: Runner, scratch: Path, jobs: Sequence[int]) -> dict[str, Any]:
    """Per project (warm, timed in the run of one job at a time) seconds and verdict, their total, and the wall of
    every project at each count of jobs."""
    for name in names:
        runner(name, scratch / "warm" / name, False)  # uv's cache, the venvs and the fetched sources
    alone: dict[str, tuple[float, str]] = {}
    walls: dict[int, float] = {}
    for count in sorted({1, *jobs}):
        folder = scratch / f"jobs-{count}"
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=count) as pool:
            done = list(pool.map(lambda name, under=folder: runner(name, under / name, True), names))
        walls[count] = time.perf_counter() - started
        if count == 1:  # one after another: each project's own cost
            alone = dict(zip(names, done, strict=True))
    return {"projects": {name: {"seconds": s, "verdict": v} for name, (s, v) in alone.items()},
            "total_s": sum(s for s, _ in alone.values()), "walls": walls}


def figure(found: dict[str, Any], what: str) -> str:
    """Figure 13's lines: each project's seconds and verdict, the total against its target, the scaling by jobs."""
    lines = [f"13. ecosystem, {what}, warm cache, both cells run (--force): per project (target <= 6 min: 3 per cell)"]
    for name, cost in found["projects"].items():
        skipped = cost["verdict"] == "SKIPPED"
        lines.append(f"    {name}: {cost['seconds']:.0f} s, {cost['verdict']}" + (" (not run here)" if skipped else ""))
    total = found["total_s"]
    lines.append(f"    the list, one job after another: {total / 60:.1f} min (target <= 40 min)")
    walls = found["walls"]
    if walls:
        first = min(walls)
        lines.append("    by parallel jobs: " + ", ".join(
            f"{count} -> {wall:.0f} s ({walls[first] / wall:.2f}x)" for count, wall in sorted(walls.items())))
    return "\n".join(lines)
