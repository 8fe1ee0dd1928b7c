"""A comparison's finding tables (reports.verdicts.compare): their columns, what each side shows (its status, or
NOT_RECORDED; its error, warning or reason; its attempts), and the timing of cases passing on both sides.

Timing noise threshold: a case is slower when its median duration grew by more than TIME_RATIO times *and*
by more than TIME_DELTA_S seconds (both, so tiny cases do not flag on jitter and long ones on small drifts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from harness.cellrecord import CONFLICTING
from harness.vocabulary import ERROR, is_passing, status_class
from reports.data.statuses import attempts_text
from reports.data.text import first_line
from reports.verdicts.unjudged import CONFLICT, MISSING, NO_ANSWER

TIME_RATIO = 1.5


TIME_DELTA_S = 0.05


#: The columns of every finding table.
COLUMNS: list[str] = ["baseline", "candidate", "case_id", "before", "after", "detail"]


TIMING_COLUMNS: list[str] = [
    "baseline", "candidate", "case_id", "before_s", "after_s", "ratio", "compile_ratio", "execute_ratio", "slower",
]


#: What the finding tables show for that side ("absent" would read as not applicable).
NOT_RECORDED = "(not recorded)"


def answer_class(status: object) -> str:
    """A status's class (harness.vocabulary); a side the outer join left empty is MISSING, not UNKNOWN."""
    if status == CONFLICTING:
        return CONFLICT
    return status_class(status) if isinstance(status, str) else MISSING


def _unanswered(status: object) -> bool:
    """Whether a side's status is no answer for the case (module docstring): `error` or a class in NO_ANSWER."""
    return status == ERROR or answer_class(status) in NO_ANSWER


def warned(found: object) -> bool:
    """Whether a side's warnings column holds any warning."""
    return isinstance(found, list) and len(found) > 0


def passed_clean(both: pd.DataFrame, side: str) -> pd.Series:
    """The cases that passed on `side` ('_a' or '_b') without a warning."""
    return passing(both[f"status{side}"]) & ~both[f"warnings{side}"].map(warned).astype(bool)


def passing(statuses: pd.Series) -> pd.Series:
    """Which statuses are passing (harness.vocabulary), as booleans."""
    # astype: map() of an empty column keeps the column's dtype, which `&` refuses.
    return statuses.map(is_passing).astype(bool)


def pick(both: pd.DataFrame, mask: pd.Series, side: str | None = "_b") -> pd.DataFrame:
    """The finding table of the masked cases; `detail` is that side's error, warning or reason (None: the side
    without an answer, the baseline's when both lack one)."""
    rows = both[mask.fillna(False).astype(bool)]
    return pd.DataFrame({
        "baseline": rows["baseline"],
        "candidate": rows["candidate"],
        "case_id": rows["case_id"],
        "before": rows["status_a"].fillna(NOT_RECORDED),
        "after": rows["status_b"].fillna(NOT_RECORDED),
        "detail": [_detail(row, side or ("_a" if _unanswered(row["status_a"]) else "_b"))
                   for row in rows.to_dict("records")],
    }, columns=COLUMNS).reset_index(drop=True)


def flaky_table(both: pd.DataFrame, mask: pd.Series, flaky_a: pd.Series, flaky_b: pd.Series) -> pd.DataFrame:
    """The flaky finding table: each side's attempts in order as before and after, and which side was flaky."""
    rows = both[mask]
    where = {(True, False): "flaky in the baseline", (False, True): "flaky in the candidate",
             (True, True): "flaky on both sides"}
    return pd.DataFrame({
        "baseline": rows["baseline"],
        "candidate": rows["candidate"],
        "case_id": rows["case_id"],
        "before": [_attempts(found) for found in rows["history_a"]],
        "after": [_attempts(found) for found in rows["history_b"]],
        "detail": [where[pair] for pair in zip(flaky_a[mask], flaky_b[mask], strict=True)],
    }, columns=COLUMNS).reset_index(drop=True)


def _attempts(history: object) -> str:
    """A side's attempts in order, bracketed to read apart from the before-after arrow: '[failed → passed]'."""
    return f"[{attempts_text(history)}]" if isinstance(history, list) else NOT_RECORDED


def _detail(row: Mapping[Any, Any], side: str = "_b") -> str:
    error = ": ".join(t for t in (first_line(row.get(f"error_type{side}")),
                                  first_line(row.get(f"error_message{side}"))) if t)
    found = row.get(f"warnings{side}")
    warned = first_line(found[0]) if isinstance(found, list) and found else ""
    return error or warned or first_line(row.get(f"reason{side}"))


def timing(both: pd.DataFrame) -> pd.DataFrame:
    """Cases passing on both sides: median seconds before and after, ratios, and whether beyond noise."""
    rows = both[passing(both["status_a"]) & passing(both["status_b"])]
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
