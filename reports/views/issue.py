"""The nightly tracking issue's body (reports/regressions.py): a comparison of two runs as Markdown, cut to
GitHub's limit on an issue body."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from reports.verdicts.compare import INCONCLUSIVE, SAFE, UNSAFE, Comparison
from reports.views.compare_render import markdown_causes

#: At most this many rows per table of cases in the issue body: an install_error night lists every case.
ROWS = 50
#: GitHub refuses an issue body longer than this many characters.
BODY_LIMIT = 65_536


def render(comparison: Comparison, run_url: str = "", coverage: Mapping[str, str] | None = None) -> str:
    """Markdown for the tracking issue: the verdict, regressions by cause, what could not be judged, and why; with
    `coverage`, the coverage of each cell that left cases out (cell id -> '19 of 103 (80 need 8 devices)')."""
    flaky = _table(comparison.flaky, "Flaky: attempts disagreed (each side's attempts in order)")
    covered = _coverage(coverage or {})
    left_out = _table(comparison.left_out, "Judged by neither run: not applicable in one, failing in the other")
    if comparison.verdict == SAFE and comparison.coverage:
        # Some cases were judged by neither run: the night is clean only on the rest, and says so.
        return "\n".join([f"No regressions against the previous scheduled run on the cases judged: every cell of "
                          f"both runs finished, {comparison.coverage}.", "", *left_out, *covered, *flaky]
                         ).rstrip("\n") + "\n"
    if comparison.verdict == SAFE:
        return "\n".join(["No regressions against the previous scheduled run: every cell of both runs finished and "
                          "every case was judged.", "", *covered, *flaky]).rstrip("\n") + "\n"
    where = f" in [this run]({run_url}) (each cell's results are an artifact there)" if run_url else ""
    lines = []
    if comparison.verdict == UNSAFE:
        count = len(comparison.regressions) + len(comparison.removed)
        lines += [f"**Regressed:** {count} case(s) passed in the previous scheduled run and no longer pass{where}.", ""]
    else:
        lines += [f"**Inconclusive:** no regression is proven, but this night is not clean{where}: it could not be "
                  "compared case by case with the previous scheduled run.", ""]
    if comparison.reasons:
        lines += ["Not judged:" if comparison.verdict == INCONCLUSIVE else "Also inconclusive:", ""]
        lines += [f"- {reason}" for reason in comparison.reasons] + [""]
    if not comparison.regressions.empty:
        lines += [f"### Regressions by cause ({len(comparison.regressions)} case(s) from {len(comparison.causes)} "
                  "cause(s))", "", *markdown_causes(comparison, _reproduce), ""]
    for name, title in (("removed", "Gone: an API the case uses is absent now"),
                        ("unjudged", "Crashed, timed out, not installed, or an unknown status"),
                        ("unrun", "Could not run (error) in a run"),
                        ("missing", "Recorded in one run only")):
        lines += _table(getattr(comparison, name), title)
    lines += left_out
    lines += covered + flaky
    cells = list(dict.fromkeys([*comparison.regressions["candidate"], *comparison.removed["candidate"]]))
    if cells:
        lines += ["Reproduce a cell locally (its case ids are the pytest node ids under `cases/`):", ""]
        lines += [f"- `{_command(cell)} && nox -s report -- --out out`" for cell in cells]
    return "\n".join(lines).rstrip("\n") + "\n"


def _coverage(coverage: Mapping[str, str]) -> list[str]:
    """The section naming each cell that left cases out with its coverage; nothing when every cell ran all it
    collected."""
    if not coverage:
        return []
    lines = [f"### Coverage: cases were left out in {len(coverage)} cell(s)", "",
             "Each verdict here stands on the cases that ran (of those collected):", ""]
    return [*lines, *(f"- `{cell}`: {text}" for cell, text in coverage.items()), ""]


def _reproduce(cases: list[tuple[str, str]]) -> str:
    return f"`{_command(cases[0][0])}`" if cases else ""


def _command(cell_id: str) -> str:
    return f'nox -s "cell({cell_id})" -- --out out'


def _table(found: pd.DataFrame, title: str) -> list[str]:
    if found.empty:
        return []
    lines = [f"### {title} ({len(found)})", "", "| cell | case | before | after | detail |",
             "| --- | --- | --- | --- | --- |"]
    for row in found.head(ROWS).itertuples(index=False):
        detail = str(row.detail).replace("|", "\\|")[:200]
        lines.append(f"| `{row.candidate}` | `{row.case_id}` | {row.before} | {row.after} | {detail} |")
    if len(found) > ROWS:
        lines.append(f"| | and {len(found) - ROWS} more | | | |")
    return [*lines, ""]


def cut(body: str, limit: int = BODY_LIMIT, run_url: str = "") -> str:
    """The body within `limit` characters: whole lines, then one line saying where the whole of it is."""
    if len(body) <= limit:
        return body
    where = f"the job summary of [this run]({run_url})" if run_url else "this run's job summary"
    note = f"\n**Cut at {limit:,} characters** (GitHub's limit on an issue body): the whole comparison is in {where}.\n"
    kept = body[:limit - len(note)]
    return kept[:kept.rfind("\n") + 1] + note
