"""Tests for reports/data/tables.py: ordering cells by version, collapsing repeats, and the tables reports draw."""

from __future__ import annotations

import pandas as pd
from record_factory import matrix_of, record

from reports.data.tables import (
    case_name,
    counts,
    header_versions,
    minor,
    pivot,
    stack_notes,
    version_key,
)

RUN = "20261121T084500Z-ab12"






def files_of(*cells: tuple[str, bool]) -> pd.DataFrame:
    """What load_cells() says of some cells of RUN: (cell id, complete) each."""
    return pd.DataFrame([{"run_id": RUN, "cell_id": cell_id, "complete": done} for cell_id, done in cells])


# --- ordering -------------------------------------------------------------------------------------------------


def test_versions_order_by_release() -> None:
    assert version_key("0.4.38") < version_key("0.10.2")


def test_string_order_would_be_wrong() -> None:
    # The reason version_key exists: as text, "0.10.2" sorts before "0.4.38".
    assert sorted(["0.4.38", "0.10.2"]) == ["0.10.2", "0.4.38"]
    assert sorted(["0.4.38", "0.10.2"], key=version_key) == ["0.4.38", "0.10.2"]


def test_unparsable_versions_sort_after_releases_and_missing_last() -> None:
    assert sorted([None, "weird", "1.0", float("nan")], key=version_key)[:2] == ["1.0", "weird"]


def test_cells_order_by_jax_then_flax_then_python() -> None:
    matrix = matrix_of(
        record("0.10.2", "0.12.8", "3.12"),
        record("0.4.38", "0.10.2", "3.12"),
        record("0.10.2", "0.12.8", "3.11"),
        record("0.10.2", "0.9.0", "3.13"),
    )
    assert matrix.cells["cell_id"].tolist() == [
        "jax0.4.38-flax0.10.2-py3.12",
        "jax0.10.2-flax0.9.0-py3.13",
        "jax0.10.2-flax0.12.8-py3.11",
        "jax0.10.2-flax0.12.8-py3.12",
    ]
    assert matrix.keys == ["c1", "c2", "c3", "c4"]
    assert matrix.results["key"].tolist() == ["c1", "c2", "c3", "c4"]


def test_same_cell_in_two_runs_is_two_adjacent_columns() -> None:
    # The interpreter's patch release may move between runs; the cell stays one cell.
    matrix = matrix_of(
        record("0.10.2", run_id="20261122T000000Z-bbbb", cell_id="jax0.10.2-py3.11", python="3.11.2"),
        record("0.10.2", cell_id="jax0.10.2-py3.12", python="3.12.1"),
        record("0.4.38"),
        record("0.10.2", run_id="20261121T000000Z-aaaa", cell_id="jax0.10.2-py3.11", python="3.11.9"),
    )
    assert list(zip(matrix.cells["cell_id"], matrix.cells["run_id"], strict=True)) == [
        ("jax0.4.38-flax0.12.8-py3.11", RUN),
        ("jax0.10.2-py3.11", "20261121T000000Z-aaaa"),
        ("jax0.10.2-py3.11", "20261122T000000Z-bbbb"),
        ("jax0.10.2-py3.12", RUN),
    ]
    assert matrix.run_ids == ["20261121T000000Z-aaaa", RUN, "20261122T000000Z-bbbb"]


# --- collapsing repeats and attempts --------------------------------------------------------------------------


def test_repeats_of_one_attempt_show_their_status_and_the_median_duration() -> None:
    matrix = matrix_of(
        record(status="passed", duration_s=1.0),
        record(status="passed", duration_s=5.0),
        record(status="passed", duration_s=2.0),
    )
    (row,) = matrix.results.to_dict("records")
    assert (row["status"], row["duration_s"], row["repeats"], row["attempts"]) == ("passed", 2.0, 3, 1)
    assert not row["flaky"]


