"""The census stated: one markdown table per family, generated from cases/census.toml, the cases' `cites=` and a
stored range check, and the line that says how many reports are caught (harness.tools.caught).

The docs build calls `census_table(family, edges)` and `census_summary(edges)` with `standing_rows(document)`, the
stored check's rows as they stand for the cases now; nothing here is copied by hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from packaging.version import Version

from harness.census import CELLS, census_path, corpus_citations, problems, read_census, read_search
from harness.host import matrix
from harness.host.corpus import BUILTIN, BUILTIN_CASES
from harness.host.plan import default_matrix
from harness.tools.caught import CAUGHT, Catch, catches, summary
from harness.tools.range_check import (
    corpus_digests,
    corpus_edges,
    declared_changes,
    declared_keys,
    fresh,
    joined_sources,
)

#: Where markup could open a tag (`<script`, `</b`, `<!--`); `jax<0.9.0` stays as written.
_TAG = re.compile(r"<(?=[A-Za-z/!?])")
#: A release as a row writes it (0.9.0.1 included), alone or after its package's name.
_RELEASE = re.compile(r"(?<![0-9.])([0-9]+\.[0-9]+\.[0-9]+(?:\.[0-9]+)?)(?![0-9.]*[0-9])")
_NAMED = re.compile(r"\b(jax|flax) ([0-9]+\.[0-9]+\.[0-9]+(?:\.[0-9]+)?)\b")
CASES_DIR = Path(__file__).resolve().parents[2] / "cases"


def _catches(edges: Iterable[Mapping[str, Any]], cases_dir: Path) -> list[Catch]:
    entry = [_entry(cases_dir)]
    # A change warned with no text of its warning was confirmed by whatever warned: its warned edges judge nothing.
    unvouched = {case for case, change in declared_changes(entry).items() if change.warned and not change.warning}
    declared = corpus_edges(entry)
    return catches(read_census(census_path(cases_dir)), corpus_citations(cases_dir), edges, declared_keys(declared),
                   unvouched, joined_sources(declared))


def _entry(cases_dir: Path) -> str:
    """The `--cases` entry of a folder: the shipped corpus is 'builtin' (its modules are not named test_*.py)."""
    return BUILTIN if Path(cases_dir).resolve() == BUILTIN_CASES.resolve() else str(cases_dir)


def standing_rows(document: Mapping[str, Any], cases_dir: Path = CASES_DIR) -> list[dict[str, Any]]:
    """The rows of a stored check (harness.outputs.read_ranges) as they stand for the corpus now: a row of a case whose
    source or declaration changed since it was checked, or whose check recorded no digest of it, is stale and
    unchecked (range_check.fresh, as `--merge` keeps it): it catches nothing until it is re-checked or stamped."""
    now = corpus_digests([_entry(cases_dir)])
    return fresh([dict(row) for row in document["edges"]], document["cases"], now)[0]


def census_table(family: str, edges: Iterable[Mapping[str, Any]], cases_dir: Path = CASES_DIR) -> str:
    """A markdown table of the census's reports of `family`: each report, when, its releases, whether it is caught
    and by which cases, or why not."""
    rows = [catch for catch in _catches(edges, cases_dir) if catch.report.family == family]
    lines = ["| report | filed | appeared | fixed | releases checked | caught at its transition | cases, or why not |",
             "|---|---|---|---|---|---|---|"]
    lines += [_row(catch) for catch in sorted(rows, key=lambda c: c.report.date)]
    return "\n".join(lines) + "\n"


def census_summary(edges: Iterable[Mapping[str, Any]], cases_dir: Path = CASES_DIR) -> str:
    """The census's one line: reports a CPU can show, how many are caught."""
    return summary(_catches(edges, cases_dir))


def census_problems(edges: Iterable[Mapping[str, Any]], cases_dir: Path = CASES_DIR) -> list[str]:
    """harness.census.problems of the corpus, its pins held to the releases the stored check and the shipped matrix
    name (the docs build has no index to ask): one line each."""
    releases = stored_releases(edges)
    for cell in matrix.load(default_matrix()):
        releases["jax"].add(Version(cell.jax))
        releases["flax"].add(Version(cell.flax))
    return problems(read_census(census_path(cases_dir)), corpus_citations(cases_dir), releases)


def stored_releases(edges: Iterable[Mapping[str, Any]]) -> dict[str, set[Version]]:
    """The jax and flax releases a stored check names: its bounds, the releases it shows and probed inside, and the
    pairs its reasons name ("jax 0.6.2 with flax 0.10.6")."""
    found: dict[str, set[Version]] = {"jax": set(), "flax": set()}
    for row in edges:
        own = " ".join(str(row.get(key) or "") for key in ("declared", "found", "inside"))
        named = [(str(row["package"]), release) for release in _RELEASE.findall(own)]
        named += _NAMED.findall(str(row.get("why") or ""))
        for package, release in named:
            if package in found:
                found[package].add(Version(release))
    return found


def census_search(cases_dir: Path = CASES_DIR) -> str:
    """The census's line on how it was searched (its `[search]` table), so a reader can repeat the search."""
    search = read_search(census_path(cases_dir))
    if search is None:
        return "The census records no search (schema 1): it cannot be repeated as it was made."
    reports = read_census(census_path(cases_dir)).values()
    read = sum(report.checked != CELLS for report in reports)
    return (f"Searched on {search.date} over reports from {search.since} to {search.until}, with "
            f"{len(search.queries)} queries over {len(search.repositories)} repositories ({search.tools}). "
            f"{len(reports) - read} of {len(reports)} reports had both sides of their releases measured in cells; "
            f"{read} were read only.")


def _row(catch: Catch) -> str:
    report = catch.report
    cases = ", ".join(f"`{case_id}`" for case_id in catch.cases)
    said = cases if catch.status == CAUGHT else "; ".join(part for part in (cases, catch.why) if part)
    checked = "in cells" if report.checked == CELLS else "read only"
    if catch.unbacked:
        checked += " (the range check confirms no edge at each release it names)"
    cells = [f"[{report.id}]({report.link}): {report.summary}", report.date, report.appeared, report.fixed,
             checked, catch.status, said]
    return "| " + " | ".join(_text(cell) for cell in cells) + " |"


def _text(cell: str) -> str:
    """The census is text, not markup: no line break, tag or pipe of a field reaches the page as structure (a code
    span shows its text as written, so `<` stays there)."""
    parts = re.split(r"(`[^`\n]+`)", " ".join(cell.split("\n")))
    return "".join(part if part.startswith("`") else _TAG.sub("&lt;", part) for part in parts).replace("|", "\\|")
