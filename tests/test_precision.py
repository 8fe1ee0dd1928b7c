"""harness.host.precision: an accelerator cell's failed assertions re-run once at the highest matmul precision,
recorded apart from the cell's records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.celldocuments import read_precision, write_collection
from harness.cellrecord import CellFiles
from harness.host import cache, cellrun, matrix, precision
from harness.host.runner import Job
from harness.results import read_cell
from tests.record_factory import record

GPU_CELL = matrix.parse('[[cell]]\njax="0.11.2"\njaxlib="0.11.2"\nflax="0.12.10"\npython="3.12"\nbackend="cuda13"\n')[0]
CPU_CELL = matrix.parse('[[cell]]\njax="0.11.2"\njaxlib="0.11.2"\nflax="0.12.10"\npython="3.12"\n')[0]
SETTINGS = cache.Settings(devices=0, backend="cuda13", timeout=60.0, reruns=2, hard_grace=10.0, repeats=3)


def write(files: CellFiles, *records: dict) -> None:
    files.results.parent.mkdir(parents=True, exist_ok=True)
    files.results.write_text("".join(json.dumps(r) + "\n" for r in records))
    write_collection(files.results, files.cell_id, sorted({r["case_id"] for r in records}))


class FakePytest:
    """run_pytest as the re-run sees it: the cases named by --shardmatrix-only pass where the environment asks for the
    highest precision (as a TF32 tolerance failure does) unless listed in `still_failing`."""

    def __init__(self, still_failing: tuple[str, ...] = ()) -> None:
        self.still_failing, self.jobs = still_failing, []

    def __call__(self, cell: matrix.Cell, venv: Path, job: Job) -> int:
        self.jobs.append(job)
        args = list(job.left_out)
        only = [args[i + 1] for i, arg in enumerate(args) if arg == "--shardmatrix-only"]
        highest = dict(job.environment).get("JAX_DEFAULT_MATMUL_PRECISION") == "highest"
        outcomes = [record(case_id=case, run_id=job.files.run_id, cell_id=job.files.cell_id,
                           status="passed" if highest and case not in self.still_failing else "failed",
                           error_type=None if highest and case not in self.still_failing else "AssertionError")
                    for case in only]
        write(job.files, *outcomes)
        job.files.log.write_text("re-run output\n")
        return 0


@pytest.fixture
def gpu_run(tmp_path: Path) -> tuple[CellFiles, Job]:
    files = CellFiles(tmp_path / "out", "20261126T053704Z-h200", GPU_CELL.id)
    ids = dict(run_id=files.run_id, cell_id=files.cell_id)
    write(files,
          record(case_id="m::test_logits[1]", status="failed", error_type="AssertionError", **ids),
          record(case_id="m::test_logits[2]", status="not_applicable", devices_needed=2, **ids),
          record(case_id="m::test_gather[1]", status="failed", error_type="ShardingTypeError", **ids),
          record(case_id="m::test_step[1]", status="passed", **ids))
    files.log.write_text("the cell's own output\n")
    return files, Job(files=files, paths=(tmp_path / "tests",), known=(), settings=SETTINGS, workers=8)


def test_only_failed_assertions_are_candidates() -> None:
    finals = {"a": {"status": "failed", "error_type": "AssertionError"},
              "b": {"status": "failed", "error_type": "ShardingTypeError"},
              "c": {"status": "passed", "error_type": None},
              "d": {"status": "error", "error_type": "AssertionError"}}
    assert precision.candidates(finals) == ["a"]


def test_an_accelerator_cell_is_re_run_unless_the_user_chose_the_precision() -> None:
    assert precision.applies(GPU_CELL, {})
    assert not precision.applies(GPU_CELL, {"JAX_DEFAULT_MATMUL_PRECISION": "high"})
    assert not precision.applies(CPU_CELL, {})


def test_the_re_run_runs_only_failed_assertions_at_the_highest_precision_once(
        gpu_run: tuple[CellFiles, Job], monkeypatch: pytest.MonkeyPatch) -> None:
    files, job = gpu_run
    fake = FakePytest()
    monkeypatch.setattr(precision, "run_pytest", fake)
    before = files.results.read_text()
    assert precision.rerun(GPU_CELL, Path("venv"), job) == ["m::test_logits[1]"]
    (again,) = fake.jobs
    assert dict(again.environment) == {"JAX_DEFAULT_MATMUL_PRECISION": "highest"}
    # One fresh process, no retries: a retry would be an attempt the status could be read from.
    assert (again.workers, again.settings.reruns, again.settings.repeats) == (0, 0, 1)
    assert again.files.out != files.out
    # The cell's records are untouched: the case keeps the status the default precision gave it.
    assert files.results.read_text() == before
    assert read_cell(files.results).finals()["m::test_logits[1]"]["status"] == "failed"
    assert read_precision(files.results) == {
        "m::test_logits[1]": {"status": "passed", "error_type": None, "error_message": None}}
    assert "re-run output" in files.log.read_text() and "JAX_DEFAULT_MATMUL_PRECISION=highest" in files.log.read_text()


def test_no_failed_assertion_means_no_re_run_and_no_file(gpu_run: tuple[CellFiles, Job],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    files, job = gpu_run
    write(files, record(case_id="m::test_step[1]", status="passed", run_id=files.run_id, cell_id=files.cell_id))
    fake = FakePytest()
    monkeypatch.setattr(precision, "run_pytest", fake)
    assert precision.rerun(GPU_CELL, Path("venv"), job) == []
    assert fake.jobs == [] and not files.precision.exists()


def test_a_re_run_that_still_fails_is_recorded_as_failing(gpu_run: tuple[CellFiles, Job],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    files, job = gpu_run
    monkeypatch.setattr(precision, "run_pytest", FakePytest(still_failing=("m::test_logits[1]",)))
    precision.rerun(GPU_CELL, Path("venv"), job)
    assert read_precision(files.results)["m::test_logits[1]"]["status"] == "failed"


@pytest.mark.parametrize(("cell", "reruns"), [(GPU_CELL, 1), (CPU_CELL, 0)])
def test_a_cell_run_re_runs_on_an_accelerator_only(cell: matrix.Cell, reruns: int, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAX_DEFAULT_MATMUL_PRECISION", raising=False)
    seen = []
    monkeypatch.setattr(cellrun, "run_pytest", lambda cell, venv, job: 0)
    monkeypatch.setattr(precision, "rerun", lambda cell, venv, job: seen.append(cell.id))
    files = CellFiles(tmp_path, "20261126T053704Z-h200", cell.id)
    job = Job(files=files, paths=(), known=(), settings=SETTINGS)
    cellrun.run(cell, tmp_path / "venv", job, [], build=False, say=lambda line: None)
    assert len(seen) == reruns
