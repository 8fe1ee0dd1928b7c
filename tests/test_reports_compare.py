"""The upgrade verdict: each kind of finding in a pair (a case that counts and one that does not)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from reports.compare import CompareError, compare, render_markdown, render_text
from reports.load import FIELDS, records_frame


def record(run: str, cell: str, case: str, status: str = "passed", **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {name: None for name in FIELDS}
    base.update(schema_version=2, attempt=1, run_id=run, cell_id=cell, case_id=f"fam::{case}", family="fam",
                status=status, duration_s=0.5, compile_s=0.2, execute_s=0.3, warnings=[])
    return {**base, **fields}


def frame(before: list[tuple[str, str, dict[str, Any]]], after: list[tuple[str, str, dict[str, Any]]]) -> pd.DataFrame:
    rows = [record("r1", "old", case, status, **extra) for case, status, extra in before]
    rows += [record("r2", "new", case, status, **extra) for case, status, extra in after]
    return records_frame(rows)


def test_a_pass_that_now_fails_is_a_regression_and_unsafe() -> None:
    found = compare(frame([("a", "passed", {})], [("a", "failed", {"error_type": "ValueError"})]), "r1", "r2")
    assert found.verdict == "UNSAFE"
    assert found.regressions[["case_id", "before", "after", "detail"]].values.tolist() == [
        ["fam::a", "passed", "failed", "ValueError"]]


def test_a_failure_that_still_fails_is_no_regression() -> None:
    found = compare(frame([("a", "failed", {})], [("a", "failed", {})]), "r1", "r2")
    assert found.verdict == "SAFE" and found.regressions.empty


def test_a_clean_pass_that_now_warns_is_newly_deprecated_but_safe() -> None:
    found = compare(frame([("a", "passed", {})], [("a", "passed", {"warnings": ["DeprecationWarning: x"]})]),
                    "r1", "r2")
    assert found.safe and found.deprecated["case_id"].tolist() == ["fam::a"]


def test_a_pass_that_already_warned_is_not_newly_deprecated() -> None:
    warned = {"warnings": ["DeprecationWarning: x"]}
    found = compare(frame([("a", "passed", warned)], [("a", "passed", warned)]), "r1", "r2")
    assert found.deprecated.empty


def test_a_pass_that_becomes_not_applicable_is_unsafe_an_error_that_does_is_only_listed() -> None:
    found = compare(frame([("a", "passed", {}), ("b", "error", {})],
                          [("a", "not_applicable", {}), ("b", "not_applicable", {})]), "r1", "r2")
    assert found.verdict == "UNSAFE"
    assert found.removed["case_id"].tolist() == ["fam::a"]
    assert found.not_applicable["case_id"].tolist() == ["fam::b"]


def test_fixed_is_a_non_pass_that_now_passes_but_not_a_pass_that_stays() -> None:
    found = compare(frame([("a", "failed", {}), ("b", "passed", {})], [("a", "passed", {}), ("b", "passed", {})]),
                    "r1", "r2")
    assert found.fixed["case_id"].tolist() == ["fam::a"]


def test_timing_flags_only_changes_beyond_ratio_and_delta() -> None:
    found = compare(frame([("slow", "passed", {"duration_s": 0.2}), ("jitter", "passed", {"duration_s": 0.01})],
                          [("slow", "passed", {"duration_s": 0.5}), ("jitter", "passed", {"duration_s": 0.03})]),
                    "r1", "r2")
    assert found.slower["case_id"].tolist() == ["fam::slow"]
    assert found.safe  # timing is reported, not decisive
    assert "x2.50" in render_markdown(found) and "fam::slow" in render_text(found)


def test_runs_with_several_cells_pair_by_cell_id_and_refuse_a_missing_cell() -> None:
    rows = records_frame([record("r1", c, "a") for c in ("x", "y")] + [record("r2", c, "a") for c in ("x", "y")])
    assert compare(rows, "r1", "r2").pairs == [("x", "x"), ("y", "y")]
    with pytest.raises(CompareError, match="no cell z"):
        compare(rows, "r1:z", "r2:x")


def test_text_links_reproducers_of_regressions() -> None:
    found = compare(frame([("a", "passed", {})], [("a", "failed", {})]), "r1:old", "r2:new")
    text = render_text(found, {("new", "fam::a"): "out/report/repro/new/fam__a.py"})
    assert text.startswith("UNSAFE") and "uv run out/report/repro/new/fam__a.py" in text
