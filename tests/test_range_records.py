"""The cell records on disk held against the ranges declared now: a pass inside a declared range is a hole, a pair
answered both ways is flaky; a record that agrees says nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet

from harness import results
from harness.cell.known import Breakage
from harness.cellrecord import make_record
from harness.change import Change
from harness.tools import range_check, range_records

SCAN = "vmap_param_shapes_user::test_nn_scan"
REMOVED = "shard_map_modes_user::test_use_mesh"
BREAKAGE = Breakage(SCAN, "r", "https://x", {"flax": SpecifierSet("<0.10.2")}, raises=("AssertionError",))
CHANGE = Change("jax>=0.7.1", "use_mesh is removed", raises="AttributeError", kind="api", fix="jax.set_mesh")


def record(case: str, status: str, jax: str, flax: str, run: str = "r1", **more: Any) -> dict[str, Any]:
    return {"case_id": case, "status": status, "jax": jax, "flax": flax, "run_id": run,
            "cell_id": f"jax{jax}-flax{flax}-py3.11", **more}


def said(*records: dict[str, Any]) -> list[str]:
    return range_records.contradictions(records, {REMOVED: CHANGE}, [BREAKAGE], range_check.record_answer)


def test_a_pass_inside_a_declared_breakage_or_change_is_a_hole_naming_its_run_and_cell() -> None:
    assert said(record(SCAN, "xpassed", "0.4.26", "0.8.1")) == [
        f"hole: {SCAN} passed at r1/jax0.4.26-flax0.8.1-py3.11, inside its known breakage flax<0.10.2"]
    assert said(record(REMOVED, "passed", "0.8.0", "0.12.0")) == [
        f"hole: {REMOVED} passed at r1/jax0.8.0-flax0.12.0-py3.11, inside its change since jax>=0.7.1"]


def test_a_pass_anywhere_is_a_hole_in_a_breakage_declared_at_every_release() -> None:
    every = Breakage(SCAN, "r", "https://x", {}, raises=("AssertionError",))
    assert range_records.contradictions([record(SCAN, "xpassed", "0.4.25", "0.8.1")], {}, [every],
                                        range_check.record_answer) == [
        f"hole: {SCAN} passed at r1/jax0.4.25-flax0.8.1-py3.11, inside its known breakage of every release"]


def test_a_record_that_agrees_with_its_declaration_or_lies_outside_it_says_nothing() -> None:
    assert said(record(SCAN, "xfailed", "0.4.26", "0.8.1", known_breakage=True),
                record(SCAN, "passed", "0.4.26", "0.10.2"), record(REMOVED, "passed", "0.7.0", "0.12.0"),
                record(REMOVED, "failed", "0.8.0", "0.12.0", error_type="AttributeError"),
                record("other::test_x", "passed", "0.4.26", "0.8.1")) == []


def test_a_pair_answered_both_ways_in_two_runs_is_flaky_and_an_unjudged_answer_is_neither() -> None:
    lines = said(record(SCAN, "xfailed", "0.4.35", "0.10.4", "r1", known_breakage=True),
                 record(SCAN, "passed", "0.4.35", "0.10.4", "r2"),
                 record(SCAN, "timeout", "0.4.35", "0.10.5", "r1"), record(SCAN, "passed", "0.4.35", "0.10.5", "r2"))
    assert lines[-1] == (f"flaky: {SCAN} at jax 0.4.35, flax 0.10.4 passed at r2/jax0.4.35-flax0.10.4-py3.11 and "
                         "failed as declared at r1/jax0.4.35-flax0.10.4-py3.11")
    assert not any("flax 0.10.5" in line for line in lines)


def test_the_records_are_read_from_every_run_of_each_folder(tmp_path: Path) -> None:
    cell = "jax0.4.26-flax0.8.1-py3.11"
    results.write_records(tmp_path / "results" / "20261128T000000Z-a" / f"{cell}.jsonl", [make_record(
        run_id="20261128T000000Z-a", cell_id=cell, case_id=SCAN, status="xpassed", jax="0.4.26", flax="0.8.1",
        attempt=1)])
    [found] = range_records.read_finals([tmp_path]).records
    assert (found["case_id"], found["run_id"], found["cell_id"]) == (SCAN, "20261128T000000Z-a", cell)


def test_a_folder_under_results_that_is_no_run_is_left_out_in_a_line(tmp_path: Path) -> None:
    cell = "jax0.4.26-flax0.8.1-py3.11"
    results.write_records(tmp_path / "results" / "latest" / f"{cell}.jsonl", [make_record(
        run_id="latest", cell_id=cell, case_id=SCAN, status="xpassed", jax="0.4.26", flax="0.8.1", attempt=1)])
    read = range_records.read_finals([tmp_path])
    assert read.records == [] and read.left == [f"{tmp_path / 'results' / 'latest'}: ignored, not a run (a run's "
                                                 "folder is named YYYYmmddTHHMMSSZ-<tag>)"]


def test_a_records_folder_without_results_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(range_check.RangeCheckError, match=f"--records {tmp_path}: no results folder in it"):
        range_check.contradicted([tmp_path], ["builtin"])


def test_a_results_file_that_cannot_be_read_is_left_out_in_a_line(tmp_path: Path) -> None:
    folder = tmp_path / "results" / "20261128T000000Z-a" / "jax0.4.26-flax0.8.1-py3.11.jsonl"
    folder.mkdir(parents=True)  # a folder where the cell's results file should be
    read = range_records.read_finals([tmp_path])
    assert read.records == [] and len(read.left) == 1
    assert read.left[0].startswith(f"{folder}: left out, nothing in it could be read (")
