"""Records, cells and comparisons for the upgrade verdict's tests (tests/test_reports_compare*.py)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from reports import compare as compare_module
from reports.compare import Comparison
from reports.load import CELL_FIELDS, FIELDS, records_frame


def record(run: str, cell: str, case: str, status: str = "passed", **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {name: None for name in FIELDS}
    base.update(schema_version=2, attempt=1, run_id=run, cell_id=cell, case_id=f"fam::{case}", family="fam",
                status=status, duration_s=0.5, compile_s=0.2, execute_s=0.3, warnings=[])
    return {**base, **fields}


def finished(records: pd.DataFrame, unfinished: tuple[str, ...] = ()) -> pd.DataFrame:
    """load_cells() of the records' cells: each finished unless named (as RUN:CELL) in `unfinished`."""
    pairs = records[["run_id", "cell_id"]].drop_duplicates()
    rows = [{"run_id": run, "cell_id": cell, "complete": f"{run}:{cell}" not in unfinished, "reused_from": None}
            for run, cell in zip(pairs["run_id"], pairs["cell_id"], strict=True)]
    return pd.DataFrame(rows, columns=list(CELL_FIELDS))


def compare(records: pd.DataFrame, before: str, after: str, unfinished: tuple[str, ...] = (),
            **options: Any) -> Comparison:
    """reports.compare.compare over records whose cells all finished but those in `unfinished`."""
    return compare_module.compare(records, before, after, finished(records, unfinished), **options)


def frame(before: list[tuple[str, str, dict[str, Any]]], after: list[tuple[str, str, dict[str, Any]]]) -> pd.DataFrame:
    rows = [record("r1", "old", case, status, **extra) for case, status, extra in before]
    rows += [record("r2", "new", case, status, **extra) for case, status, extra in after]
    return records_frame(rows)


def cases(*names: str, status: str = "passed") -> list[tuple[str, str, dict[str, Any]]]:
    return [(name, status, {}) for name in names]
