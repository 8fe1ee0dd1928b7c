"""The terminal summary: how many cases of each status every cell has."""

from __future__ import annotations

import pandas as pd

from reports.matrix import Matrix
from reports.present import legend


def summary_table(matrix: Matrix) -> pd.DataFrame:
    """Counts per status (legend order, passes that warned apart) per cell (version order), with totals."""
    results = matrix.results
    multi = len(matrix.run_ids) > 1
    # The row label is the cell id, plus the run when several runs are shown side by side.
    index = results["cell_id"] + " @ " + results["run_id"] if multi else results["cell_id"]
    table = pd.crosstab(index.rename("cell"), results["shown"].rename("status"), margins=True, margins_name="total")
    labels = dict(zip(results["key"], index, strict=True))
    order = [labels[key] for key in matrix.keys] + ["total"]
    statuses = [status for status, _ in legend(results["shown"]) if status in table.columns] + ["total"]
    return table.reindex(index=order, columns=statuses)


def summary(matrix: Matrix) -> str:
    """The summary table as plain text for a terminal."""
    return summary_table(matrix).to_string()
