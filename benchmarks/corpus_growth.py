"""Figures 10 and 11 of `nox -s bench`: what the census's cases cost and changed, and the range checker's budget.

10. corpus growth: the default matrix (or `--matrix-cells`) run once with the corpus as it was at a git ref (before
    the census's cases) and once with the checkout's, side by side: cases, wall, summed case-body seconds, the wall's
    ratio and the slowest new case in any cell; then the report's `--compare` of after against before, listing each
    cell whose compatibility verdict changed with the cases and changes behind it.
11. the range checker's probe budget, read from a stored `nox -s ranges -- --out OUT` run.

The measuring functions run the matrix and the report; the figures' text is made by pure functions of what they
read, tested on fakes (tests/test_corpus_growth.py).
"""

from __future__ import annotations

import functools
import io
import re
import subprocess
import sys
import tarfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import outputs, vocabulary
from harness.cellrecord import CellFiles
from harness.results import read_records

#: The corpus before the census's cases (issue 30): 103 cases.
from harness.runs import new_run_id
from harness.tools.ranges import BOUNDED

BEFORE_REF = "56957cc"
#: Issue 30's targets: the new cases add at most 40 % to the wall, and none takes over 10 s in any cell.
WALL_TARGET = 1.40
CASE_LIMIT_S = 10.0
#: The corpus's modules are not named test_*.py: the shipped corpus is handed to pytest file by file, so an exported
#: one gets the same collection (every public module, none of `_support`) from an ini beside its `cases/` folder.
PYTEST_INI = "[pytest]\npython_files = [!_]*.py\n"
#: The compare's tables (reports.verdicts.compare.Comparison) that say which cases changed in a cell, in the order
#: listed; `missing` holds the cases recorded on one side only, the new cases among them.
FINDINGS = ("regressions", "removed", "not_applicable", "fixed", "missing")
#: How a finding reads in the list.
FINDING_WORDS = {"regressions": "regressed", "removed": "removed", "not_applicable": "now not applicable",
                 "fixed": "fixed", "missing": "new"}
#: The Markdown list figure 10 writes under OUT/report for the docs (docs/data holds the stored copy).
CHANGES_MD = "corpus-growth.md"


