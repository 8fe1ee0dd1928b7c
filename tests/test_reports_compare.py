"""The upgrade verdict: each kind of finding in a pair (a case that counts and one that does not), and the three
verdicts, each with the lie it used to tell."""

from __future__ import annotations

import pytest
from compare_fakes import cases, compare, frame, record

from harness import vocabulary
from reports.compare import INCONCLUSIVE, SAFE, UNSAFE, CompareError
from reports.compare_render import render_markdown, render_text
from reports.load import records_frame


def test_a_pass_that_now_fails_is_a_regression_and_unsafe() -> None:
    found = compare(frame([("a", "passed", {})], [("a", "failed", {"error_type": "ValueError"})]), "r1", "r2")
    assert found.verdict == "UNSAFE"
    assert found.regressions[["case_id", "before", "after", "detail"]].values.tolist() == [
        ["fam::a", "passed", "failed", "ValueError"]]


def test_a_failure_that_still_fails_is_no_regression() -> None:
    found = compare(frame([("a", "failed", {})], [("a", "failed", {})]), "r1", "r2")
    assert found.verdict == "SAFE" and found.regressions.empty


def test_a_clean_pass_that_now_warns_is_newly_deprecated_but_safe() -> None:
    found = compare(frame([("a", "passed", {})], [("a", "passed", {"warnings": ["DeprecationWarning: x"]})]),
                    "r1", "r2")
    assert found.safe and found.deprecated["case_id"].tolist() == ["fam::a"]


def test_a_pass_that_already_warned_is_not_newly_deprecated() -> None:
    warned = {"warnings": ["DeprecationWarning: x"]}
    found = compare(frame([("a", "passed", warned)], [("a", "passed", warned)]), "r1", "r2")
    assert found.deprecated.empty


def test_a_pass_that_becomes_not_applicable_is_unsafe_an_error_that_does_is_only_listed() -> None:
    found = compare(frame([("a", "passed", {}), ("b", "error", {})],
                          [("a", "not_applicable", {}), ("b", "not_applicable", {})]), "r1", "r2")
    assert found.verdict == "UNSAFE"
    assert found.removed["case_id"].tolist() == ["fam::a"]
    assert found.not_applicable["case_id"].tolist() == ["fam::b"]


def test_fixed_is_a_non_pass_that_now_passes_but_not_a_pass_that_stays() -> None:
    found = compare(frame([("a", "failed", {}), ("b", "passed", {})], [("a", "passed", {}), ("b", "passed", {})]),
                    "r1", "r2")
    assert found.fixed["case_id"].tolist() == ["fam::a"]


def test_timing_flags_only_changes_beyond_ratio_and_delta() -> None:
    found = compare(frame([("slow", "passed", {"duration_s": 0.2}), ("jitter", "passed", {"duration_s": 0.01})],
                          [("slow", "passed", {"duration_s": 0.5}), ("jitter", "passed", {"duration_s": 0.03})]),
                    "r1", "r2")
    assert found.slower["case_id"].tolist() == ["fam::slow"]
    assert found.safe  # timing is reported, not decisive
    assert "x2.50" in render_markdown(found) and "fam::slow" in render_text(found)


def test_runs_with_several_cells_pair_by_cell_id_and_refuse_a_missing_cell() -> None:
    rows = records_frame([record("r1", c, "a") for c in ("x", "y")] + [record("r2", c, "a") for c in ("x", "y")])
    assert compare(rows, "r1", "r2").pairs == [("x", "x"), ("y", "y")]
    with pytest.raises(CompareError, match="no cell z"):
        compare(rows, "r1:z", "r2:x")


# --- three verdicts: SAFE only when every case was judged on both sides ------------------------------------------

def test_every_case_judged_and_none_regressed_is_safe_exit_0() -> None:
    found = compare(frame(cases("a", "b"), cases("a", "b")), "r1", "r2")
    assert (found.verdict, found.exit_code, found.reasons) == (SAFE, 0, [])
    assert render_text(found).splitlines()[0] == "SAFE"


def test_half_the_candidate_records_missing_is_inconclusive_not_safe() -> None:
    found = compare(frame(cases("a", "b", "c", "d"), cases("a", "b")), "r1", "r2")
    assert (found.verdict, found.exit_code) == (INCONCLUSIVE, 2)
    assert found.reasons == ["2 case(s) recorded on one side only (first: fam::c only in the baseline old)"]
    assert render_text(found).splitlines()[0] == (
        "INCONCLUSIVE: 2 case(s) recorded on one side only (first: fam::c only in the baseline old)")


def test_a_case_new_on_the_candidate_is_inconclusive_too() -> None:
    found = compare(frame(cases("a"), cases("a", "b")), "r1", "r2")
    assert found.verdict == INCONCLUSIVE and "fam::b only in the candidate new" in found.reason


