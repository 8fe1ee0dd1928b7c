"""An accelerator cell's second look at its failed assertions: each runs once more at the highest matmul precision.

On a GPU, jax multiplies float32 matrices at the device's default precision (TF32 on Ampere and Hopper), so a test
that compares with a float32 reference at a tight tolerance can fail there and pass on the CPU: measured on an H200,
a LoRA trainer's two logits tests failed with 28-33 % of elements off by up to 0.02 at rtol = atol = 1e-3, and passed
with JAX_DEFAULT_MATMUL_PRECISION=highest. The re-run runs in a fresh pytest process, after the cell's own run, and
is recorded apart (harness.celldocuments.write_precision): never as an attempt, so the case keeps the status the default
precision gave it. The report reads it to name a divergence from the CPU "default matmul precision"
(reports.verdicts.divergence).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness import cellrecord, vocabulary
from harness.celldocuments import write_precision
from harness.cellrecord import CellFiles
from harness.host import celllog
from harness.host.matrix import Cell
from harness.host.runner import Job, run_pytest
from harness.results import read_records

#: The setting the re-run makes, over the cell's environment.
HIGHEST = (vocabulary.MATMUL_PRECISION_SETTING,)
#: What a failed tolerance check raises (numpy.testing's assert_allclose, a plain assert).
ASSERTION = vocabulary.ASSERTION


def candidates(finals: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The cases whose final record failed an assertion: those a lower matmul precision can explain."""
    return sorted(case_id for case_id, record in finals.items()
                  if vocabulary.is_precision_candidate(record.get("status"), record.get("error_type")))


def applies(cell: Cell, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the cell gets a re-run: an accelerator cell whose user did not choose the precision already (then the
    run was at their precision, and nothing is left to tell apart)."""
    environ = os.environ if environ is None else environ
    return cell.accelerated and "JAX_DEFAULT_MATMUL_PRECISION" not in environ


def rerun(cell: Cell, venv: Path, job: Job) -> list[str]:
    """Re-run the cell's failed assertions at the highest precision and record their outcomes beside its results
    (its log gets the re-run's output); the case ids re-run."""
    finals = cellrecord.final_records(read_records(job.files.results))
    chosen = candidates(finals)
    if not chosen:
        return []
    with tempfile.TemporaryDirectory(prefix="shardmatrix-precision-") as scratch:
        # Its records go to a scratch run of the same cell, so none of them is ever read as an attempt.
        files = CellFiles(Path(scratch), job.files.run_id, job.files.cell_id)
        settings = dataclasses.replace(job.settings, reruns=0, repeats=1)
        again = dataclasses.replace(job, files=files, settings=settings, workers=0, resume=False, verbose=False,
                                    left_out=(*job.left_out, *(a for c in chosen for a in ("--shardmatrix-only", c))),
                                    environment=(*job.environment, *HIGHEST))
        run_pytest(cell, venv, again)
        outcomes = cellrecord.final_records(read_records(files.results))
        celllog.append_to_log(job.files.log, "precision re-run",
                             f"{len(chosen)} failed assertion(s) re-run with "
                             f"{' '.join(f'{k}={v}' for k, v in HIGHEST)}\n")
        celllog.copy_into_log(job.files.log, files.log)
    write_precision(job.files.results, cell.id, dict(HIGHEST), {c: outcomes[c] for c in chosen if c in outcomes})
    return chosen
