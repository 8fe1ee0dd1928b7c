"""changes.csv written from reports.verdicts.documented_table.table() (harness.outputs owns the format)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness import outputs
from reports.data.text import as_text


def write(found: pd.DataFrame, cells: pd.DataFrame, path: Path) -> Path:
    """changes.csv: the Changes table with its column keys written as cell ids and lists joined by ' | '."""
    ids = {str(key): as_text(cell) for key, cell in cells["cell_id"].items()}
    frame = found.copy()
    for name in ("cells_warned", "documented", "stale", "unexpected"):
        frame[name] = [" | ".join(ids.get(key, key) for key in keys) for keys in frame[name]]
    for name in ("last_passing", "first_failing"):
        frame[name] = [ids.get(key, key) for key in frame[name]]
    frame["cases"] = [" | ".join(cases) for cases in frame["cases"]]
    return outputs.write_frame(path, outputs.CHANGES_CSV, frame)
