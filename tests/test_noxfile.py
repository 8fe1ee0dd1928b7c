"""The noxfile, loaded by nox itself: one session per cell, and a bad matrix stops everything in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.host import matrix

ROOT = Path(__file__).resolve().parent.parent


def nox(*args: str, matrix_file: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if matrix_file is not None:
        env["SHARDMATRIX_MATRIX"] = str(matrix_file)
    return subprocess.run([sys.executable, "-m", "nox", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False)


def test_one_cell_session_per_matrix_cell_plus_matrix_report_tests() -> None:
    listed = json.loads(nox("-l", "--json", "-s", "matrix", "report", "tests").stdout)
    names = {session["session"] for session in listed}
    cells = matrix.load(ROOT / "matrix.toml")
    assert {f"cell({c.id})" for c in cells} <= names
    assert {"matrix", "report", "tests"} <= names


def test_bad_matrix_stops_before_any_session_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "matrix.toml"
    bad.write_text('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\ncolour="red"\n')
    done = nox("-l", matrix_file=bad)
    assert done.returncode != 0
    assert f"shardmatrix: {bad}:1: cell #1: unknown key 'colour'" in done.stderr
