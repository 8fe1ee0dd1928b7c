"""Tests for reports/verdicts/causes.py: problems grouped into root causes, paths made package-relative."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from record_factory import matrix_of, record

from reports.data.tables import Matrix
from reports.verdicts.causes import causes, signature, version_ranges, views

RUN = "20261121T084500Z-ab12"
ARROW = "\N{RIGHTWARDS ARROW}"
TIMES, DASH, AT_LEAST = "\N{MULTIPLICATION SIGN}", "\N{EN DASH}", "\N{GREATER-THAN OR EQUAL TO}"
VENV = "/home/ci/work/.nox/cell-jax0-4-30-flax0-10-4-py3-11/lib/python3.11/site-packages"






def causes_of(matrix: Matrix) -> list[dict[str, Any]]:
    return causes(matrix.results, matrix.cells).to_dict("records")


# --- signatures -------------------------------------------------------------------------------------------------


def test_signatures_of_one_cause_in_two_cells_agree() -> None:
    one = signature("AttributeError", f"module 'jax.core' has no attribute 'pp_eqn_rules' ({VENV}/flax/core.py)")
    other = signature("AttributeError",
                      "module 'jax.core' has no attribute 'pp_eqn_rules' (/x/site-packages/flax/core.py)")
    assert one == other == "missing name: jax.core.pp_eqn_rules"
    where = signature("TypeError", f"bad call ({VENV}/flax/core.py)")
    other_where = signature("TypeError", "bad call (/x/site-packages/flax/core.py)")
    assert where == other_where == "TypeError: bad call (flax/core.py)"


def test_one_error_reworded_after_its_first_sentence_or_printing_specs_differently_is_one_cause() -> None:
    # flax 0.12.3 and 0.12.6 word the advice after the error differently; jax 0.7 prints P(...), 0.6 PartitionSpec.
    one = signature("ValueError", "An auto mesh context is required for sharding_names=(None, 'model'). "
                                  "For more guidance, see https://flax.readthedocs.io/flip")
    other = signature("ValueError", "An auto mesh context is required for sharding_names=(None, 'model'). "
                                    "If running this on CPU for debugging, make a dummy mesh")
    assert one == other == "ValueError: An auto mesh context is required for sharding_names=(None, 'model')"
    assert (signature("AssertionError", "assert NamedSharding(spec=PartitionSpec(None, 'model'))")
            == signature("AssertionError", "assert NamedSharding(spec=P(None, 'model'))"))
    # A dotted name is not a sentence's end.
    dotted = signature("TypeError", "jax.core.Tracer got X. Expected Y")
    assert dotted == "TypeError: jax.core.Tracer got X"


def test_shapes_numbers_and_addresses_are_normalized_but_names_are_not() -> None:
    one = signature("ValueError", "f32[64,4] at 0x7f3a9c0 does not fit (8, 4) in jax 0.4.30")
    other = signature("ValueError", "f32[32,2] at 0x11aa does not fit (2, 4) in jax 0.6.0")
    assert one == other == "ValueError: f32[…] at <address> does not fit (…) in jax N"
    assert signature("ValueError", "axis 'x'") != signature("ValueError", "axis 'y'")
    assert signature("ValueError", "boom") != signature("TypeError", "boom")


def test_a_problem_without_an_error_is_known_by_its_reason() -> None:
    assert signature(None, None, "hard time limit after 300 s") == "hard time limit after N s"


# --- grouping ---------------------------------------------------------------------------------------------------


def test_one_error_in_every_case_of_two_cells_is_one_cause() -> None:
    broken = {"status": "error", "error_type": "ImportError", "reason": "the cell's packages failed to import"}
    matrix = matrix_of(
        *(record(jax="0.12.0.1", flax=flax, case_id=f"fam::test_{n}", error_message=f"bad ({VENV}/flax/x.py)",
                 **broken)
          for flax in ("0.8.5", "0.10.7") for n in range(3)),
        record(jax="0.12.0.1", flax="0.12.12"),
    )
    (cause,) = causes_of(matrix)
    assert cause["signature"] == "ImportError: bad (flax/x.py)"
    assert cause["case_count"] == 6 and cause["keys"] == ["c1", "c2"] and cause["first_key"] == "c1"
    assert cause["cells"] == f"jax 0.12.0.1 {TIMES} flax 0.8.5{DASH}0.10.7"
    assert cause["cases"][0] == ("c1", "fam::test_0")


def test_two_errors_are_two_causes_most_widespread_first() -> None:
    matrix = matrix_of(
        record(case_id="fam::a", status="failed", error_type="ValueError", error_message="one"),
        record(case_id="fam::b", status="failed", error_type="TypeError", error_message="two"),
        record(case_id="fam::c", status="failed", error_type="TypeError", error_message="two"),
    )
    assert [c["signature"] for c in causes_of(matrix)] == ["TypeError: two", "ValueError: one"]


def test_passes_and_absences_are_no_cause_but_an_unknown_status_is() -> None:
    matrix = matrix_of(record(case_id="fam::a"), record(case_id="fam::b", status="not_applicable", reason="absent"),
                       record(case_id="fam::c", status="exploded"))
    assert [c["statuses"] for c in causes_of(matrix)] == [["exploded"]]


def test_a_flaky_pass_is_its_own_cause() -> None:
    matrix = matrix_of(record(status="failed", error_type="E", error_message="x"), record(attempt=2))
    (cause,) = causes_of(matrix)
    assert cause["signature"] == f"flaky: attempts were failed {ARROW} passed"


def test_a_range_breaks_where_a_cell_of_the_same_jax_does_not_show_the_cause() -> None:
    matrix = matrix_of(*(record(jax="0.12.0.1", flax=flax) for flax in ("0.8.5", "0.10.7", "0.11.2", "0.12.8")))
    keys = list(matrix.cells.index)
    gap = version_ranges(matrix.cells, [keys[0], keys[1], keys[3]])
    assert gap == f"jax 0.12.0.1 {TIMES} flax 0.8.5{DASH}0.10.7, 0.12.8"
    assert version_ranges(matrix.cells, keys[1:]) == f"flax {AT_LEAST} 0.10.7: all 3 cells"
    assert version_ranges(matrix.cells, keys) == "all 4 cells"


# --- views ------------------------------------------------------------------------------------------------------


def test_views_number_unexpected_causes_first_then_known_breakages_and_link_the_first_reproducer() -> None:
    matrix = matrix_of(
        record(case_id="fam::a", status="xfailed", reason="known breakage"),
        record(case_id="fam::a", status="xfailed", reason="known breakage", jax="0.4.38"),
        record(case_id="fam::b", status="failed", error_type="KeyError", error_message="'x' (line 12)"),
        record(case_id="fam::c", status="failed", error_type="KeyError", error_message="'x' (line 40)",
               jax="0.4.38"),
    )
    repros = {("jax0.10.2-flax0.12.8-py3.11", "fam::b"): Path("repro/b.py")}
    shown = views(causes(matrix.results, matrix.cells), matrix.cells, repros)
    assert [(view.number, view.known, view.case_count) for view in shown] == [(1, False, 2), (2, True, 2)]
    first = shown[0]
    assert first.example == "KeyError: 'x' (line 40)" and first.first_key == "c1"
    assert first.reproducer == Path("repro/b.py")
    assert first.by_keys() == [(["c1"], ["fam::c"]), (["c2"], ["fam::b"])]
    assert shown[1].reproducer is None and shown[1].by_keys() == [(["c1", "c2"], ["fam::a"])]


def test_a_cause_in_most_cells_from_one_flax_release_on_names_the_few_without_it() -> None:
    pairs = [("0.6.0", "0.10.7"), *(("0.8.1", f"0.12.{minor}") for minor in range(9)), ("0.12.0.1", "0.11.2")]
    matrix = matrix_of(*(record(jax=jax, flax=flax) for jax, flax in pairs))
    keys = list(matrix.cells.index)  # c1 is flax 0.10.7, the last one flax 0.11.2 under jax 0.12.0.1
    shown = version_ranges(matrix.cells, keys[1:-2])  # jax >= 0.8.1 would miss two cells, flax >= 0.12.0 one
    assert shown == f"flax {AT_LEAST} 0.12.0: 8 of 9 cells (not {keys[-2]})"


def test_the_flax_release_named_is_the_oldest_shown_not_the_first_cell_in_jax_order() -> None:
    pairs = [("0.6.0", "0.10.7"), ("0.7.2", "0.12.3"), ("0.8.1", "0.12.0"), ("0.9.0", "0.12.6"), ("0.10.0", "0.11.2")]
    matrix = matrix_of(*(record(jax=jax, flax=flax) for jax, flax in pairs))
    assert version_ranges(matrix.cells, list(matrix.cells.index)[1:4]) == f"flax {AT_LEAST} 0.12.0: all 3 cells"


def test_a_cause_in_every_cell_from_one_jax_release_on_reads_as_that_release_onward() -> None:
    pairs = [("0.8.1", "0.12.0"), ("0.9.0", "0.12.3"), ("0.9.0", "0.12.6"), ("0.10.0", "0.12.8")]
    matrix = matrix_of(*(record(jax=jax, flax=flax) for jax, flax in pairs))
    keys = list(matrix.cells.index)
    assert version_ranges(matrix.cells, keys[1:]) == "jax \N{GREATER-THAN OR EQUAL TO} 0.9.0: all 3 cells"
    assert version_ranges(matrix.cells, keys) == "all 4 cells"
    # Fewer than three cells, or a cell missing among fewer than eight, is a list of ranges as before.
    assert version_ranges(matrix.cells, keys[2:]).startswith(f"jax 0.9.0 {TIMES} flax 0.12.6")
    assert version_ranges(matrix.cells, keys[1:3]) == f"jax 0.9.0 {TIMES} flax 0.12.3{DASH}0.12.6"


@pytest.mark.parametrize(("error_type", "message"), [
    ("AttributeError", "module 'jax' has no attribute 'tree_map'"),
    ("AttributeError", "jax.tree_map was removed in JAX v0.6.0: use jax.tree.map (jax v0.4.25 or newer)"),
    ("AttributeError", "jax.tree_map is deprecated; use jax.tree.map instead."),
    ("AttributeError", "jax.tree_map  was deprecated in JAX v0.10.0 and removed in JAX v0.11.0."),
])
def test_a_name_that_is_gone_is_one_cause_however_a_release_words_it(error_type: str, message: str) -> None:
    assert signature(error_type, message) == "missing name: jax.tree_map"


def test_missing_names_from_imports_objects_and_the_health_check_name_owner_and_name() -> None:
    assert signature("ImportError", "cannot import name 'maps' from 'jax.experimental' (jax/experimental/__init__.py)"
                     ) == "missing name: jax.experimental.maps"
    assert signature("AttributeError", "'NamedSharding' object has no attribute 'update'") == (
        "missing name: NamedSharding.update")
    assert signature("ImportError", "jax.sharding has no AbstractMesh (jax 0.4.30)") == (
        "missing name: jax.sharding.AbstractMesh")
    # One removal, however the project imports it; a top-level module missing is a package not installed.
    assert signature("ModuleNotFoundError", "No module named 'jax.experimental.shard_map'") == (
        "missing name: jax.experimental.shard_map") == signature(
        "ImportError", "cannot import name 'shard_map' from 'jax.experimental' (jax/experimental/__init__.py)")
    assert signature("ModuleNotFoundError", "No module named 'optax'") == "ModuleNotFoundError: No module named 'optax'"
    # Not a name error: the message is the cause, as before.
    assert signature("AssertionError", "jax.lib.xla_bridge is gone") == "AssertionError: jax.lib.xla_bridge is gone"


# --- documented changes -----------------------------------------------------------------------------------------

CHANGE = {"since": "jax>=0.9.0", "what": "make_mesh makes Explicit axes", "raises": ["ShardingTypeError", "ValueError"],
          "warned": None, "fix": "axis_types=", "kind": "default"}


def test_documented_failures_worded_differently_are_one_cause_named_after_their_change() -> None:
    matrix = matrix_of(
        record("0.9.2", status="failed", error_type="ShardingTypeError", error_message="use out_sharding",
               change=CHANGE),
        record("0.10.2", status="failed", error_type="ValueError", error_message="pass out_sharding", change=CHANGE),
    )
    found = causes_of(matrix)
    assert [(row["signature"], row["change"], row["case_count"]) for row in found] == [
        ("documented: jax 0.9.0: make_mesh makes Explicit axes", "jax 0.9.0: make_mesh makes Explicit axes", 2)]


def test_a_declared_change_failing_outside_its_range_keeps_its_own_signature() -> None:
    matrix = matrix_of(record("0.8.3", status="failed", error_type="ShardingTypeError", error_message="early",
                              change=CHANGE))
    assert [(row["signature"], row["change"]) for row in causes_of(matrix)] == [("ShardingTypeError: early", "")]


def test_views_list_unexpected_causes_first_then_documented_changes_then_known_breakages() -> None:
    matrix = matrix_of(
        record("0.10.2", case_id="fam::test_doc", status="failed", error_type="ValueError", error_message="x",
               change=CHANGE),
        record("0.10.2", case_id="fam::test_known", status="xfailed", error_type="KeyError", error_message="k"),
        record("0.10.2", case_id="fam::test_new", status="failed", error_type="TypeError", error_message="t"),
    )
    shown = views(causes(matrix.results, matrix.cells), matrix.cells, {})
    assert [(view.number, view.unexpected, view.documented, view.known) for view in shown] == [
        (1, True, False, False), (2, False, True, False), (3, False, False, True)]
    assert shown[1].change == "jax 0.9.0: make_mesh makes Explicit axes"


def test_a_case_now_xfailed_without_an_error_is_known_by_its_markers_reason_else_says_it_gave_none() -> None:
    # A bare status is no cause: att39's pass -> non-strict xfail read "xfailed", with no words to group or read.
    bare = causes_of(matrix_of(record(status="xfailed", reason="")))
    assert [(c["signature"], c["example"]) for c in bare] == [("now marked xfail (no reason given)",) * 2]
    said = causes_of(matrix_of(record(status="xfailed", reason="needs jax.sharding.OldThing")))
    assert [(c["signature"], c["example"]) for c in said] == [("needs jax.sharding.OldThing",) * 2]