def test_two_records_of_one_attempt_with_different_statuses_make_the_case_unknown_not_the_last_line() -> None:
    matrix = matrix_of(record(case_id="fam::a", status="failed"), record(case_id="fam::a", status="passed"),
                       record(case_id="fam::b", status="failed"), record(case_id="fam::b", status="passed", attempt=2))
    found = {row["case_id"]: row for row in matrix.results.to_dict("records")}
    assert (found["fam::a"]["status"], found["fam::a"]["reason"]) == (
        "conflicting_records", "conflicting records: attempt 1 was recorded as failed and passed")
    assert found["fam::a"]["shown"] != "passed"
    # Two attempts that disagree are a flaky case, not a conflict.
    assert (found["fam::b"]["status"], found["fam::b"]["flaky"]) == ("passed", True)


def test_attempts_that_disagree_are_flaky_and_show_the_last_attempt() -> None:
    matrix = matrix_of(
        record(status="failed", attempt=1, duration_s=9.0, error_type="ValueError"),
        record(status="passed", attempt=2, duration_s=1.0),
    )
    (row,) = matrix.results.to_dict("records")
    assert (row["status"], row["attempts"], row["flaky"]) == ("passed", 2, True)
    assert pd.isna(row["error_type"])
    assert row["history"] == ["failed", "passed"]


def test_attempts_that_all_fail_alike_are_not_flaky() -> None:
    matrix = matrix_of(record(status="failed", attempt=1), record(status="failed", attempt=2))
    (row,) = matrix.results.to_dict("records")
    assert (row["status"], row["attempts"], row["flaky"]) == ("failed", 2, False)


def test_timing_is_the_median_of_the_last_attempt_only() -> None:
    matrix = matrix_of(
        record(status="failed", attempt=1, duration_s=100.0),
        record(status="passed", attempt=2, duration_s=1.0),
        record(status="passed", attempt=2, duration_s=3.0),
    )
    (row,) = matrix.results.to_dict("records")
    assert (row["duration_s"], row["repeats"], row["attempts"]) == (2.0, 2, 2)


def test_the_last_attempt_is_the_highest_numbered_whatever_the_file_order() -> None:
    matrix = matrix_of(record(status="passed", attempt=2), record(status="failed", attempt=1))
    (row,) = matrix.results.to_dict("records")
    assert (row["status"], row["history"]) == ("passed", ["failed", "passed"])


def test_distinct_cases_are_not_collapsed() -> None:
    matrix = matrix_of(record(case_id="fam::a"), record(case_id="fam::b"))
    assert matrix.results["attempts"].tolist() == [1, 1]


def test_cells_are_complete_when_nothing_says_otherwise() -> None:
    matrix = matrix_of(record())
    assert matrix.cells["complete"].tolist() == [True]
    assert matrix.incomplete == []


def test_a_cell_whose_file_has_no_done_marker_is_incomplete() -> None:
    matrix = matrix_of(record("0.4.38"), record("0.10.2"), files=files_of(
        ("jax0.4.38-flax0.12.8-py3.11", True), ("jax0.10.2-flax0.12.8-py3.11", False)))
    assert matrix.cells["complete"].tolist() == [True, False]
    assert matrix.incomplete == ["c2"]


def test_a_cell_file_without_records_is_a_blank_incomplete_column() -> None:
    matrix = matrix_of(record("0.4.38"), files=files_of(("jax0.4.38-flax0.12.8-py3.11", True), ("jax9-empty", False)))
    assert matrix.cells["cell_id"].tolist() == ["jax0.4.38-flax0.12.8-py3.11", "jax9-empty"]
    assert matrix.incomplete == ["c2"]
    assert pivot(matrix, "status", "fam").loc["test_a"].isna().tolist() == [False, True]
    assert counts(matrix).loc["c2"].tolist() == [0]


def test_cell_environment_skips_missing_values() -> None:
    matrix = matrix_of(record(case_id="fam::a", numpy="2.3.1"), record(case_id="fam::b", numpy=None))
    assert matrix.cells["numpy"].tolist() == ["2.3.1"]


# --- tables ---------------------------------------------------------------------------------------------------


