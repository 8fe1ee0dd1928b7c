"""Tests for reports/text.py: fields as display text."""

from __future__ import annotations

import pandas as pd

from reports.text import as_text, first_line, seconds


def test_missing_values_are_blank() -> None:
    assert [as_text(v) for v in (None, float("nan"), pd.NA)] == ["", "", ""]


def test_present_values_are_their_text() -> None:
    assert [as_text(v) for v in ("x", 8, 0.0)] == ["x", "8", "0.0"]


def test_first_line_skips_blank_lines_and_cuts_long_ones() -> None:
    assert first_line("\n  first  \nsecond") == "first"
    assert first_line("x" * 300, limit=10) == "x" * 9 + "…"


def test_first_line_of_nothing_is_empty() -> None:
    assert first_line(None) == first_line(float("nan")) == ""


def test_seconds_keep_three_significant_digits() -> None:
    assert [seconds(v) for v in (0.52, 0.0729, 12.345, 100.0, 1234.5)] == ["0.520", "0.0729", "12.3", "100", "1234"]


def test_missing_seconds_are_blank() -> None:
    assert seconds(float("nan")) == seconds(None) == ""
