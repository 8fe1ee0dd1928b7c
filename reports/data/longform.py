"""The long-form table, results.csv: one row per (run, cell, case), every field a record carries."""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from harness import outputs
from reports.data.tables import Matrix

#: results.csv columns, in order: the record fields under their report names, then what collapsing adds.
COLUMNS: dict[str, str] = {
    "csv_schema_version": outputs.VERSION_KEY,
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
        # The file's own schema (harness.outputs.RESULTS_CSV), first; not the records' schema_version, which
        # loading has already brought to the current one.
        csv_schema_version=outputs.RESULTS_CSV.version,
        deprecations=[SEPARATOR.join(found) for found in matrix.results["warnings"]],
        cell_complete=matrix.results["key"].map(matrix.cells["complete"]),
    )
    return results[list(COLUMNS)].rename(columns=COLUMNS)


def write_csv(matrix: Matrix, path: Path) -> Path:
    """Write results.csv to `path` (atomically, harness.outputs) and return it: the bytes DataFrame.to_csv(index=False)
    writes, faster."""
    frame = long_form(matrix)
    # pandas hands every field to the csv module, which cost most of a report's CSV; here only a field that needs
    # quoting goes through it, and the rest are joined as they are (what the csv module writes for them).
    columns = [_quoted(csv_texts(frame[name])) for name in frame.columns]
    lines = [",".join(_quoted([str(name) for name in frame.columns]))]
    lines += [",".join(row) for row in zip(*columns, strict=True)]
    return outputs.write_atomically(path, (os.linesep.join(lines) + os.linesep).encode("utf-8"))


def csv_texts(column: pd.Series) -> list[str]:
    """Each value of a column as DataFrame.to_csv writes it: '' for a missing one, floats as numpy writes them
    (the shortest text that reads back the same), anything else as str()."""
    if column.dtype.kind == "f" and isinstance(column.dtype, np.dtype):
        numbers = column.to_numpy()
        texts = numbers.astype(str)
        texts[np.isnan(numbers)] = ""
        return [str(text) for text in texts.tolist()]
    values = column.to_numpy(dtype=object, na_value="").tolist()
    if isinstance(column.dtype, pd.StringDtype):  # texts already, and '' where missing
        return values
    return [value if type(value) is str else str(value) for value in values]


#: What can make the csv module quote a field (QUOTE_MINIMAL): the delimiter, the quote, a line break; the csv
#: module has the last word on each field that holds one.
_NEEDS_QUOTES = re.compile('[,"\r\n' + re.escape(os.linesep) + "]")


def _quoted(texts: list[str]) -> list[str]:
    """`texts` as csv fields: each one that needs quoting as the csv module quotes it, the rest as they are."""
    if not _NEEDS_QUOTES.search("".join(texts)):
        return texts
    return [_field(text) if _NEEDS_QUOTES.search(text) else text for text in texts]


def _field(text: str) -> str:
    """One field as DataFrame.to_csv writes it: the csv module decides, with pandas' dialect (its line ending)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=os.linesep).writerow([text])
    return buffer.getvalue()[: -len(os.linesep)]
