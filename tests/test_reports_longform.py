"""Tests for reports/data/longform.py: results.csv has one row per (cell, case) and every field."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from record_factory import matrix_of, record

from reports.data.load import records_frame
from reports.data.longform import COLUMNS, long_form, write_csv
from reports.data.tables import build_matrix

RUN = "20261121T084500Z-ab12"
HOSTILE = '<script>alert(1)</script> | "q", x\nsecond line'
REQUIRED = ["run_id", "cell", "case", "family", "status", "attempts", "flaky", "cell_complete", "duration_s",
            "compile_s", "execute_s", "jax", "jaxlib", "flax", "numpy", "python", "backend", "device_kind",
            "device_count", "platform", "error_type", "error_message", "reason", "deprecations", "timestamp"]






def test_columns_include_every_required_field() -> None:
    assert set(REQUIRED) <= set(long_form(matrix_of(record())).columns)
    assert list(long_form(matrix_of(record())).columns) == list(COLUMNS.values())


def test_repeats_are_one_row_and_cells_come_in_version_order() -> None:
    table = long_form(matrix_of(record("0.10.2", status="failed"), record("0.10.2", status="failed"),
                                record("0.4.38")))
    assert table[["jax", "status"]].values.tolist() == [["0.4.38", "passed"], ["0.10.2", "failed"]]


def test_flaky_and_attempts_columns_say_how_a_retried_case_went() -> None:
    table = long_form(matrix_of(
        record(case_id="fam::a", status="failed", attempt=1), record(case_id="fam::a", attempt=2),
        record(case_id="fam::b", status="failed", attempt=1), record(case_id="fam::b", status="failed", attempt=2),
        record(case_id="fam::c"), record(case_id="fam::c"),
    ))
    assert table[["case", "status", "attempts", "flaky"]].values.tolist() == [
        ["fam::a", "passed", 2, True], ["fam::b", "failed", 2, False], ["fam::c", "passed", 1, False]
    ]


def test_cell_complete_says_whether_the_result_s_cell_finished() -> None:
    files = pd.DataFrame([{"run_id": RUN, "cell_id": "jax0.4.38-flax0.12.8-py3.11", "complete": False},
                          {"run_id": RUN, "cell_id": "jax0.10.2-flax0.12.8-py3.11", "complete": True}])
    table = long_form(build_matrix(records_frame([record("0.4.38"), record("0.10.2")]), files))
    assert table[["jax", "cell_complete"]].values.tolist() == [["0.4.38", False], ["0.10.2", True]]


def test_warnings_are_joined_into_deprecations() -> None:
    table = long_form(matrix_of(record(warnings=["DeprecationWarning: a", "UserWarning: b"])))
    assert table["deprecations"].tolist() == ["DeprecationWarning: a | UserWarning: b"]


def test_no_warnings_is_an_empty_deprecations_field() -> None:
    assert long_form(matrix_of(record()))["deprecations"].tolist() == [""]


def test_csv_round_trips_hostile_text_and_integer_device_counts(tmp_path: Path) -> None:
    path = write_csv(matrix_of(record(status="failed", error_message=HOSTILE, warnings=[HOSTILE])), tmp_path / "r.csv")
    back = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert back.loc[0, "error_message"] == HOSTILE
    assert back.loc[0, "device_count"] == "8"
    assert back.loc[0, "reason"] == ""
    assert (back.loc[0, "attempts"], back.loc[0, "flaky"], back.loc[0, "cell_complete"]) == ("1", "False", "True")


def test_csv_is_byte_for_byte_what_pandas_to_csv_writes(tmp_path: Path) -> None:
    # write_csv joins fields itself for speed; every kind of value must come out as pandas would write it.
    texts = [HOSTILE, 'a "quoted" word', "carriage\rreturn", "comma, here", "", "plain", "tab\there", "é ü"]
    durations = [1e-05, 0.1 + 0.2, 1e16, float("nan"), 0.0, -0.0, 12.5, 123456.789]
    matrix = matrix_of(*(
        record(jax=f"0.{n}.0", status="failed" if n % 2 else "passed", error_message=text,
               reason=text if n % 3 else None, warnings=[text] if n % 2 else [], duration_s=durations[n],
               compile_s=None if n % 2 else 0.3, device_count=None if n == 4 else 8)
        for n, text in enumerate(texts)
    ))
    path = write_csv(matrix, tmp_path / "r.csv")
    assert path.read_bytes() == long_form(matrix).to_csv(index=False).encode("utf-8")
