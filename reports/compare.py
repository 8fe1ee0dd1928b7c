"""Upgrade safety: a candidate cell against a baseline cell, from loaded records alone (pure pandas).

Verdict: UNSAFE when a case that passed on the baseline does not pass on the candidate (regression: failed,
error, crashed, timeout, install_error, or xfailed by a known breakage), or becomes not applicable (an API it
uses is gone). Everything else is listed but does not decide: newly deprecated (a clean pass now warns), newly
not applicable from a non-pass, fixed (a non-pass now passes), and timing changes beyond noise.

Timing noise threshold: a case is slower when its median duration grew by more than TIME_RATIO times *and*
by more than TIME_DELTA_S seconds (both, so tiny cases do not flag on jitter and long ones on small drifts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from reports.matrix import collapse
from reports.text import first_line

BROKEN: frozenset[str] = frozenset({"failed", "error", "crashed", "timeout", "install_error", "xfailed"})
PASSED = "passed"
NOT_APPLICABLE = "not_applicable"
TIME_RATIO = 1.5
TIME_DELTA_S = 0.05

#: The columns of every finding table.
COLUMNS: list[str] = ["baseline", "candidate", "case_id", "before", "after", "detail"]
TIMING_COLUMNS: list[str] = [
    "baseline", "candidate", "case_id", "before_s", "after_s", "ratio", "compile_ratio", "execute_ratio", "slower",
]


class CompareError(ValueError):
    """Two sides that cannot be compared, in one line."""


@dataclass(frozen=True)
class Comparison:
    """What changed from baseline to candidate, one table per kind of finding."""

    pairs: list[tuple[str, str]]
    regressions: pd.DataFrame
    removed: pd.DataFrame
    deprecated: pd.DataFrame
    not_applicable: pd.DataFrame
    fixed: pd.DataFrame
    timing: pd.DataFrame
    missing: pd.DataFrame

    @property
    def safe(self) -> bool:
        """No regression and no API gone."""
        return self.regressions.empty and self.removed.empty

    @property
    def slower(self) -> pd.DataFrame:
        """Timing rows beyond noise."""
        return self.timing[self.timing["slower"]]

    @property
    def verdict(self) -> str:
        """'SAFE' or 'UNSAFE'."""
        return "SAFE" if self.safe else "UNSAFE"


def parse_ref(text: str) -> tuple[str, str | None]:
    """'RUN' -> (RUN, None); 'RUN:CELL' -> (RUN, CELL)."""
    run, _, cell = text.partition(":")
    if not run:
        raise CompareError(f"{text!r}: expected RUN or RUN:CELL")
    return run, cell or None


def pair_cells(records: pd.DataFrame, before: tuple[str, str | None], after: tuple[str, str | None]) -> list[
        tuple[str, str]]:
    """(baseline cell, candidate cell) pairs: the named cells, else the cells both runs hold, else the only cell of
    each run."""
    def cells(run: str) -> list[str]:
        return sorted(records.loc[records["run_id"] == run, "cell_id"].unique())

    (run_a, cell_a), (run_b, cell_b) = before, after
    left, right = cells(run_a), cells(run_b)
    for run, cell, found in ((run_a, cell_a, left), (run_b, cell_b, right)):
        if not found:
            raise CompareError(f"run {run} has no records")
        if cell is not None and cell not in found:
            raise CompareError(f"run {run} has no cell {cell} (cells: {', '.join(found)})")
    if cell_a is not None or cell_b is not None:
        if (cell_a is None and len(left) > 1) or (cell_b is None and len(right) > 1):
            raise CompareError("name a cell on both sides (RUN:CELL) when a run holds several")
        return [(cell_a or left[0], cell_b or right[0])]
    common = [cell for cell in left if cell in right]
    if common:
        return [(cell, cell) for cell in common]
    if len(left) == len(right) == 1:
        return [(left[0], right[0])]
    raise CompareError(f"runs {run_a} and {run_b} share no cell; name them as RUN:CELL")


def compare(records: pd.DataFrame, before: str, after: str) -> Comparison:
    """Compare `before` (RUN or RUN:CELL) with `after` over loaded records (load_results of both runs)."""
    side_a, side_b = parse_ref(before), parse_ref(after)
    pairs = pair_cells(records, side_a, side_b)
    results = collapse(records)
    frames = []
    for cell_a, cell_b in pairs:
        a = results[(results["run_id"] == side_a[0]) & (results["cell_id"] == cell_a)].set_index("case_id")
        b = results[(results["run_id"] == side_b[0]) & (results["cell_id"] == cell_b)].set_index("case_id")
        joined = a.merge(b, how="outer", left_index=True, right_index=True, suffixes=("_a", "_b"))
        joined["baseline"], joined["candidate"] = cell_a, cell_b
        frames.append(joined.reset_index())
    both = pd.concat(frames, ignore_index=True)
    return Comparison(
        pairs=pairs,
        regressions=_pick(both, _passed_clean(both, "_a", warn_ok=True) & both["status_b"].isin(BROKEN)),
        removed=_pick(both, (both["status_a"] == PASSED) & (both["status_b"] == NOT_APPLICABLE)),
        deprecated=_pick(both, _passed_clean(both, "_a") & (both["status_b"] == PASSED)
                         & both["warnings_b"].map(_has_warnings)),
        not_applicable=_pick(both, both["status_a"].notna() & ~both["status_a"].isin([PASSED, NOT_APPLICABLE])
                             & (both["status_b"] == NOT_APPLICABLE)),
        fixed=_pick(both, both["status_a"].notna() & ~both["status_a"].isin([PASSED, NOT_APPLICABLE])
                    & (both["status_b"] == PASSED)),
        timing=timing(both),
        missing=_pick(both, both["status_a"].isna() | both["status_b"].isna()),
    )


def _has_warnings(found: object) -> bool:
    return isinstance(found, list) and len(found) > 0


def _passed_clean(both: pd.DataFrame, side: str, warn_ok: bool = False) -> pd.Series:
    passed = both[f"status{side}"] == PASSED
    return passed if warn_ok else passed & ~both[f"warnings{side}"].map(_has_warnings)


def _pick(both: pd.DataFrame, mask: pd.Series) -> pd.DataFrame:
    rows = both[mask.fillna(False).astype(bool)]
    return pd.DataFrame({
        "baseline": rows["baseline"],
        "candidate": rows["candidate"],
        "case_id": rows["case_id"],
        "before": rows["status_a"].fillna("(absent)"),
        "after": rows["status_b"].fillna("(absent)"),
        "detail": [_detail(row) for row in rows.to_dict("records")],
    }, columns=COLUMNS).reset_index(drop=True)


def _detail(row: Mapping[Any, Any]) -> str:
    error = ": ".join(t for t in (first_line(row.get("error_type_b")), first_line(row.get("error_message_b"))) if t)
    found = row.get("warnings_b")
    warned = first_line(found[0]) if isinstance(found, list) and found else ""
    return error or warned or first_line(row.get("reason_b"))


def timing(both: pd.DataFrame) -> pd.DataFrame:
    """Cases that passed on both sides: median seconds before and after, ratios, and whether beyond noise."""
    rows = both[(both["status_a"] == PASSED) & (both["status_b"] == PASSED)]
    rows = rows[rows["duration_s_a"].notna() & rows["duration_s_b"].notna()]
    ratio = rows["duration_s_b"] / rows["duration_s_a"].where(rows["duration_s_a"] > 0)
    return pd.DataFrame({
        "baseline": rows["baseline"],
        "candidate": rows["candidate"],
        "case_id": rows["case_id"],
        "before_s": rows["duration_s_a"],
        "after_s": rows["duration_s_b"],
        "ratio": ratio,
        "compile_ratio": rows["compile_s_b"] / rows["compile_s_a"].where(rows["compile_s_a"] > 0),
        "execute_ratio": rows["execute_s_b"] / rows["execute_s_a"].where(rows["execute_s_a"] > 0),
        "slower": (ratio > TIME_RATIO) & (rows["duration_s_b"] - rows["duration_s_a"] > TIME_DELTA_S),
    }, columns=TIMING_COLUMNS).astype({"slower": bool}).reset_index(drop=True)


SECTIONS: tuple[tuple[str, str], ...] = (
    ("regressions", "Regressions (passed → not passing)"),
    ("removed", "Gone (passed → not applicable: an API it uses is absent)"),
    ("deprecated", "Newly deprecated (clean pass → pass with warnings)"),
    ("not_applicable", "Newly not applicable"),
    ("fixed", "Fixed (not passing → passed)"),
    ("missing", "Recorded on one side only"),
)


def render_text(comparison: Comparison, links: dict[tuple[str, str], str] | None = None) -> str:
    """The verdict and every non-empty finding, for a terminal; `links` maps (cell, case) to a reproducer."""
    links = links or {}
    lines = [comparison.verdict, ""]
    lines += [f"baseline {a}  →  candidate {b}" for a, b in comparison.pairs]
    for name, title in SECTIONS:
        found: pd.DataFrame = getattr(comparison, name)
        lines += ["", f"{title}: {len(found)}"]
        for row in found.to_dict("records"):
            lines.append(f"  {row['case_id']}: {row['before']} → {row['after']}  {row['detail']}".rstrip())
            link = links.get((str(row["candidate"]), str(row["case_id"])))
            if link:
                lines.append(f"      reproduce: uv run {link}")
    slower = comparison.slower
    lines += ["", f"Slower beyond noise (ratio > {TIME_RATIO} and > {TIME_DELTA_S * 1000:.0f} ms more): {len(slower)}"]
    for row in slower.to_dict("records"):
        lines.append(f"  {row['case_id']}: {row['before_s']:.3f} s → {row['after_s']:.3f} s (x{row['ratio']:.2f})")
    return "\n".join(lines)


def render_markdown(comparison: Comparison, links: dict[tuple[str, str], str] | None = None) -> str:
    """The same as Markdown, with the timing view as ratios against the baseline."""
    links = links or {}
    parts = [f"# Upgrade check: {comparison.verdict}", ""]
    parts += [f"- baseline `{a}` → candidate `{b}`" for a, b in comparison.pairs]
    for name, title in SECTIONS:
        found: pd.DataFrame = getattr(comparison, name)
        parts += ["", f"## {title} ({len(found)})", ""]
        if found.empty:
            parts.append("None.")
            continue
        parts += ["| Case | Before | After | Detail | Reproducer |", "| --- | --- | --- | --- | --- |"]
        for row in found.to_dict("records"):
            link = links.get((str(row["candidate"]), str(row["case_id"])))
            repro = f"[script]({link})" if link else ""
            detail = str(row["detail"]).replace("|", "\\|")
            parts.append(f"| `{row['case_id']}` | {row['before']} | {row['after']} | {detail} | {repro} |")
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


def refs_runs(refs: Sequence[str]) -> list[str]:
    """The run ids named by RUN or RUN:CELL refs."""
    return [parse_ref(ref)[0] for ref in refs]
