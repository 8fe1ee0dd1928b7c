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


def test_only_an_xfail_its_record_says_was_declared_is_a_known_breakage() -> None:
    assert vocabulary.is_known_breakage("xfailed", True)
    assert not vocabulary.is_known_breakage("xfailed", False) and not vocabulary.is_known_breakage("xfailed", None)
    assert not vocabulary.is_known_breakage("failed", True)


def test_the_devices_reason_reads_back_as_written() -> None:
    assert vocabulary.devices_needed("not_applicable", vocabulary.devices_reason(2, 1)) == 2


def test_the_vocabulary_imports_nothing_but_the_standard_library() -> None:
    tree = ast.parse(Path(vocabulary.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {str(node.module).split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"__future__", "collections", "pathlib", "re", "typing"}


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
    assert vocabulary.link_name("https://github.com/jax-ml/jax/commit/f1ae31226e") == "jax@f1ae31226e"
    assert vocabulary.link_name("https://github.com/google/flax/commit/" + "437bb82b39" * 4) == "flax@437bb82b39"
    assert vocabulary.link_name("https://github.com/jax-ml/jax/commit/main") == "https://github.com/jax-ml/jax/commit/main"
    assert vocabulary.link_name("https://github.com/google/flax/pull/5070") == "flax#5070"
    assert vocabulary.link_name("https://github.com/jax-ml/jax/releases/tag/jax-v0.7.0") == (
        "https://github.com/jax-ml/jax/releases/tag/jax-v0.7.0")


def test_a_declared_breakages_reason_is_told_from_any_other() -> None:
    declared = vocabulary.breakage_reason("gather drops sharding", "jax>=0.8.1", "https://github.com/jax-ml/jax/issues/1")
    assert vocabulary.is_breakage_reason(declared)
    assert not any(vocabulary.is_breakage_reason(reason) for reason in ("flaky on CPU", "", None, 3))
