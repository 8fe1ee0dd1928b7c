"""Tests for reports/views/hover.py: hover texts say what a reader needs."""

from __future__ import annotations

from typing import Any

from reports.views.hover import (
    FIELDS,
    not_run_tip,
    status_tip,
    status_tips,
    timing_line,
    timing_lines,
    timing_tip,
    timing_tips,
)

HOSTILE = '<script>alert(1)</script> | "quoted" \\ back\nnew line `tick` *star* [x](y) &amp; </style>'


def row(**fields: Any) -> dict[str, Any]:
    """One collapsed result as hover functions get it; keyword arguments override fields."""
    base: dict[str, Any] = {"key": "c3", "cell_id": "jax0.10.2-flax0.12.8-py3.11", "case_id": "fam::test_a",
                            "shown": "passed", "error_type": None, "error_message": None, "reason": None,
                            "warnings": [], "duration_s": 0.52, "compile_s": 0.31, "execute_s": 0.21, "attempt": 1,
                            "attempts": 1, "repeats": 1, "history": ["passed"], "flaky": False}
    return {**base, **fields}


def test_status_tip_of_a_failure_names_cell_case_error_reason_and_time() -> None:
    tip = status_tip(row(shown="failed", error_type="ValueError", error_message=HOSTILE, reason="why\nmore"))
    assert tip.splitlines()[:3] == ["c3 · jax0.10.2-flax0.12.8-py3.11", "fam::test_a", "status: failed"]
    assert f"ValueError: {HOSTILE}" in tip
    assert "reason: why\n" in tip
    assert tip.endswith("time: 0.520 s (compile 0.310 s, execute 0.210 s)")


def test_status_tip_of_a_clean_pass_has_no_error_lines() -> None:
    tip = status_tip(row())
    assert "reason" not in tip and ": None" not in tip and "warning" not in tip


def test_status_tip_lists_each_warning() -> None:
    tip = status_tip(row(shown="passed_deprecated", warnings=["DeprecationWarning: a", "UserWarning: b"]))
    assert "status: passed, warned\nwarning: DeprecationWarning: a\nwarning: UserWarning: b" in tip


def test_status_tip_cuts_a_very_long_message() -> None:
    tip = status_tip(row(shown="failed", error_message="x" * 5000))
    assert len(tip) < 1500 and "…" in tip


def test_status_tip_of_a_flaky_result_says_how_its_attempts_went() -> None:
    tip = status_tip(row(attempt=2, attempts=2, history=["failed", "passed"], flaky=True))
    assert "status: passed\nflaky: failed → passed\n" in tip


def test_status_tip_of_a_steady_retry_lists_the_attempts_but_not_flaky() -> None:
    tip = status_tip(row(shown="failed", attempt=2, attempts=2, history=["failed", "failed"]))
    assert "attempts: failed → failed" in tip and "flaky" not in tip


def test_timing_tip_says_median_of_repeats() -> None:
    assert timing_tip(row(repeats=3)).endswith("· median of 3 runs")


def test_timing_tip_of_a_retried_case_names_the_attempt_timed() -> None:
    assert timing_tip(row(attempt=2, attempts=2)).endswith("(compile 0.310 s, execute 0.210 s) · attempt 2")


def test_not_run_tip_says_the_cell_stopped_first() -> None:
    tip = not_run_tip("c3", "jax0.10.2", "fam::test_a")
    assert tip == "c3 · jax0.10.2\nfam::test_a\ninterrupted: stopped before this case ran"


def test_timing_tip_without_a_duration_says_so() -> None:
    assert timing_tip(row(duration_s=float("nan"))).endswith("time: not recorded")


def test_hover_texts_read_only_fields() -> None:
    rich = row(shown="passed_deprecated", warnings=["W"], attempt=2, attempts=2, history=["failed", "passed"],
               flaky=True, repeats=3, error_type="E", reason="why")
    narrow = {name: rich[name] for name in FIELDS}
    assert status_tip(narrow) == status_tip(rich) and timing_tip(narrow) == timing_tip(rich)


def test_bulk_hover_texts_are_the_per_result_ones() -> None:
    # The page writes every hover text in bulk, from columns; each must be the text of its own result.
    rows = [
        row(),
        row(key="c4", shown="failed", error_type="ValueError", error_message=HOSTILE, reason="why\nmore"),
        row(shown="passed_deprecated", warnings=["DeprecationWarning: a", "UserWarning: b"], repeats=3),
        row(attempt=2, attempts=2, history=["failed", "passed"], flaky=True, compile_s=float("nan")),
        row(shown="failed", attempt=2, attempts=2, history=["failed", "failed"], duration_s=float("nan")),
        # 0.0 and -0.0 are equal, but their texts differ: a cache of texts must not mix them up.
        row(duration_s=0.0, compile_s=-0.0, execute_s=0.0),
        row(shown="no_such_status", duration_s=1234.5),
    ]
    columns = {name: [one[name] for one in rows] for name in FIELDS}
    timings = timing_lines(columns)
    assert timings == [timing_line(one) for one in rows]
    assert "compile -0.00 s" in timings[5]
    assert status_tips(columns, timings) == [status_tip(one) for one in rows]
    assert timing_tips(columns, timings) == [timing_tip(one) for one in rows]
