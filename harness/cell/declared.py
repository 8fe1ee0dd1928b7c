"""What a collected case declares through its `@case` mark and its marks: family, smoke, change, time limit, and
the failure a retry cannot change."""

from __future__ import annotations

import re
from typing import Any

import pytest

from harness.case import MARKER
from harness.cell.records import family_from_nodeid
from harness.change import Change


def family(item: pytest.Item) -> str:
    """The family the case declares (`@case(family=...)`), else its module's name."""
    mark = item.get_closest_marker(MARKER)
    if mark is not None and mark.kwargs.get("family"):
        return str(mark.kwargs["family"])
    return family_from_nodeid(item.nodeid)


def is_smoke(item: pytest.Item) -> bool:
    """Whether the case is in the smoke subset (`@case(smoke=True)`), which a verdict reads as the cell's core."""
    mark = item.get_closest_marker(MARKER)
    return bool(mark is not None and mark.kwargs.get("smoke"))


def declared_change(item: pytest.Item) -> dict[str, Any] | None:
    """The upstream change the case declares (`@case(changed=...)`), as the record's `change` object."""
    mark = item.get_closest_marker(MARKER)
    change = mark.kwargs.get("changed") if mark is not None else None
    return change.as_record() if change is not None else None


def time_limit(item: pytest.Item) -> float:
    """The case's time limit: its `timeout` mark, else the session's --timeout (0 for none)."""
    mark = item.get_closest_marker("timeout")
    if mark is not None and mark.args:
        return float(mark.args[0])
    try:
        return float(item.config.getoption("timeout") or 0)
    except ValueError:
        return 0.0


def settled_failure(change: Change | None) -> str | None:
    """The failure whose retry cannot change a case's answer, as a pytest-rerunfailures `rerun_except` pattern: inside
    its declared change's `since` (the caller checks that), the exception the change declares, with the text it
    declares where it does. A design change fails every time there; None where nothing is declared."""
    if change is None or not change.raises:
        return None
    names = "|".join(re.escape(name) for name in change.raises)
    text = rf"[\s\S]*{re.escape(change.error)}" if change.error else ""
    return rf"^(?:{names}): {text}"
