"""Figure 14 of `nox -s bench`: what the range checker's inside probes cost, side by side in one run.

The same cases are checked three times from this checkout, each run in an --out of its own (so no run reuses
another's cells), differing only in `--inside`: `every` (the default: every release inside each confirmed range that
the budget allows), `middle` (the middle release alone, a live bug's first: the least that rules a hole in) and
`none` (the bounds only, the checker as it was when issue 40 was filed). Each side's edges, probes, cells built, the
cells' own seconds and the wall; the ratio of each wall to the bounds only. `every` runs first and builds the
cells' venvs (on uv's warm cache), which only raises its ratio; the other two find them built.

The measuring function runs the command; the figure's text is a pure function of what it measured, tested on fakes
(tests/test_range_cost.py).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from harness import outputs
from harness.cellrecord import DONE_SUFFIX, read_done
from harness.tools.ranges import INSIDE_EVERY, INSIDE_MIDDLE, INSIDE_NONE

#: The sample checked by default: one case of each kind of range the corpus declares, on both packages: a jax bug
#: with two fixed ends and a live one, a jax change beside a flax fix, a flax change open above, and a jax bug whose
#: range holds 17 releases inside.
DEFAULT_CASES = (
    "sharded_gathers::test_gradient_through_gather_with_sharded_indices",
    "shard_map_modes::test_nnx_shard_map_graph_mode_matches_unsharded",
    "partitioned_metadata::test_nnx_param_sharding_attribute",
    "vmap_param_shapes::test_vmap_refuses_inputs_split_differently_in_either_order",
)
#: Each side's `--inside`, in the order run (`every` first: see the module's docstring).
SIDES = (INSIDE_EVERY, INSIDE_MIDDLE, INSIDE_NONE)
#: Issue 40: the range check's cost stays within +40 % of the bounds-only checker's, for the inside probes it asks
#: (the middle of each range at least); `every` spends what the budget allows beyond that.
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


def built_cells(out: Path) -> tuple[int, float]:
    """(cells built, their summed seconds) from the done markers under OUT/results; a cell the results cache gave
    (`reused_from`) was not built by this check."""
    markers = [read_done(path) for path in sorted((out / "results").rglob(f"*{DONE_SUFFIX}"))]
    built = [marker for marker in markers if marker is not None and not marker.get("reused_from")]
    return len(built), sum(float(marker.get("seconds") or 0.0) for marker in built)


def side_of(inside: str, out: Path, wall_s: float) -> Side:
    """What one check under OUT measured, from its stored document and its cells' done markers."""
    path = out / "report" / outputs.RANGES_JSON.name
    if not path.is_file():
        raise SystemExit(f"bench: {path} does not exist: the range check under {out} stored nothing")
    document = outputs.read_ranges(path)
    rows = list(document["edges"])
    cells, cell_s = built_cells(out)
    return Side(inside, wall_s, len(rows), sum(row["status"] == "confirmed" for row in rows),
                int(document["probes"]), cells, cell_s)


def cost_runs(root: Path, scratch: Path, cases: Iterable[str], run: Callable[..., object],
              timed: Callable[[Callable[[], object]], float]) -> list[Side]:
    """Check `cases` once per side of SIDES, each in scratch/<inside>, timed; the sides in SIDES's order."""
    asked = [argument for case in cases for argument in ("--case", case)]
    sides = []
    for inside in SIDES:
        out = scratch / f"ranges-{inside}"
        # --force: a folder kept from an earlier bench must not answer from its cache.
        command = [sys.executable, "-m", "shardmatrix", "ranges", *asked, "--inside", inside, "--budget",
                   str(BUDGET), "--force", "--out", str(out)]
        wall = timed(functools.partial(run, *command, cwd=root))
        sides.append(side_of(inside, out, wall))
    return sides


def cost_figure(sides: Iterable[Side], what: str) -> str:
    """Figure 14's lines: each side's edges, probes, cells, cell seconds and wall side by side, then each wall's
    ratio to the bounds only's against COST_TARGET (the middle's) or as what the budget buys (every's)."""
    by = {side.inside: side for side in sides}
    columns = [by[inside] for inside in SIDES if inside in by]
    head = "".join(f"{side.inside:>10}" for side in columns)
    rows: list[tuple[str, Callable[[Side], str]]] = [
        ("edges (confirmed)", lambda side: f"{side.edges} ({side.confirmed})"),
        ("probes", lambda side: str(side.probes)),
        ("cells built", lambda side: str(side.cells)),
        ("cells' seconds", lambda side: f"{side.cell_s:.0f}"),
        ("wall (s)", lambda side: f"{side.wall_s:.0f}")]
    lines = [f"14. the range checker's inside probes, {what}: --inside every, middle and none (the bounds only, as "
             "when issue 40 was filed)", f"    {'':<22}{head}"]
    lines += [f"    {label:<22}" + "".join(f"{value(side):>10}" for side in columns) for label, value in rows]
    bounds = by.get(INSIDE_NONE)
    if bounds is None or not bounds.wall_s:
        return "\n".join([*lines, "    -> no bounds-only side to compare with"])
    for side, target in ((by.get(INSIDE_MIDDLE), COST_TARGET), (by.get(INSIDE_EVERY), None)):
        if side is None:
            continue
        ratio = side.wall_s / bounds.wall_s
        judged = (f"{'within' if ratio <= target else 'OVER'} the target <= {target:.2f}x" if target
                  else "what a budget that allows every release inside buys")
        lines.append(f"    -> --inside {side.inside}: wall {ratio:.2f}x the bounds only's ({judged})")
    return "\n".join(lines)

