"""Figure 14 of `nox -s bench`: what the range checker's inside probes cost, side by side in one run.

The same cases are checked four times, each run in an --out of its own (so no run reuses another's cells): by this
checkout's checker with `--inside every` (the default: every release inside each confirmed range that the budget
allows), `middle` (the middle release alone, a live bug's first: the least that rules a hole in) and `none` (the
bounds only), and by the checker as it was when issue 40 was filed (FILED_AT, exported with `git archive` and
installed in a venv of its own), which probed the bounds only, each probe a cell of its whole corpus. Each side's
edges, probes, cells built, the cells' own seconds and the wall; then each side's wall per edge against the filed
checker's (the cases' declarations may have gained edges since). `every` runs first and builds the cells' venvs (on
uv's warm cache), which only raises its ratio; the filed checker builds its own in one untimed run first.

The measuring functions run the commands; the figure's text is a pure function of what they measured, tested on
fakes (tests/test_range_cost.py).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.corpus_growth import extract_at
from harness import outputs
from harness.cellrecord import DONE_SUFFIX, read_done
from harness.formats import FormatError
from harness.host.uv import uv_command
from harness.tools.ranges import INSIDE_EVERY, INSIDE_MIDDLE, INSIDE_NONE

#: The sample checked by default: cases whose ranges the checker at FILED_AT knew too, one of each kind of range on
#: both packages: a jax bug with two fixed ends and a live one (a live bug alone then), a jax change beside a flax
#: fix, a flax change open above, and a jax change with 15 releases inside beside a bug with 7.
DEFAULT_CASES = (
    "sharded_gathers::test_gradient_through_gather_with_sharded_indices",
    "shard_map_modes::test_nnx_shard_map_graph_mode_matches_unsharded",
    "partitioned_metadata::test_nnx_param_sharding_attribute",
    "shard_map_modes::test_experimental_shard_map_partial_manual_auto",
)
#: The commit of the stored whole-corpus range check issue 40 was filed against (107 edges, 306 probes): its checker
#: probed each edge at its bounds only, each probe a cell of its whole corpus (149 cases).
FILED_AT = "1cc7260"
FILED = "filed"
#: This checkout's sides, by `--inside`, in the order run (`every` first: see the module's docstring); the filed
#: checker's side runs last.
SIDES = (INSIDE_EVERY, INSIDE_MIDDLE, INSIDE_NONE)
#: Issue 40: the range check's budget stays within +40 % of the checker's when it was filed, per edge.
COST_TARGET = 1.40
#: Large enough that no side stops for its budget: every side asks all it would.
BUDGET = 5000


@dataclass(frozen=True)
class Side:
    """One check: its `--inside`, wall, edges by status, probes, and the cells it built with their own seconds."""

    inside: str
    wall_s: float
    edges: int
    confirmed: int
    probes: int
    cells: int
    cell_s: float


def run_folders(out: Path) -> frozenset[str]:
    """The run ids under OUT/results now: taken before a check, so its count leaves out an earlier bench's runs."""
    root = out / "results"
    return frozenset(path.name for path in root.iterdir() if path.is_dir()) if root.is_dir() else frozenset()


def built_cells(out: Path, before: frozenset[str] = frozenset()) -> tuple[int, float]:
    """(cells built, their summed seconds) from the done markers under OUT/results but in the runs of `before`; a
    cell the results cache gave (`reused_from`) was not built by this check."""
    root = out / "results"
    # --force does not clear an --out kept from an earlier bench: its runs' markers stay beside this check's.
    paths = [path for path in sorted(root.rglob(f"*{DONE_SUFFIX}")) if path.relative_to(root).parts[0] not in before]
    built = [seconds for seconds in map(_built_seconds, paths) if seconds is not None]
    return len(built), sum(built)


def _built_seconds(path: Path) -> float | None:
    """A done marker's seconds where this check built its cell, None where the results cache gave it; SystemExit
    naming the marker where it cannot be read (a cell's count would be a guess)."""
    try:
        marker = read_done(path)
    except FormatError as error:
        raise SystemExit(f"bench: {error}") from None
    if marker is None or marker.get("reused_from"):
        return None
    seconds = marker.get("seconds") or 0.0
    if not isinstance(seconds, int | float) or isinstance(seconds, bool):
        raise SystemExit(f"bench: {path}: seconds {seconds!r} is not a number")
    return float(seconds)


def side_of(inside: str, out: Path, wall_s: float, before: frozenset[str] = frozenset()) -> Side:
    """What one check under OUT measured, from its stored document and the done markers of its cells (those in a
    run of `before`, there before it ran, left out)."""
    path = out / "report" / outputs.RANGES_JSON.name
    if not path.is_file():
        raise SystemExit(f"bench: {path} does not exist: the range check under {out} stored nothing")
    document = outputs.read_ranges(path)
    rows = list(document["edges"])
    cells, cell_s = built_cells(out, before)
    return Side(inside, wall_s, len(rows), sum(row["status"] == "confirmed" for row in rows),
                int(document["probes"]), cells, cell_s)


