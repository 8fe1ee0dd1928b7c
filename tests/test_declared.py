"""harness/cell/declared.py: what a collected case declares, read through pytester, in pairs."""

from __future__ import annotations

import re

import pytest

from harness.cell import declared
from harness.change import Change

FACTS = """
import json
from harness.cell import declared

def pytest_collection_modifyitems(items):
    print("FACTS", json.dumps({i.name: [declared.family(i), declared.is_smoke(i), declared.time_limit(i)]
                                for i in items}))
"""

CASES = """
import pytest
from harness.case import case

@case(family="sharded_gathers", smoke=True)
def test_declared():
    pass

@pytest.mark.timeout(7)
def test_plain():
    pass
"""


def test_a_case_declares_family_and_smoke_a_plain_test_neither(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FACTS)
    pytester.makepyfile(test_mod=CASES)
    result = pytester.runpytest("--collect-only", "-s", "-p", "no:harness.cell.plugin")
    line = next(line for line in result.outlines if line.startswith("FACTS"))
    assert '"test_declared": ["sharded_gathers", true, 0.0]' in line
    assert '"test_plain": ["test_mod", false, 7.0]' in line


def test_a_declared_exception_is_a_settled_failure_and_another_is_not() -> None:
    change = Change("jax>=0.9.0", "made explicit", raises=("ShardingTypeError", "TypeError"), kind="default",
                    fix="pass axis_types")
    pattern = declared.settled_failure(change)
    assert pattern is not None
    assert re.search(pattern, "ShardingTypeError: can only refer to Auto axes")
    assert re.search(pattern, "TypeError: no")
    assert not re.search(pattern, "ValueError: ShardingTypeError: quoted")


def test_a_settled_failure_with_declared_text_needs_that_text() -> None:
    change = Change("jax>=0.9.0", "made explicit", raises="ShardingTypeError", kind="default", fix="pass axis_types",
                    error="Auto axes")
    pattern = declared.settled_failure(change)
    assert pattern is not None
    assert re.search(pattern, "ShardingTypeError: can only refer to\nAuto axes (a+b)")
    assert not re.search(pattern, "ShardingTypeError: another reason")
    assert declared.settled_failure(None) is None
    deprecation = Change(None, "deprecated", kind="deprecation", warned="jax>=0.8.0", fix="use the new one")
    assert declared.settled_failure(deprecation) is None
