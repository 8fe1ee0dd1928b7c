"""reports.verdicts.coverage: what ran of what a cell collected, the rest by cause; and the H200 run rebuilt from its
copy in tests/data (tests/data/h200-2026-11-26/README.md says what the copy holds)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
from record_factory import matrix_of, record

from harness.results import read_cell
from harness.runs import results_files
from reports.data.load import cells_frame, records_frame
from reports.data.tables import Matrix, build_matrix
from reports.verdicts import compat
from reports.verdicts.coverage import Coverage, coverages, family_text, short_cells
from reports.views.compat_grid import grid
from reports.views.html import render_html
from reports.views.markdown import render_markdown
from reports.views.verdict_text import coverage_note, describe

H200 = Path(__file__).parent / "data" / "h200-2026-11-26" / "results" / "h200"
GPU_CELL = "jax0.11.2-flax0.12.10-py3.12-cuda13-installed"
CPU_CELL = "jax0.11.2-flax0.12.10-py3.12-installed"


def h200_matrix(run_dir: Path = H200) -> Matrix:
    """The stored H200 run, read as a report reads it (its run id, 'h200', predates the run-id rule, so the cells are
    read by path rather than through OUT/results)."""
    readings = [read_cell(path, "h200") for path in results_files(run_dir)]
    return build_matrix(records_frame([found for reading in readings for found in reading.records]),
                        cells_frame(readings))


def h200_verdicts(run_dir: Path = H200) -> pd.DataFrame:
    """compat's table of the stored H200 run, by cell id."""
    return compat.verdicts(h200_matrix(run_dir)).set_index("cell_id")


def short(needed: int, have: int = 1, case: str = "fam::test_a") -> dict[str, object]:
    return record(case_id=case, status="not_applicable", reason=f"needs {needed} devices, cell has {have}",
                  devices_needed=needed, device_count=have)


def test_the_h200_gpu_and_cpu_cells_read_their_coverage_in_separate_columns() -> None:
    table = h200_verdicts()
    gpu, cpu = table.loc[GPU_CELL], table.loc[CPU_CELL]
    assert gpu["coverage"] == "19 of 103 (80 need 8 devices, 4 need an API this cell lacks)"
    assert cpu["coverage"] == "99 of 103 (4 need an API this cell lacks)"
    assert (gpu["backend"], cpu["backend"]) == ("gpu", "cpu")
    assert [name for name in gpu["family_coverage"] if "nothing ran" in name] == [
        "nnx_sharded_merge: nothing ran, 0 of 13 (13 need 8 devices)",
        "shard_map_modes: nothing ran, 0 of 23 (21 need 8 devices, 2 need an API this cell lacks)",
        "sharded_gathers: nothing ran, 0 of 28 (27 need 8 devices, 1 needs an API this cell lacks)"]
    layout = grid(table.reset_index())
    assert list(layout.columns) == ["0.11.2", "0.11.2 (gpu)"]
    assert layout.loc["0.12.10"].tolist() == [[table.loc[CPU_CELL, "key"]], [table.loc[GPU_CELL, "key"]]]


def test_the_gpu_verdict_and_the_8_device_cpu_one_are_each_written_with_their_coverage() -> None:
    table = h200_verdicts()
    assert describe(table.loc[GPU_CELL]).endswith(
        "(on 19 of 103 cases: 80 need 8 devices, 4 need an API this cell lacks)")
    # The CPU cell lacks an API four cases need: its works-tier verdict stands on 99 cases, and says so.
    assert describe(table.loc[CPU_CELL]) == ("works for current code: 19 documented · 0 known upstream · 0 unexplained "
                                             "(on 99 of 103 cases: 4 need an API this cell lacks)")


