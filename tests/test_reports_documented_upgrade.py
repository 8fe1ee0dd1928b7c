"""Tests for reports/verdicts/documented_upgrade.py: the documented changes an upgrade crosses, and the declarations
file they are read from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_reports_documented import DECLARED, WRT

from harness.outputs import OutputFileError
from reports.verdicts.documented_upgrade import between, between_text, read_declarations


def test_an_upgrade_crosses_the_changes_whose_range_starts_after_the_baseline_up_to_the_candidate() -> None:
    crossed = between(DECLARED, {"jax": "0.8.3", "flax": "0.10.7"}, {"jax": "0.9.0", "flax": "0.12.1"})
    assert [entry["label"] for entry in crossed] == ["jax 0.9.0: make_mesh makes Explicit axes",
                                                     "flax 0.11.0: Optimizer needs wrt=",
                                                     "flax 0.12.1: .value is deprecated"]
    assert crossed[0]["cases"] == ["gathers_user::test_a", "gathers_user::test_b"]
    assert crossed[0]["fix"] == "pass axis_types="


def test_an_upgrade_that_stays_on_one_side_of_every_change_crosses_none() -> None:
    assert between(DECLARED, {"jax": "0.9.0", "flax": "0.12.1"}, {"jax": "0.10.2", "flax": "0.12.8"}) == []
    text = between_text([], "b", "c")
    assert text == "Documented changes between baseline b and candidate c: none declared."


def test_the_crossed_changes_read_as_one_line_each() -> None:
    crossed = between(DECLARED, {"jax": "0.8.3", "flax": "0.12.8"}, {"jax": "0.9.2", "flax": "0.12.8"})
    text = between_text(crossed, "jax0.8.3", "jax0.9.2")
    assert text.splitlines() == [
        "Documented changes between baseline jax0.8.3 and candidate jax0.9.2 (1; your code may hit them even where "
        "your cases pass):",
        "- jax 0.9.0: make_mesh makes Explicit axes (changed default). Fix: pass axis_types=. Cases: "
        "gathers_user::test_a, gathers_user::test_b"]


def test_a_declarations_file_reads_back_and_a_bad_one_is_named(tmp_path: Path) -> None:
    path = tmp_path / "changes.json"
    path.write_text(json.dumps({"schema_version": 1, "changes": [{"case_id": "m::t", "change": WRT}]}))
    assert read_declarations(path) == [("m::t", WRT)]
    path.write_text(json.dumps({"schema_version": 9, "changes": []}))
    with pytest.raises(OutputFileError, match=r"declarations file schema 9 is newer than this reader knows \(1\)"):
        read_declarations(path)
    path.write_text("{")
    with pytest.raises(OutputFileError, match=r"changes\.json: declarations file is not valid JSON"):
        read_declarations(path)
