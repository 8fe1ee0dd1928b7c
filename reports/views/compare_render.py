"""The upgrade verdict as people read it: the terminal text of `python -m reports --compare` (and `nox -s upgrade`),
compare.md, and the regression causes the nightly issue lists. The verdict itself is reports.verdicts.compare's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from harness import outputs
from reports.verdicts.compare import INCONCLUSIVE, UNSAFE, Comparison
from reports.verdicts.compare_tables import TIME_DELTA_S, TIME_RATIO
from reports.verdicts.compat import (
    DOCUMENTED_KIND,
    KNOWN_KIND,
    UNEXPLAINED_KIND,
    cause_kind,
    regression_kinds,
)
from reports.views.verdict_text import kinds_text


@dataclass(frozen=True)
class CauseLine:
    """One root cause of regressions, as the compare output and the nightly issue list it."""

    number: int
    example: str
    cells: str
    #: (candidate cell id, case id) in version order.
    cases: list[tuple[str, str]]
    #: The declared change that documents it (reports.verdicts.documented.label), else "".
    change: str = ""
    #: Its kind of failure (reports.verdicts.compat.cause_kind): documented, known or unexplained.
    kind: str = UNEXPLAINED_KIND


def cause_lines(comparison: Comparison) -> list[CauseLine]:
    """The regressions' causes, most widespread first, each with its candidate cells as version ranges."""
    cell_ids = comparison.cells["cell_id"].to_dict() if len(comparison.cells) else {}
    return [CauseLine(number, row["example"], row["cells"], [(str(cell_ids[key]), case) for key, case in row["cases"]],
                      str(row.get("change") or ""), cause_kind(row.get("change"), row.get("statuses"),
                                                                     row.get("undeclared", True)))
            for number, row in enumerate(comparison.causes.to_dict("records"), start=1)]


def _kind_note(cause: CauseLine) -> str:
    """What a cause is, in the compatibility table's words: 'documented change: ...', 'known upstream bug', ''."""
    if cause.kind == DOCUMENTED_KIND and cause.change:
        return f"documented change: {cause.change}"
    return "known upstream bug" if cause.kind == KNOWN_KIND else ""


def case_list(cases: Sequence[tuple[str, str]], shown: int = 5, quote: str = "") -> str:
    """'a, b, c (+4 more)': the distinct case ids of a cause, the first `shown` of them."""
    ids = list(dict.fromkeys(case for _, case in cases))
    text = ", ".join(f"{quote}{case}{quote}" for case in ids[:shown])
    return text + (f" (+{len(ids) - shown} more)" if len(ids) > shown else "")


def headline(comparison: Comparison) -> str:
    """The verdict line: SAFE, UNSAFE, or 'INCONCLUSIVE: <reasons in one line>'; with the coverage first when cases
    were left out ('SAFE: 4 of 7 tests judged (3 need 2 devices)')."""
    verdict = comparison.verdict
    said = [part for part in (comparison.coverage, comparison.reason if verdict == INCONCLUSIVE else "") if part]
    return f"{verdict}: {'; '.join(said)}" if said else verdict


#: Per-case sections after the regressions' causes: (Comparison attribute, title).
SECTIONS: tuple[tuple[str, str], ...] = (
    ("removed", "Gone (passing \N{RIGHTWARDS ARROW} not applicable: an API it uses is absent)"),
    ("unjudged", "Not judged (crashed, timeout, install_error, an unknown status or conflicting records on a side)"),
    ("missing", "Recorded on one side only"),
    ("left_out", "Judged by neither side (not applicable on one side: failing on the other, or passing before and "
                 "short of devices now)"),
    ("flaky", "Flaky (attempts disagreed)"),
    ("unrun", "Could not run (error on a side: not judged)"),
    ("deprecated", "Newly deprecated (clean pass \N{RIGHTWARDS ARROW} pass with warnings)"),
    ("not_applicable", "Newly not applicable"),
    ("fixed", "Fixed (not passing \N{RIGHTWARDS ARROW} passing)"),
)
#: At most this many cases per section in the terminal: a cell that could not run lists every case.
TEXT_ROWS = 20
REGRESSIONS_TITLE = "Regressions (passing \N{RIGHTWARDS ARROW} broken)"
ARROW = "\N{RIGHTWARDS ARROW}"


def regressions_count(comparison: Comparison) -> str:
    """'3 case(s) from 2 cause(s)', with the cases counted by kind as the compatibility table counts a cell's
    failures when any regressed ('3 case(s) from 2 cause(s): 1 documented, 2 known upstream, 0 unexplained' joined by
    middle dots)."""
    said = f"{len(comparison.regressions)} case(s) from {len(comparison.causes)} cause(s)"
    if comparison.causes.empty:
        return said
    return f"{said}: {kinds_text(regression_kinds(comparison.causes))}"


