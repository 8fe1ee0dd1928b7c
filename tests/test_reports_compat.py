"""Tests for reports/compat.py: one verdict per cell, laid out flax by jax, written as CSV and JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reports import compat
from reports.load import FIELDS, records_frame
from reports.matrix import Matrix, build_matrix

RUN = "20261121T084500Z-ab12"


def record(jax: str = "0.10.2", flax: str = "0.12.8", **fields: Any) -> dict[str, Any]:
    """A complete schema-2 record of the cell named by its versions; keyword arguments override fields."""
    base: dict[str, Any] = {name: None for name in FIELDS}
    base.update(schema_version=2, attempt=1, run_id=RUN, cell_id=f"jax{jax}-flax{flax}-py3.11", case_id="fam::test_a",
                family="fam", status="passed", duration_s=0.5, warnings=[], jax=jax, jaxlib=jax, flax=flax,
                python="3.11.7", device_count=8)
    return {**base, **fields}


def verdict_of(*records: dict[str, Any], complete: bool = True) -> dict[str, Any]:
    matrix = build_matrix(records_frame(records))
    if not complete:
        matrix.cells["complete"] = False
    (row,) = compat.verdicts(matrix).to_dict("records")
    return row


def test_a_cell_whose_applicable_cases_all_pass_works() -> None:
    row = verdict_of(record(case_id="f::a"), record(case_id="f::b", status="not_applicable", reason="absent"))
    assert (row["verdict"], row["applicable"], row["failing"]) == ("works", 1, 0)


def test_a_deprecation_warning_makes_it_works_with_warnings() -> None:
    row = verdict_of(record(case_id="f::a", warnings=["DeprecationWarning: old"]), record(case_id="f::b"))
    assert (row["verdict"], row["warned"]) == ("works with warnings", 1)


def test_one_failing_case_makes_it_partial_naming_the_cause() -> None:
    row = verdict_of(record(case_id="f::a"), record(case_id="f::b", status="failed", error_type="TypeError",
                                                    error_message="bad 3"))
    assert (row["verdict"], row["failing"], row["applicable"]) == ("partial", 1, 2)
    assert row["causes"] == ["TypeError: bad N"]
    assert compat.describe(compat.verdicts(build_matrix(records_frame([
        record(case_id="f::b", status="failed")]))).iloc[0]) == "partial: 1 of 1 fail"


def test_an_unknown_or_infrastructure_status_is_never_works() -> None:
    assert verdict_of(record(case_id="f::a", status="crashed"))["verdict"] == "partial"
    assert verdict_of(record(case_id="f::a", status="exploded"))["verdict"] == "partial"


def test_packages_that_do_not_import_make_it_broken() -> None:
    reason = "the cell's packages failed to import: flax: ImportError: cannot import name 'x' from 'jax'"
    row = verdict_of(record(case_id="f::a", status="error", reason=reason),
                     record(case_id="f::b", status="error", reason=reason))
    assert row["verdict"] == "broken"


def test_a_backend_that_does_not_start_makes_it_broken_too() -> None:
    reason = "backend failed to start: RuntimeError: Unable to initialize backend 'cuda'"
    row = verdict_of(record(case_id="f::a", status="error", reason=reason))
    assert row["verdict"] == "broken"
    # A case's own reason that merely mentions such words mid-text does not break the cell.
    assert verdict_of(record(case_id="f::a", status="error", reason="x: backend failed to start"))["verdict"] == (
        "partial")


def test_an_install_error_makes_it_not_built_and_an_unfinished_cell_interrupted() -> None:
    assert verdict_of(record(status="install_error", error_type="InstallError"))["verdict"] == "not built"
    assert verdict_of(record(), complete=False)["verdict"] == "interrupted"


def matrix_of_pairs() -> Matrix:
    return build_matrix(records_frame([record(jax="0.12.0.1", flax="0.8.5"), record(jax="0.12.0.1", flax="0.12.12"),
                                       record(jax="0.4.38", flax="0.10.2")]))


def test_the_grid_puts_newest_flax_first_and_oldest_jax_first() -> None:
    layout = compat.grid(compat.verdicts(matrix_of_pairs()))
    assert list(layout.index) == ["0.12.12", "0.10.2", "0.8.5"] and list(layout.columns) == ["0.4.38", "0.12.0.1"]
    assert layout.at["0.10.2", "0.4.38"] == ["c1"] and layout.at["0.8.5", "0.4.38"] == []


def test_csv_and_json_hold_one_verdict_per_cell(tmp_path: Path) -> None:
    csv_path, json_path = compat.write(compat.verdicts(matrix_of_pairs()), tmp_path)
    assert csv_path.read_text().splitlines()[0] == ",".join(compat.COLUMNS)
    assert [row["verdict"] for row in json.loads(json_path.read_text())] == ["works"] * 3


def test_verdicts_given_causes_count_only_failures_not_flaky_passes() -> None:
    from reports.causes import causes

    matrix = build_matrix(records_frame([
        record(case_id="fam::a", status="failed", error_type="KeyError"),
        record(case_id="fam::b", status="failed", attempt=1, error_type="OSError"),
        record(case_id="fam::b", status="passed", attempt=2),
    ]))
    given = compat.verdicts(matrix, causes(matrix.results, matrix.cells)).to_dict("records")
    assert given == compat.verdicts(matrix).to_dict("records")
    assert given[0]["causes"] == ["KeyError: failed"] and given[0]["failing"] == 1
