"""Tests for reports/views/verdict_text.py: a cell's verdict in words, with what it adds and its coverage."""

from __future__ import annotations

from typing import Any

from record_factory import record

from reports.data.load import records_frame
from reports.data.tables import build_matrix
from reports.verdicts import compat
from reports.views.verdict_text import coverage_note, describe, detail, kinds_text


def row_of(*records: dict[str, Any]) -> dict[str, Any]:
    (row,) = compat.verdicts(build_matrix(records_frame(list(records)))).to_dict("records")
    return row


def test_a_working_cell_reads_as_its_words_alone_a_partial_one_counts_its_failures() -> None:
    assert describe(row_of(record(case_id="f::a", warnings=["DeprecationWarning: old"]))) == "works with warnings"
    assert describe(row_of(record(case_id="f::b", status="failed"))) == (
        "partial: 0 documented · 0 known upstream · 1 unexplained")


def test_a_cell_of_known_bugs_alone_counts_its_kinds_not_its_failures() -> None:
    bug = record(case_id="f::b", status="xfailed", reason="why [jax<0.7.0] https://github.com/jax-ml/jax/issues/1")
    assert describe(row_of(record(case_id="f::a"), bug)) == (
        "works except known bugs: 0 documented · 1 known upstream · 0 unexplained")
    assert kinds_text({"documented": 29, "known": 9}) == "29 documented · 9 known upstream · 0 unexplained"


def test_a_flaky_cell_says_in_how_many_the_attempts_disagreed() -> None:
    row = row_of(record(case_id="f::a", status="failed", attempt=1, error_type="AssertionError"),
                 record(case_id="f::a", status="passed", attempt=2), record(case_id="f::b"))
    assert (describe(row), detail({**row, "flaky": 0})) == ("flaky: attempts disagreed in 1 of 2", "")


def test_the_coverage_note_is_empty_unless_devices_left_cases_out() -> None:
    row = row_of(record(case_id="f::a"))
    assert coverage_note(row) == ""
    assert coverage_note({**row, "short_of_devices": 2, "coverage": "1 of 3 (2 need 8 devices)"}) == (
        "(on 1 of 3 cases: 2 need 8 devices)")


def test_a_broken_cell_counts_its_failures_by_kind_one_that_never_ran_a_case_says_nothing_more() -> None:
    row = row_of(record(case_id="f::core", status="failed", smoke=True), record(case_id="f::a"))
    assert describe({**row, "smoke": True}) == "broken: 0 documented · 0 known upstream · 1 unexplained"
    assert detail({**row, "failing": 0}) == ""
