"""Records, cells and comparisons for the upgrade verdict's tests (tests/test_reports_compare*.py)."""

from __future__ import annotations

from typing import Any

import pandas as pd
from record_factory import record

from reports.data.load import CELL_FIELDS, records_frame
from reports.verdicts import compare as compare_module
from reports.verdicts.compare import Comparison


def case_record(run: str, cell: str, case: str, status: str = "passed", **fields: Any) -> dict[str, Any]:
    """The factory's record of case `fam::<case>` in cell `cell` (no versions) of run `run`."""
    fields = {"jax": None, "flax": None, "python": None, "case_id": f"fam::{case}", "compile_s": 0.2,
              "execute_s": 0.3, **fields}
    return record(run_id=run, cell_id=cell, status=status, **fields)


def finished(records: pd.DataFrame, unfinished: tuple[str, ...] = ()) -> pd.DataFrame:
    """load_cells() of the records' cells: each finished unless named (as RUN:CELL) in `unfinished`."""
    pairs = records[["run_id", "cell_id"]].drop_duplicates()
    rows = [{"run_id": run, "cell_id": cell, "complete": f"{run}:{cell}" not in unfinished, "reused_from": None}
            for run, cell in zip(pairs["run_id"], pairs["cell_id"], strict=True)]
    return pd.DataFrame(rows, columns=list(CELL_FIELDS))


def compare(records: pd.DataFrame, before: str, after: str, unfinished: tuple[str, ...] = (),
            **options: Any) -> Comparison:
    """reports.verdicts.compare.compare over records whose cells all finished but those in `unfinished`."""
    return compare_module.compare(records, before, after, finished(records, unfinished), **options)


def frame(before: list[tuple[str, str, dict[str, Any]]], after: list[tuple[str, str, dict[str, Any]]]) -> pd.DataFrame:
    rows = [case_record("r1", "old", case, status, **extra) for case, status, extra in before]
    rows += [case_record("r2", "new", case, status, **extra) for case, status, extra in after]
    return records_frame(rows)


def cases(*names: str, status: str = "passed") -> list[tuple[str, str, dict[str, Any]]]:
    return [(name, status, {}) for name in names]