def test_the_h200_pages_write_each_verdict_with_its_coverage() -> None:
    matrix = h200_matrix()
    note = "(on 19 of 103 cases: 80 need 8 devices, 4 need an API this cell lacks)"
    text = render_markdown(matrix)
    grid = text[text.index("## Compatibility") : text.index("## Legend")]
    header, _, row = [line for line in grid.splitlines() if line.startswith("|")][:3]
    assert "0.11.2 (gpu)" in header and row.count(note) == 1 and row.count("(on ") == 2
    assert row.count("(on 99 of 103 cases: 4 need an API this cell lacks)") == 1
    page = render_html(matrix)
    assert page.count(note) >= 1 and "0.11.2 (gpu)" in page


def test_removing_one_record_from_the_copy_changes_the_figure(tmp_path: Path) -> None:
    run = shutil.copytree(H200, tmp_path / "h200")
    path = run / f"{GPU_CELL}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    dropped = next(number for number, line in enumerate(lines) if '"needs 8 devices' in line)
    path.write_text("".join(lines[:dropped] + lines[dropped + 1:]), encoding="utf-8")
    gpu = h200_verdicts(run).loc[GPU_CELL]
    assert gpu["coverage"] == "19 of 103 (79 need 8 devices, 4 need an API this cell lacks, 1 not recorded)"
    assert gpu["verdict"] == compat.UNACCOUNTED


def test_everything_that_ran_reads_n_of_n_and_no_note() -> None:
    matrix = matrix_of(record(case_id="fam::test_a"), record(case_id="fam::test_b", status="failed"))
    ((coverage, families),) = coverages(matrix).values()
    assert coverage.text() == "2 of 2" and not coverage.short_of_devices
    assert [family_text(name, found) for name, found in families.items()] == ["fam: 2 of 2"]
    assert coverage_note(compat.verdicts(matrix).iloc[0]) == ""


def test_cases_short_of_devices_are_counted_by_the_devices_they_needed() -> None:
    matrix = matrix_of(record(case_id="fam::test_a", device_count=1), short(8, case="fam::test_b"),
                       short(8, case="fam::test_c"), short(2, case="fam::test_d"))
    ((coverage, _),) = coverages(matrix).values()
    assert coverage == Coverage(ran=1, collected=4, devices={8: 2, 2: 1})
    assert coverage.text() == "1 of 4 (1 needs 2 devices, 2 need 8 devices)"
    assert coverage_note(compat.verdicts(matrix).iloc[0]) == "(on 1 of 4 cases: 1 needs 2 devices, 2 need " \
                                                                    "8 devices)"


def test_a_reason_alone_is_not_a_device_count() -> None:
    # The field decides, not the reason: a record written without it (in memory) counts as an absent API.
    matrix = matrix_of(record(case_id="fam::test_a"),
                       record(case_id="fam::test_b", status="not_applicable", reason="needs 8 devices, cell has 1"))
    ((coverage, _),) = coverages(matrix).values()
    assert coverage == Coverage(ran=1, collected=2, absent=1)


def test_short_cells_names_both_h200_cells_with_their_coverage() -> None:
    assert short_cells(h200_matrix()) == {CPU_CELL: "99 of 103 (4 need an API this cell lacks)",
                                          GPU_CELL: "19 of 103 (80 need 8 devices, 4 need an API this cell lacks)"}


def test_short_cells_leaves_out_a_cell_that_ran_everything_and_names_one_short_of_an_api_or_devices() -> None:
    assert short_cells(matrix_of(record(), record(case_id="fam::test_b"))) == {}
    assert short_cells(matrix_of(record(), record(case_id="fam::test_b", status="not_applicable",
                                                  reason="jax.sharding.use_mesh is absent"))) == {
        "jax0.10.2-flax0.12.8-py3.11": "1 of 2 (1 needs an API this cell lacks)"}
    assert short_cells(matrix_of(record(), short(8, case="fam::test_b"))) == {"jax0.10.2-flax0.12.8-py3.11":
                                                                               "1 of 2 (1 needs 8 devices)"}
