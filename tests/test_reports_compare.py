"""The upgrade verdict: each kind of finding in a pair (a case that counts and one that does not), and the three
verdicts, each with the lie it used to tell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from compare_fakes import case_record, cases, compare, finished, frame
from record_factory import collected, record

from harness import celldocuments, cellrecord, vocabulary
from reports.data.load import load, records_frame
from reports.data.tables import build_matrix
from reports.verdicts import compare as compare_module
from reports.verdicts import compat
from reports.verdicts.compare import INCONCLUSIVE, SAFE, UNSAFE, CompareError
from reports.views.compare_render import render_markdown, render_text


def test_a_pass_that_now_fails_is_a_regression_and_unsafe() -> None:
    found = compare(frame([("a", "passed", {})], [("a", "failed", {"error_type": "ValueError"})]), "r1", "r2")
    assert found.verdict == "UNSAFE"
    assert found.regressions[["case_id", "before", "after", "detail"]].values.tolist() == [
        ["fam::a", "passed", "failed", "ValueError"]]


def test_a_failure_that_still_fails_is_no_regression() -> None:
    found = compare(frame([("a", "failed", {}), ("b", "passed", {})], [("a", "failed", {}), ("b", "passed", {})]),
                    "r1", "r2")
    assert found.verdict == "SAFE" and found.regressions.empty


def test_a_clean_pass_that_now_warns_is_newly_deprecated_but_safe() -> None:
    found = compare(frame([("a", "passed", {})], [("a", "passed", {"warnings": ["DeprecationWarning: x"]})]),
                    "r1", "r2")
    assert found.safe and found.deprecated["case_id"].tolist() == ["fam::a"]


def test_a_pass_that_already_warned_is_not_newly_deprecated() -> None:
    warned = {"warnings": ["DeprecationWarning: x"]}
    found = compare(frame([("a", "passed", warned)], [("a", "passed", warned)]), "r1", "r2")
    assert found.deprecated.empty


def test_a_pass_that_becomes_not_applicable_is_unsafe_a_failure_that_does_is_only_listed() -> None:
    found = compare(frame([("a", "passed", {}), ("b", "failed", {})],
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
    rows = records_frame([case_record(run, c, "a") for run in ("r1", "r2") for c in ("x", "y")])
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
    # The reason names every such case (the first few), not only the first.
    assert found.reasons == ["2 case(s) recorded on one side only (first: fam::c only in the baseline old; also: "
                             "fam::d)"]
    assert render_text(found).splitlines()[0] == (
        "INCONCLUSIVE: 2 case(s) recorded on one side only (first: fam::c only in the baseline old; also: fam::d)")


def test_a_case_new_on_the_candidate_is_inconclusive_too() -> None:
    found = compare(frame(cases("a"), cases("a", "b")), "r1", "r2")
    assert found.verdict == INCONCLUSIVE and "fam::b only in the candidate new" in found.reason


def test_a_status_outside_the_vocabulary_is_never_counted_as_passing() -> None:
    assert "quarantined" not in vocabulary.ALL
    found = compare(frame(cases("a", "b"), [("a", "quarantined", {}), ("b", "passed", {})]), "r1", "r2")
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
    assert found.unjudged["case_id"].tolist() == ["fam::a"]
    if status == vocabulary.INSTALL_ERROR:  # a cell that could not be built: its cases' one reason, said once
        assert found.reasons == [f"the {side} {'old' if side == 'baseline' else 'new'} could not be built: "
                                 "no reason recorded"]
        return
    assert found.reasons[0].startswith("1 case(s) ended without an answer (crashed, timeout or install_error) (first: "
                                 f"fam::a is '{status}' in the {side}")


MISSING_PYTHON = "interpreter python3.12: No interpreter found for Python 3.12 in managed installations or search path"


def test_a_cell_that_could_not_be_built_says_why_first_not_how_many_cases_one_side_lacks() -> None:
    # A project's parametrized tests recorded by the baseline; the candidate's interpreter is missing, so the host
    # recorded install_error under the ids it reads from source (without parameters).
    built = [(f"test_x[{n}]", "passed", {}) for n in range(16)]
    unbuilt = [("test_x", vocabulary.INSTALL_ERROR, {"error_type": "MissingInterpreter", "reason": MISSING_PYTHON,
                                                     "error_message": MISSING_PYTHON})]
    found = compare(frame(built, unbuilt), "r1", "r2")
    assert found.verdict == INCONCLUSIVE
    assert found.reasons[0] == f"the candidate new could not be built: {MISSING_PYTHON}"
    # Said once: its cases are what follows from it, not a second reason ("17 case(s) recorded on one side only").
    assert found.reasons == [f"the candidate new could not be built: {MISSING_PYTHON}"]
    assert render_text(found).splitlines()[0] == f"INCONCLUSIVE: the candidate new could not be built: {MISSING_PYTHON}"
    # The host's plain `test_x` answers for each of the baseline's `test_x[n]`: 16 cases, none on one side only.
    assert found.cases == 16 and found.missing.empty and len(found.unjudged) == 16


def test_cells_that_were_built_say_nothing_of_a_build() -> None:
    found = compare(frame(cases("a", "b"), cases("a", status="crashed")), "r1", "r2")
    assert not any("could not be built" in reason for reason in found.reasons)


def test_an_unfinished_cell_is_inconclusive_even_when_its_cases_agree() -> None:
    found = compare(frame(cases("a"), cases("a")), "r1", "r2", unfinished=("r2:new",))
    assert found.verdict == INCONCLUSIVE
    assert found.reasons == ["cell r2:new did not finish (no done marker: interrupted, or still running)"]


def test_a_settled_regression_in_an_unfinished_candidate_is_unsafe_and_says_the_cell_did_not_finish() -> None:
    # att39 F18: a failure recorded before the host killed the cell shows the regression.
    failing = [("a", "failed", {"attempt": n, "error_type": "AssertionError"}) for n in (1, 2)]
    found = compare(frame(cases("a", "b"), failing), "r1", "r2", unfinished=("r2:new",))
    assert found.verdict == UNSAFE and found.proven == 1
    assert "cell r2:new did not finish (no done marker: interrupted, or still running)" in found.reasons
    gone = compare(frame(cases("a"), cases("a", status="not_applicable")), "r1", "r2", unfinished=("r2:new",))
    assert gone.verdict == UNSAFE


def test_a_failure_whose_retry_never_came_in_an_unfinished_cell_proves_nothing() -> None:
    once = [("a", "failed", {"attempt": 1, "error_type": "AssertionError"})]
    found = compare(frame(cases("a"), once), "r1", "r2", unfinished=("r2:new",))
    assert found.verdict == INCONCLUSIVE and found.proven == 0
    # The same record in a cell that finished is proof: a finished cell ran every retry it was given.
    assert compare(frame(cases("a"), once), "r1", "r2").verdict == UNSAFE


def test_a_cell_of_one_run_only_is_inconclusive_not_skipped() -> None:
    rows = records_frame([case_record("r1", c, "a") for c in ("x", "y")] + [case_record("r2", "x", "a")])
    found = compare(rows, "r1", "r2")
    assert found.pairs == [("x", "x")]
    assert found.verdict == INCONCLUSIVE and found.reasons == ["cell y of run r1 has no counterpart in run r2"]


def test_pairing_by_id_refuses_to_pair_two_different_single_cells() -> None:
    rows = records_frame([case_record("r1", "x", "a"), case_record("r2", "y", "a")])
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


def test_exit_codes_are_harness_formats_ones() -> None:
    from harness import formats
    from reports.verdicts.compare import EXIT_CODES

    assert EXIT_CODES == {SAFE: formats.SAFE_EXIT, UNSAFE: formats.UNSAFE_EXIT, INCONCLUSIVE: formats.INCONCLUSIVE_EXIT}


# --- flakiness: always listed; a pass on the candidate only after a failing attempt cannot prove SAFE ------------

def retried(case: str, first: str = "failed") -> list[tuple[str, str, dict[str, Any]]]:
    """A case whose first attempt ended `first` and whose second passed."""
    return [(case, first, {"attempt": 1, "error_type": "AssertionError"}), (case, "passed", {"attempt": 2})]


def test_a_candidate_case_that_passed_only_on_retry_is_inconclusive_naming_it() -> None:
    found = compare(frame(cases("a", "b"), [*retried("a"), ("b", "passed", {})]), "r1", "r2")
    assert (found.verdict, found.exit_code) == (INCONCLUSIVE, 2)
    assert found.reasons == ["1 case(s) passed on the candidate only after a failing attempt (flaky: fam::a): a "
                             "regression that shows some of the time is not ruled out"]
    assert found.flaky.values.tolist() == [["old", "new", "fam::a", "[passed]", "[failed → passed]",
                                            "flaky in the candidate"]]


def test_a_baseline_case_that_passed_only_on_retry_is_listed_but_the_answer_stays_safe() -> None:
    found = compare(frame([*retried("a"), ("b", "passed", {})], cases("a", "b")), "r1", "r2")
    assert (found.verdict, found.reasons) == (SAFE, [])
    assert found.flaky[["case_id", "before", "after", "detail"]].values.tolist() == [
        ["fam::a", "[failed → passed]", "[passed]", "flaky in the baseline"]]
    assert "Flaky (attempts disagreed): 1" in render_text(found)
    assert "| `fam::a` | [failed → passed] | [passed] | flaky in the baseline |" in render_markdown(found)


def test_a_candidate_retry_of_a_case_that_never_passed_before_is_listed_not_decisive() -> None:
    found = compare(frame([("a", "failed", {}), ("b", "passed", {})], [*retried("a"), ("b", "passed", {})]),
                    "r1", "r2")
    assert found.verdict == SAFE and found.flaky["case_id"].tolist() == ["fam::a"]
    assert found.fixed["case_id"].tolist() == ["fam::a"]


def test_a_regression_on_every_attempt_is_unsafe_whatever_the_baseline_attempts() -> None:
    failing = [("a", "failed", {"attempt": 1}), ("a", "failed", {"attempt": 2})]
    found = compare(frame(retried("a"), failing), "r1", "r2")
    assert found.verdict == UNSAFE and found.flaky["detail"].tolist() == ["flaky in the baseline"]


# --- two records of one attempt that disagree: the case is unknown ------------------------------------------------

def test_two_records_of_one_attempt_with_different_statuses_are_inconclusive_not_the_last_line() -> None:
    found = compare(frame(cases("a", "b"), [("a", "failed", {}), ("a", "passed", {}), ("b", "passed", {})]),
                    "r1", "r2")
    assert found.verdict == INCONCLUSIVE and found.regressions.empty
    assert found.reasons == ["1 case(s) have two records of one attempt with different statuses (first: fam::a is "
                             "'conflicting_records' in the candidate new)"]
    assert found.unjudged["detail"].tolist() == ["conflicting records: attempt 1 was recorded as failed and passed"]
    # Repeats that agree are plain repeats.
    assert compare(frame(cases("a", "b"), [*cases("a", "b"), *cases("a")]), "r1", "r2").verdict == SAFE


# --- no evidence: a verdict that judged nothing is never SAFE -----------------------------------------------------

def test_two_cells_where_no_case_applies_are_inconclusive_not_safe() -> None:
    found = compare(frame(cases("a", "b", status="not_applicable"), cases("a", "b", status="not_applicable")),
                    "r1", "r2")
    assert found.verdict == INCONCLUSIVE
    assert found.reasons == ["nothing was judged in old → new: no case ran to an answer on both sides (baseline: 2 "
                             "not_applicable)"]
    # One case that ran on both sides is evidence.
    assert compare(frame([*cases("a", status="not_applicable"), *cases("b")],
                         [*cases("a", status="not_applicable"), *cases("b")]), "r1", "r2").verdict == SAFE


def test_two_empty_finished_results_files_are_inconclusive_not_safe() -> None:
    rows = frame(cases("a"), cases("a"))
    cells = finished(rows)
    found = compare_module.compare(rows.head(0), "r1", "r2", cells)
    assert found.verdict == INCONCLUSIVE and found.pairs == [("old", "new")]
    assert found.reasons == ["nothing was judged in old → new: no case ran to an answer on both sides (no case "
                             "recorded on either side)"]


def test_every_record_filtered_out_is_inconclusive_not_safe() -> None:
    rows = frame(cases("a"), cases("a"))
    found = compare_module.compare(rows[rows["case_id"] == "fam::asked"], "r1", "r2", finished(rows))
    assert found.verdict == INCONCLUSIVE and "nothing was judged" in found.reason


# --- SAFE only for code that ran: `error` on either side is no answer ---------------------------------------------

def no_module(name: str) -> dict[str, Any]:
    return {"error_type": "ModuleNotFoundError", "error_message": f"No module named '{name}'"}


def test_a_baseline_error_is_not_judged_nor_a_fix_and_makes_the_verdict_inconclusive() -> None:
    found = compare(frame([("a", "error", no_module("helper")), ("b", "passed", {})],
                          [("a", "passed", {}), ("b", "passed", {})]), "r1", "r2")
    assert (found.verdict, found.exit_code) == (INCONCLUSIVE, 2) and found.fixed.empty
    assert found.reasons == ["1 case(s) could not run (error), so they have no answer on that side (first: fam::a is "
                             "'error' in the baseline old)"]
    assert found.unrun[["case_id", "before", "after", "detail"]].values.tolist() == [
        ["fam::a", "error", "passed", "ModuleNotFoundError: No module named 'helper'"]]
    assert "Could not run (error on a side: not judged): 1" in render_text(found)


def test_an_error_on_both_sides_is_inconclusive_where_every_case_answered_is_safe() -> None:
    both = [("a", "error", no_module("helper")), ("b", "passed", {})]
    found = compare(frame(both, both), "r1", "r2")
    assert found.verdict == INCONCLUSIVE and "fam::a is 'error' in the baseline old" in found.reason
    assert compare(frame(cases("a", "b"), cases("a", "b")), "r1", "r2").verdict == SAFE


def test_five_of_six_cases_error_then_failed_is_inconclusive_naming_them_not_safe_on_one_judged_case() -> None:
    # Was SAFE: one judged case was enough.
    names = ["a", "b", "c", "d", "e"]
    found = compare(frame([*[(n, "error", {}) for n in names], ("f", "passed", {})],
                          [*[(n, "failed", {}) for n in names], ("f", "passed", {})]), "r1", "r2")
    assert (found.verdict, found.exit_code) == (INCONCLUSIVE, 2)
    assert found.reasons == ["5 case(s) could not run (error), so they have no answer on that side (first: fam::a is "
                             "'error' in the baseline old; also: fam::b, fam::c, fam::d, fam::e)"]
    assert found.unrun["case_id"].tolist() == [f"fam::{n}" for n in names]


def test_a_candidate_error_of_a_case_not_passing_before_is_inconclusive_of_a_passing_one_a_regression() -> None:
    found = compare(frame(cases("a", "b", status="failed") + cases("c"),
                          [("a", "error", {}), ("b", "failed", {}), ("c", "passed", {})]), "r1", "r2")
    assert found.verdict == INCONCLUSIVE and found.regressions.empty
    assert found.unrun[["case_id", "before", "after"]].values.tolist() == [["fam::a", "failed", "error"]]
    assert "fam::a is 'error' in the candidate new" in found.reason
    # Code that ran before and no longer runs is proven broken, not merely unjudged.
    found = compare(frame(cases("a", "c"), [("a", "error", {}), ("c", "passed", {})]), "r1", "r2")
    assert found.verdict == UNSAFE and found.unrun.empty and found.reasons == []


def test_not_applicable_on_either_side_is_an_answer_but_a_pass_that_becomes_one_is_a_removal() -> None:
    # An API that arrived: the baseline's code could not use it, so nothing is lost.
    found = compare(frame([*cases("a", status="not_applicable"), *cases("b")], [("a", "failed", {}), *cases("b")]),
                    "r1", "r2")
    assert (found.verdict, found.reasons) == (SAFE, [])
    assert compare(frame(cases("a", "b"), [*cases("a", status="not_applicable"), *cases("b")]),
                   "r1", "r2").verdict == UNSAFE


def test_the_project_missing_in_both_cells_is_inconclusive_grouped_by_cause_with_what_to_do() -> None:
    broken = [(name, "error", no_module("mytrainer")) for name in ("a", "b", "c")]
    found = compare(frame(broken, broken), "r1", "r2")
    assert (found.verdict, found.exit_code) == (INCONCLUSIVE, 2)
    assert found.reasons == ["3 case(s) could not run (error), so they have no answer on that side (first: fam::a is "
                             "'error' in the baseline old; also: fam::b, fam::c)",
                             "nothing was judged in old → new: no case ran to an answer on both sides (baseline: 3 "
                             "error: ModuleNotFoundError: No module named 'mytrainer')"]
    assert found.hints == ["No module named 'mytrainer' in both cells: is the project installed? (--project DIR)"]
    assert "No module named 'mytrainer' in both cells: is the project installed? (--project DIR)" in render_text(found)


def test_a_dependency_missing_for_some_cases_hints_with_but_a_stack_module_gets_no_hint() -> None:
    some = [("a", "error", no_module("sklearn")), ("b", "passed", {})]
    found = compare(frame(some, some), "r1", "r2")
    assert found.verdict == INCONCLUSIVE  # the case that could not run leaves the answer open
    assert found.hints == ["No module named 'sklearn' in both cells (1 of 2 cases): a dependency the cells lack? "
                           "(--with REQ)"]
    stack = [(name, "error", no_module("jax.experimental.shard")) for name in ("a", "b")]
    assert compare(frame(stack, stack), "r1", "r2").hints == []
    # Missing on one side only: not the project's absence, no hint.
    assert compare(frame(broken := [("a", "error", no_module("x"))], cases("a")), "r1", "r2").hints == []
    assert broken


def test_a_baseline_that_passes_no_case_is_inconclusive_with_its_causes() -> None:
    before = [("a", "failed", {"error_type": "ValueError", "error_message": "bad 1"}),
              ("b", "failed", {"error_type": "ValueError", "error_message": "bad 2"}), ("c", "not_applicable", {})]
    found = compare(frame(before, before), "r1", "r2")
    assert found.verdict == INCONCLUSIVE
    assert found.reasons == ["the baseline old passes no case, so no regression can show (baseline: 2 failed: "
                             "ValueError: bad N; 1 not_applicable)"]


def test_a_case_not_judged_shows_the_detail_of_the_side_without_an_answer() -> None:
    crash = {"reason": "Fatal Python error: Segmentation fault"}
    found = compare(frame([("a", "crashed", crash), ("b", "passed", {})],
                          [("a", "failed", {"error_type": "ValueError"}), ("b", "passed", {})]), "r1", "r2")
    assert found.unjudged[["case_id", "detail"]].values.tolist() == [["fam::a", crash["reason"]]]


# --- a module that did not import answers for its cases, matched by module ------------------------------------------

NO_SKLEARN = {"error_type": "ModuleNotFoundError", "error_message": "No module named 'sklearn'"}
#: A case of another module, passing on both sides.
OTHER = ("other", "passed", {"case_id": "mod2::other"})


def test_a_candidate_module_that_skips_itself_removes_the_baselines_passing_cases_of_it_with_its_reason() -> None:
    gone = {"reason": "needs jax.sharding.OldThing, gone in 0.9"}
    found = compare(frame([*cases("test_one", "test_two"), OTHER], [("<collection>", "not_applicable", gone), OTHER]),
                    "r1", "r2")
    assert found.verdict == UNSAFE and found.missing.empty
    assert found.removed[["case_id", "detail"]].values.tolist() == [
        ["fam::test_one", gone["reason"]], ["fam::test_two", gone["reason"]]]
    # Skipped on both sides: an answer that could show nothing, counted so.
    both = compare(frame([("<collection>", "not_applicable", gone), OTHER],
                         [("<collection>", "not_applicable", gone), OTHER]), "r1", "r2")
    assert (both.verdict, both.evidence) == (SAFE, "1 of 2 tests could show a regression (1 skipped on both sides)")


def test_a_candidate_module_that_no_longer_imports_regresses_the_baselines_passing_cases_of_it() -> None:
    # Before: fam::<collection> only in the candidate, fam::ClippingTest::* only in the baseline: INCONCLUSIVE.
    found = compare(frame([*cases("ClippingTest::test_a", "ClippingTest::test_b"), OTHER],
                          [("<collection>", "error", NO_SKLEARN), OTHER]), "r1", "r2")
    assert found.verdict == UNSAFE and found.missing.empty
    assert found.regressions[["case_id", "after", "detail"]].values.tolist() == [
        ["fam::ClippingTest::test_a", "error", "ModuleNotFoundError: No module named 'sklearn'"],
        ["fam::ClippingTest::test_b", "error", "ModuleNotFoundError: No module named 'sklearn'"]]
    assert found.causes["cases"].tolist() == [
        [("c1", "fam::ClippingTest::test_a"), ("c1", "fam::ClippingTest::test_b")]]


def test_a_candidate_module_that_imports_in_neither_cell_is_no_regression() -> None:
    both = [("<collection>", "error", NO_SKLEARN), OTHER]
    found = compare(frame(both, both), "r1", "r2")
    assert found.regressions.empty and found.unrun["case_id"].tolist() == ["fam::<collection>"]


def test_a_baseline_module_that_did_not_import_leaves_its_cases_unjudged_not_missing() -> None:
    found = compare(frame([("<collection>", "error", NO_SKLEARN), OTHER],
                          [*cases("ClippingTest::test_a"), OTHER]), "r1", "r2")
    assert found.verdict == INCONCLUSIVE and found.missing.empty and found.regressions.empty
    assert found.unrun["case_id"].tolist() == ["fam::ClippingTest::test_a"]


#: What aimz's conftest raised at jax 0.10 (numpyro's import of a name jax removed): it stopped pytest.
NO_PMAP = {"error_type": "ImportError", "error_message": "cannot import name 'xla_pmap_p' from 'jax.interpreters.pxla'"}


def test_a_candidate_whose_conftest_stopped_pytest_regresses_the_baselines_parameterized_cases() -> None:
    # Before: the host's `test_lm` (read from source, parameters unseen) and the baseline's `test_lm[lm]` never
    # paired, and the answer was INCONCLUSIVE "recorded on one side only" where the selected test can no longer run.
    found = compare(frame([("test_lm[lm]", "passed", {}), ("test_lm[glm]", "passed", {})],
                          [("test_lm", "error", NO_PMAP), ("conftest::<collection>", "failed",
                                                           {**NO_PMAP, "case_id": "conftest::<collection>"})]),
                    "r1", "r2")
    assert found.verdict == UNSAFE and found.reasons == [] and found.cases == 2 and found.coverage == ""
    assert found.regressions[["case_id", "after"]].values.tolist() == [["fam::test_lm[glm]", "error"],
                                                                       ["fam::test_lm[lm]", "error"]]
    # One cause, the conftest's error, for both (it read "2 case(s) from 0 cause(s)" on aimz).
    assert found.causes["cases"].tolist() == [[("c1", "fam::test_lm[glm]"), ("c1", "fam::test_lm[lm]")]]


def test_a_plain_id_on_both_sides_is_compared_as_it_is() -> None:
    found = compare(frame([("test_lm[lm]", "passed", {}), ("test_lm", "passed", {})],
                          [("test_lm[lm]", "passed", {}), ("test_lm", "failed", {})]), "r1", "r2")
    assert found.regressions["case_id"].tolist() == ["fam::test_lm"] and found.missing.empty


def test_a_module_none_of_whose_tests_the_other_side_ran_does_not_count_where_it_fails_to_import() -> None:
    # optax under `-k sharding_test`: 10 modules whose tests -k left out do not import on jax 0.10; they added an
    # "also inconclusive" line and would have held a SAFE at INCONCLUSIVE.
    unselected = ("<collection>", "error", {**NO_SKLEARN, "case_id": "alias_test::<collection>"})
    found = compare(frame([OTHER], [OTHER, unselected]), "r1", "r2")
    assert found.verdict == SAFE and found.reasons == [] and found.cases == 1


def test_a_module_with_a_test_the_other_side_ran_still_counts_where_it_fails_to_import() -> None:
    ran = ("a", "passed", {"case_id": "alias_test::test_a"})
    found = compare(frame([OTHER, ran], [OTHER, ("<collection>", "error",
                                                 {**NO_SKLEARN, "case_id": "alias_test::<collection>"})]), "r1", "r2")
    assert found.verdict == UNSAFE and found.regressions["case_id"].tolist() == ["alias_test::test_a"]


# --- the invariant, over every pair of statuses: no SAFE without an answer on both sides ---------------------------

#: The statuses that are an answer (reports/verdicts/compare.py's docstring), and two that are not in the vocabulary at
#: all: one nobody knows, and None for a case not recorded on that side.
ANSWERS = {"passed", "xpassed", "failed", "xfailed", "not_applicable"}
EVERY = [*vocabulary.ALL, "quarantined", None]
PAIRS = [(before, after) for before in EVERY for after in EVERY if before is not None or after is not None]


def test_every_pair_of_statuses_is_judged_proven_or_named_as_not_judged() -> None:
    """One case per pair of statuses: a case is a proven regression, or listed as not judged unless both sides are
    an answer; so a verdict is never better than its evidence."""
    before = [(f"{a}-{b}", a, {}) for a, b in PAIRS if a is not None]
    after = [(f"{a}-{b}", b, {}) for a, b in PAIRS if b is not None]
    found = compare(frame(before, after), "r1", "r2")
    proven = set(found.regressions["case_id"]) | set(found.removed["case_id"])
    unjudged = set(found.unjudged["case_id"]) | set(found.missing["case_id"]) | set(found.unrun["case_id"])
    for a, b in PAIRS:
        case = f"fam::{a}-{b}"
        if a in ("passed", "xpassed") and b in ("failed", "xfailed", "error", "not_applicable"):
            assert case in proven and case not in unjudged, case
        elif a in ANSWERS and b in ANSWERS:
            assert case not in proven | unjudged, case
        else:
            assert case in unjudged and case not in proven, case
    # Proven regressions win, and each kind of case not judged is still a reason (missing, infrastructure, unknown,
    # error).
    assert found.verdict == UNSAFE and len(found.reasons) == 4


#: Each status that is no answer, beside a pass or a failure on the other side.
NO_ANSWERS = [status for status in EVERY if status not in ANSWERS]
BESIDE = [*((odd, good) for odd in NO_ANSWERS for good in ("passed", "failed")),
          *((good, odd) for odd in NO_ANSWERS for good in ("failed",))]


@pytest.mark.parametrize(("before", "after"), BESIDE)
def test_a_case_without_an_answer_on_a_side_is_never_safe(before: str | None, after: str | None) -> None:
    steady = ("b", "passed", {})
    found = compare(frame([*([("a", before, {})] if before else []), steady],
                          [*([("a", after, {})] if after else []), steady]), "r1", "r2")
    assert found.verdict != SAFE
    if found.verdict == INCONCLUSIVE:
        assert "fam::a" in found.reason  # the reason names the case it could not judge


def test_a_candidate_out_of_device_memory_is_not_judged_never_a_regression() -> None:
    starved = {"error_type": "XlaRuntimeError", "reason": vocabulary.OUT_OF_MEMORY}
    found = compare(frame([("a", "passed", {}), ("b", "passed", {})],
                          [("a", "error", starved), ("b", "passed", {})]), "r1", "r2")
    assert found.regressions.empty and found.verdict == INCONCLUSIVE


def test_a_candidate_error_for_another_reason_after_a_pass_is_a_regression() -> None:
    broke = {"error_type": "ValueError", "reason": "setup failed"}
    found = compare(frame([("a", "passed", {})], [("a", "error", broke)]), "r1", "r2")
    assert list(found.regressions["case_id"]) == ["fam::a"] and found.verdict == UNSAFE


def short_of(devices: int, *names: str) -> list[tuple[str, str, dict[str, Any]]]:
    reason = vocabulary.devices_reason(devices, 1)
    return [(name, "not_applicable", {"reason": reason, "devices_needed": devices, "device_count": 1})
            for name in names]


def test_cases_short_of_devices_on_both_sides_are_answers_and_the_first_line_says_so() -> None:
    found = compare(frame(cases("a", "b", "c", "d") + short_of(2, "e", "f", "g"),
                          cases("a", "b", "c", "d") + short_of(2, "e", "f", "g")), "r1", "r2")
    assert (found.verdict, found.short) == (SAFE, {2: 3})
    assert render_text(found).splitlines()[0] == "SAFE: 4 of 7 tests judged (3 need 2 devices)"
    assert "**Coverage:** 4 of 7 tests judged (3 need 2 devices)" in render_markdown(found)


def test_cases_absent_for_an_api_leave_the_first_line_as_it_was() -> None:
    absent = [("e", "not_applicable", {"reason": "jax.sharding.use_mesh is absent"})]
    found = compare(frame(cases("a") + absent, cases("a") + absent), "r1", "r2")
    assert (found.verdict, found.short, found.coverage) == (SAFE, {}, "")
    assert render_text(found).splitlines()[0] == "SAFE"
    assert "**Coverage:**" not in render_markdown(found)


#: A project's strict xfail that passed, as the cell records it (harness.cell.recording: no exception, pytest's text).
STRICT_XPASS = {"error_type": None, "error_message": "[XPASS(strict)] fails until upstream fixes it"}


def test_a_strict_xfail_that_passes_on_the_candidate_is_a_regression_listed_and_unsafe() -> None:
    found = compare(frame([("a", "xfailed", {}), *cases("b")], [("a", "failed", STRICT_XPASS), *cases("b")]),
                    "r1", "r2")
    assert found.verdict == UNSAFE and list(found.regressions["case_id"]) == ["fam::a"]
    assert "[XPASS(strict)]" in found.regressions["detail"].iloc[0] and "fam::a" in render_text(found)


def test_an_xfail_that_still_fails_for_a_real_error_is_no_regression() -> None:
    failed = {"error_type": "ValueError", "error_message": "[XPASS(strict)] is only quoted here"}
    found = compare(frame([("a", "xfailed", {}), *cases("b")], [("a", "failed", failed), *cases("b")]), "r1", "r2")
    assert found.verdict == SAFE and found.regressions.empty


def test_a_case_absent_for_an_api_on_the_baseline_and_failing_on_the_candidate_is_listed_and_never_plain_safe() -> None:
    absent = [("a", "not_applicable", {"reason": "jax.shard_map is absent"})]
    found = compare(frame(cases("b") + absent, [*cases("b"), ("a", "failed", {"error_type": "ValueError"})]),
                    "r1", "r2")
    assert found.verdict == SAFE and list(found.left_out["case_id"]) == ["fam::a"]
    assert found.coverage == "1 of 2 tests judged (1 could not run in the baseline: needs an API it lacks)"
    assert render_text(found).splitlines()[0] == f"SAFE: {found.coverage}" and "fam::a" in render_markdown(found)
    # Both sides with an answer that ran: nothing left out, the first line as it was.
    steady = compare(frame(cases("a", "b"), cases("a", "b")), "r1", "r2")
    assert (steady.coverage, steady.left_out.empty, render_text(steady).splitlines()[0]) == ("", True, "SAFE")


def test_evidence_counts_the_cases_that_could_show_a_regression_and_why_the_rest_could_not() -> None:
    skipped = ("not_applicable", {"reason": "needs a TPU"})
    red = ("failed", {"error_type": "E", "error_message": "boom"})
    sides = [*cases("a"), ("b", *skipped), ("c", *red), *short_of(8, "d")]
    found = compare(frame(sides, sides), "r1", "r2")
    assert found.verdict == SAFE and (found.able, found.skipped_both, found.failing_both) == (1, 1, 1)
    assert found.evidence == ("1 of 4 tests could show a regression (1 needs 8 devices, 1 skipped on both sides, "
                              "1 failing on both sides)")
    # Every case passing on the baseline and answered on the candidate: nothing to say.
    assert compare(frame(cases("a", "b"), cases("a", "b")), "r1", "r2").evidence == ""


def test_across_device_counts_a_case_short_on_one_side_is_counted_never_a_removal_nor_silent() -> None:
    # The baseline had 8 devices, the candidate 1: its 8-device cases were judged by neither side.
    found = compare(frame(cases("a", "b", "c"), cases("a") + short_of(8, "b") + [("c", "failed", {})]), "r1", "r2")
    assert found.removed.empty and list(found.left_out["case_id"]) == ["fam::b"]
    assert found.coverage == "2 of 3 tests judged (1 could not run in the candidate: needs 8 devices)"
    assert found.verdict == UNSAFE and list(found.regressions["case_id"]) == ["fam::c"]
    # The other way round: short on the baseline, failing on the candidate.
    found = compare(frame(cases("a") + short_of(8, "b"), [*cases("a"), ("b", "failed", {})]), "r1", "r2")
    assert found.coverage == "1 of 2 tests judged (1 could not run in the baseline: needs 8 devices)"
    assert found.verdict == SAFE and list(found.left_out["case_id"]) == ["fam::b"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the loader warns of the machine file: said below
def test_a_machine_file_that_disagrees_keeps_the_compare_from_safe_and_the_cell_from_works(tmp_path: Path) -> None:
    for run in ("20260101T000000Z-aaaa", "20260102T000000Z-bbbb"):
        path = cellrecord.CellFiles(tmp_path, run, "jax0.10.2-flax0.12.8-py3.11").results
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(record(run_id=run, backend="cpu", device_kind="cpu")) + "\n")
        collected(path)
        cellrecord.CellFiles.of(path).done.write_text(json.dumps({"cell_id": "jax0.10.2-flax0.12.8-py3.11"}))
        stack = {"backend": "gpu" if run.endswith("bbbb") else "cpu", "devices": [], "distributions": {}}
        celldocuments.write_machine(path, "jax0.10.2-flax0.12.8-py3.11", {"jax": stack})
    loaded = load(tmp_path / "results", all_runs=True)
    found = compare_module.compare(loaded.records, "20260101T000000Z-aaaa", "20260102T000000Z-bbbb", loaded.cells)
    assert found.verdict == INCONCLUSIVE and "backend gpu, but the records ran on cpu" in found.reason
    verdicts = compat.verdicts(build_matrix(loaded.records, loaded.cells)).set_index("run_id")
    assert verdicts.at["20260101T000000Z-aaaa", "verdict"] == compat.WORKS
    assert verdicts.at["20260102T000000Z-bbbb", "verdict"] == compat.UNACCOUNTED


def test_a_candidate_whose_devices_leave_every_case_out_judged_nothing_and_is_inconclusive_not_safe() -> None:
    found = compare(frame(cases("a", "b"), short_of(8, "a", "b")), "r1", "r2")
    assert found.verdict == INCONCLUSIVE and "nothing was judged" in found.reason
    assert found.coverage == "0 of 2 tests judged (2 could not run in the candidate: need 8 devices)"


def test_a_pass_short_of_devices_on_the_candidate_in_as_large_a_cell_is_a_removal_never_left_out() -> None:
    # Both cells have 8 devices and the baseline passed the case on them: only the candidate changed, so its asking
    # for 16 is the candidate's doing (attack 39b's B4), not a fact about the cell.
    asks_more = ("b", "not_applicable", {"reason": vocabulary.devices_reason(16, 8), "devices_needed": 16,
                                         "device_count": 8})
    found = compare(frame(cases("a", "b"), [*cases("a"), asks_more]), "r1", "r2")
    assert found.verdict == UNSAFE and list(found.removed["case_id"]) == ["fam::b"]
    assert found.left_out.empty and found.coverage == "" and found.one_sided == {}
    # The same shortage in a smaller candidate cell says nothing of its code: left out, as before.
    smaller = ("b", "not_applicable", {"reason": vocabulary.devices_reason(16, 4), "devices_needed": 16,
                                       "device_count": 4})
    found = compare(frame(cases("a", "b"), [*cases("a"), smaller]), "r1", "r2")
    assert found.removed.empty and list(found.left_out["case_id"]) == ["fam::b"] and found.verdict == SAFE
