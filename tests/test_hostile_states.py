"""tests/hostile_states.py: each generator's defective files are refused by the one reader of that file, and its sound
ones read back as written, so the property test (tests/test_no_verdict_better_than_evidence.py) starts from generators
that mean what they say."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_states import (
    RANGE_DEFECTS,
    STATE_DEFECTS,
    Entry,
    RangeCheck,
    State,
    named,
    write_range_check,
    write_state,
)

from harness import outputs
from shardmatrix import watch_files

ENTRIES = (Entry("0.9.0", "UNSAFE", True, 3, 3, True, True), Entry("0.8.4", "SAFE", False, 3, 3, True, False))


def test_a_sound_state_reads_back_as_written(tmp_path: Path) -> None:
    path = tmp_path / "blocker" / "state.json"
    write_state(path, State(ENTRIES, None))
    assert watch_files.read_state(path) == [entry.judgment() for entry in ENTRIES]
    assert ENTRIES[1].sound and not ENTRIES[0].sound


@pytest.mark.parametrize("defect", [d for d in STATE_DEFECTS if d != "missing"])
def test_each_state_defect_is_refused_by_its_reader(tmp_path: Path, defect: str) -> None:
    path = tmp_path / "blocker" / "state.json"
    write_state(path, State(ENTRIES, defect))
    with pytest.raises(watch_files.WatchFileError):
        watch_files.check_writable(path, "--state")
        watch_files.read_state(path)


def test_a_missing_state_is_the_first_run(tmp_path: Path) -> None:
    write_state(tmp_path / "state.json", State(ENTRIES, "missing"))
    assert watch_files.read_state(tmp_path / "state.json") == [] and State(ENTRIES, "missing").remembered == ()


def test_a_sound_range_check_reads_back_with_counts_that_agree(tmp_path: Path) -> None:
    write_range_check(tmp_path / "ranges.json", RangeCheck(("confirmed", "wrong", "unchecked"), None))
    document = outputs.read_ranges(tmp_path / "ranges.json")
    assert [row["status"] for row in document["edges"]] == ["confirmed", "wrong", "unchecked"]
    assert (document["wrong"], document["unchecked"]) == (1, 1)


def test_a_range_check_of_version_1_reads_back_with_its_inside_counted(tmp_path: Path) -> None:
    write_range_check(tmp_path / "ranges.json", RangeCheck(("confirmed", "wrong"), "version_1"))
    document = outputs.read_ranges(tmp_path / "ranges.json")
    assert [(row["inside_releases"], row["inside_judged"]) for row in document["edges"]] == [(2, 1), (2, 1)]
    assert (document["commit"], document["cases"]) == (None, {})


@pytest.mark.parametrize("defect", [d for d in RANGE_DEFECTS if d not in ("missing", "counts_disagree", "version_1")])
def test_each_range_check_defect_is_refused_by_its_reader(tmp_path: Path, defect: str) -> None:
    write_range_check(tmp_path / "ranges.json", RangeCheck(("confirmed",), defect))
    with pytest.raises(outputs.OutputFileError):
        outputs.read_ranges(tmp_path / "ranges.json")


def test_counts_that_disagree_are_read_as_written_for_the_docs_to_refuse(tmp_path: Path) -> None:
    write_range_check(tmp_path / "ranges.json", RangeCheck(("confirmed",), "counts_disagree"))
    assert outputs.read_ranges(tmp_path / "ranges.json")["wrong"] == 1


def test_named_lists_each_package_once_per_time_it_is_named() -> None:
    assert named(["jax==0.9.1,JAX==0.9.2", "flax==0.12.8"]) == ["jax", "jax", "flax"]
