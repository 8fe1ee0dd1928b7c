from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from harness import vocabulary
from harness.cell import records


def test_make_record_fills_every_field_in_order() -> None:
    record = records.make_record(run_id="r", cell_id="c", case_id="m::t", status="passed")
    assert tuple(record) == vocabulary.FIELDS
    assert record["schema_version"] == vocabulary.SCHEMA_VERSION
    assert record["warnings"] == [] and record["error_type"] is None and record["timestamp"]


def test_make_record_refuses_unknown_fields() -> None:
    with pytest.raises(ValueError, match="unknown record fields: \\['colour'\\]"):
        records.make_record(colour="red")


def test_writer_appends_one_line_per_record(tmp_path: Path) -> None:
    path = vocabulary.results_path(tmp_path, "run", "cell")
    for status in ("passed", "failed"):
        writer = records.JsonlWriter(path)
        writer.write(records.make_record(status=status, error_message="a\nmultiline <b>"))
        writer.close()
    lines = path.read_text().splitlines()
    assert [json.loads(line)["status"] for line in lines] == ["passed", "failed"]


def test_writer_flushes_before_close(tmp_path: Path) -> None:
    writer = records.JsonlWriter(tmp_path / "f.jsonl")
    writer.write(records.make_record(status="passed"))
    assert json.loads((tmp_path / "f.jsonl").read_text())["status"] == "passed"
    writer.close()


def test_run_ids_sort_chronologically() -> None:
    early = records.new_run_id(datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    late = records.new_run_id(datetime(2026, 11, 2, 3, 4, 5, tzinfo=timezone.utc))
    assert early.startswith("20260102T030405Z-") and early < late


def test_first_line() -> None:
    assert records.first_line("\n  boom: bad\nmore") == "boom: bad"
    assert records.first_line("") == ""
    assert len(records.first_line("x" * 1000)) == 500


def test_case_id_from_nodeid() -> None:
    assert records.case_id_from_nodeid("cases/sharded_gathers.py::test_take[x]") == "sharded_gathers::test_take[x]"
    assert records.case_id_from_nodeid("/abs/tests/test_mine.py::TestA::test_b") == "test_mine::TestA::test_b"
    assert records.case_id_from_nodeid("cases/broken.py") == "broken::<collection>"


def test_family_from_nodeid() -> None:
    assert records.family_from_nodeid("cases/shard_map_modes.py::test_x") == "shard_map_modes"


def test_a_record_holding_u2028_is_read_by_the_harness_as_the_report_reads_it(tmp_path: Path) -> None:
    from harness.cell.records import JsonlWriter, recorded_case_ids

    path = tmp_path / "cell.jsonl"
    writer = JsonlWriter(path)
    writer.write({"case_id": "m::test_a", "error_message": "line\u2028break\x85next\x0cpage"})
    writer.write({"case_id": "m::test_b"})
    writer.close()
    assert recorded_case_ids(path) == {"m::test_a", "m::test_b"}
