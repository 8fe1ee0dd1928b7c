"""Merge equals local: cells run as separate processes into separate folders (as one runner per cell on GitHub
Actions), merged into one results tree, give the report that one local run of the same cells gives.

Two real cells (the cached jax 0.4.38 pins, under two ids) run a small folder of real cases, so this stays quick.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from matrix_factory import cell_toml, matrix_toml

ROOT = Path(__file__).resolve().parent.parent
RUN = "20260101T000000Z-merge"

MATRIX = matrix_toml(
    cell_toml("0.4.38", "0.10.2", "3.11", id="first"),
    cell_toml("0.4.38", "0.10.2", "3.11", id="second", devices=2),
)

CASES = """
import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def test_rows_shard_over_every_device():
    mesh = Mesh(np.array(jax.devices()), ("x",))
    table = jax.device_put(np.arange(16.0).reshape(8, 2), NamedSharding(mesh, P("x", None)))
    assert len(table.addressable_shards) == jax.device_count()


def test_expects_eight_devices():
    assert jax.device_count() == 8
"""

#: Columns that differ between any two runs of the same cases: timings, and when and where a record was made.
VOLATILE = ("duration_s", "compile_s", "execute_s", "timestamp", "source", "line")


def nox(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SHARDMATRIX_RUN_ID"}
    env["SHARDMATRIX_MATRIX"] = str(folder / "matrix.toml")
    return subprocess.run([sys.executable, "-m", "nox", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900, check=False)


def merge(sources: list[Path], target: Path) -> None:
    """The documented merge: every runner's results/ tree copied into one (what download-artifact does in CI)."""
    for source in sources:
        shutil.copytree(source / "results", target / "results", dirs_exist_ok=True)


def csv_rows(out: Path) -> list[dict[str, str]]:
    with (out / "report" / "results.csv").open(newline="") as handle:
        return [{k: v for k, v in row.items() if k not in VOLATILE} for row in csv.DictReader(handle)]


def markdown(out: Path) -> str:
    text = (out / "report" / "matrix.md").read_text()
    return re.sub(r"\d+\.\d+", "<n>", text)  # timings


#: What each cell's own nox run printed (stdout and stderr), by cell id.
TERMINAL: dict[str, str] = {}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("merge")
    (folder / "matrix.toml").write_text(MATRIX)
    (folder / "cases").mkdir()
    (folder / "cases" / "test_merge_cases.py").write_text(CASES)
    cases = ["--cases", str(folder / "cases"), "--run-id", RUN]
    local = nox(folder, "-s", "matrix", "--", "--out", str(folder / "local"), *cases)
    assert (folder / "local" / "report" / "results.csv").exists(), local.stdout[-3000:] + local.stderr[-3000:]
    for cell in ("first", "second"):
        done = nox(folder, "-s", f"cell({cell})", "--", "--out", str(folder / f"runner-{cell}"), *cases)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        TERMINAL[cell] = done.stdout + done.stderr
    merge([folder / "runner-first", folder / "runner-second"], folder / "merged")
    report = nox(folder, "-s", "report", "--", "--out", str(folder / "merged"))
    assert report.returncode == 0, report.stdout[-3000:] + report.stderr[-3000:]
    return folder / "local", folder / "merged"


@pytest.mark.e2e
def test_merged_results_csv_equals_the_local_runs(runs: tuple[Path, Path]) -> None:
    local, merged = runs
    rows = csv_rows(local)
    assert {r["cell"] for r in rows} == {"first", "second"} and len(rows) == 4
    assert {(r["cell"], r["status"]) for r in rows if r["case"].endswith("eight_devices")} == {
        ("first", "passed"), ("second", "failed")}
    assert csv_rows(merged) == rows


@pytest.mark.e2e
def test_merged_matrix_md_equals_the_local_runs(runs: tuple[Path, Path]) -> None:
    local, merged = runs
    assert markdown(merged) == markdown(local)


@pytest.mark.e2e
def test_a_cell_with_a_failing_case_prints_its_progress_line_and_no_traceback(runs: tuple[Path, Path]) -> None:
    terminal = TERMINAL["second"]  # 2 devices: test_expects_eight_devices fails
    assert re.search(r"^second: 2/2 cases, \d+ s: 1 passed, 1 failed \(log: .*second\.log\)$", terminal, re.MULTILINE)
    assert "Traceback" not in terminal and "device_count() == 8" not in terminal
    log = next((runs[0].parent / "runner-second" / "results").glob("*/second.log"))
    assert "device_count() == 8" in log.read_text()  # the failure is in the log
