"""Run against run: the cases that passed in a previous run and no longer pass, as the body of a tracking issue.

    python -m reports.regressions --previous OLD_OUT --current NEW_OUT [--run-url URL] [--full FILE]

compares the newest run under each folder's results/ with reports.compare, cells matched by id (an outer join),
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
  or was not planned), a cell that did not finish, a case recorded on one side only, an infrastructure status
  (crashed, timeout, install_error) or a status this reader does not know on either side, a cell in which nothing
  was judged or that passed no case in the previous run, a case passing now only after a failing attempt,
  unreadable results lines, or results that cannot be read at all (then also one line on stderr). The body says
  why, one line each.
- 3, internal error: this tool broke (an uncaught exception, or a --full file it cannot write; harness.formats'
  `command`). The traceback and one line on stderr, nothing on stdout: it is never a verdict, so the workflow
  leaves the issue as it is. A crash before this module runs (its imports) exits 1 with nothing on stdout: the
  workflow takes no body as no verdict either.

Flaky cases (attempts that disagreed) of either run are listed in the body, whatever the answer.

The scheduled workflow (.github/workflows/matrix.yml) files or updates its tracking issue on 1 and 2, closes it on
0, and touches it on nothing else.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from harness.formats import INCONCLUSIVE_EXIT, UsageParser, command
from reports.build import results_dir
from reports.data.load import ResultsError, choose_runs, load_cells, load_results
from reports.verdicts.compare import CompareError, Comparison, compare
from reports.views.issue import cut, render


def newest_run(out_dir: Path) -> tuple[str, pd.DataFrame, pd.DataFrame, list[str]]:
    """The newest run under OUT/results: its id, records, cells (load_cells) and the lines the load skipped."""
    root = results_dir(out_dir)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = choose_runs(root)[0]
        records, cells = load_results(root, [run]), load_cells(root, [run])
    return run, records, cells, [str(w.message) for w in caught if "skipped line" in str(w.message)]


def regressions(previous: Path, current: Path) -> Comparison:
    """The newest run of `current` against the newest run of `previous`, cells matched by id."""
    run_a, records_a, cells_a, skipped_a = newest_run(previous)
    run_b, records_b, cells_b, skipped_b = newest_run(current)
    if run_a == run_b:
        raise ResultsError(f"both folders hold the same run {run_a}; nothing to compare")
    return compare(pd.concat([records_a, records_b], ignore_index=True), run_a, run_b,
                   pd.concat([cells_a, cells_b], ignore_index=True), by_id=True, unreadable=[*skipped_a, *skipped_b])


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
        comparison = regressions(args.previous, args.current)
    except (ResultsError, CompareError) as exc:
        print(f"{parse.prog}: error: {exc}", file=sys.stderr)
        body = f"**Inconclusive:** the comparison with the previous scheduled run could not be made: {exc}\n"
        code = INCONCLUSIVE_EXIT
    else:
        # reports.compare's exit codes: SAFE 0 is clean, UNSAFE 1 regressed, INCONCLUSIVE 2.
        body, code = render(comparison, args.run_url), comparison.exit_code
    if args.full:
        args.full.parent.mkdir(parents=True, exist_ok=True)
        args.full.write_text(body, encoding="utf-8")
    # Printed last: a crash above leaves stdout empty, which the workflow reads as no verdict.
    print(cut(body, run_url=args.run_url), end="")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
