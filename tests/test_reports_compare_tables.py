"""Tests for reports/verdicts/compare_tables.py: what a side shows in a finding table, and timing beyond noise."""

from __future__ import annotations

import pandas as pd

from reports.verdicts.compare_tables import NOT_RECORDED, TIME_DELTA_S, TIME_RATIO, answer_class, pick, timing
from reports.verdicts.unjudged import MISSING


def joined(before: list[float], after: list[float]) -> pd.DataFrame:
    """Cases passing on both sides with the durations given."""
    count = len(before)
    return pd.DataFrame({
        "baseline": ["a"] * count, "candidate": ["b"] * count, "case_id": [f"c{n}" for n in range(count)],
        "status_a": ["passed"] * count, "status_b": ["passed"] * count,
        "duration_s_a": before, "duration_s_b": after, "compile_s_a": before, "compile_s_b": after,
        "execute_s_a": before, "execute_s_b": after,
    })


def test_slower_beyond_both_the_ratio_and_the_delta_is_flagged() -> None:
    before = 1.0
    found = timing(joined([before], [before * TIME_RATIO + TIME_DELTA_S]))
    assert found["slower"].tolist() == [True]


def test_slower_by_the_ratio_but_within_the_delta_is_not() -> None:
    tiny = TIME_DELTA_S / 10
    found = timing(joined([tiny], [tiny * TIME_RATIO * 2]))
    assert found["slower"].tolist() == [False]


def test_a_side_the_join_left_empty_is_missing_and_shows_not_recorded() -> None:
    both = joined([1.0], [1.0]).assign(status_b=[None], reason_a=[None], reason_b=[None])
    assert answer_class(None) == MISSING
    assert pick(both, pd.Series([True]))["after"].tolist() == [NOT_RECORDED]
