"""Tests for reports/verdicts/documented_table.py: the Changes table, one row per declared change with its cells."""

from __future__ import annotations

import pandas as pd
from record_factory import matrix_of
from test_reports_documented import changes_matrix, record

from reports.verdicts import compat, documented_table


def test_the_changes_view_has_one_row_per_change_with_its_cells() -> None:
    matrix = changes_matrix()
    table = documented_table.table(matrix.results, matrix.cells)
    key = {cell: key for key, cell in matrix.cells["cell_id"].items()}
    rows = {row["what"]: row for row in table.to_dict("records")}
    assert list(table["release"]) == ["0.9.0", "0.11.0", "0.12.1"]  # jax first, then flax, by release
    mesh = rows["make_mesh makes Explicit axes"]
    assert mesh["kind"] == "changed default" and mesh["fix"] == "pass axis_types="
    assert mesh["cells_warned"] == [key["jax0.8.1-flax0.12.8-py3.11"], key["jax0.8.3-flax0.12.8-py3.11"]]
    assert mesh["last_passing"] == key["jax0.8.3-flax0.12.8-py3.11"]
    assert mesh["first_failing"] == key["jax0.9.2-flax0.12.8-py3.11"]
    assert mesh["unexpected"] == [key["jax0.12.0.1-flax0.12.8-py3.11"]] and mesh["stale"] == []
    wrt = rows["Optimizer needs wrt="]
    assert wrt["last_passing"] == key["jax0.8.3-flax0.10.7-py3.11"]
    assert wrt["first_failing"] == key["jax0.10.2-flax0.11.2-py3.11"]
    assert wrt["stale"] == [key["jax0.10.2-flax0.12.8-py3.11"]]
    value = rows[".value is deprecated"]
    assert value["kind"] == "deprecated, not removed yet" and value["first_failing"] == ""
    assert value["cells_warned"] == [key["jax0.10.2-flax0.12.8-py3.11"]]


def test_a_failure_in_a_broken_cell_is_not_called_unexpected() -> None:
    """Where nothing works (the compatibility verdict is broken), a failure says nothing of one change."""
    matrix = changes_matrix()
    key = {cell: key for key, cell in matrix.cells["cell_id"].items()}
    broken = key["jax0.12.0.1-flax0.12.8-py3.11"]
    table = documented_table.table(matrix.results, matrix.cells, {broken})
    mesh = next(row for row in table.to_dict("records") if row["what"] == "make_mesh makes Explicit axes")
    assert mesh["unexpected"] == [] and mesh["first_failing"] == key["jax0.9.2-flax0.12.8-py3.11"]
    assert compat.broken(pd.DataFrame({"key": [broken, "x"], "verdict": [compat.BROKEN, compat.PARTIAL]})) == {broken}


def test_records_without_declarations_make_no_changes_view() -> None:
    matrix = matrix_of(record(), record("0.8.3", status="failed", error_type="TypeError"))
    assert documented_table.table(matrix.results, matrix.cells).empty
