"""harness/tools/budget.py: the frontier's search and the range checker stop on one and the same BudgetSpent."""

from __future__ import annotations

from harness.tools import budget, ranges
from shardmatrix import frontier_search


def test_the_frontier_and_the_range_checker_stop_on_the_same_signal() -> None:
    assert frontier_search.BudgetSpent is budget.BudgetSpent
    assert ranges.BudgetSpent is budget.BudgetSpent
