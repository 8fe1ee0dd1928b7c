"""A cell's verdict in words, as the grid, matrix.md and the issue body write it: its words with what it adds
('partial: 3 of 40 fail') and its coverage when devices left cases out (reports/verdicts/compat.py decides the
verdict, reports/views/present.py gives its words)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from reports.verdicts.compat import CURRENT, FLAKY, PARTIAL
from reports.views.present import label


def detail(row: Mapping[Any, Any] | pd.Series) -> str:
    """What a verdict adds to its words: 'k of n fail' (partial), 'attempts disagreed in k of n' (flaky), 'N changes
    break older code' (works for current code); empty otherwise."""
    if row["verdict"] == PARTIAL:
        return f"{row['failing']} of {row['applicable']} fail"
    if row["verdict"] == FLAKY and row.get("flaky"):
        return f"attempts disagreed in {row['flaky']} of {row['applicable']}"
    if row["verdict"] == CURRENT:
        count = len(row["changes"])
        return f"{count} {'change breaks' if count == 1 else 'changes break'} older code"
    return ""


def describe(row: Mapping[Any, Any] | pd.Series) -> str:
    """A verdict as a reader sees it: 'works', 'partial: 3 of 40 fail', 'works for current code: 2 changes break
    older code'; with its coverage when devices left cases out ('works (19 of 103 ran: 80 need 8 devices)')."""
    extra = detail(row)
    said = f"{label(str(row['verdict']))}: {extra}" if extra else label(str(row["verdict"]))
    covered = coverage_note(row)
    return f"{said} {covered}" if covered else said


def coverage_note(row: Mapping[Any, Any] | pd.Series) -> str:
    """'(on 19 of 103 cases: 80 need 8 devices, ...)' when the cell's devices left cases out; empty otherwise, so an
    8-device cell reads as it always did."""
    if not row.get("short_of_devices") or not isinstance(row.get("coverage"), str):
        return ""
    ran, _, rest = str(row["coverage"]).partition(" (")
    return f"(on {ran} cases: {rest.rstrip(')')})" if rest else f"(on {ran} cases)"
