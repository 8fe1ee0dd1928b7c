"""Tests for reports/views/summary.py: the terminal summary counts statuses per cell."""

from __future__ import annotations

from record_factory import matrix_of, record

from reports.views.summary import summary, summary_table

RUN = "20261121T084500Z-ab12"






def test_counts_per_status_per_cell_in_version_order_with_totals() -> None:
    table = summary_table(
        matrix_of(
            record("0.10.2", case_id="fam::a", status="failed"),
            record("0.10.2", case_id="fam::b"),
            record("0.4.38", case_id="fam::a", warnings=["DeprecationWarning: x"]),
        )
    )
    assert list(table.index) == ["jax0.4.38-flax0.12.8-py3.11", "jax0.10.2-flax0.12.8-py3.11", "total"]
    assert list(table.columns) == ["passed", "passed_deprecated", "failed", "total", "flaky"]
    assert list(table.loc["total"]) == [1, 1, 1, 3, 0]


def test_unknown_status_is_counted_after_the_known_ones() -> None:
    table = summary_table(matrix_of(record(case_id="fam::a", status="quarantined"), record(case_id="fam::b")))
    assert list(table.columns) == ["passed", "quarantined", "total", "flaky"]


def test_flaky_results_are_counted_apart_from_the_total() -> None:
    table = summary_table(matrix_of(
        record(case_id="fam::a", status="failed", attempt=1), record(case_id="fam::a", status="passed", attempt=2),
        record(case_id="fam::b", status="failed", attempt=1), record(case_id="fam::b", status="failed", attempt=2),
    ))
    assert table.loc["total"].to_dict() == {"passed": 1, "failed": 1, "total": 2, "flaky": 1}


def test_several_runs_name_each_row_by_cell_and_run() -> None:
    table = summary_table(matrix_of(record(run_id="20261120T000000Z-aaaa"), record()))
    assert list(table.index)[:2] == [f"jax0.10.2-flax0.12.8-py3.11 @ {run}" for run in ("20261120T000000Z-aaaa", RUN)]


def test_summary_is_plain_text() -> None:
    text = summary(matrix_of(record()))
    assert "jax0.10.2-flax0.12.8-py3.11" in text and "passed" in text and "<" not in text


def test_a_finished_cell_gets_no_incomplete_line() -> None:
    assert "incomplete" not in summary(matrix_of(record()))


def test_an_interrupted_cell_gets_one_line_saying_how_to_resume() -> None:
    text = summary(matrix_of(record(), interrupted=("jax0.10.2-flax0.12.8-py3.11",)))
    assert text.splitlines()[-1] == (
        f"incomplete: jax0.10.2-flax0.12.8-py3.11 (interrupted; resume with: nox -s matrix -- --resume {RUN})"
    )


def test_a_cell_interrupted_before_its_first_case_is_a_row_of_zeros() -> None:
    matrix = matrix_of(record(), interrupted=("jax9.9.9-flax0.12.8-py3.11",))
    assert summary_table(matrix).loc["jax9.9.9-flax0.12.8-py3.11"].tolist() == [0, 0, 0]
    assert summary(matrix).splitlines()[-1].startswith("incomplete: jax9.9.9-flax0.12.8-py3.11 (interrupted;")


def test_an_unknown_status_gets_a_line_saying_it_is_not_counted_as_passing() -> None:
    odd = [record(case_id=f"fam::{case}", status="quarantined") for case in "ab"]
    text = summary(matrix_of(*odd, record(case_id="fam::c")))
    assert text.splitlines()[-1] == ("unknown status: 'quarantined' in 2 case(s) (not in harness.vocabulary; never "
                                     "counted as passing)")


def test_known_statuses_get_no_unknown_line() -> None:
    assert "unknown status" not in summary(matrix_of(record(case_id="fam::a", status="crashed"), record()))
