"""The one stop signal of the release tools' probe budgets (shardmatrix.frontier_search, harness.tools.ranges)."""

from __future__ import annotations


class BudgetSpent(Exception):
    """The next probe would exceed its budget: the tool stops there and says what it left unchecked."""
