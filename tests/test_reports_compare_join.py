"""Tests for reports/verdicts/compare_join.py: which record answers for a case the other side recorded."""

from __future__ import annotations

import pandas as pd

from reports.verdicts.compare_join import by_module, by_test, module_of, without_unselected_modules


def test_a_module_that_did_not_import_answers_for_the_other_sides_cases_of_it() -> None:
    mine = pd.DataFrame({"status": ["error"]}, index=pd.Index(["m::<collection>"], name="case_id"))
    theirs = pd.DataFrame({"status": ["passed", "passed"]}, index=pd.Index(["m::C::test_a", "n::test_b"],
                                                                          name="case_id"))
    assert by_module(mine, theirs)["status"].to_dict() == {"m::C::test_a": "error"}


def test_a_module_that_imported_answers_for_nothing_else() -> None:
    mine = pd.DataFrame({"status": ["passed"]}, index=pd.Index(["m::<collection>"], name="case_id"))
    theirs = pd.DataFrame({"status": ["passed"]}, index=pd.Index(["m::test_a"], name="case_id"))
    assert by_module(mine, theirs).index.tolist() == ["m::<collection>"]


def test_a_plain_test_answers_for_its_parameterized_cases_but_not_for_another_test() -> None:
    mine = pd.DataFrame({"status": ["failed"]}, index=pd.Index(["m::test_x"], name="case_id"))
    theirs = pd.DataFrame({"status": ["passed"] * 3},
                          index=pd.Index(["m::test_x[a]", "m::test_x[b]", "m::test_y[a]"], name="case_id"))
    assert sorted(by_test(mine, theirs).index) == ["m::test_x[a]", "m::test_x[b]"]


def test_a_collection_error_of_a_module_the_other_side_selected_nothing_of_is_dropped_else_kept() -> None:
    mine = pd.DataFrame({"status": ["error", "error"]}, index=pd.Index(["m::<collection>", "n::<collection>"],
                                                                       name="case_id"))
    theirs = pd.DataFrame({"status": ["passed"]}, index=pd.Index(["n::test_a"], name="case_id"))
    assert without_unselected_modules(mine, theirs).index.tolist() == ["n::<collection>"]
    assert module_of("m::C::test_a") == "m"