def test_a_status_outside_the_vocabulary_is_never_counted_as_passing() -> None:
    assert "quarantined" not in vocabulary.ALL
    found = compare(frame(cases("a"), cases("a", status="quarantined")), "r1", "r2")
    assert found.verdict == INCONCLUSIVE
    assert found.reasons == ["1 case(s) have a status this reader does not know (first: fam::a is 'quarantined' in "
                             "the candidate new)"]
    # Nor on the baseline side: an unknown status there cannot make a later failure look old.
    found = compare(frame(cases("a", status="quarantined"), cases("a", status="failed")), "r1", "r2")
    assert found.verdict == INCONCLUSIVE and found.regressions.empty


@pytest.mark.parametrize("side", ["baseline", "candidate"])
@pytest.mark.parametrize("status", sorted(vocabulary.CLASSES[vocabulary.INFRASTRUCTURE]))
def test_an_infrastructure_status_on_either_side_is_inconclusive(side: str, status: str) -> None:
    odd, good = cases("a", status=status), cases("a")
    before, after = (odd, good) if side == "baseline" else (good, odd)
    found = compare(frame(before, after), "r1", "r2")
    assert found.verdict == INCONCLUSIVE
    assert found.reason.startswith("1 case(s) ended without an answer (crashed, timeout or install_error) (first: "
                                   f"fam::a is '{status}' in the {side}")
    assert found.unjudged["case_id"].tolist() == ["fam::a"]


def test_an_unfinished_cell_is_inconclusive_even_when_its_cases_agree() -> None:
    found = compare(frame(cases("a"), cases("a")), "r1", "r2", unfinished=("r2:new",))
    assert found.verdict == INCONCLUSIVE
    assert found.reasons == ["cell r2:new did not finish (no done marker: interrupted, or still running)"]


def test_a_cell_of_one_run_only_is_inconclusive_not_skipped() -> None:
    rows = records_frame([record("r1", c, "a") for c in ("x", "y")] + [record("r2", "x", "a")])
    found = compare(rows, "r1", "r2")
    assert found.pairs == [("x", "x")]
    assert found.verdict == INCONCLUSIVE and found.reasons == ["cell y of run r1 has no counterpart in run r2"]


def test_pairing_by_id_refuses_to_pair_two_different_single_cells() -> None:
    rows = records_frame([record("r1", "x", "a"), record("r2", "y", "a")])
    assert compare(rows, "r1", "r2").pairs == [("x", "y")]
    found = compare(rows, "r1", "r2", by_id=True)
    assert found.pairs == [] and found.verdict == INCONCLUSIVE
    assert found.reasons == ["cell x of run r1 has no counterpart in run r2",
                             "cell y of run r2 has no counterpart in run r1"]


def test_skipped_results_lines_are_inconclusive() -> None:
    found = compare(frame(cases("a"), cases("a")), "r1", "r2", unreadable=["r2/new.jsonl:3: skipped line: x"])
    assert found.verdict == INCONCLUSIVE
    assert found.reasons == ["1 results line(s) could not be read (first: r2/new.jsonl:3: skipped line: x)"]


def test_a_proven_regression_wins_over_inconclusive_and_still_says_why() -> None:
    found = compare(frame(cases("a", "b"), [("a", "failed", {})]), "r1", "r2")
    assert (found.verdict, found.exit_code) == (UNSAFE, 1)
    lines = render_text(found).splitlines()
    assert lines[:2] == ["UNSAFE", "also inconclusive: 1 case(s) recorded on one side only (first: fam::b only in "
                                   "the baseline old)"]
    assert "**Also inconclusive:** 1 case(s) recorded on one side only" in render_markdown(found)


def test_a_regression_in_an_unfinished_cell_is_listed_but_not_proven() -> None:
    found = compare(frame(cases("a"), [("a", "failed", {})]), "r1", "r2", unfinished=("r2:new",))
    assert found.regressions["case_id"].tolist() == ["fam::a"]
    assert found.verdict == INCONCLUSIVE


def test_a_stale_known_breakage_that_breaks_again_is_a_regression() -> None:
    found = compare(frame(cases("a", status="xpassed"), cases("a", status="xfailed")), "r1", "r2")
    assert found.verdict == UNSAFE and found.regressions["after"].tolist() == ["xfailed"]


def test_a_side_without_the_case_reads_not_recorded_not_absent() -> None:
    found = compare(frame(cases("a", "b"), cases("a")), "r1", "r2")
    assert found.missing[["case_id", "before", "after"]].values.tolist() == [["fam::b", "passed", "(not recorded)"]]
