"""The census stated: one markdown table per family, generated from cases/census.toml, the cases' `cites=` and a
stored range check, and the line that says how many reports are caught (harness.tools.caught).

The docs build calls `census_table(family, edges)` and `census_summary(edges)`; nothing here is copied by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.census import census_path, corpus_citations, read_census
from harness.host.corpus import BUILTIN, BUILTIN_CASES
from harness.tools.caught import CAUGHT, Catch, catches, summary
from harness.tools.range_check import corpus_edges, declared_keys

CASES_DIR = Path(__file__).resolve().parents[2] / "cases"


def _catches(edges: Iterable[Mapping[str, Any]], cases_dir: Path) -> list[Catch]:
    return catches(read_census(census_path(cases_dir)), corpus_citations(cases_dir), edges,
                   declared_keys(corpus_edges([_entry(cases_dir)])))


def _entry(cases_dir: Path) -> str:
    """The `--cases` entry of a folder: the shipped corpus is 'builtin' (its modules are not named test_*.py)."""
    return BUILTIN if Path(cases_dir).resolve() == BUILTIN_CASES.resolve() else str(cases_dir)


def census_table(family: str, edges: Iterable[Mapping[str, Any]], cases_dir: Path = CASES_DIR) -> str:
    """A markdown table of the census's reports of `family`: each report, when, its releases, whether it is caught
    and by which cases, or why not."""
    rows = [catch for catch in _catches(edges, cases_dir) if catch.report.family == family]
    lines = ["| report | filed | appeared | fixed | caught at its transition | cases, or why not |",
             "|---|---|---|---|---|---|"]
    lines += [_row(catch) for catch in sorted(rows, key=lambda c: c.report.date)]
    return "\n".join(lines) + "\n"


def census_summary(edges: Iterable[Mapping[str, Any]], cases_dir: Path = CASES_DIR) -> str:
    """The census's one line: reports a CPU can show, how many are caught."""
    return summary(_catches(edges, cases_dir))


def _row(catch: Catch) -> str:
    report = catch.report
    cases = ", ".join(f"`{case_id}`" for case_id in catch.cases)
    said = cases if catch.status == CAUGHT else "; ".join(part for part in (cases, catch.why) if part)
    cells = [f"[{report.id}]({report.link}): {report.summary}", report.date, report.appeared, report.fixed,
             catch.status, said]
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
