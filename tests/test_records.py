from __future__ import annotations

from harness.cell import records


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
