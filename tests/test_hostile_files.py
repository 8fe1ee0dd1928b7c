"""tests/hostile_files.py: each generator's defective files are refused or answered no better than their evidence by
the one reader of that file (harness.results) and the verdicts over it, and its sound files are accepted, so the
property test that wires them in (tests/test_no_verdict_better_than_evidence.py) starts from generators that mean
what they say."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from tempfile import TemporaryDirectory

import hostile_files
from compare_fakes import compare, frame
from hostile_files import Hostile, Sides
from hypothesis import given, settings
from record_factory import RUN, collected, record

from harness import cellrecord
from reports.data.load import load
from reports.data.tables import Matrix, build_matrix
from reports.verdicts import compat, divergence
from reports.verdicts.compare import SAFE, UNSAFE

CPU = "jax0.11.2-flax0.12.10-py3.12-installed"
GPU = "jax0.11.2-flax0.12.10-py3.12-cuda13-installed"
CASE = "model::test_logits"
#: Enough draws to meet every file of each small sampled set.
DRAWS = 60


def _cell(out: Path, cell: str, status: str, backend: str, error: str | None = None) -> Path:
    path = cellrecord.CellFiles(out, RUN, cell).results
    path.parent.mkdir(parents=True, exist_ok=True)
    line = record(jax="0.11.2", flax="0.12.10", python="3.12", cell_id=cell, case_id=CASE, family="model",
                  status=status, error_type=error, backend=backend, device_count=1,
                  device_kind="NVIDIA H200" if backend == "gpu" else "cpu")
    path.write_text(json.dumps(line) + "\n")
    collected(path)
    cellrecord.CellFiles.of(path).done.write_text(json.dumps({"cell_id": cell}))
    cellrecord.CellFiles.of(path).freeze.write_text("flax==0.12.10\njax==0.11.2\njaxlib==0.11.2\n")
    return path


def _matrix(out: Path) -> Matrix:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = load(out / "results")
    return build_matrix(loaded.records, loaded.cells)


@settings(max_examples=DRAWS, deadline=None)
@given(hostile=hostile_files.precision_files(GPU, [CASE]))
def test_only_a_sound_precision_file_names_a_divergence_default_matmul_precision(hostile: Hostile) -> None:
    with TemporaryDirectory() as folder:
        out = Path(folder)
        _cell(out, CPU, "passed", "cpu")
        hostile.write(_cell(out, GPU, "failed", "gpu", error="AssertionError"))
        shown = _matrix(out)
        (row,) = divergence.table(shown).to_dict("records")
        explained = hostile.sound and hostile.text is not None
        assert (row["label"] == divergence.PRECISION) == explained, hostile.defect
        gpu = compat.verdicts(shown).set_index("cell_id").loc[GPU]
        assert (gpu["verdict"] == compat.UNACCOUNTED) == (not hostile.sound), hostile.defect


@settings(max_examples=DRAWS, deadline=None)
@given(hostile=hostile_files.machine_files(CPU, "0.11.2", "0.11.2", backend="cpu", device_kind="cpu"))
def test_no_cell_reads_works_on_a_machine_file_that_disagrees(hostile: Hostile) -> None:
    with TemporaryDirectory() as folder:
        out = Path(folder)
        hostile.write(_cell(out, CPU, "passed", "cpu"))
        verdict = compat.verdicts(_matrix(out))["verdict"].iloc[0]
        assert (verdict == compat.WORKS) == hostile.sound, (hostile.defect, verdict)


@settings(max_examples=DRAWS, deadline=None)
@given(hostile=hostile_files.collection_files(CPU, [CASE]))
def test_no_cell_reads_works_on_a_collection_that_is_not_its_own_and_whole(hostile: Hostile) -> None:
    with TemporaryDirectory() as folder:
        out = Path(folder)
        hostile.write(_cell(out, CPU, "passed", "cpu"))
        verdict = compat.verdicts(_matrix(out))["verdict"].iloc[0]
        assert (verdict == compat.WORKS) == (hostile.defect == ""), (hostile.defect, verdict)


def _sides(sides: Sides) -> tuple[list[tuple[str, str, dict[str, object]]], ...]:
    steady: list[tuple[str, str, dict[str, object]]] = [(case.partition("::")[2], "passed", {})
                                                         for case in sides.steady]
    before = {key: value for key, value in sides.before.items() if key != "status"}
    after = {key: value for key, value in sides.after.items() if key != "status"}
    return ([*steady, ("x", sides.before["status"], before)], [*steady, ("x", sides.after["status"], after)])


@settings(max_examples=DRAWS, deadline=None)
@given(sides=hostile_files.one_sided_sides())
def test_a_case_judged_by_neither_side_is_never_a_plain_safe_and_never_silent(sides: Sides) -> None:
    found = compare(frame(*_sides(sides)), "r1", "r2")
    assert found.coverage and found.verdict in (SAFE, UNSAFE)
    listed = {*found.left_out["case_id"], *found.not_applicable["case_id"]}
    assert "fam::x" in listed and found.removed.empty


@settings(max_examples=10, deadline=None)
@given(sides=hostile_files.strict_xpass_sides())
def test_a_strict_xfail_passing_on_the_candidate_is_a_regression_and_its_decoy_is_not(sides: Sides) -> None:
    found = compare(frame(*_sides(sides)), "r1", "r2")
    assert (found.verdict == UNSAFE) == sides.regression
    assert ("fam::x" in set(found.regressions["case_id"])) == sides.regression
