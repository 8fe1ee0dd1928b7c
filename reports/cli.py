"""The command line: `python -m reports --out OUT [--run RUN_ID ... | --all-runs | --compare BASELINE CANDIDATE]`.

--compare (each side RUN or RUN:CELL) prints the verdict first and exits with it: SAFE 0, UNSAFE 1,
INCONCLUSIVE 2 (first line `INCONCLUSIVE: <reason>`); bad input (an unknown option, no such run, an unreadable
--cases-from or --changes-from, a --cases-from id neither run recorded) exits 64 (harness.formats.USAGE_EXIT), with
one `error:` line on stderr. With --changes-from, the documented changes between baseline and candidate follow the
verdict.

The commands above reports (shardmatrix/) call the same work with values, never through an argv: `report` (a run's
report), `verdict` (an upgrade's verdict, printed) and `judge` (the verdict as a value).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from harness import outputs
from harness.formats import USAGE_EXIT, ShardmatrixError, UsageParser, command
from harness.vocabulary import COLLECTION_CASE
from reports.build import build_report, results_dir, writable_report_dir
from reports.data.load import ResultsError, load
from reports.data.tables import collapse
from reports.verdicts import compat, documented, documented_upgrade
from reports.verdicts.compare import CompareError, Comparison, compare, parse_ref, refs_runs
from reports.views.compare_render import render_markdown as render_compare
from reports.views.compare_render import render_text
from reports.views.repro import write_reproducers

PROG = "python -m reports"


def parser() -> UsageParser:
    """The argument parser; more options will join these."""
    parse = UsageParser(
        prog=PROG,
        description=f"Build OUT/report/ ({outputs.RESULTS_CSV.name}, {outputs.MATRIX_MD}, {outputs.MATRIX_HTML}) from "
                    "the results files in OUT/results/.",
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
        help=f"upgrade verdict between two stored runs (RUN, or RUN:CELL); writes report/{outputs.COMPARE_MD} and "
             "reproducers; "
             "exit 0 SAFE, 1 UNSAFE, 2 INCONCLUSIVE (the reason on the first line)",
    )
    parse.add_argument(
        "--cases-from", type=Path, metavar="FILE",
        help="with --compare: judge only the case ids listed in FILE, one per line (parameters ignored): a stored "
             "baseline reused for a smaller corpus is not 'recorded on one side only' for the cases not asked for; an "
             "id neither run recorded is refused (exit 64)",
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
    try:
        return report(args.out, args.runs or None, all_runs=args.all_runs)
    except ShardmatrixError as exc:  # no such run, a report folder that is a file, ...
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return USAGE_EXIT


def report(out: Path, runs: Sequence[str] | None = None, all_runs: bool = False) -> int:
    """Build the report of `runs` (default: the newest; every run with `all_runs`), print its summary and the files
    written, and return 0; ShardmatrixError for bad input (no such run, a report folder that is a file, ...)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            built = build_report(out, list(runs) if runs else None, all_runs=all_runs)
        finally:
            # Skipped lines are worth one line each, not a Python warning with a source location.
            for warning in caught:
                print(f"{PROG}: warning: {warning.message}", file=sys.stderr)
    print(f"Results from {results_dir(out)}\n")
    print(built.summary)
    print()
    for path in built.paths:
        print(f"wrote {path}")
    return 0


@dataclass(frozen=True)
class Judged:
    """An upgrade's comparison, the reproducers written for its candidate (absolute paths), the documented changes
    it crosses as text, and where compare.md was written."""

    comparison: Comparison
    links: dict[tuple[str, str], str]
    crossed: str
    written: Path


#: Declared changes as reports read them: (case id, its `change` object), harness.change.as_rows.
Declared = Sequence[tuple[str, Mapping[str, Any]]]


