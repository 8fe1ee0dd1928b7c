from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from matrix_factory import cell_toml, matrix_toml

from harness import outputs
from harness.host import matrix, plan

ROOT = Path(__file__).resolve().parent.parent

CELLS = matrix.parse(matrix_toml(
    cell_toml("0.8.3", "0.12.3", "3.11"),
    cell_toml("0.4.38", "0.10.2", "3.11"),
    cell_toml("0.12.0.1", "0.12.12", "3.12"),
    cell_toml("0.12.0.1", "0.12.12", "3.12", backend="cuda13"),
) + 'default = false\n')


def run_plan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.host.plan", *args], cwd=ROOT, capture_output=True, text=True,
                          check=False)


def test_plan_command_emits_every_default_and_accelerator_cell_with_its_nox_session() -> None:
    done = run_plan()
    assert done.returncode == 0, done.stderr
    entries = json.loads(done.stdout)
    cells = [c for c in matrix.load(ROOT / "matrix.toml") if c.default or c.accelerated]
    assert [e["cell"] for e in entries] == [c.id for c in cells]
    for entry, cell in zip(entries, cells, strict=True):
        assert entry == {"schema_version": outputs.PLAN.version, "cell": cell.id, "session": f"cell({cell.id})",
                         "python": cell.python, "backend": cell.backend}
    listed = json.loads(subprocess.run([sys.executable, "-m", "nox", "-l", "--json"], cwd=ROOT, capture_output=True,
                                       text=True, check=True).stdout)
    assert {e["session"] for e in entries} <= {s["session"] for s in listed}


def test_plan_command_refuses_an_unknown_backend_in_one_line() -> None:
    done = run_plan("--backend", "rocm")
    assert done.returncode == 64 and done.stdout == ""
    assert done.stderr.strip() == "shardmatrix: --backend 'rocm' is not a backend (known: cpu, cuda12, cuda13, tpu)"


def test_plan_command_treats_empty_and_all_inputs_as_no_filter() -> None:
    assert json.loads(run_plan("--cells", "", "--backend", "all").stdout) == json.loads(run_plan().stdout)


def test_backend_filter_keeps_only_that_backend() -> None:
    assert [e["cell"] for e in plan.plan(CELLS, backends=["cuda13"])] == ["jax0.12.0.1-flax0.12.12-py3.12-cuda13"]


def test_no_backend_filter_keeps_every_backend() -> None:
    assert len(plan.plan(CELLS)) == len(CELLS)


def test_a_cpu_cell_outside_the_default_set_is_planned_only_when_named() -> None:
    optional = matrix.parse(matrix_toml(cell_toml("0.8.3", "0.12.3", "3.11")) + "default = false\n") + CELLS[1:2]
    assert [e["cell"] for e in plan.plan(optional)] == ["jax0.4.38-flax0.10.2-py3.11"]
    assert [e["cell"] for e in plan.plan(optional, ["jax0.8.3*"])] == ["jax0.8.3-flax0.12.3-py3.11"]


@pytest.mark.parametrize(("glob", "backend"), [("*cuda12*", "cuda12"), ("*cuda13*", "cuda13"), ("*-tpu", "tpu")])
def test_plan_command_lists_the_shipped_accelerator_cells_by_glob(glob: str, backend: str) -> None:
    done = run_plan("--cells", glob)
    assert done.returncode == 0, done.stderr
    entries = json.loads(done.stdout)
    assert [e["backend"] for e in entries] == [backend] and entries[0]["cell"].endswith(f"-{backend}")
    assert entries[0]["session"] == f"cell({entries[0]['cell']})"


def test_an_accelerator_cell_is_left_out_saying_so_while_its_switch_is_off() -> None:
    done = run_plan("--runner", "cpu=ubuntu-latest")
    assert done.returncode == 0, done.stderr
    assert {e["backend"] for e in json.loads(done.stdout)} == {"cpu"}
    assert sorted(line.rsplit(" ", 1)[-1] for line in done.stderr.splitlines()) == ["cuda12", "cuda13", "tpu"]
    switched_on = run_plan("--runner", "cpu=ubuntu-latest", "--runner", "cuda13=gpu-box")
    assert [e["cell"] for e in json.loads(switched_on.stdout) if e["runner"] == "gpu-box"] == [
        "jax0.11.2-flax0.12.10-py3.12-cuda13"]


def test_smoke_is_the_oldest_and_newest_cpu_cell() -> None:
    assert [e["cell"] for e in plan.plan(CELLS, small=True)] == [
        "jax0.4.38-flax0.10.2-py3.11", "jax0.12.0.1-flax0.12.12-py3.12"]


def test_smoke_of_one_cell_is_that_cell() -> None:
    assert [e["cell"] for e in plan.plan(CELLS, ["jax0.8.3*"], small=True)] == ["jax0.8.3-flax0.12.3-py3.11"]


def test_a_glob_matching_no_cell_is_an_error() -> None:
    with pytest.raises(matrix.MatrixError, match="matches no cell"):
        plan.plan(CELLS, ["jax9*"])


def test_a_glob_of_other_backends_cells_gives_an_empty_plan() -> None:
    assert plan.plan(CELLS, ["*cuda13"], ["cpu"]) == []


def test_place_gives_each_entry_its_backends_runner() -> None:
    placed, left = plan.place(plan.plan(CELLS), {"cpu": "ubuntu-latest", "cuda13": "gpu-h100"})
    assert {e["runner"] for e in placed} == {"ubuntu-latest", "gpu-h100"} and left == []


def test_place_leaves_out_a_backend_without_a_runner() -> None:
    placed, left = plan.place(plan.plan(CELLS), {"cpu": "ubuntu-latest", "cuda13": ""})
    assert [e["backend"] for e in placed] == ["cpu"] * 3
    assert left == ["jax0.12.0.1-flax0.12.12-py3.12-cuda13: left out, no runner for backend cuda13"]


def test_plan_command_with_runners_labels_the_default_cells() -> None:
    done = run_plan("--runner", "cpu=ubuntu-latest", "--runner", "cuda12=", "--runner", "tpu=")
    assert done.returncode == 0, done.stderr
    assert {e["runner"] for e in json.loads(done.stdout)} == {"ubuntu-latest"}


def test_an_abbreviated_or_unknown_option_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    # argparse alone took `--cell` as `--cells`: a workflow's typo must not select cells by a guess.
    assert plan.main(["--cell", "jax0.4*"]) == 64
    assert capsys.readouterr().err.strip() == ("shardmatrix: python -m harness.host.plan: unknown option --cell "
                                               "(did you mean --cells?)")


def test_a_runner_with_its_backend_places_its_cells(capsys: pytest.CaptureFixture[str]) -> None:
    assert plan.main(["--runner", "cpu=ubuntu-latest", "--smoke"]) == 0
    assert {entry["runner"] for entry in json.loads(capsys.readouterr().out)} == {"ubuntu-latest"}


def test_a_malformed_runner_says_so_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert plan.main(["--runner", "gpu-runner"]) == 64
    assert capsys.readouterr().err == ("shardmatrix: --runner 'gpu-runner': expected BACKEND=LABEL "
                                       "(cuda12=gpu-runner)\n")
