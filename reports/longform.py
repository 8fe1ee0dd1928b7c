"""The long-form table, results.csv: one row per (run, cell, case), every field a record carries."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reports.matrix import Matrix

#: results.csv columns, in order: the record fields under their report names, then what collapsing adds.
COLUMNS: dict[str, str] = {
    "run_id": "run_id",
    "key": "key",
    "cell_id": "cell",
    "case_id": "case",
    "family": "family",
    "status": "status",
    "duration_s": "duration_s",
    "compile_s": "compile_s",
    "execute_s": "execute_s",
    "attempts": "attempts",
    "flaky": "flaky",
    "cell_complete": "cell_complete",
    "jax": "jax",
    "jaxlib": "jaxlib",
    "flax": "flax",
    "numpy": "numpy",
    "python": "python",
    "backend": "backend",
    "device_kind": "device_kind",
    "device_count": "device_count",
    "platform": "platform",
    "error_type": "error_type",
    "error_message": "error_message",
    "reason": "reason",
    "deprecations": "deprecations",
    "timestamp": "timestamp",
}

#: Joins a case's warning texts into one CSV field.
SEPARATOR = " | "


def long_form(matrix: Matrix) -> pd.DataFrame:
    """The collapsed results as a flat table: warnings joined into `deprecations`, whether the result's cell
    finished as `cell_complete`, columns renamed."""
    results = matrix.results.assign(
        deprecations=[SEPARATOR.join(found) for found in matrix.results["warnings"]],
        cell_complete=matrix.results["key"].map(matrix.cells["complete"]),
    )
    return results[list(COLUMNS)].rename(columns=COLUMNS)


def write_csv(matrix: Matrix, path: Path) -> Path:
    """Write results.csv to `path` and return it."""
    long_form(matrix).to_csv(path, index=False, encoding="utf-8")
    return path
