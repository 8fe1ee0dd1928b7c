from __future__ import annotations

from harness import statuses


def test_vocabulary_is_exactly_the_documented_nine() -> None:
    assert statuses.ALL == (
        "passed", "failed", "error", "not_applicable", "xfailed", "xpassed", "crashed", "timeout", "install_error",
    )
    assert all(statuses.MEANINGS[s] for s in statuses.ALL)


def test_infrastructure_statuses_are_part_of_the_vocabulary() -> None:
    assert statuses.INFRASTRUCTURE < set(statuses.ALL)
    assert statuses.PASSED not in statuses.INFRASTRUCTURE
