"""Tests for reports/verdicts/compat.py: one verdict per cell, from its evidence."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
from record_factory import record

from reports.data.load import CELL_FIELDS, records_frame
from reports.data.tables import build_matrix
from reports.verdicts import compat
from reports.verdicts.causes import causes

RUN = "20261121T084500Z-ab12"




def with_columns(records: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> pd.DataFrame:
    """records_frame() of records, plus the verdict's optional `smoke` column where some of them set it (`documented`
    and `change_name` come from a record's declared `change`, as build_matrix judges it:
    reports/verdicts/documented.py)."""
    frame = records_frame(records)
    for name in (compat.SMOKE,):
        if any(name in found for found in records):
            frame[name] = [found.get(name) for found in records]
    return frame


def verdict_of(*records: dict[str, Any], complete: bool = True) -> dict[str, Any]:
    matrix = build_matrix(with_columns(records))
    if not complete:
        matrix.cells["complete"] = False
    (row,) = compat.verdicts(matrix).to_dict("records")
    return row


def verdict_of_files(records: list[dict[str, Any]], files: list[tuple[str, bool]]) -> dict[str, str]:
    """{cell id: verdict} of records plus results files (cell id, finished) that may hold no record."""
    rows = pd.DataFrame([{"run_id": RUN, "cell_id": cell, "complete": done, "reused_from": None}
                         for cell, done in files], columns=list(CELL_FIELDS))
    table = compat.verdicts(build_matrix(records_frame(records) if records else records_frame([record()]).head(0),
                                         rows))
    return dict(zip(table["cell_id"], table["verdict"], strict=True))


FAILED = {"status": "failed", "error_type": "ShardingTypeError", "error_message": "make_mesh made Explicit axes"}
#: The change a case declares whose failure above it documents (jax 0.10.2 is inside its range).
MAKE_MESH = {"since": "jax>=0.9.0", "what": "make_mesh", "raises": ["ShardingTypeError"], "warned": None,
             "fix": "axis_types=", "kind": "default"}


# --- each token, in a pair: one input that gives it, one just beside it that does not -----------------------------

def test_a_cell_whose_applicable_cases_all_pass_works() -> None:
    row = verdict_of(record(case_id="f::a"), record(case_id="f::b", status="not_applicable", reason="absent"))
    assert (row["verdict"], row["applicable"], row["failing"]) == ("works", 1, 0)


def test_a_deprecation_warning_makes_it_works_with_warnings() -> None:
    row = verdict_of(record(case_id="f::a", warnings=["DeprecationWarning: old"]), record(case_id="f::b"))
    assert (row["verdict"], row["warned"]) == ("works_with_warnings", 1)


def test_a_warning_beside_an_undocumented_failure_is_partial_not_works_with_warnings() -> None:
    row = verdict_of(record(case_id="f::a", warnings=["DeprecationWarning: old"]), record(case_id="f::b", **FAILED))
    assert row["verdict"] == "partial"


def test_only_documented_failures_make_it_works_for_current_code_naming_the_changes() -> None:
    row = verdict_of(record(case_id="f::a"), record(case_id="f::b", change=MAKE_MESH, **FAILED))
    assert (row["verdict"], row["failing"], row["documented"]) == ("works_for_current_code", 1, 1)
    assert (row["causes"], row["changes"]) == ([], ["jax 0.9.0: make_mesh"])


def test_the_same_failure_undocumented_is_partial_not_works_for_current_code() -> None:
    row = verdict_of(record(case_id="f::a"), record(case_id="f::b", **FAILED),
                     record(case_id="f::c", change=MAKE_MESH, **FAILED))
    assert (row["verdict"], row["failing"], row["documented"]) == ("partial", 2, 1)
    assert row["causes"] == ["ShardingTypeError: make_mesh made Explicit axes"]
    assert row["changes"] == ["jax 0.9.0: make_mesh"]


#: A declared known upstream bug failing as declared: strict xfail, its reason ending in its link (harness.cell.known).
KNOWN_BUG = {"status": "xfailed", "error_type": "TypeError",
             "reason": "nnx.shard_map passes auto= [jax>=0.8.0, flax<0.12.1] https://github.com/google/flax/issues/5058"}


def test_known_upstream_bugs_and_documented_changes_alone_make_it_works_except_known_bugs() -> None:
    # Was partial: a declared known bug counted as a failure nothing explains, so every cell of a live bug read partial.
    row = verdict_of(record(case_id="f::a"), record(case_id="f::b", **KNOWN_BUG),
                     record(case_id="f::c", change=MAKE_MESH, **FAILED))
    assert (row["verdict"], row["failing"], row["documented"], row["known"], row["unexplained"]) == (
        "works_except_known_bugs", 2, 1, 1, 0)
    assert (row["causes"], row["changes"], row["known_bugs"]) == (
        [], ["jax 0.9.0: make_mesh"], ["https://github.com/google/flax/issues/5058"])


def test_a_tests_own_xfail_is_no_known_upstream_bug_and_makes_it_partial() -> None:
    # Was works_except_known_bugs: a project's own `@pytest.mark.xfail` is xfailed too, and was counted as a declared
    # known upstream bug, its range and its link never checked (the reason may even end in a link).
    own = {**KNOWN_BUG, "known_breakage": False}
    row = verdict_of(record(case_id="f::a"), record(case_id="f::b", **own))
    assert (row["verdict"], row["known"], row["unexplained"], row["known_bugs"]) == ("partial", 0, 1, [])
    matrix = build_matrix(with_columns([record(case_id="f::b", **own)]))
    assert compat.regression_kinds(causes(matrix.results, matrix.cells)) == {"documented": 0, "known": 0,
                                                                             "unexplained": 1}


def test_one_unexplained_failure_beside_a_known_bug_makes_it_partial() -> None:
    row = verdict_of(record(case_id="f::a", **FAILED), record(case_id="f::b", **KNOWN_BUG))
    assert (row["verdict"], row["known"], row["unexplained"]) == ("partial", 1, 1)
    assert row["causes"] == ["ShardingTypeError: make_mesh made Explicit axes"]


def test_a_known_bug_names_itself_by_its_link_else_by_its_reason() -> None:
    assert compat.known_bug("why [jax<0.7.0] https://github.com/jax-ml/jax/issues/1") == (
        "https://github.com/jax-ml/jax/issues/1")
    assert compat.known_bug("a project's own xfail") == "a project's own xfail"
    assert compat.known_bug(None) == ""


def test_a_documented_pass_is_not_a_documented_failure() -> None:
    row = verdict_of(record(case_id="f::a", change=MAKE_MESH))
    assert (row["verdict"], row["documented"]) == ("works", 0)


def test_one_failing_case_makes_it_partial_naming_the_cause() -> None:
    row = verdict_of(record(case_id="f::a"), record(case_id="f::b", status="failed", error_type="TypeError",
                                                    error_message="bad 3"))
    assert (row["verdict"], row["failing"], row["applicable"]) == ("partial", 1, 2)
    assert row["causes"] == ["TypeError: bad N"]


def test_an_unknown_or_infrastructure_status_is_never_works() -> None:
    assert verdict_of(record(case_id="f::a", status="crashed"))["verdict"] == "partial"
    assert verdict_of(record(case_id="f::a", status="exploded"))["verdict"] == "partial"
    assert verdict_of(record(case_id="f::a", status="conflicting_records"))["verdict"] == "partial"


def test_a_failing_smoke_case_makes_it_broken() -> None:
    row = verdict_of(record(case_id="f::a"), record(case_id="f::core", smoke=True, **FAILED))
    assert row["verdict"] == "broken"
    assert verdict_of(record(case_id="f::core", smoke=True, status="error"))["verdict"] == "broken"


def test_a_failing_case_outside_the_smoke_subset_or_a_passing_smoke_case_is_not_broken() -> None:
    assert verdict_of(record(case_id="f::a", smoke=True), record(case_id="f::b", **FAILED))["verdict"] == "partial"
    assert verdict_of(record(case_id="f::core", smoke=False, **FAILED))["verdict"] == "partial"
    # A smoke case absent from the cell breaks nothing (but with no other smoke case it leaves no evidence: below);
    # one whose failure is a documented change is no break.
    assert verdict_of(record(case_id="f::core", smoke=True, status="not_applicable"),
                      record(case_id="f::core2", smoke=True), record(case_id="f::a"))["verdict"] == "works"
    assert verdict_of(record(case_id="f::core", smoke=True, change=MAKE_MESH, **FAILED),
                      record(case_id="f::a"))["verdict"] == "works_for_current_code"


def test_packages_that_do_not_import_make_it_broken() -> None:
    reason = "the cell's packages failed to import: flax: ImportError: cannot import name 'x' from 'jax'"
    row = verdict_of(record(case_id="f::a", status="error", reason=reason),
                     record(case_id="f::b", status="error", reason=reason))
    assert row["verdict"] == "broken"


def test_a_backend_that_does_not_start_makes_it_broken_too() -> None:
    reason = "backend failed to start: RuntimeError: Unable to initialize backend 'cuda'"
    row = verdict_of(record(case_id="f::a", status="error", reason=reason))
    assert row["verdict"] == "broken"
    # A case's own reason that merely mentions such words mid-text does not break the cell.
    assert verdict_of(record(case_id="f::a", status="error", reason="x: backend failed to start"))["verdict"] == (
        "partial")


def test_an_install_error_makes_it_not_built_but_a_case_beside_it_that_ran_does_not() -> None:
    assert verdict_of(record(status="install_error", error_type="InstallError"))["verdict"] == "not_built"
    assert verdict_of(record(case_id="f::a", status="install_error"), record(case_id="f::b"))["verdict"] == "partial"


def test_an_unfinished_cell_is_interrupted_a_finished_one_is_not() -> None:
    assert verdict_of(record(), complete=False)["verdict"] == "interrupted"
    assert verdict_of(record(), complete=True)["verdict"] == "works"
    # A break the cell already showed is an answer, finished or not.
    assert verdict_of(record(smoke=True, **FAILED), complete=False)["verdict"] == "broken"


def test_a_cell_where_no_case_applies_is_no_evidence_never_works() -> None:
    row = verdict_of(record(case_id="f::a", status="not_applicable"), record(case_id="f::b", status="not_applicable"))
    assert (row["verdict"], row["applicable"]) == ("no_evidence", 0)
    assert verdict_of(record(case_id="f::a", status="not_applicable"), record(case_id="f::b"))["verdict"] == "works"


def test_an_empty_finished_results_file_is_no_evidence_an_empty_unfinished_one_interrupted() -> None:
    found = verdict_of_files([record()], [("jax0.10.2-flax0.12.8-py3.11", True), ("empty-done", True),
                                          ("empty-running", False)])
    assert found == {"jax0.10.2-flax0.12.8-py3.11": "works", "empty-done": "no_evidence",
                     "empty-running": "interrupted"}


def retried(case: str = "fam::a", first: str = "failed") -> list[dict[str, Any]]:
    """A case whose first attempt ended `first` and whose second passed."""
    return [record(case_id=case, status=first, attempt=1, error_type="AssertionError"),
            record(case_id=case, status="passed", attempt=2)]


def test_a_case_that_passed_only_after_a_failing_attempt_makes_it_flaky_never_works() -> None:
    # Was works: compat read the final attempt alone, where compare calls the same retry INCONCLUSIVE.
    row = verdict_of(*retried(), record(case_id="fam::b"))
    assert (row["verdict"], row["flaky"], row["failing"]) == ("flaky", 1, 0)
    # Every attempt agreeing (repeats of one status) is no flakiness.
    steady = verdict_of(record(case_id="fam::a", attempt=1), record(case_id="fam::a", attempt=2),
                        record(case_id="fam::b"))
    assert (steady["verdict"], steady["flaky"]) == ("works", 0)


def test_flakiness_beside_documented_failures_is_flaky_beside_an_undocumented_one_partial() -> None:
    change = {"since": "jax>=0.9.0", "what": "w", "raises": ["ValueError"], "warned": None, "fix": "f",
              "kind": "default"}
    documented = record(case_id="fam::c", status="failed", error_type="ValueError", change=change)
    assert verdict_of(*retried(), documented)["verdict"] == "flaky"
    assert verdict_of(documented)["verdict"] == "works_for_current_code"
    assert verdict_of(*retried(), record(case_id="fam::c", status="failed", error_type="KeyError"))["verdict"] == (
        "partial")


def test_a_cell_whose_smoke_cases_are_all_not_applicable_is_no_evidence_one_applicable_smoke_case_counts() -> None:
    # Was works: its other cases passed, but its core was never exercised.
    core = [record(case_id=f"fam::core{n}", status="not_applicable", smoke=True) for n in range(2)]
    row = verdict_of(*core, record(case_id="fam::other", smoke=False))
    assert (row["verdict"], row["applicable"]) == ("no_evidence", 1)
    assert verdict_of(core[0], record(case_id="fam::core1", smoke=True),
                      record(case_id="fam::other", smoke=False))["verdict"] == "works"
    # A writer that does not say which cases are smoke (smoke null) is read as before.
    assert verdict_of(record(case_id="fam::a", smoke=None))["verdict"] == "works"


def test_the_verdict_function_tries_its_tokens_in_the_documented_order() -> None:
    base = compat.Evidence(cases=3, built=3, usable=3, applicable=3, passing=3)
    steps = [
        (replace(base, built=0), "not_built"),
        (replace(base, usable=0), "broken"),
        (replace(base, smoke_failing=1, passing=2, complete=False), "broken"),
        (replace(base, complete=False), "interrupted"),
        (replace(base, unaccounted=1), "unaccounted"),
        (replace(base, unaccounted=1, warned=1), "unaccounted"),
        (replace(base, applicable=0, passing=0), "no_evidence"),
        (replace(base, smoke=2, smoke_applicable=0, flaky=1), "no_evidence"),
        (replace(base, passing=1, documented=1, flaky=1), "partial"),
        (replace(base, passing=2, documented=1, flaky=1), "flaky"),
        (replace(base, passing=0, documented=1, known=1, flaky=1), "partial"),
        (replace(base, passing=1, documented=1, known=1, flaky=1), "flaky"),
        (replace(base, passing=1, documented=1, known=1, warned=1), "works_except_known_bugs"),
        (replace(base, passing=2, documented=1, warned=2), "works_for_current_code"),
        (replace(base, warned=1), "works_with_warnings"),
        (base, "works"),
        (compat.Evidence(), "no_evidence"),
    ]
    assert [compat.verdict(evidence) for evidence, _ in steps] == [token for _, token in steps]
    assert set(compat.TOKENS) == {token for _, token in steps} | {"partial"}


def test_verdicts_given_causes_count_only_failures_not_flaky_passes() -> None:
    from reports.verdicts.causes import causes

    matrix = build_matrix(records_frame([
        record(case_id="fam::a", status="failed", error_type="KeyError"),
        record(case_id="fam::b", status="failed", attempt=1, error_type="OSError"),
        record(case_id="fam::b", status="passed", attempt=2),
    ]))
    given = compat.verdicts(matrix, causes(matrix.results, matrix.cells)).to_dict("records")
    assert given == compat.verdicts(matrix).to_dict("records")
    assert given[0]["causes"] == ["KeyError: failed"] and given[0]["failing"] == 1


def test_each_family_is_judged_alone_a_known_bug_in_one_and_an_unexplained_failure_in_another() -> None:
    row = verdict_of(record(case_id="gathers::a", family="gathers"),
                     record(case_id="gathers::b", family="gathers", **KNOWN_BUG),
                     record(case_id="merge::a", family="merge", **FAILED))
    assert row["verdict"] == "partial"
    assert row["family_verdicts"] == {
        "gathers": {"verdict": "works_except_known_bugs", "documented": 0, "known": 1, "unexplained": 0},
        "merge": {"verdict": "partial", "documented": 0, "known": 0, "unexplained": 1}}
    assert verdict_of(record(case_id="merge::a", family="merge"), complete=False)["family_verdicts"] == {
        "merge": {"verdict": "interrupted", "documented": 0, "known": 0, "unexplained": 0}}


def test_a_cause_is_of_the_kind_a_cell_counts_it() -> None:
    assert compat.cause_kind("jax 0.9.0: make_mesh", ["failed"]) == "documented"
    assert compat.cause_kind("", ["xfailed"]) == "known"
    assert compat.cause_kind("", ["xfailed", "failed"]) == "unexplained"
    assert compat.cause_kind(None, None) == "unexplained"
