"""Tests for reports/verdicts/findings.py: problems folded for reading, and warnings of passing cases."""

from __future__ import annotations

import pytest
from record_factory import matrix_of, record

from harness import vocabulary
from reports.verdicts.findings import deprecations, grouped_problems, key_ranges, problems

RUN = "20261121T084500Z-ab12"






def test_problems_list_failures_and_known_breakages() -> None:
    matrix = matrix_of(
        record(case_id="fam::a", status="failed", error_type="ValueError", error_message="bad\nsecond line"),
        record(case_id="fam::b", status="xfailed", reason="upstream#1"),
    )
    found = problems(matrix)
    assert found["detail"].tolist() == ["ValueError: bad", "upstream#1"]


def test_problems_leave_out_passes_and_not_applicable() -> None:
    matrix = matrix_of(record(case_id="fam::a"), record(case_id="fam::b", status="not_applicable", reason="absent"))
    assert problems(matrix).empty


def test_a_cell_that_failed_alike_everywhere_is_one_problem() -> None:
    broken = {"status": "install_error", "error_type": "InstallError", "error_message": "no wheel"}
    matrix = matrix_of(record(case_id="fam::a", **broken), record(case_id="fam::b", **broken))
    assert grouped_problems(matrix).to_dict("records") == [
        {"keys": ["c1"], "case": "all 2 cases", "status": "install_error", "flaky": False,
         "detail": "InstallError: no wheel"}
    ]


def test_one_case_failing_in_several_cells_is_one_problem_naming_them() -> None:
    matrix = matrix_of(
        record("0.4.38", case_id="fam::a", status="failed", error_type="E"),
        record("0.4.38", case_id="fam::b"),
        record("0.10.2", case_id="fam::a", status="failed", error_type="E"),
        record("0.10.2", case_id="fam::b"),
    )
    assert grouped_problems(matrix).to_dict("records") == [
        {"keys": ["c1", "c2"], "case": "fam::a", "status": "failed", "flaky": False, "detail": "E"}
    ]


def test_a_flaky_pass_is_a_problem_saying_how_its_attempts_went() -> None:
    matrix = matrix_of(
        record(case_id="fam::a", status="failed", attempt=1, error_type="ValueError"),
        record(case_id="fam::a", status="passed", attempt=2),
        record(case_id="fam::b"),
    )
    assert problems(matrix)[["case_id", "status", "flaky", "detail"]].values.tolist() == [
        ["fam::a", "passed", True, "flaky: failed → passed"]
    ]


def test_a_pass_after_identical_repeats_is_no_problem() -> None:
    matrix = matrix_of(record(case_id="fam::a"), record(case_id="fam::a"), record(case_id="fam::a", attempt=2))
    assert problems(matrix).empty


def test_a_flaky_failure_keeps_its_error_after_the_attempts() -> None:
    matrix = matrix_of(
        record(case_id="fam::a", status="timeout", attempt=1),
        record(case_id="fam::a", status="failed", attempt=2, error_type="ValueError", error_message="bad"),
    )
    assert problems(matrix)["detail"].tolist() == ["flaky: timeout → failed — ValueError: bad"]


def test_flaky_passes_come_after_real_problems() -> None:
    matrix = matrix_of(
        record(case_id="fam::a", status="failed", attempt=1), record(case_id="fam::a", status="passed", attempt=2),
        record(case_id="fam::b", status="crashed"),
        record(case_id="fam::c"),
    )
    assert grouped_problems(matrix)[["case", "status", "flaky"]].values.tolist() == [
        ["fam::b", "crashed", False], ["fam::a", "passed", True]
    ]


def test_deprecations_group_warnings_by_first_line() -> None:
    matrix = matrix_of(
        record("0.4.38", warnings=["DeprecationWarning: old\n  at line 3"]),
        record("0.10.2", warnings=["DeprecationWarning: old"]),
    )
    assert deprecations(matrix).to_dict("records") == [
        {"warning": "DeprecationWarning: old", "cases": 1, "keys": ["c1", "c2"]}
    ]


def test_no_warnings_is_an_empty_table() -> None:
    assert deprecations(matrix_of(record())).empty


def test_key_ranges_fold_three_or_more_consecutive_keys() -> None:
    order = ["c1", "c2", "c3", "c4", "c5"]
    assert key_ranges(["c3", "c1", "c2", "c5"], order) == "c1\N{EN DASH}c3, c5"


def test_key_ranges_keep_a_pair_as_two_keys() -> None:
    assert key_ranges(["c1", "c2", "c4"], ["c1", "c2", "c3", "c4"]) == "c1, c2, c4"


def test_a_cell_that_failed_in_different_ways_is_one_problem_per_case() -> None:
    matrix = matrix_of(
        record(case_id="fam::a", status="failed", error_type="ValueError"),
        record(case_id="fam::b", status="failed", error_type="TypeError"),
    )
    assert grouped_problems(matrix)["case"].tolist() == ["fam::a", "fam::b"]


@pytest.mark.parametrize("status", [*vocabulary.ALL, "quarantined"])
def test_a_status_is_a_problem_exactly_when_the_vocabulary_says_so(status: str) -> None:
    matrix = matrix_of(record(case_id="fam::a", status=status), record(case_id="fam::b"))
    assert problems(matrix)["case_id"].tolist() == (["fam::a"] if vocabulary.is_problem(status) else [])


def test_an_unknown_status_is_a_problem_listed_before_flaky_passes() -> None:
    matrix = matrix_of(
        record(case_id="fam::a", status="failed", attempt=1), record(case_id="fam::a", status="passed", attempt=2),
        record(case_id="fam::b", status="quarantined"), record(case_id="fam::c"),
    )
    assert [(p.case, p.status) for p in grouped_problems(matrix).itertuples()] == [
        ("fam::b", "quarantined"), ("fam::a", "passed")]