def render_text(comparison: Comparison, links: dict[tuple[str, str], str] | None = None) -> str:
    """The verdict and every non-empty finding, for a terminal; `links` maps (cell, case) to a reproducer."""
    links = links or {}
    lines = [headline(comparison)]
    if comparison.verdict == UNSAFE and comparison.reasons:
        lines.append(f"also inconclusive: {comparison.reason}")
    lines += [f"what to do: {hint}" for hint in comparison.hints]
    lines.append("")
    lines += [f"baseline {a}  {ARROW}  candidate {b}" for a, b in comparison.pairs]
    lines += ["", f"{REGRESSIONS_TITLE}: {regressions_count(comparison)}"]
    for cause in cause_lines(comparison):
        lines += [f"  {cause.number}. [{len(cause.cases)} case(s)] {cause.example}",
                  f"     cells: {cause.cells}", f"     cases: {case_list(cause.cases)}"]
        if _kind_note(cause):
            lines.append(f"     {_kind_note(cause)}")
        link = next((links[pair] for pair in cause.cases if pair in links), None)
        if link:
            lines.append(f"     reproduce: uv run {link}")
    for name, title in SECTIONS:
        found: pd.DataFrame = getattr(comparison, name)
        lines += ["", f"{title}: {len(found)}"]
        for row in found.head(TEXT_ROWS).to_dict("records"):
            lines.append(f"  {row['case_id']}: {row['before']} {ARROW} {row['after']}  {row['detail']}".rstrip())
        if len(found) > TEXT_ROWS:
            lines.append(f"  ... and {len(found) - TEXT_ROWS} more ({outputs.COMPARE_MD} lists every one)")
    slower = comparison.slower
    lines += ["", f"Slower beyond noise (ratio > {TIME_RATIO} and > {TIME_DELTA_S * 1000:.0f} ms more): {len(slower)}"]
    for row in slower.to_dict("records"):
        before, after = f"{row['before_s']:.3f} s", f"{row['after_s']:.3f} s"
        lines.append(f"  {row['case_id']}: {before} {ARROW} {after} (x{row['ratio']:.2f})")
    return "\n".join(lines)


def markdown_causes(comparison: Comparison, reproduce: Callable[[list[tuple[str, str]]], str]) -> list[str]:
    """The regressions' causes as a Markdown table (one row per cause) and their cases, one line per cause;
    `reproduce` gives a cause's reproducer cell from its (cell, case) pairs."""
    found = cause_lines(comparison)
    if not found:
        return ["None."]
    lines = ["| # | Cause | Cases | Cells | Reproduce |", "| ---: | --- | ---: | --- | --- |"]
    for cause in found:
        named = f" ({_kind_note(cause)})" if _kind_note(cause) else ""
        lines.append(f"| {cause.number} | {_cell(cause.example + named)} | {len(cause.cases)} | {_cell(cause.cells)} | "
                     f"{reproduce(cause.cases)} |")
    lines.append("")
    lines += [f"- cause {cause.number}: {case_list(cause.cases, shown=20, quote='`')}" for cause in found]
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(comparison: Comparison, links: dict[tuple[str, str], str] | None = None) -> str:
    """The same as Markdown, with the timing view as ratios against the baseline."""
    links = links or {}

    def script(cases: list[tuple[str, str]]) -> str:
        link = next((links[pair] for pair in cases if pair in links), None)
        return f"[script]({link})" if link else ""

    parts = [f"# Upgrade check: {comparison.verdict}", ""]
    if comparison.coverage:
        parts += [f"**Coverage:** {comparison.coverage}", ""]
    if comparison.reasons:
        parts += [f"**{'Inconclusive' if comparison.verdict == INCONCLUSIVE else 'Also inconclusive'}:** "
                  f"{_cell(comparison.reason)}", ""]
    parts += [*(f"**What to do:** {_cell(hint)}" for hint in comparison.hints), *([""] if comparison.hints else [])]
    parts += [f"- baseline `{a}` {ARROW} candidate `{b}`" for a, b in comparison.pairs]
    parts += ["", f"## {REGRESSIONS_TITLE}: {regressions_count(comparison)}", "", *markdown_causes(comparison, script)]
    for name, title in SECTIONS:
        found: pd.DataFrame = getattr(comparison, name)
        parts += ["", f"## {title} ({len(found)})", ""]
        if found.empty:
            parts.append("None.")
            continue
        parts += ["| Case | Before | After | Detail |", "| --- | --- | --- | --- |"]
        for row in found.to_dict("records"):
            parts.append(f"| `{row['case_id']}` | {row['before']} | {row['after']} | {_cell(str(row['detail']))} |")
    parts += ["", f"## Timing against the baseline (flagged: ratio > {TIME_RATIO} and > {TIME_DELTA_S * 1000:.0f} ms)",
              "", "| Case | Before s | After s | Ratio | Compile ratio | Execute ratio | |",
              "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for row in comparison.timing.to_dict("records"):
        parts.append(f"| `{row['case_id']}` | {row['before_s']:.3f} | {row['after_s']:.3f} | {_ratio(row['ratio'])} | "
                     f"{_ratio(row['compile_ratio'])} | {_ratio(row['execute_ratio'])} | "
                     f"{'slower' if row['slower'] else ''} |")
    return "\n".join(parts) + "\n"


def _ratio(value: object) -> str:
    return "" if value is None or value != value else f"x{float(value):.2f}"  # type: ignore[arg-type]