def judge(out: Path, before: str, after: str, cases_from: Path | None = None,
          declared: Declared | None = None) -> Judged:
    """The verdict of `after` against `before`, with compare.md, compare.json (the verdict and its coverage, for
    programs) and the reproducers written under OUT/report:
    what `--compare` prints and what `shardmatrix watch` summarises. `declared`: the documented changes to name the
    crossed ones and adopt the failures they explain (None: none listed). ShardmatrixError for bad input (a run
    compared with itself, an unknown run, a report folder that is a file, an unreadable --cases-from); what the reading
    could not account for is warned on stderr, one line each."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if parse_ref(before) == parse_ref(after):
                raise CompareError(f"--compare {before} {after}: a run compared with itself proves nothing")
            target = writable_report_dir(out)
            runs = refs_runs([before, after])
            loaded = load(results_dir(out), runs)
            records, cells = loaded.records, loaded.cells
            if cases_from is not None:
                records = only_asked(records, case_ids(cases_from), cases_from)
            # A project's failure that is a declared change's warning made an error is named after that change.
            records = documented.adopt(records, declared or [])
            comparison = compare(records, before, after, cells)
        finally:
            for warning in caught:
                print(f"{PROG}: warning: {warning.message}", file=sys.stderr)
    candidate = collapse(records[records["run_id"] == refs_runs([after])[0]])
    repros = write_reproducers(candidate, target, cells)
    crossed = (documented_upgrade.crossed(records, refs_runs([before, after]), comparison.pairs, declared)
               if declared is not None else "")
    written = outputs.write_atomically(target / outputs.COMPARE_MD, render_compare(
        comparison, {key: str(path) for key, path in repros.items()})
        + (f"\n## Documented changes\n\n{crossed}\n" if crossed else ""))
    outputs.write_document(target / outputs.COMPARE_JSON.name, outputs.COMPARE_JSON, {
        "verdict": comparison.verdict, "coverage": comparison.coverage, "reasons": list(comparison.reasons),
        "regressions": compat.regression_kinds(comparison.causes)})
    return Judged(comparison, {key: str(target / path) for key, path in repros.items()}, crossed, written)


def compare_main(out: Path, before: str, after: str, cases_from: Path | None = None,
                 changes_from: Path | None = None) -> int:
    """`--compare`: `verdict`, with the documented changes read from the declarations file `changes_from`; 64 with one
    line on stderr for bad input."""
    try:
        declared = documented_upgrade.read_declarations(changes_from) if changes_from is not None else None
        return verdict(out, before, after, cases_from, declared)
    except ShardmatrixError as exc:  # ResultsError, CompareError, an unreadable --changes-from
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return USAGE_EXIT


def verdict(out: Path, before: str, after: str, cases_from: Path | None = None,
            declared: Declared | None = None) -> int:
    """Print the verdict of `after` against `before` (then the documented changes `declared` it crosses), write
    compare.md and reproducers; the verdict's exit code (0 SAFE, 1 UNSAFE, 2 INCONCLUSIVE). ShardmatrixError for bad
    input, as `judge`."""
    judged = judge(out, before, after, cases_from, declared)
    print(render_text(judged.comparison, judged.links))
    if judged.crossed:
        print(f"\n{judged.crossed}")
    print(f"\nwrote {judged.written}")
    return judged.comparison.exit_code


def case_ids(path: Path) -> set[str]:
    """The case ids listed in `path`, one per line, without parameters; ResultsError naming it if unreadable."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise ResultsError(f"--cases-from {path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ResultsError(f"--cases-from {path}: {exc.strerror or exc}") from None
    return {line.strip().split("[")[0] for line in lines if line.strip()}


def only_asked(records: pd.DataFrame, asked: set[str], path: Path) -> pd.DataFrame:
    """The records of the `asked` case ids (parameters ignored), with the collection record of each asked case's
    module (a module that did not import answers for its cases); ResultsError naming the ids neither run recorded
    (misspelt, or recorded nowhere): dropping them would judge less than was asked, and call it SAFE."""
    base = records["case_id"].astype(str).str.split("[").str[0]
    module = base.str.partition("::")[0]
    collected = base.str.endswith(f"::{COLLECTION_CASE}")
    seen = set(base) | {f"{name}::" for name in module[collected]}
    unseen = sorted(case for case in asked if case not in seen and f"{case.partition('::')[0]}::" not in seen)
    if unseen:
        shown = ", ".join(unseen[:5]) + (f" (+{len(unseen) - 5} more)" if len(unseen) > 5 else "")
        raise ResultsError(f"--cases-from {path}: {len(unseen)} case id(s) recorded in neither run (misspelt, or "
                           f"never collected): {shown}")
    modules = {case.partition("::")[0] for case in asked}
    return records[base.isin(asked) | (collected & module.isin(modules))]

