"""harness.vocabulary: one status vocabulary whose classes every consumer derives from."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness import vocabulary


def test_vocabulary_is_exactly_the_documented_nine() -> None:
    assert vocabulary.ALL == (
        "passed", "failed", "error", "not_applicable", "xfailed", "xpassed", "crashed", "timeout", "install_error",
    )
    assert all(vocabulary.MEANINGS[s] for s in vocabulary.ALL)


@pytest.mark.parametrize("status", vocabulary.ALL)
def test_every_status_belongs_to_exactly_one_class(status: str) -> None:
    owners = [name for name, members in vocabulary.CLASSES.items() if status in members]
    assert len(owners) == 1, f"{status} belongs to {owners or 'no class'}"
    assert vocabulary.status_class(status) == owners[0]


def test_classes_hold_nothing_outside_the_vocabulary() -> None:
    members = set().union(*vocabulary.CLASSES.values())
    assert members == set(vocabulary.ALL)


@pytest.mark.parametrize("status", ["skipped", "PASSED", "", None, 1, "passed_deprecated"])
def test_an_unknown_status_is_unknown_and_never_passing(status: object) -> None:
    assert vocabulary.status_class(status) == vocabulary.UNKNOWN
    assert not vocabulary.is_passing(status)
    assert vocabulary.is_inconclusive(status)
    assert vocabulary.is_problem(status)


def test_pass_and_absence_are_not_problems_and_everything_else_is() -> None:
    quiet = {s for s in vocabulary.ALL if not vocabulary.is_problem(s)}
    assert quiet == {"passed", "xpassed", "not_applicable"}
    assert vocabulary.is_inconclusive("crashed") and not vocabulary.is_inconclusive("failed")
    assert vocabulary.is_broken("xfailed") and vocabulary.is_absent("not_applicable")


def test_migrate_brings_an_old_record_up_and_refuses_a_newer_one() -> None:
    assert vocabulary.migrate({"schema_version": 1, "status": "passed"})["attempt"] == 1
    with pytest.raises(vocabulary.SchemaError, match="newer than this reader"):
        vocabulary.migrate({"schema_version": vocabulary.SCHEMA_VERSION + 1})


def test_update_to_2_leaves_its_input_alone() -> None:
    old = {"schema_version": 1}
    assert vocabulary.update_to_2(old) == {"schema_version": 2, "attempt": 1} and old == {"schema_version": 1}
    assert vocabulary.MIGRATIONS[2] is vocabulary.update_to_2


def test_update_to_3_declares_no_change_and_leaves_its_input_alone() -> None:
    old = {"schema_version": 2, "attempt": 1}
    assert vocabulary.update_to_3(old) == {"schema_version": 3, "attempt": 1, "change": None, "smoke": None}
    assert old == {"schema_version": 2, "attempt": 1}
    assert vocabulary.MIGRATIONS[3] is vocabulary.update_to_3


def test_a_version_1_record_reaches_the_current_schema_with_every_step() -> None:
    record = vocabulary.migrate({"schema_version": 1, "status": "failed"})
    assert record == {"schema_version": vocabulary.SCHEMA_VERSION, "status": "failed", "attempt": 1, "change": None,
                      "smoke": None, "devices_needed": None, "known_breakage": None}
    assert {"change", "smoke", "devices_needed", "known_breakage"} <= set(vocabulary.FIELDS)


def test_a_version_4_xfail_is_a_known_breakage_only_when_its_reason_is_a_declared_breakages() -> None:
    declared = vocabulary.breakage_reason("gather drops sharding", "jax>=0.8.1", "https://github.com/jax-ml/jax/issues/1")
    found = [vocabulary.migrate({"schema_version": 4, "status": "xfailed", "reason": reason})["known_breakage"]
             for reason in (declared, "flaky on CI", None)]
    assert found == [True, False, False]


def test_only_an_xfail_its_record_says_was_declared_is_a_known_breakage() -> None:
    assert vocabulary.is_known_breakage("xfailed", True)
    assert not vocabulary.is_known_breakage("xfailed", False) and not vocabulary.is_known_breakage("xfailed", None)
    assert not vocabulary.is_known_breakage("failed", True)


def test_update_to_4_reads_the_devices_a_case_needed_from_its_reason() -> None:
    old = {"schema_version": 3, "status": "not_applicable", "reason": "needs 8 devices, cell has 1"}
    assert vocabulary.update_to_4(old)["devices_needed"] == 8 and "devices_needed" not in old
    assert vocabulary.MIGRATIONS[4] is vocabulary.update_to_4


@pytest.mark.parametrize(("status", "reason"), [
    ("not_applicable", "jax.sharding.use_mesh is absent"),
    ("failed", "needs 8 devices, cell has 1"),
    ("not_applicable", None),
])
def test_update_to_4_finds_no_devices_where_the_reason_names_none(status: str, reason: str | None) -> None:
    old = {"schema_version": 3, "status": status, "reason": reason}
    assert vocabulary.update_to_4(old)["devices_needed"] is None


def test_the_devices_reason_reads_back_as_written() -> None:
    assert vocabulary.devices_needed("not_applicable", vocabulary.devices_reason(2, 1)) == 2


def test_the_vocabulary_imports_nothing_but_the_standard_library() -> None:
    tree = ast.parse(Path(vocabulary.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {str(node.module).split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"__future__", "collections", "pathlib", "re", "typing"}


def _record(case: str, status: str, attempt: int | None = 1, **fields: object) -> dict[str, object]:
    return {"case_id": case, "status": status, "attempt": attempt, **fields}


def test_the_final_record_is_the_last_line_of_the_highest_attempt() -> None:
    first, second = _record("m::t", "failed", 1), _record("m::t", "passed", 2)
    assert vocabulary.final_record([second, first]) is second  # attempt order, whatever the file order
    repeat = _record("m::t", "passed", 2, duration_s=2.0)
    assert vocabulary.final_record([first, second, repeat]) is repeat  # agreeing records are plain repeats
    # A record without an attempt (made in memory, schema 1) is a first attempt.
    assert vocabulary.final_record([_record("m::t", "passed", 2), {"status": "failed"}])["status"] == "passed"
    assert vocabulary.final_record([_record("m::t", "failed", None), {"status": "failed"}])["status"] == "failed"


def test_two_statuses_for_one_attempt_make_the_case_unknown() -> None:
    final = vocabulary.final_record([_record("m::t", "failed", 1, error_type="AssertionError"),
                                     _record("m::t", "passed", 1)])
    assert final["status"] == vocabulary.CONFLICTING
    assert final["reason"] == "conflicting records: attempt 1 was recorded as failed and passed"
    assert vocabulary.status_class(final["status"]) == vocabulary.UNKNOWN
    assert vocabulary.is_inconclusive(final["status"]) and not vocabulary.is_passing(final["status"])
    assert vocabulary.CONFLICTING not in vocabulary.ALL


def test_a_conflict_in_an_earlier_attempt_still_makes_the_case_unknown() -> None:
    records = [_record("m::t", "failed", 1), _record("m::t", "crashed", 1), _record("m::t", "passed", 2)]
    final = vocabulary.final_record(records)
    assert final["status"] == vocabulary.CONFLICTING and final["attempt"] == 2
    assert final["reason"] == "conflicting records: attempt 1 was recorded as failed and crashed"
    assert records[2]["status"] == "passed"  # the input is left alone


def test_final_records_groups_by_case_and_needs_a_record() -> None:
    records = [_record("m::a", "failed", 1), _record("m::b", "passed"), {"status": "passed"},
               _record("m::a", "passed", 2)]
    assert {case: r["status"] for case, r in vocabulary.final_records(records).items()} == {
        "m::a": "passed", "m::b": "passed"}
    with pytest.raises(ValueError, match="at least one record"):
        vocabulary.final_record([])


def test_out_of_memory_is_told_by_its_reason() -> None:
    assert vocabulary.is_out_of_memory(vocabulary.OUT_OF_MEMORY)
    assert not vocabulary.is_out_of_memory("needs 2 devices, cell has 1")
    assert not vocabulary.is_out_of_memory(None)


def test_a_not_applicable_record_needing_more_devices_than_its_cell_has_is_short_of_devices() -> None:
    assert vocabulary.is_short_of_devices("not_applicable", 8, 1)


def test_enough_devices_an_unsaid_count_or_another_status_is_no_shortage() -> None:
    assert not vocabulary.is_short_of_devices("not_applicable", 2, 2)
    assert not vocabulary.is_short_of_devices("not_applicable", 8, None)
    assert not vocabulary.is_short_of_devices("not_applicable", None, 1)
    assert not vocabulary.is_short_of_devices("failed", 8, 1)
    assert not vocabulary.is_short_of_devices("not_applicable", True, 0)


def test_a_strict_xpass_is_a_failed_record_without_exception_whose_message_is_pytests() -> None:
    assert vocabulary.is_strict_xpass("failed", None, "[XPASS(strict)] fixed upstream")
    assert not vocabulary.is_strict_xpass("failed", "AssertionError", "[XPASS(strict)] quoted")
    assert not vocabulary.is_strict_xpass("failed", None, "assert 1 == 2 [XPASS(strict)]")
    assert not vocabulary.is_strict_xpass("xpassed", None, "[XPASS(strict)] fixed upstream")


def test_only_a_failed_assertion_is_a_precision_candidate() -> None:
    assert vocabulary.is_precision_candidate("failed", "AssertionError")
    assert not vocabulary.is_precision_candidate("failed", "ValueError")
    assert not vocabulary.is_precision_candidate("error", "AssertionError")


def test_a_github_issue_or_pull_request_link_is_named_by_repository_and_number_any_other_link_as_itself() -> None:
    assert vocabulary.link_name("https://github.com/jax-ml/jax/issues/40907") == "jax#40907"
    assert vocabulary.link_name("https://github.com/google/flax/pull/5070") == "flax#5070"
    assert vocabulary.link_name("https://github.com/jax-ml/jax/releases/tag/jax-v0.7.0") == (
        "https://github.com/jax-ml/jax/releases/tag/jax-v0.7.0")
