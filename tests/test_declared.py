"""harness/cell/declared.py: what a collected case declares, read through pytester, in pairs."""

from __future__ import annotations

import pytest

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
