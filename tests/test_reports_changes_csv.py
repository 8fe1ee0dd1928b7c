"""reports/views/changes_csv.py: changes.csv, the Changes table with cells named by id."""

from __future__ import annotations

import csv
from pathlib import Path

from test_reports_documented import changes_matrix

from reports.verdicts import documented_table
from reports.views import changes_csv


def test_changes_csv_names_cells_by_id(tmp_path: Path) -> None:
    matrix = changes_matrix()
    changed = documented_table.table(matrix.results, matrix.cells)
    path = changes_csv.write(changed, matrix.cells, tmp_path / "changes.csv")
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert list(rows[0]) == ["schema_version", *documented_table.COLUMNS]
    assert rows[0]["release"] == "0.9.0" and rows[0]["package"] == "jax"
    assert rows[0]["last_passing"] == "jax0.8.3-flax0.12.8-py3.11"
    assert rows[0]["first_failing"] == "jax0.9.2-flax0.12.8-py3.11"
    assert rows[0]["cells_warned"] == "jax0.8.1-flax0.12.8-py3.11 | jax0.8.3-flax0.12.8-py3.11"
    assert rows[0]["cases"] == "gathers_user::test_lookup"
    assert rows[1]["stale"] == "jax0.10.2-flax0.12.8-py3.11"
