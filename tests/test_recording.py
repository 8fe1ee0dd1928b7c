from __future__ import annotations

from harness.recording import case_id_from_nodeid, family_from_nodeid


def test_case_id_from_nodeid() -> None:
    assert case_id_from_nodeid("cases/sharded_gathers.py::test_take[x]") == "sharded_gathers::test_take[x]"
    assert case_id_from_nodeid("/abs/tests/test_mine.py::TestA::test_b") == "test_mine::TestA::test_b"
    assert case_id_from_nodeid("cases/broken.py") == "broken::<collection>"


def test_family_from_nodeid() -> None:
    assert family_from_nodeid("cases/shard_map_modes.py::test_x") == "shard_map_modes"
