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


def test_a_file_the_host_names_by_its_path_is_named_so_and_any_other_by_its_stem() -> None:
    """Pair: a node id whose file ends with a qualified name takes it, whatever the rootdir its path is named from;
    a file of that stem elsewhere, or of another stem, keeps its stem."""
    qualified = ("core/misc_util_test", "v1/misc_util_test")
    assert records.case_id_from_nodeid("tests/core/misc_util_test.py::test_x", qualified) == (
        "core/misc_util_test::test_x")
    assert records.case_id_from_nodeid("../p/tests/deprecated/v1/misc_util_test.py", qualified) == (
        "v1/misc_util_test::<collection>")
    assert records.case_id_from_nodeid("tests/other/misc_util_test.py::test_x", qualified) == "misc_util_test::test_x"
    assert records.case_id_from_nodeid("tests/core/test_own.py::test_x", qualified) == "test_own::test_x"
