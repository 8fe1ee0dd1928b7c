"""harness/cell/quickexit.py through real pytest processes: with --shardmatrix-quick-exit the process ends with
pytest's exit status before pytest's cleanup and Python's teardown, its records written; without it, both run as
usual."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: A conftest whose atexit handler (registered before the plugin's, as jax's is) leaves a file when it runs, and
#: whose cleanup (where pytest >= 8.4 collects the whole heap a second time) leaves another.
CONFTEST = """
import atexit
from pathlib import Path

atexit.register(lambda: Path("torn_down").write_text("yes"))


def pytest_configure(config):
    config.add_cleanup(lambda: Path("cleaned_up").write_text("yes"))
"""

CASES = """
def test_holds():
    assert True


def test_breaks():
    assert False
"""


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (folder / "conftest.py").write_text(CONFTEST)
    (folder / "toy_cases.py").write_text(CASES)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "harness.cell.plugin", "toy_cases.py", "--shardmatrix-out",
         str(folder / "out"), "--shardmatrix-run", "r1", "--shardmatrix-cell", "c1", "--shardmatrix-devices", "0",
         "-p", "no:cacheprovider", "-q", *args],
        cwd=folder, capture_output=True, text=True, check=False)


def statuses(folder: Path) -> dict[str, str]:
    lines = (folder / "out" / "results" / "r1" / "c1.jsonl").read_text().splitlines()
    return {record["case_id"]: record["status"] for record in map(json.loads, lines)}


@pytest.mark.parametrize("quick", [True, False])
def test_the_exit_status_and_records_are_pytest_s_either_way(tmp_path: Path, quick: bool) -> None:
    done = run(tmp_path, *(["--shardmatrix-quick-exit"] if quick else []))
    assert done.returncode == 1, done.stdout[-500:]
    assert "1 failed, 1 passed" in done.stdout
    assert statuses(tmp_path) == {"toy_cases::test_holds": "passed", "toy_cases::test_breaks": "failed"}
    assert (tmp_path / "out" / "results" / "r1" / "c1.machine.json").is_file()


def test_with_quick_exit_pytest_s_cleanup_and_python_s_teardown_are_skipped(tmp_path: Path) -> None:
    run(tmp_path, "--shardmatrix-quick-exit")
    assert not (tmp_path / "torn_down").exists() and not (tmp_path / "cleaned_up").exists()


def test_without_quick_exit_pytest_cleans_up_and_python_tears_down(tmp_path: Path) -> None:
    run(tmp_path)
    assert (tmp_path / "torn_down").read_text() == "yes" and (tmp_path / "cleaned_up").read_text() == "yes"


def test_a_passing_session_exits_0_with_quick_exit(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text("")
    (tmp_path / "toy_cases.py").write_text("def test_holds():\n    assert True\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "harness.cell.plugin", "toy_cases.py", "--shardmatrix-out",
         str(tmp_path / "out"), "--shardmatrix-quick-exit", "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-500:]