def cost_runs(root: Path, scratch: Path, cases: Iterable[str], run: Callable[..., object],
              timed: Callable[[Callable[[], object]], float], filed_at: str = FILED_AT) -> list[Side]:
    """Check `cases` once per side of SIDES, each in scratch/ranges-<inside>, then with the checker at `filed_at`
    (after one untimed run that builds its cells' venvs), timed; the sides in that order."""
    asked = [argument for case in cases for argument in ("--case", case)]
    sides = []
    for inside in SIDES:
        out = scratch / f"ranges-{inside}"
        # --force: a folder kept from an earlier bench must not answer from its cache.
        command = [sys.executable, "-m", "shardmatrix", "ranges", *asked, "--inside", inside, "--budget",
                   str(BUDGET), "--force", "--out", str(out)]
        before = run_folders(out)
        wall = timed(functools.partial(run, *command, cwd=root))
        sides.append(side_of(inside, out, wall, before))
    checker, checkout = filed_checker(root, filed_at, scratch, run)
    filed = [str(checker), "ranges", *asked, "--budget", str(BUDGET), "--force"]
    run(*filed, "--out", str(scratch / "ranges-filed-warm"), cwd=checkout)
    out = scratch / f"ranges-{FILED}"
    before = run_folders(out)
    wall = timed(functools.partial(run, *filed, "--out", str(out), cwd=checkout))
    sides.append(side_of(FILED, out, wall, before))
    return sides


def filed_checker(root: Path, ref: str, scratch: Path, run: Callable[..., object]) -> tuple[Path, Path]:
    """(its `shardmatrix` command, its checkout): the project at `ref` (git archive) installed in a venv of its own;
    SystemExit naming the ref when git cannot give it."""
    checkout = scratch / f"checker-{ref}"
    extract_at(root, ref, checkout, f"the range checker at {ref}")
    venv = checkout / ".venv"
    run(*uv_command(), "venv", "-q", "-p", f"{sys.version_info.major}.{sys.version_info.minor}", str(venv))
    run(*uv_command(), "pip", "install", "-q", "-p", str(venv / "bin" / "python"), "-e", str(checkout))
    return venv / "bin" / "shardmatrix", checkout


def cost_figure(sides: Iterable[Side], what: str, filed_at: str = FILED_AT) -> str:
    """Figure 14's lines: each side's edges, probes, cells, cell seconds, wall and wall per edge side by side, then
    each of this checkout's sides per edge against the filed checker's, the default's (`every`) against COST_TARGET."""
    by = {side.inside: side for side in sides}
    columns = [by[name] for name in (*SIDES, FILED) if name in by]
    rows: list[tuple[str, Callable[[Side], str]]] = [
        ("edges (confirmed)", lambda side: f"{side.edges} ({side.confirmed})"),
        ("probes", lambda side: str(side.probes)),
        ("cells built", lambda side: str(side.cells)),
        ("cells' seconds", lambda side: f"{side.cell_s:.0f}"),
        ("wall (s)", lambda side: f"{side.wall_s:.0f}"),
        ("wall per edge (s)", lambda side: f"{_per_edge(side):.1f}")]
    lines = [f"14. the range checker's inside probes, {what}: this checkout's with --inside every, middle and none, "
             f"and the checker at {filed_at} ({FILED}: issue 40's filing; the bounds only, each probe a whole-corpus "
             "cell)", "    " + " " * 22 + "".join(f"{side.inside:>10}" for side in columns)]
    lines += [f"    {label:<22}" + "".join(f"{value(side):>10}" for side in columns) for label, value in rows]
    filed = by.get(FILED)
    if filed is None:
        return "\n".join([*lines, "    -> no filed checker's side to compare with"])
    if not filed.edges:
        return "\n".join([*lines, "    -> the filed checker checked no edge of these cases: nothing to compare with"])
    ours = [side for side in columns if side.inside != FILED]
    # A side with no edges has no wall per edge: 0.0 would read as far within the target.
    ratios = {side.inside: _per_edge(side) / _per_edge(filed) for side in ours if side.edges}
    said = ", ".join([*(f"{inside} {ratio:.2f}x" for inside, ratio in ratios.items()),
                      *(f"{side.inside} no edges" for side in ours if not side.edges)])
    lines.append(f"    -> wall per edge against the filed checker's: {said}")
    lines += [f"    -> edges differ: --inside {side.inside} checked {side.edges}, the filed checker {filed.edges} (a "
              "range it did not declare, or one it declared otherwise): per edge compares different edge sets"
              for side in ours[:1] if side.edges != filed.edges]
    if INSIDE_EVERY in ratios:
        ratio = ratios[INSIDE_EVERY]
        lines.append(f"    -> the default (--inside every): {ratio:.2f}x "
                     f"({'within' if ratio <= COST_TARGET else 'OVER'} the target <= {COST_TARGET:.2f}x)")
    return "\n".join(lines)


def _per_edge(side: Side) -> float:
    return side.wall_s / side.edges if side.edges else 0.0
