"""The command line: `python -m reports --out OUT [--run RUN_ID ...] [--all-runs]`."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from reports.build import build_report, results_dir
from reports.load import ResultsError

PROG = "python -m reports"


def parser() -> argparse.ArgumentParser:
    """The argument parser; more options will join these."""
    parse = argparse.ArgumentParser(
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
    return parse


def main(argv: Sequence[str] | None = None) -> int:
    """Build the report, print the summary and the files written; 2 with one line on stderr for bad input."""
    args = parser().parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            report = build_report(args.out, args.runs or None, all_runs=args.all_runs)
        except ResultsError as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return 2
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
