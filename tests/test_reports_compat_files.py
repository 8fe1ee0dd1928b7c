"""Tests for reports/views/compat_files.py: compat.csv and compat.json, one verdict per cell."""

from __future__ import annotations

import json
from pathlib import Path

from record_factory import record

from harness import outputs
from reports.data.load import records_frame
from reports.data.tables import build_matrix
from reports.verdicts import compat
from reports.views.compat_files import write


def test_csv_and_json_hold_one_verdict_per_cell(tmp_path: Path) -> None:
    bugs = [record(jax="0.4.38", flax="0.10.2", case_id=f"f::{n}", status="xfailed", reason=f"why https://b/{n}")
            for n in (1, 2)]
    table = compat.verdicts(build_matrix(records_frame([record(jax="0.12.0.1", flax="0.8.5"), *bugs])))
    csv_path, json_path = write(table, tmp_path)
    assert csv_path.read_text().splitlines()[0] == ",".join(("schema_version", *compat.COLUMNS))
    rows = json.loads(json_path.read_text())
    assert [(row["verdict"], row["known_bugs"]) for row in rows] == [
        ("works_except_known_bugs", ["https://b/1", "https://b/2"]), ("works", [])]
    assert [row["known_bugs"] for row in outputs.read_csv(csv_path, outputs.COMPAT_CSV)] == [
        "https://b/1 | https://b/2", ""]
