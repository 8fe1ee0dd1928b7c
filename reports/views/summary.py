"""The terminal summary: how many cases of each status every cell has, how many were flaky, which cells were
interrupted, and which statuses harness.vocabulary does not know."""

from __future__ import annotations

import pandas as pd

from harness.vocabulary import UNKNOWN, status_class
from reports.data.tables import Matrix, counts
from reports.views.present import legend, resume_command


def row_labels(matrix: Matrix) -> pd.Series:
    """The name of each column key in the terminal: its cell id, plus the run when several runs are shown."""
    cells = matrix.cells
    if len(matrix.run_ids) > 1:
        return cells["cell_id"] + " @ " + cells["run_id"]
    return cells["cell_id"].copy()


def summary_table(matrix: Matrix) -> pd.DataFrame:
    """Counts per status (legend order, passes that warned apart) per cell (version order), their total, and how
    many of them were flaky, with a total row."""
    results = matrix.results
    shown = results["shown"].unique()
    statuses = [status for status, _ in legend(shown) if status in set(shown)]
    # Keyed by column key, not cell id: a cell interrupted before its first case has a row of zeros.
    table = counts(matrix)[statuses]
    table["total"] = table.sum(axis=1)
    table["flaky"] = results.groupby("key")["flaky"].sum().reindex(matrix.keys, fill_value=0).astype(int)
    table.loc["total"] = table.sum()
    table.index = pd.Index([*row_labels(matrix), "total"], name="cell")
    table.columns.name = "status"
    return table


def incomplete_lines(matrix: Matrix) -> list[str]:
    """One line per interrupted cell, saying how to finish it."""
    labels = row_labels(matrix)
    return [
        f"incomplete: {labels[key]} (interrupted; resume with: {resume_command(matrix.cells.loc[key, 'run_id'])})"
        for key in matrix.incomplete
    ]


def unknown_lines(matrix: Matrix) -> list[str]:
    """One line per status the vocabulary does not know (a newer harness, a corrupt file), in first-seen order."""
    statuses = matrix.results["status"].tolist()
    # Each distinct status asked once, not once per result.
    known = {status: status_class(status) != UNKNOWN for status in set(statuses)}
    unknown = [status for status in statuses if not known[status]]
    return [f"unknown status: {status!r} in {unknown.count(status)} case(s) (not in harness.vocabulary; never counted "
            "as passing)" for status in dict.fromkeys(unknown)]


def summary(matrix: Matrix) -> str:
    """The summary table as plain text for a terminal, then a line for each interrupted cell and unknown status."""
    return "\n".join([summary_table(matrix).to_string(), *incomplete_lines(matrix), *unknown_lines(matrix)])