def test_pivot_has_every_column_and_a_gap_where_a_case_did_not_run() -> None:
    matrix = matrix_of(record("0.4.38", case_id="fam::a"), record("0.10.2", case_id="fam::b"))
    grid = pivot(matrix, "status", "fam")
    assert list(grid.columns) == ["c1", "c2"]
    assert grid.loc["a", "c1"] == "passed"
    assert grid.isna().loc["a", "c2"]


def test_pivot_of_all_families_is_indexed_by_family_and_case() -> None:
    matrix = matrix_of(record(case_id="x::t", family="x"), record(case_id="y::t", family="y"))
    assert list(pivot(matrix, "status").index) == [("x", "t"), ("y", "t")]


def test_pivot_of_all_families_agrees_with_each_family_and_gives_a_shared_name_two_rows() -> None:
    matrix = matrix_of(
        record("0.4.38", case_id="fam::a", duration_s=1.0), record("0.10.2", case_id="fam::b", duration_s=2.0),
        record("0.10.2", case_id="fam::a", status="failed"), record("0.10.2", case_id="a", family="fam",
                                                                    status="error"),
        record("0.10.2", case_id="other::z", family="other"),
    )
    for column in ("status", "duration_s", "flaky"):
        whole = pivot(matrix, column)
        for family in ("fam", "other"):
            pd.testing.assert_frame_equal(whole.loc[family].infer_objects(), pivot(matrix, column, family)
                                          .infer_objects(), check_names=False, check_dtype=False)
    # 'fam::a' and a bare 'a' would both read 'a': each keeps a row of its own, named by its whole id.
    assert pivot(matrix, "status").loc[("fam", "fam::a"), "c2"] == "failed"
    assert pivot(matrix, "status").loc[("fam", "a"), "c2"] == "error"
    assert pivot(matrix, "duration_s").loc[("fam", "b"), "c2"] == 2.0
    assert pd.isna(pivot(matrix, "duration_s").loc[("other", "z"), "c1"])


def test_a_failing_family_case_and_a_passing_bare_one_of_its_name_never_share_a_row() -> None:
    # The failure is shown in its own row whatever order the records come in; a name alone in its family is short.
    for first, second in ((("fam::test_x", "failed"), ("test_x", "passed")),
                          (("test_x", "passed"), ("fam::test_x", "failed"))):
        matrix = matrix_of(*(record(case_id=case, family="fam", status=status) for case, status in (first, second)),
                           record(case_id="fam::test_y", family="fam"))
        shown = pivot(matrix, "status")
        assert shown.loc[("fam", "fam::test_x"), "c1"] == "failed" and shown.loc[("fam", "test_x"), "c1"] == "passed"
        assert pivot(matrix, "status", "fam").loc["fam::test_x", "c1"] == "failed"
        assert ("fam", "test_y") in shown.index


def test_warned_pass_is_shown_as_deprecated() -> None:
    matrix = matrix_of(record(case_id="fam::a", warnings=["DeprecationWarning: old"]), record(case_id="fam::b"))
    assert matrix.results["shown"].tolist() == ["passed_deprecated", "passed"]


def test_counts_follow_the_legend_order() -> None:
    matrix = matrix_of(record(case_id="fam::a", status="failed"), record(case_id="fam::b"))
    assert counts(matrix).to_dict("index") == {"c1": {"passed": 1, "failed": 1}}


# --- headers and names ----------------------------------------------------------------------------------------


def test_headers_show_python_by_minor_release() -> None:
    versions = header_versions(matrix_of(record("0.4.38", python="3.11.7")))
    assert list(versions.loc["c1"]) == ["0.4.38", "0.12.8", "3.11"]


def test_headers_of_several_runs_add_the_run_label() -> None:
    versions = header_versions(matrix_of(record(run_id="20261122T000000Z-bbbb"), record()))
    assert versions["run"].tolist() == ["r1", "r2"]
    assert versions.columns.tolist() == ["jax", "flax", "python", "run"]


