"""The command line: `python -m reports --out OUT [--run RUN_ID ... | --all-runs | --compare BASELINE CANDIDATE]`.

--compare (each side RUN or RUN:CELL) prints the verdict first and exits with it: SAFE 0, UNSAFE 1,
INCONCLUSIVE 2 (first line `INCONCLUSIVE: <reason>`); bad input (an unknown option, no such run, an unreadable
--cases-from or --changes-from) exits 64 (harness.formats.USAGE_EXIT), with one `error:` line on stderr. With
--changes-from, the documented changes between baseline and candidate follow the verdict.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from harness.formats import USAGE_EXIT, UsageParser, command
from reports.build import build_report, report_dir, results_dir
from reports.data.load import ResultsError, load_cells, load_results
from reports.data.matrix import collapse
from reports.verdicts import changes
from reports.verdicts.compare import CompareError, compare, refs_runs
from reports.views.compare_render import render_markdown as render_compare
from reports.views.compare_render import render_text
from reports.views.repro import write_reproducers

PROG = "python -m reports"


def parser() -> UsageParser:
    """The argument parser; more options will join these."""
    parse = UsageParser(
        prog=PROG,
        description="Build OUT/report/ (results.csv, matrix.md, matrix.html) from the results files in OUT/results/.",
    )
    parse.add_argument("--out", type=Path, required=True, help="the output folder holding results/; report/ is written")
    runs = parse.add_mutually_exclusive_group()
    runs.add_argument(
        "--run", dest="runs", action="extend", nargs="+", default=[], metavar="RUN_ID",
        help="report these runs side by side (default: the newest run)",
    )
    runs.add_argument("--all-runs", action="store_true", help="report every run under OUT/results/")
    runs.add_argument(
        "--compare", nargs=2, metavar=("BASELINE", "CANDIDATE"),
        help="upgrade verdict between two stored runs (RUN, or RUN:CELL); writes report/compare.md and reproducers; "
             "exit 0 SAFE, 1 UNSAFE, 2 INCONCLUSIVE (the reason on the first line)",
    )
    parse.add_argument(
        "--cases-from", type=Path, metavar="FILE",
        help="with --compare: judge only the case ids listed in FILE, one per line (parameters ignored): a stored "
             "baseline reused for a smaller corpus is not 'recorded on one side only' for the cases not asked for",
    )
    parse.add_argument(
        "--changes-from", type=Path, metavar="FILE",
        help="with --compare: after the verdict, list the documented changes (a declarations file, written by `nox -s "
             "upgrade`) whose range starts between baseline and candidate, with their fixes",
    )
    return parse


@command
def main(argv: Sequence[str] | None = None) -> int:
    """Build the report, print the summary and the files written; 64 with one line on stderr for bad input."""
    args = parser().parse_args(argv)
    if args.compare:
        before, after = args.compare
        return compare_main(args.out, before, after, cases_from=args.cases_from, changes_from=args.changes_from)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            report = build_report(args.out, args.runs or None, all_runs=args.all_runs)
        except ResultsError as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return USAGE_EXIT
        finally:
            # Skipped lines are worth one line each, not a Python warning with a source location.
            for warning in caught:
                print(f"{PROG}: warning: {warning.message}", file=sys.stderr)
    print(f"Results from {results_dir(args.out)}\n")
    print(report.summary)
    print()
    for path in report.paths:
        print(f"wrote {path}")
    return 0


def compare_main(out: Path, before: str, after: str, cases_from: Path | None = None,
                 changes_from: Path | None = None) -> int:
    """Print the verdict of `after` against `before` (then the documented changes between them, from `changes_from`),
    write compare.md and reproducers; the verdict's exit code (0 SAFE, 1 UNSAFE, 2 INCONCLUSIVE), or 64 with one line
    on stderr for bad input."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            runs = refs_runs([before, after])
            records = load_results(results_dir(out), runs)
            if cases_from is not None:
                records = records[records["case_id"].str.split("[").str[0].isin(case_ids(cases_from))]
            cells = load_cells(results_dir(out), runs)
            comparison = compare(records, before, after, cells, unreadable=skipped_lines(caught))
            declared = changes.read_declarations(changes_from) if changes_from is not None else None
        except (ResultsError, CompareError) as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return USAGE_EXIT
        finally:
            for warning in caught:
                print(f"{PROG}: warning: {warning.message}", file=sys.stderr)
    target = report_dir(out)
    target.mkdir(parents=True, exist_ok=True)
    candidate = collapse(records[records["run_id"] == refs_runs([after])[0]])
    repros = write_reproducers(candidate, target, cells)
    links = {key: str(target / path) for key, path in repros.items()}
    crossed = (changes.crossed(records, refs_runs([before, after]), comparison.pairs, declared)
               if declared is not None else "")
    (target / "compare.md").write_text(
        render_compare(comparison, {key: str(path) for key, path in repros.items()})
        + (f"\n## Documented changes\n\n{crossed}\n" if crossed else ""), encoding="utf-8")
    print(render_text(comparison, links))
    if crossed:
        print(f"\n{crossed}")
    print(f"\nwrote {target / 'compare.md'}")
    return comparison.exit_code


def case_ids(path: Path) -> set[str]:
    """The case ids listed in `path`, one per line, without parameters; ResultsError naming it if unreadable."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ResultsError(f"--cases-from {path}: {exc.strerror or exc}") from None
    return {line.strip().split("[")[0] for line in lines if line.strip()}


def skipped_lines(caught: Sequence[warnings.WarningMessage]) -> list[str]:
    """The load's warnings about results lines it skipped: records lost, so cases a verdict cannot vouch for."""
    return [str(warning.message) for warning in caught if "skipped line" in str(warning.message)]
