"""End to end: `nox -s matrix` on a small matrix builds real uv envs with real jax/flax and writes the report.

One real cell runs the whole shipped corpus; two more cells cannot be built (an unsatisfiable pin, an absent
interpreter) and must still appear in the report as install_error rows.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REAL_CELL = "jax0.4.38-flax0.10.2-py3.11"

MATRIX = """
[[cell]]
jax = "0.4.38"
jaxlib = "0.4.38"
flax = "0.10.2"
python = "3.11"

[[cell]]
id = "unsatisfiable"
jax = "0.4.38"
jaxlib = "0.4.38"
flax = "0.12.12"
python = "3.11"

[[cell]]
id = "no-interpreter"
jax = "0.12.0.1"
jaxlib = "0.12.0.1"
flax = "0.12.12"
python = "3.99"
"""

FAMILIES = {"partitioned_metadata", "nnx_sharded_merge", "vmap_param_shapes", "shard_map_modes", "sharded_gathers"}

# A downstream project's own plain pytest file, run beside the corpus with --cases.
DOWNSTREAM = """
import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def test_lora_table_shards_over_eight_devices():
    mesh = Mesh(np.array(jax.devices()), ("model",))
    table = jax.device_put(np.arange(64.0).reshape(16, 4), NamedSharding(mesh, P("model", None)))
    assert len(table.addressable_shards) == 8
    np.testing.assert_array_equal(np.asarray(table), np.arange(64.0).reshape(16, 4))


def test_downstream_expectation_that_breaks():
    assert jax.device_count() == 3
"""


@pytest.fixture(scope="module")
def matrix_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    folder = tmp_path_factory.mktemp("e2e")
    (folder / "matrix.toml").write_text(MATRIX)
    (folder / "downstream").mkdir()
    (folder / "downstream" / "test_mine.py").write_text(DOWNSTREAM)
    env = {k: v for k, v in os.environ.items() if k != "SHARDMATRIX_RUN_ID"}
    env["SHARDMATRIX_MATRIX"] = str(folder / "matrix.toml")
    done = subprocess.run(
        [sys.executable, "-m", "nox", "-s", "matrix", "--", "--out", str(folder / "out"), "--run-id", "e2e",
         "--cases", "builtin", "--cases", str(folder / "downstream")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800, check=False,
    )
    return done, folder / "out"


def rows(out: Path) -> list[dict[str, str]]:
    with (out / "report" / "results.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.e2e
def test_matrix_writes_all_report_files(matrix_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    done, out = matrix_run
    assert (out / "results" / "e2e" / f"{REAL_CELL}.jsonl").exists(), done.stdout[-3000:] + done.stderr[-3000:]
    for name in ("matrix.html", "matrix.md", "results.csv"):
        assert (out / "report" / name).stat().st_size > 0, name
    html = (out / "report" / "matrix.html").read_text()
    # Self-contained: nothing loads from elsewhere. A URL in a record's text (a known breakage's link, on hover)
    # is only text.
    assert not re.search(r"""\b(?:src|href)=["']?(?:https?:)?//""", html)
    assert "url(" not in html and "@import" not in html


@pytest.mark.e2e
def test_real_cell_runs_every_family_with_real_versions(
    matrix_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, out = matrix_run
    real = [r for r in rows(out) if r["cell"] == REAL_CELL]
    assert {r["family"] for r in real} == FAMILIES | {"test_mine"}
    assert {r["jax"] for r in real} == {"0.4.38"} and {r["flax"] for r in real} == {"0.10.2"}
    assert {r["device_count"] for r in real if r["status"] == "passed"} == {"8"}
    assert sum(r["status"] == "passed" for r in real) >= 5
    for record in real:
        if record["status"] == "not_applicable":
            assert record["reason"], record["case"]  # the missing API is named


@pytest.mark.e2e
def test_downstream_cases_run_beside_the_corpus(matrix_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = matrix_run
    mine = {r["case"]: r for r in rows(out) if r["cell"] == REAL_CELL and r["family"] == "test_mine"}
    assert mine["test_mine::test_lora_table_shards_over_eight_devices"]["status"] == "passed"
    assert mine["test_mine::test_downstream_expectation_that_breaks"]["status"] == "failed"
    assert mine["test_mine::test_downstream_expectation_that_breaks"]["error_type"] == "AssertionError"


@pytest.mark.e2e
def test_unbuildable_cells_are_rows_of_install_error(matrix_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, out = matrix_run
    by_cell: dict[str, list[dict[str, str]]] = {}
    for row in rows(out):
        by_cell.setdefault(row["cell"], []).append(row)
    real_cases = {r["case"] for r in by_cell[REAL_CELL]}
    for ghost, text in (("unsatisfiable", "Because"), ("no-interpreter", "python3.99 not found")):
        assert {r["status"] for r in by_cell[ghost]} == {"install_error"}
        assert text in by_cell[ghost][0]["error_message"]
        assert {r["case"].split("[")[0] for r in by_cell[ghost]} == {c.split("[")[0] for c in real_cases}


@pytest.mark.e2e
def test_matrix_exit_status_flags_unbuildable_cells(matrix_run: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    done, _ = matrix_run
    assert done.returncode != 0
    assert "install_error" in done.stdout + done.stderr
