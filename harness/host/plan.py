"""The fan-out plan: which cells a CI run has, as the JSON a GitHub Actions `strategy.matrix` takes.

`python -m harness.host.plan [--cells GLOB] [--backend NAME] [--smoke]` prints one JSON list of
`{"schema_version", "cell", "session", "python", "backend"}` objects (harness.outputs.PLAN), read from the same
matrix file the noxfile reads, so the workflow never keeps its own list of cells.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from harness import outputs
from harness.formats import command
from harness.host import matrix, options
from harness.host.shipped import shipped

DEFAULT_MATRIX = shipped("matrix.toml")


def default_matrix() -> Path:
    """The matrix file a CI command reads unless told: $SHARDMATRIX_MATRIX, else the shipped matrix.toml."""
    return Path(os.environ.get("SHARDMATRIX_MATRIX", DEFAULT_MATRIX))


def entry(cell: matrix.Cell) -> dict[str, str]:
    """One cell as a matrix entry: the nox session that runs it, and what its runner needs."""
    return {"cell": cell.id, "session": f"cell({cell.id})", "python": cell.python, "backend": cell.backend}


def smoke(cells: Sequence[matrix.Cell]) -> list[matrix.Cell]:
    """A small set for pull requests: the oldest and the newest CPU cell (by jax, then flax, then python)."""
    ordered = sorted((c for c in cells if not c.accelerated), key=matrix.Cell.sort_key)
    return list(dict.fromkeys(ordered[:1] + ordered[-1:]))


def plan(
    cells: Sequence[matrix.Cell], patterns: Sequence[str] = (), backends: Sequence[str] = (), *, small: bool = False
) -> list[dict[str, str]]:
    """The entries of the cells matching any glob (none given: the default set and every accelerator cell), of any
    of `backends` (all: none given).

    An accelerator cell outside the default set is still planned: its switch is its runner (see place), so a
    nightly runs it where the repository names a runner for its backend and leaves it out, saying so, elsewhere."""
    _check_backends(backends)
    chosen = (matrix.select(list(cells), list(patterns)) if patterns
              else [c for c in cells if c.default or c.accelerated])
    if small:
        chosen = smoke(chosen)
    return [entry(c) for c in chosen if not backends or c.backend in backends]


def place(entries: list[dict[str, str]], runners: dict[str, str]) -> tuple[list[dict[str, str]], list[str]]:
    """Give each entry the runner label of its backend; entries whose backend has no runner are left out, with one
    line each saying so (an accelerator is opt-in: its runner is off until someone names one)."""
    _check_backends(list(runners))
    placed = [{**e, "runner": runners[e["backend"]]} for e in entries if runners.get(e["backend"])]
    left = [f"{e['cell']}: left out, no runner for backend {e['backend']}" for e in entries
            if not runners.get(e["backend"])]
    return placed, left


def _check_backends(backends: Sequence[str]) -> None:
    unknown = [name for name in backends if name not in matrix.BACKENDS]
    if unknown:
        raise matrix.MatrixError(f"--backend {unknown[0]!r} is not a backend (known: {', '.join(matrix.BACKENDS)})")


def parser() -> options.Parser:
    """The command line of `python -m harness.host.plan` (strict: no abbreviation, an unknown option is refused)."""
    p = options.Parser(prog="python -m harness.host.plan", description=__doc__.splitlines()[0])
    p.add_argument("--matrix", type=Path, default=default_matrix(),
                   help="the matrix file (default: $SHARDMATRIX_MATRIX, else the shipped matrix.toml)")
    p.add_argument("--cells", action="append", default=[], metavar="GLOB",
                   help="cells whose id matches GLOB (repeatable; an empty value is ignored; default: the default set "
                        "and every accelerator cell)")
    p.add_argument("--backend", action="append", default=[], metavar="NAME",
                   help=f"cells of this backend ({', '.join(matrix.BACKENDS)}; repeatable; default: every backend)")
    p.add_argument("--smoke", action="store_true", help="only the oldest and newest CPU cell of the selection")
    p.add_argument("--runner", action="append", default=[], metavar="BACKEND=LABEL",
                   help="add `runner` (a runs-on label) to each entry of BACKEND; with any --runner, cells of a "
                        "backend with no (or an empty) label are left out, one line each on stderr")
    return p


@command
def main(argv: Sequence[str] | None = None) -> int:
    """Print the plan as one JSON line; 64 with one line on stderr for a bad matrix or selection."""
    args = parser().parse_strictly(sys.argv[1:] if argv is None else argv)
    # Workflow inputs arrive as strings, possibly empty or space-separated.
    patterns = [glob for value in args.cells for glob in value.split()]
    backends = [name for value in args.backend for name in value.split() if name != "all"]
    malformed = [value for value in args.runner if "=" not in value]
    if malformed:
        raise matrix.MatrixError(f"--runner {malformed[0]!r}: expected BACKEND=LABEL (cuda12=gpu-runner)")
    runners = dict(value.partition("=")[::2] for value in args.runner)
    entries = plan(matrix.load(args.matrix), patterns, backends, small=args.smoke)
    if runners:
        entries, left = place(entries, runners)
        for line in left:
            print(f"shardmatrix: {line}", file=sys.stderr)
    print(outputs.plan_json(outputs.PLAN, entries))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
