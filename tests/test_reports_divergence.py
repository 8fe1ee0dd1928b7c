"""reports.verdicts.divergence: an accelerator cell against the CPU cell of the same pins and device count, each
divergence labelled by its cause; and the pages that show it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.celldocuments import write_precision
from harness.cellrecord import CellFiles
from reports.build import build_report
from reports.data.load import load
from reports.data.tables import Matrix, build_matrix
from reports.verdicts import compat, divergence
from tests.record_factory import RUN, collected, record

GPU = "jax0.11.2-flax0.12.10-py3.12-cuda13-installed"
CPU = "jax0.11.2-flax0.12.10-py3.12-installed"
TOLERANCE = "\nNot equal to tolerance rtol=0.001, atol=0.001\nMismatched elements: 582 / 2048 (28.4%)"


def outcome(cell: str, case: str, status: str, error: str | None = None, *, backend: str = "cpu",
            devices: int = 1) -> dict:
    return record(jax="0.11.2", flax="0.12.10", python="3.12", cell_id=cell, case_id=f"model::{case}",
                  family="model", status=status, error_type=error,
                  error_message=TOLERANCE if error == "AssertionError" else None, backend=backend,
                  device_kind="NVIDIA H200" if backend == "gpu" else "cpu", device_count=devices)


def tree(out: Path, gpu: list[dict], cpu: list[dict], rerun: dict[str, dict] | None) -> Path:
    for cell, records in ((GPU, gpu), (CPU, cpu)):
        files = CellFiles(out, RUN, cell)
        files.results.parent.mkdir(parents=True, exist_ok=True)
        files.results.write_text("".join(json.dumps(r) + "\n" for r in records))
        collected(files.results)
        files.done.write_text(json.dumps({"cell_id": cell}))
    if rerun is not None:
        write_precision(CellFiles(out, RUN, GPU).results, GPU, {"JAX_DEFAULT_MATMUL_PRECISION": "highest"}, rerun)
    return out


def matrix(out: Path) -> Matrix:
    loaded = load(out / "results")
    return build_matrix(loaded.records, loaded.cells)


def logits_tree(out: Path, highest: str, *, cpu_devices: int = 1) -> Path:
    gpu = [outcome(GPU, "test_logits[1]", "failed", "AssertionError", backend="gpu"),
           outcome(GPU, "test_gather[1]", "passed", backend="gpu")]
    cpu = [outcome(CPU, "test_logits[1]", "passed", devices=cpu_devices),
           outcome(CPU, "test_gather[1]", "passed", devices=cpu_devices)]
    return tree(out, gpu, cpu, {"model::test_logits[1]": {
        "status": highest, "error_type": None if highest == "passed" else "AssertionError"}})


def test_a_failure_the_highest_precision_mends_is_the_default_matmul_precision(tmp_path: Path) -> None:
    found = divergence.table(matrix(logits_tree(tmp_path, "passed")))
    (row,) = found.to_dict("records")
    assert row["case_id"] == "model::test_logits[1]" and row["label"] == divergence.PRECISION
    assert row["accelerator_outcome"].startswith("failed AssertionError: Not equal to tolerance")
    assert row["cpu_outcome"] == "passed" and row["highest_outcome"] == "passed"
    assert "JAX_DEFAULT_MATMUL_PRECISION=highest" in row["fix"]


def test_a_failure_the_highest_precision_does_not_mend_is_unexplained(tmp_path: Path) -> None:
    (row,) = divergence.table(matrix(logits_tree(tmp_path, "failed"))).to_dict("records")
    assert row["label"] == divergence.UNEXPLAINED
    assert row["highest_outcome"] == "failed AssertionError"


def test_the_status_stays_what_the_default_precision_gave(tmp_path: Path) -> None:
    results = matrix(logits_tree(tmp_path, "passed")).results
    assert results.loc[results["case_id"] == "model::test_logits[1]"].set_index("cell_id").at[GPU, "status"] == \
        "failed"


def test_cells_at_other_device_counts_are_not_compared(tmp_path: Path) -> None:
    shown = matrix(logits_tree(tmp_path, "passed", cpu_devices=8))
    assert divergence.table(shown).empty
    (line,) = divergence.unpaired(shown)
    assert "no CPU cell of the same pins at 1 device(s)" in line and "--backend cpu --devices 1" in line


def test_agreeing_cells_say_how_many_cases_they_compared(tmp_path: Path) -> None:
    gpu = [outcome(GPU, "test_gather[1]", "failed", "ShardingTypeError", backend="gpu")]
    cpu = [outcome(CPU, "test_gather[1]", "failed", "ShardingTypeError")]
    shown = matrix(tree(tmp_path, gpu, cpu, None))
    assert divergence.table(shown).empty
    assert divergence.compared(shown) == ["c1 (NVIDIA H200) against c2 (CPU) at 1 device: 1 cases compared, none "
                                          "divergent."]


def test_a_report_without_an_accelerator_has_no_such_section(tmp_path: Path) -> None:
    cpu = [outcome(CPU, "test_gather[1]", "passed")]
    tree(tmp_path, [], cpu, None)
    CellFiles(tmp_path, RUN, GPU).results.unlink()
    assert divergence.view(matrix(tmp_path)) is None


@pytest.mark.parametrize(("highest", "label"), [("passed", divergence.PRECISION), ("failed", divergence.UNEXPLAINED)])
def test_both_pages_show_the_divergence_with_its_cause(tmp_path: Path, highest: str, label: str) -> None:
    report = build_report(logits_tree(tmp_path, highest))
    markdown, html = report.markdown_path.read_text(), report.html_path.read_text()
    assert "## Accelerator vs CPU" in markdown and f"**{label}**" in markdown
    assert 'id="divergence"' in html and f"<strong>{label}</strong>" in html
    assert "Not equal to tolerance" in markdown and "Not equal to tolerance" in html


def test_a_re_run_of_a_failure_that_was_no_assertion_explains_nothing(tmp_path: Path) -> None:
    # The harness re-runs failed assertions only: a ValueError the file claims mended is not the precision's.
    gpu = [outcome(GPU, "test_logits[1]", "failed", "ValueError", backend="gpu")]
    cpu = [outcome(CPU, "test_logits[1]", "passed")]
    shown = matrix(tree(tmp_path, gpu, cpu, {"model::test_logits[1]": {"status": "passed", "error_type": None}}))
    (row,) = divergence.table(shown).to_dict("records")
    assert row["label"] == divergence.UNEXPLAINED and row["highest_outcome"] is None


@pytest.mark.parametrize(("cell", "settings"), [
    ("jax0.11.2-flax0.12.10-py3.12-cuda12-installed", {"JAX_DEFAULT_MATMUL_PRECISION": "highest"}),  # another's
    (GPU, {}),  # no precision recorded
    (GPU, {"JAX_DEFAULT_MATMUL_PRECISION": "default"}),  # at another precision
])
def test_a_re_run_file_that_is_not_this_cells_at_the_highest_precision_is_unexplained_and_unaccounted(
        tmp_path: Path, cell: str, settings: dict[str, str]) -> None:
    out = logits_tree(tmp_path, "passed")
    path = CellFiles(out, RUN, GPU).precision
    document = json.loads(path.read_text())
    path.write_text(json.dumps({**document, "cell_id": cell, "settings": settings}))
    shown = matrix(out)
    (row,) = divergence.table(shown).to_dict("records")
    assert row["label"] == divergence.UNEXPLAINED
    gpu = shown.cells[shown.cells["cell_id"] == GPU].iloc[0]
    assert any(f"{GPU}.precision.json" in line for line in gpu["unaccounted"])
    assert compat.verdicts(shown).set_index("cell_id").at[GPU, "verdict"] == compat.UNACCOUNTED
