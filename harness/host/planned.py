"""After a fanned-out CI run: every planned cell is a row of the report, and a cell that could not run fails the run.

`python -m harness.host.planned --plan FILE --out DIR --run RUN_ID [--check]` reads the plan the fan-out used
(the JSON list `python -m harness.host.plan` printed; FILE `-` is stdin) and the merged results tree under DIR.

A cell job that died before uploading leaves no results file, and without this its cell would simply vanish from
the report. So each planned cell without one gets install_error records, "its job produced no results", one per
expected case (as `cellrun.unreported` does for a local session that never ran), and a done marker:
the cell is decided, not interrupted. Cells with a results file are left as they are; a second run writes nothing.

With --check nothing is written: exit 1 with one line per planned cell that could not be fully run (no results,
a case whose final status is inconclusive: install_error, crashed, timeout or unknown; no done marker:
incomplete: the rule harness.host.completeness keeps for `nox -s matrix` too), 0 when every planned cell ran to its
end. Exit 64, with one line, for a plan or run it cannot read.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from harness import outputs
from harness.cellrecord import CellFiles
from harness.formats import ShardmatrixError, command
from harness.host import cellrun, completeness, matrix, options, plan
from harness.host.corpus import case_paths
from harness.host.matrix import Cell
from harness.host.options import BUILTIN

NO_RESULTS = "its job produced no results"


class PlanError(ShardmatrixError, ValueError):
    """A plan that cannot be matched to the matrix, phrased as one line naming the culprit."""


def read_plan(text: str, where: str = "the plan") -> list[str]:
    """The cell ids of a plan (the JSON list of entries that `harness.host.plan` prints), in its order."""
    return [entry["cell"] for entry in outputs.read_plan(text, outputs.PLAN, "cell", where)]


def planned_cells(ids: Sequence[str], cells: Sequence[Cell]) -> list[Cell]:
    """The matrix's cells named by the plan; PlanError for an id the matrix does not have."""
    by_id = {cell.id: cell for cell in cells}
    unknown = [cell_id for cell_id in ids if cell_id not in by_id]
    if unknown:
        raise PlanError(f"the plan names cell {unknown[0]!r}, which the matrix file does not have")
    return [by_id[cell_id] for cell_id in dict.fromkeys(ids)]


def record_missing(cells: Sequence[Cell], out: Path, run_id: str, cases: list[str]) -> list[str]:
    """Record install_error for every case of each cell that has no results file; the ids of those cells."""
    paths = case_paths(cases) if any(not CellFiles(out, run_id, c.id).results.exists() for c in cells) else []
    return cellrun.unreported(cells, out, run_id, paths, lambda cell: ("NoResults", NO_RESULTS))


def not_fully_run(cells: Sequence[Cell], out: Path, run_id: str) -> list[str]:
    """One line per cell the run cannot answer for (harness.host.completeness's rule)."""
    return completeness.problems([CellFiles(out, run_id, cell.id) for cell in cells], NO_RESULTS)


def parser() -> options.Parser:
    """The command line of `python -m harness.host.planned` (strict, as every command line of the harness)."""
    p = options.Parser(prog="python -m harness.host.planned", description=__doc__.splitlines()[0])
    p.add_argument("--plan", required=True, metavar="FILE",
                   help="the plan the fan-out used: the JSON list harness.host.plan printed ('-': stdin)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="the folder holding the merged results/")
    p.add_argument("--run", required=True, metavar="RUN_ID", help="the run id every cell job recorded under")
    p.add_argument("--cases", action="append", default=None, metavar="DIR",
                   help=f"the corpus the cells ran, for the cases a missing cell is recorded with (default: {BUILTIN})")
    p.add_argument("--matrix", type=Path, default=plan.default_matrix(),
                   help="the matrix file (default: $SHARDMATRIX_MATRIX, else the checkout's matrix.toml)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 naming each planned cell that could not be fully run")
    return p


@command
def main(argv: Sequence[str] | None = None) -> int:
    """Record the planned cells that have no results (or, with --check, name the cells not fully run)."""
    args = parser().parse_strictly(sys.argv[1:] if argv is None else argv)
    text = outputs.plan_text(args.plan, sys.stdin, "--plan")
    cells = planned_cells(read_plan(text, "stdin" if args.plan == "-" else args.plan), matrix.load(args.matrix))
    if args.check:
        problems = not_fully_run(cells, args.out, args.run)
        for line in problems:
            print(f"shardmatrix: could not fully run {line}", file=sys.stderr)
        return 1 if problems else 0
    for cell_id in record_missing(cells, args.out, args.run, args.cases or [BUILTIN]):
        print(f"shardmatrix: {cell_id}: recorded as install_error ({NO_RESULTS})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
