"""The census stated: one markdown table per family, generated from cases/census.toml and the cases' `cites=`.

The docs build calls `census_table(family)`; nothing here is copied by hand, and what a row means (cited or not, and
why) comes from harness.census.
"""

from __future__ import annotations

from pathlib import Path

from harness.census import Report, census_path, corpus_citations, read_census

CASES_DIR = Path(__file__).resolve().parents[2] / "cases"


def census_table(family: str, cases_dir: Path = CASES_DIR) -> str:
    """A markdown table of the census's reports of `family`: each report, when, its releases, and the cases that
    cite it or why none does yet."""
    census = read_census(census_path(cases_dir))
    citing: dict[str, list[str]] = {}
    for case_id, ids in corpus_citations(cases_dir).items():
        for report_id in ids:
            citing.setdefault(report_id, []).append(case_id)
    rows = [report for report in census.values() if report.family == family]
    lines = ["| report | filed | appeared | fixed | caught by |", "|---|---|---|---|---|"]
    lines += [_row(report, sorted(citing.get(report.id, []))) for report in sorted(rows, key=lambda r: r.date)]
    return "\n".join(lines) + "\n"


def _row(report: Report, cases: list[str]) -> str:
    caught = ", ".join(f"`{case_id}`" for case_id in cases) if cases else f"not yet: {report.uncited}"
    cells = [f"[{report.id}]({report.link}): {report.summary}", report.date, report.appeared, report.fixed, caught]
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
