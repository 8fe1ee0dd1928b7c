"""Tests for reports/data/statuses.py: the status a result shows, the order of statuses and the words for them."""

from __future__ import annotations

from harness import vocabulary
from reports.data.statuses import DEPRECATED, LABELS, attempts_text, display_status, label, ordered


def test_the_statuses_are_the_vocabularys_in_its_order_with_the_warned_pass_after_the_pass() -> None:
    assert [status for status in LABELS if status != DEPRECATED] == list(vocabulary.ALL)
    assert list(LABELS).index(DEPRECATED) == list(LABELS).index(vocabulary.PASSED) + 1


def test_pass_that_warned_is_shown_as_deprecated() -> None:
    assert display_status("passed", ["DeprecationWarning: x"]) == DEPRECATED


def test_clean_pass_and_warned_failure_keep_their_status() -> None:
    assert display_status("passed", []) == "passed"
    assert display_status("passed", None) == "passed"
    assert display_status("failed", ["DeprecationWarning: x"]) == "failed"


def test_a_warned_unknown_status_is_not_promoted_to_a_warned_pass() -> None:
    assert display_status("quarantined", ["DeprecationWarning: x"]) == "quarantined"


def test_order_appends_unknown_statuses_once_in_first_seen_order() -> None:
    assert ordered(["passed", "weird", "odd", "weird"]) == [*LABELS, "weird", "odd"]
    assert ordered([]) == list(LABELS)


def test_attempts_are_named_by_their_labels_and_an_unknown_one_by_its_name() -> None:
    assert attempts_text([vocabulary.INSTALL_ERROR, vocabulary.PASSED]) == "install error → passed"
    assert label("quarantined") == "quarantined"