def export_corpus(root: Path, ref: str, dest: Path) -> Path:
    """`cases/` as it was at `ref` (git archive), under dest/cases, with the ini that collects it; its path.
    SystemExit naming the ref when git cannot give it."""
    extract_at(root, ref, dest, f"--corpus-before {ref}", "cases")
    (dest / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    return dest / "cases"


def extract_at(root: Path, ref: str, dest: Path, named: str, *paths: str) -> None:
    """The checkout's `paths` (all of it without any) as they were at `ref` (git archive), extracted under dest;
    SystemExit opening with `named` when git cannot give them."""
    done = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", ref, *paths], capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"bench: {named}: git archive failed: {done.stderr.decode(errors='replace').strip()}")
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        archive.extractall(dest, filter="data")


# --- what one run measured ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One matrix run: its wall, and the seconds of each (cell, case) over all its attempts."""

    run_id: str
    wall_s: float
    seconds: Mapping[tuple[str, str], float]

    @property
    def cases(self) -> set[str]:
        """The case ids recorded in any cell (a module's collection record is not a case)."""
        return {case for _, case in self.seconds if not case.endswith(f"::{vocabulary.COLLECTION_CASE}")}

    @property
    def bodies_s(self) -> float:
        """Summed case-body seconds (figure 2's `case bodies`)."""
        return sum(self.seconds.values())


def case_seconds(out: Path, run_id: str, cell_ids: Iterable[str]) -> dict[tuple[str, str], float]:
    """Each (cell, case)'s recorded seconds in one run, its attempts summed (a retried case cost them all)."""
    found: dict[tuple[str, str], float] = {}
    for cell_id in cell_ids:
        path = CellFiles(out, run_id, cell_id).results
        for record in read_records(path) if path.is_file() else []:
            key = (cell_id, str(record.get("case_id")))
            found[key] = found.get(key, 0.0) + float(record.get("duration_s") or 0.0)
    return found


# --- figure 10: the side by side ------------------------------------------------------------------------------------


def growth_figure(before: Side, after: Side, ref: str, what: str) -> str:
    """Figure 10's lines: cases, wall and case bodies before and after side by side, the wall's ratio against its
    target, and the slowest new case in any cell against the per-case limit."""
    new = after.cases - before.cases
    timed_new = {key: s for key, s in after.seconds.items() if key[1] in new}
    over = sorted({case for (_, case), s in timed_new.items() if s > CASE_LIMIT_S})
    ratio = after.wall_s / before.wall_s if before.wall_s else float("inf")
    lines = [f"10. corpus growth, {what}: the corpus at {ref} (before) and the checkout's (after)",
             f"    {'':<22}{'before':>10}{'after':>10}",
             f"    {'cases':<22}{len(before.cases):>10}{len(after.cases):>10}",
             f"    {'wall (s)':<22}{before.wall_s:>10.0f}{after.wall_s:>10.0f}",
             f"    {'case bodies (s)':<22}{before.bodies_s:>10.0f}{after.bodies_s:>10.0f}",
             f"    -> wall {ratio:.2f}x ({'within' if ratio <= WALL_TARGET else 'OVER'} the target <= "
             f"{WALL_TARGET:.2f}x); {len(new)} new case{'' if len(new) == 1 else 's'}"]
    if timed_new:
        (cell, case), slowest = max(timed_new.items(), key=lambda item: (item[1], item[0]))
        lines.append(f"    -> slowest new case: {case} in {cell}, {slowest:.1f} s; {len(over) or 'none'} over "
                     f"{CASE_LIMIT_S:.0f} s in any cell (target: none){': ' + ', '.join(over) if over else ''}")
    else:
        lines.append("    -> no new case recorded seconds")
    return "\n".join(lines)


@dataclass(frozen=True)
class CellChange:
    """A cell whose compatibility verdict changed: both verdicts as the report words them, what the compare found
    in it, and the documented changes the after verdict names that the before one did not (its new causes are the
    findings' own errors, so they are not repeated)."""

    cell: str
    before: str
    after: str
    findings: list[str] = field(default_factory=list)
    named: list[str] = field(default_factory=list)


def changed_cells(before: Iterable[Mapping[str, Any]], after: Iterable[Mapping[str, Any]],
                  findings: Mapping[str, Iterable[Mapping[str, Any]]],
                  describe: Callable[[Mapping[str, Any]], str]) -> list[CellChange]:
    """Each cell whose compat.json verdict differs between the two reports (a cell of one side only included), with
    the compare's findings in it: every regression, removal, fix and case now not applicable, and the cases recorded
    on one side only that do not pass (a new case that passes changes no verdict). `describe` words a compat row
    (reports.views.verdict_text.describe)."""
    rows_a = {str(row["cell_id"]): row for row in before}
    rows_b = {str(row["cell_id"]): row for row in after}
    found = []
    for cell in sorted(rows_a.keys() | rows_b.keys()):
        a, b = rows_a.get(cell), rows_b.get(cell)
        if a is not None and b is not None and a.get("verdict") == b.get("verdict"):
            continue
        lines = []
        for kind in FINDINGS:
            for row in findings.get(kind, []):
                if row.get("candidate") != cell and row.get("baseline") != cell:
                    continue
                if kind == "missing" and vocabulary.is_passing(row.get("after")):
                    continue
                detail = f": {row['detail']}" if row.get("detail") else ""
                lines.append(f"{FINDING_WORDS[kind]} {row['case_id']} [{row['before']} -> {row['after']}]{detail}")
        named = [f"change: {name}" for name in _new(a, b, "changes")]
        found.append(CellChange(cell, describe(a) if a is not None else "not run",
                                describe(b) if b is not None else "not run", lines, named))
    return found


def _new(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None, key: str) -> list[str]:
    had = set((a or {}).get(key) or [])
    return [str(item) for item in (b or {}).get(key) or [] if item not in had]


def changes_markdown(changes: list[CellChange], verdict: str) -> str:
    """The list of changed cells as Markdown (the docs' cases page includes the stored copy): one item per cell,
    its verdicts before and after, then what is behind it."""
    if not changes:
        return f"No cell's verdict changed (the compare: {verdict}).\n"
    lines = [f"{len(changes)} cell{'' if len(changes) == 1 else 's'} changed verdict (the compare: {verdict}):", ""]
    for change in changes:
        lines.append(f"- **{change.cell}**: {change.before} → {change.after}")
        lines += [f"    - {_code(item)}" for item in [*change.named, *change.findings]]
    return "\n".join(lines) + "\n"


def _code(item: str) -> str:
    """A finding with its case id and error as code spans, so Markdown reads `test_a_b` and `<class 'list'>`
    literally; a change as it is (its text is written as Markdown)."""
    for words in FINDING_WORDS.values():
        if item.startswith(f"{words} "):
            case, _, tail = item[len(words) + 1:].partition(" ")
            statuses, colon, detail = tail.partition("]: ")
            return f"{words} {_span(case)} {statuses}{']: ' + _span(detail) if colon else ''}"
    return _escaped(item)


#: Outside a code span these would start emphasis, a link or HTML (as docs/hooks.py escapes a table cell).
_SPECIAL = re.compile(r"([\\*_\[\]<])")


def _escaped(text: str) -> str:
    """A change's text (Markdown with code spans, `__init__` outside them) with its code spans kept and everything
    else escaped; all of it escaped when a backtick is unpaired."""
    parts = text.split("`")
    if len(parts) % 2 == 0:
        return _SPECIAL.sub(r"\\\1", text)
    return "`".join(part if index % 2 else _SPECIAL.sub(r"\\\1", part) for index, part in enumerate(parts))


def _span(text: str) -> str:
    """`text` as one code span, fenced with more backticks than it holds in a row (CommonMark)."""
    longest = max((len(part) for part in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


def changes_text(changes: list[CellChange], verdict: str) -> str:
    """Figure 10's second part, as the bench prints it."""
    head = (f"    the compare of after against before ({verdict}): "
            f"{len(changes) or 'no'} cell{'' if len(changes) == 1 else 's'} changed verdict")
    lines = [head]
    for change in changes:
        lines.append(f"    {change.cell}: {change.before} -> {change.after}")
        lines += [f"      {item}" for item in [*change.named, *change.findings]]
    return "\n".join(lines)


def growth_runs(root: Path, out: Path, scratch: Path, patterns: list[str] | None, ref: str,
                run: Callable[..., object], timed: Callable[[Callable[[], object]], float],
                cell_ids: list[str]) -> tuple[Side, Side, list[CellChange], str]:
    """Run the matrix with the corpus at `ref` and with the checkout's (a first, untimed run builds what the cells
    need, so neither wall pays for builds), build each run's report and compare them; both sides, the changed cells
    and the compare's verdict. OUT/report keeps the after run's report, compare.md and the list (CHANGES_MD)."""
    from reports import build_report
    from reports.cli import judge
    from reports.views.verdict_text import describe

    old = export_corpus(root, ref, scratch / "corpus-before")
    nox = [sys.executable, "-m", "nox", "-s", "matrix", "--", *(f"--cells={p}" for p in patterns or []),
           "--out", str(out)]
    run(*nox, "--run-id", new_run_id(), cwd=root)
    sides = []
    for cases in (["--cases", str(old)], []):
        run_id = new_run_id()
        wall = timed(functools.partial(run, *nox, *cases, "--run-id", run_id, "--force", cwd=root))
        sides.append(Side(run_id, wall, case_seconds(out, run_id, cell_ids)))
    before, after = sides
    compat = [outputs.read_rows(build_report(out, [side.run_id]).compat_json_path, outputs.COMPAT_JSON)
              for side in sides]
    comparison = judge(out, before.run_id, after.run_id).comparison
    tables = {kind: getattr(comparison, kind).to_dict("records") for kind in FINDINGS}
    changes = changed_cells(compat[0], compat[1], tables, describe)
    (out / "report" / CHANGES_MD).write_text(changes_markdown(changes, comparison.verdict), encoding="utf-8")
    return before, after, changes, comparison.verdict


# --- figure 11: the range checker's budget --------------------------------------------------------------------------


def ranges_spent(out: Path) -> dict[str, Any]:
    """What a stored range check spent and found, from OUT/report/ranges.json (harness.tools.ranges.store)."""
    path = out / "report" / outputs.RANGES_JSON.name
    if not path.is_file():
        raise SystemExit(f"bench: {path} does not exist: not a `nox -s ranges -- --out OUT` folder")
    return dict(outputs.read_ranges(path))


def ranges_figure(found: Mapping[str, Any], what: str) -> str:
    """Figure 11's lines: edges by status, probes spent against the budget, the edges the budget left unchecked,
    and seconds per probe where the document kept them."""
    edges = list(found.get("edges") or [])
    counts = {status: sum(edge.get("status") == status for edge in edges)
              for status in outputs.RANGE_STATUSES}
    cut = sum("budget" in str(edge.get("why") or "") for edge in edges if edge.get("status") == "unchecked")
    probes, budget = int(found.get("probes") or 0), int(found.get("budget") or 0)
    within = probes <= budget
    per_probe = (f"{found['seconds'] / probes:.1f} s per probe" if found.get("seconds") and probes
                 else "seconds per probe not recorded")
    drift = len(found.get("needs_without_change") or [])
    return "\n".join([
        f"11. the range checker, {what}: {len(edges)} declared edge{'' if len(edges) == 1 else 's'}: "
        f"{counts['confirmed']} confirmed, "
        f"{counts['wrong']} wrong, {counts['unchecked']} unchecked ({cut} of them left by a spent budget), "
        f"{counts[BOUNDED]} {BOUNDED}",
        f"    -> {probes} of {budget} probes ({'within' if within else 'OVER'} budget); {per_probe}; "
        f"{drift} need{'' if drift == 1 else 's'} gone with no change"])
