"""harness.host.selection: which tests read from source a cell's -k and --deselect leave in, in pairs."""

from __future__ import annotations

from harness.host import selection

CASES = ["test_fit::test_sample_prior_predictive_lm", "test_fit::test_predict", "test_fit::TestFit::test_fit_lm",
         "test_other::test_download"]


def test_minus_k_keeps_the_tests_whose_names_it_selects_and_drops_the_others() -> None:
    args = ["-k", "test_sample_prior_predictive or Fit and lm"]
    assert selection.left_in(CASES, args) == ["test_fit::test_sample_prior_predictive_lm",
                                              "test_fit::TestFit::test_fit_lm"]


def test_minus_k_matches_a_file_name_and_not_as_pytest_does() -> None:
    assert selection.left_in(CASES, ["-k", "not test_other.py"]) == CASES[:3]
    assert selection.left_in(CASES, ["-k", "TEST_OTHER"]) == ["test_other::test_download"]  # case-insensitive


def test_a_deselected_id_is_dropped_and_the_rest_kept() -> None:
    assert selection.left_in(CASES, ["--shardmatrix-deselect", "test_fit::test_predict"]) == [
        case for case in CASES if case != "test_fit::test_predict"]


def test_what_the_source_cannot_tell_keeps_every_test() -> None:
    assert selection.left_in(CASES, ["-m", "not gpu"]) == CASES  # marks are not read from source
    assert selection.left_in(CASES, ["-k", "(unbalanced"]) == CASES  # pytest itself will say what is wrong
    assert selection.left_in(CASES, []) == CASES