def test_minor_of_a_short_or_missing_version() -> None:
    assert (minor("3.11"), minor(None)) == ("3.11", "")


def test_case_name_drops_its_family_prefix_only() -> None:
    assert case_name("fam::test_a[x]", "fam") == "test_a[x]"
    assert case_name("other::test_a", "fam") == "other::test_a"


def test_counts_are_a_crosstab_in_legend_order_with_zero_for_a_column_without_results() -> None:
    matrix = matrix_of(
        record(case_id="fam::a", status="failed"), record(case_id="fam::b", status="brand_new"),
        record(case_id="fam::c"), record(jax="0.4.38", case_id="fam::a", status="zeta_status"),
        record(jax="0.4.38", case_id="fam::b", status="passed", warnings=["W"]),
        files=files_of(("jax0.10.2-flax0.12.8-py3.11", True), ("jax0.4.38-flax0.12.8-py3.11", True),
                       ("jax0.5.0-flax0.12.8-py3.11", False)),
    )
    expected = pd.crosstab(matrix.results["key"], matrix.results["shown"]).reindex(
        index=matrix.keys, columns=["passed", "passed_deprecated", "failed", "brand_new", "zeta_status"], fill_value=0)
    expected.columns.name = None
    pd.testing.assert_frame_equal(counts(matrix), expected)
    assert counts(matrix).loc["c3"].sum() == 0 and list(counts(matrix, "status").columns)[-2:] == ["brand_new",
                                                                                               "zeta_status"]


H200_MACHINE = {"jax": {"backend": "gpu", "devices": [{"kind": "NVIDIA H200", "compute_capability": "9.0"}],
                        "distributions": {"jax": "0.11.2", "jax-cuda13-pjrt": "0.11.2", "jax-cuda13-plugin": "0.11.2",
                                          "jaxlib": "0.11.2"}, "mismatched": []},
                "nvidia_smi": [{"name": "NVIDIA H200", "driver_version": "580.159.04", "memory_total": "143771 MiB",
                                "compute_cap": "9.0"}],
                "settings": {"JAX_DEFAULT_MATMUL_PRECISION": "highest"}, "x64": False, "matmul_precision": "highest"}


def test_a_cell_s_stack_reads_as_its_gpu_plugins_and_settings() -> None:
    assert stack_notes(H200_MACHINE) == ["NVIDIA H200, 580.159.04, 143771 MiB, 9.0 (nvidia-smi)",
                                         "jax-cuda13-pjrt 0.11.2", "jax-cuda13-plugin 0.11.2",
                                         "JAX_DEFAULT_MATMUL_PRECISION=highest"]
    assert stack_notes(None) == []


def test_a_plugin_of_another_version_than_jaxlib_is_named_first() -> None:
    mismatched = {**H200_MACHINE, "nvidia_smi": None, "settings": {},
                  "jax": {**H200_MACHINE["jax"], "mismatched": ["jax-cuda13-plugin"],
                          "distributions": {"jaxlib": "0.11.2", "jax-cuda13-plugin": "0.11.1"}}}
    assert stack_notes(mismatched) == ["MISMATCH: jax-cuda13-plugin 0.11.1 with jaxlib 0.11.2",
                                       "NVIDIA H200, compute capability 9.0", "matmul precision highest"]


def test_a_plugin_mismatch_is_computed_from_the_versions_never_read_from_the_files_own_list() -> None:
    hidden = {"jax": {**H200_MACHINE["jax"], "mismatched": [],
                      "distributions": {"jaxlib": "0.11.2", "jax-cuda13-plugin": "0.11.1"}}}
    assert stack_notes(hidden)[0] == "MISMATCH: jax-cuda13-plugin 0.11.1 with jaxlib 0.11.2"
    invented = {"jax": {**H200_MACHINE["jax"], "mismatched": ["jax-cuda13-plugin"],
                        "distributions": {"jaxlib": "0.11.2", "jax-cuda13-plugin": "0.11.2"}}}
    assert not any(note.startswith("MISMATCH") for note in stack_notes(invented))
