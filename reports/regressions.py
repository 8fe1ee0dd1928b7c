"""Run against run: the cases that passed in a previous run and no longer pass, as the body of a tracking issue.

`python -m reports.regressions --previous OLD_OUT --current NEW_OUT [--run-url URL]` compares the newest run
under each folder's results/, cell by cell (cells in only one run are not compared), prints Markdown, and
exits 1 when something regressed, 0 when not, 2 when a side cannot be read. The scheduled workflow uses the exit
status to open, update or close its tracking issue.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from reports.build import results_dir
from reports.load import ResultsError, load_results
from reports.matrix import collapse
from reports.text import first_line

PASSED = "passed"
COLUMNS = ["cell_id", "case_id", "before", "after", "error"]


def final_statuses(out_dir: Path) -> pd.DataFrame:
    """(cell, case) -> the final status and error of the newest run under OUT/results."""
    rows = collapse(load_results(results_dir(out_dir))).reset_index()
    return rows.set_index(["cell_id", "case_id"])[["status", "error_message"]]


def regressions(previous: pd.DataFrame, current: pd.DataFrame) -> pd.DataFrame:
    """The cases of cells in both runs that passed before and end in any other status now."""
    both = previous.join(current, how="inner", lsuffix="_before", rsuffix="_after")
    worse = both[(both["status_before"] == PASSED) & (both["status_after"] != PASSED)].reset_index()
    return pd.DataFrame({
        "cell_id": worse["cell_id"], "case_id": worse["case_id"], "before": worse["status_before"],
        "after": worse["status_after"], "error": worse["error_message_after"].map(first_line),
    }, columns=COLUMNS).sort_values(["cell_id", "case_id"], ignore_index=True)


def render(found: pd.DataFrame, run_url: str = "") -> str:
    """Markdown for the tracking issue: one row per regression, and how to reproduce each cell locally."""
    if found.empty:
        return "No regressions against the previous scheduled run.\n"
    where = f" in [this run]({run_url}) (each cell's results are an artifact there)" if run_url else ""
    lines = [f"{len(found)} case(s) passed in the previous scheduled run and no longer pass{where}.", "",
             "| cell | case | before | after | error |", "| --- | --- | --- | --- | --- |"]
    for row in found.itertuples(index=False):
        error = _cell_text(str(row.error))
        lines.append(f"| `{row.cell_id}` | `{row.case_id}` | {row.before} | {row.after} | {error} |")
    lines += ["", "Reproduce a cell locally (its case ids are the pytest node ids under `cases/`):", ""]
    for cell_id in dict.fromkeys(found["cell_id"]):
        lines.append(f'- `nox -s "cell({cell_id})" -- --out out && nox -s report -- --out out`')
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the regressions of --current against --previous; 1 when there are any, 2 on unreadable results."""
    parse = argparse.ArgumentParser(prog="python -m reports.regressions", description=__doc__.splitlines()[0])
    parse.add_argument("--previous", type=Path, required=True, help="output folder of the earlier run")
    parse.add_argument("--current", type=Path, required=True, help="output folder of this run")
    parse.add_argument("--run-url", default="", help="link to this run, for the issue body")
    args = parse.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the report job already printed every skipped line
        try:
            found = regressions(final_statuses(args.previous), final_statuses(args.current))
        except ResultsError as exc:
            print(f"{parse.prog}: error: {exc}", file=sys.stderr)
            return 2
    print(render(found, args.run_url), end="")
    return 1 if len(found) else 0


def _cell_text(text: str) -> str:
    return text.replace("|", "\\|")[:200]


if __name__ == "__main__":
    raise SystemExit(main())
