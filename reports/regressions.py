"""Run against run: the cases that passed in a previous run and no longer pass, as the body of a tracking issue.

    python -m reports.regressions --previous OLD_OUT --current NEW_OUT [--run-url URL] [--full FILE]

compares the newest run under each folder's results/ with reports.verdicts.compare, cells matched by id (an outer join),
prints the issue body as Markdown on stdout, cut to GitHub's limit on an issue body (65,536 characters) with a line
saying that the whole of it (written to FILE with --full) is in the job summary of the run at --run-url, and exits
with the verdict:

- 0, clean: every cell of both runs finished, every case was judged on both sides, and none regressed. The body
  starts "No regressions against the previous scheduled run".
- 1, regressed: a case passing before (harness.vocabulary's PASSING class) is broken now, or not applicable (an API
  it uses is gone), in a cell that finished in both runs. The body lists the regressions grouped by root cause
  (one row per cause: its case count, the cells as version ranges, the command that reproduces its first cell),
  and any reason the night is also inconclusive.
- 2, inconclusive: nothing is proven regressed, but the night is not clean: a cell of one run only (its job died
  or was not planned), a cell that did not finish, a case recorded on one side only, a case that could not run
  (`error`) on either side and is no proven regression, an infrastructure status (crashed, timeout, install_error)
  or a status this reader does not know on either side (reports/verdicts/compare.py: no answer), a cell in which nothing
  was judged or that passed no case in the previous run, a case passing now only after a failing attempt,
  anything the reading of a cell could not account for (an unreadable line, an expected case without a record, a
  retry without its first attempt, a cell whose versions disagree: harness.results), or results that cannot be
  read at all (then also one line on stderr).
- 64, refused: both folders hold the same run, the current run started before the previous one, or the current
  folder's newest run holds no results: one line on stderr, nothing on stdout. The body says
  why, one line each.
- 3, internal error: this tool broke (an uncaught exception; harness.formats' `command`). The traceback and one
  line on stderr, nothing on stdout: it is never a verdict, so the workflow leaves the issue as it is.
- 64, bad input: a usage error, or a --full file it cannot write: one line on stderr, nothing on stdout, so the
  workflow leaves the issue as it is too. A crash before this module runs (its imports) exits 1 with nothing on
  stdout: the workflow takes no body as no verdict either.

Flaky cases (attempts that disagreed) of either run are listed in the body, whatever the answer, and so is the
coverage of each cell of the current run that left cases out, for its devices or an API it lacks ('19 of 103 (80
need 8 devices)'): a verdict on 19 cases is not one on 103. A cell that ran every case it collected is not listed.

The scheduled workflow (.github/workflows/matrix.yml) files or updates its tracking issue on 1 and 2, closes it on
0, and touches it on nothing else.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harness import outputs
from harness.formats import INCONCLUSIVE_EXIT, ShardmatrixError, UsageParser, command
from harness.runs import results_files, run_start
from reports.build import results_dir
from reports.data.load import ResultsError, choose_runs, load
from reports.data.tables import build_matrix
from reports.verdicts.compare import CompareError, Comparison, compare
from reports.verdicts.coverage import short_cells
from reports.views.issue import cut, render


class RefusedRuns(ShardmatrixError):
    """Two runs that must not be compared (the same run, a current run older than the previous one, a current run
    with no results): usage, exit 64, never a verdict."""


def newest_run(out_dir: Path) -> tuple[str, pd.DataFrame, pd.DataFrame]:
    """The newest run under OUT/results (by its recorded start): its id, records and cells (load_cells, each with
    what its reading could not account for)."""
    root = results_dir(out_dir)
    run = choose_runs(root)[-1]
    loaded = load(root, [run])
    return run, loaded.records, loaded.cells


def check_order(previous: Path, current: Path) -> None:
    """Refuse (RefusedRuns) a current folder whose newest run holds no results, or none at all."""
    root = results_dir(current)
    started = sorted((run_start(entry.name), entry.name) for entry in (root.iterdir() if root.is_dir() else ())
                     if entry.is_dir() and run_start(entry.name) is not None)
    if not started:
        raise RefusedRuns(f"--current {current}: no run under {root}: tonight's run recorded nothing")
    newest = started[-1][1]
    if not results_files(root / newest):
        raise RefusedRuns(f"--current {current}: its newest run {newest} holds no results (an earlier run there "
                          "is not tonight's)")


@dataclass(frozen=True)
class Night:
    """Tonight against the previous night, and the coverage of each cell of tonight's run short of devices."""

    comparison: Comparison
    coverage: dict[str, str]


def regressions(previous: Path, current: Path) -> Night:
    """The newest run of `current` against the newest run of `previous`, cells matched by id; RefusedRuns when
    they are one run, or the current one started before the previous one."""
    check_order(previous, current)
    run_a, records_a, cells_a = newest_run(previous)
    run_b, records_b, cells_b = newest_run(current)
    if run_a == run_b:
        raise RefusedRuns(f"both folders hold the same run {run_a}; nothing to compare")
    start_a, start_b = run_start(run_a), run_start(run_b)
    if start_a is not None and start_b is not None and start_b < start_a:
        raise RefusedRuns(f"the current run {run_b} started before the previous run {run_a}: swap --previous and "
                          "--current")
    comparison = compare(pd.concat([records_a, records_b], ignore_index=True), run_a, run_b,
                         pd.concat([cells_a, cells_b], ignore_index=True), by_id=True)
    return Night(comparison, short_cells(build_matrix(records_b, cells_b)))


@command
def main(argv: Sequence[str] | None = None) -> int:
    """Print the issue body; exit 0 clean, 1 regressed, 2 inconclusive (unreadable results included), 3 broken."""
    parse = UsageParser(prog="python -m reports.regressions", description=__doc__.splitlines()[0])
    parse.add_argument("--previous", type=Path, required=True, help="output folder of the earlier run")
    parse.add_argument("--current", type=Path, required=True, help="output folder of this run")
    parse.add_argument("--run-url", default="", help="link to this run, for the issue body")
    parse.add_argument("--full", type=Path, help="also write the whole body here (the printed one may be cut)")
    args = parse.parse_args(argv)
    try:
        with warnings.catch_warnings():
            # Each unaccounted line is in the comparison's reasons; a Python warning would repeat it on stderr.
            warnings.simplefilter("ignore")
            night = regressions(args.previous, args.current)
    except RefusedRuns:
        raise
    except (ResultsError, CompareError, OSError) as exc:  # OSError: a results tree the file system refuses to read
        print(f"{parse.prog}: error: {exc}", file=sys.stderr)
        body = f"**Inconclusive:** the comparison with the previous scheduled run could not be made: {exc}\n"
        code = INCONCLUSIVE_EXIT
    else:
        # reports.verdicts.compare's exit codes: SAFE 0 is clean, UNSAFE 1 regressed, INCONCLUSIVE 2.
        body = render(night.comparison, args.run_url, coverage=night.coverage)
        code = night.comparison.exit_code
    if args.full:
        outputs.write_atomically(args.full, body)
    # Printed last: a crash above leaves stdout empty, which the workflow reads as no verdict.
    print(cut(body, run_url=args.run_url), end="")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
