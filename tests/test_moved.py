"""What else an upgrade moved, read from the two cells' freezes."""

from __future__ import annotations

from harness.tools import moved

BEFORE = "# project p @ /p (tree.1)\njax==0.8.3\njaxlib==0.8.3\noptax==0.2.4\nml-dtypes==0.5.0\n-e file:///p\n"


def test_the_packages_besides_those_asked_for_that_changed_are_listed() -> None:
    after = "jax==0.9.2\njaxlib==0.9.2\noptax==0.2.5\nml_dtypes==0.5.0\nchex==0.1.9\n"
    assert moved.changes(BEFORE, after) == ["chex (absent) -> 0.1.9", "optax 0.2.4 -> 0.2.5"]
    assert moved.line(BEFORE, after) == "the bump also moved: chex (absent) -> 0.1.9, optax 0.2.4 -> 0.2.5"


def test_nothing_else_moved_is_said_and_a_cell_not_built_says_nothing() -> None:
    assert moved.line(BEFORE, BEFORE.replace("0.8.3", "0.9.2")) == "the bump moved nothing else"
    assert moved.line(BEFORE, "") == ""


def test_a_package_from_a_source_reads_as_where_it_came_from() -> None:
    assert moved.versions("flax @ file:///w/flax-0.12.6.whl\n") == {"flax": "file:///w/flax-0.12.6.whl"}
