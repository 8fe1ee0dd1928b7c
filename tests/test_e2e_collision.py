"""End to end: a project whose own top-level packages are named `reports`, `harness` and `cases`, and whose tests
folder is a package named `tests`, runs its own modules in both cells of an upgrade, asked from inside the project with
the `shardmatrix` command (no --project). Before, every cell had the shardmatrix checkout on its path (an editable
install), and our `reports`, `cases` and `tests` answered the project's imports; then the plugin's own package, still
named `harness`, answered the project's `harness`. Slow (two real cells): marked e2e.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.collision_project import OWN, add_own_packages

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "downstream"
#: The one test of the fixture that jax 0.9.2 breaks (its gather needs out_sharding): every other one passes on both.
BROKEN = "test_embed::TestEmbedding::test_lookup_gives_the_rows"


@pytest.mark.e2e
def test_a_projects_own_reports_harness_cases_and_tests_answer_in_both_cells(tmp_path: Path) -> None:
    project = tmp_path / "tinytrainer"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    add_own_packages(project)
    out = tmp_path / "out"
    env = {**{k: v for k, v in os.environ.items() if k != "SHARDMATRIX_RUN_ID"}, "PYTHONPATH": str(ROOT)}
    # -P: as the installed `shardmatrix` script runs, without the folder it is run from first on the host's path.
    done = subprocess.run([sys.executable, "-P", "-m", "shardmatrix.command", "upgrade", "jax==0.9.2", "--out",
                           str(out)],
                          cwd=project, env=env, capture_output=True, text=True, timeout=1500, check=False)
    text = done.stdout + done.stderr
    assert done.returncode == 1 and "\nUNSAFE\n" in text, text[-3000:]  # the gather case, as without the collisions
    assert f"cases: {BROKEN}\n" in text
    finals: dict[str, dict[str, str]] = {}
    for results in out.glob("results/*/*.jsonl"):
        for line in results.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            finals.setdefault(record["cell_id"], {})[record["case_id"]] = record["status"]
    assert len(finals) == 2, text[-3000:]
    assert all(cases.get(OWN) == "passed" for cases in finals.values()), finals
    # The project's real tests ran on both sides: all pass but the one the new jax breaks, which only it fails.
    baseline, candidate = (finals[cell] for cell in sorted(finals, key=lambda cell: "0.9.2" in cell))
    assert len(baseline) > 2 and set(baseline.values()) == {"passed"}, baseline
    assert {case for case, status in candidate.items() if status != "passed"} == {BROKEN}, candidate


@pytest.mark.e2e
def test_a_project_of_ranges_without_a_lock_answers_on_its_tests_from_the_baseline_named(tmp_path: Path) -> None:
    project = tmp_path / "tinytrainer"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("__pycache__", ".venv", "uv.lock"))
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('"jax==0.8.3", "flax==0.12.6"', '"jax>=0.8", "flax>=0.12"'), encoding="utf-8")
    env = {**{k: v for k, v in os.environ.items() if k != "SHARDMATRIX_RUN_ID"}, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-P", "-m", "shardmatrix.command", "upgrade", "jax==0.9.2",
                           "--baseline", "jax==0.8.3,flax==0.12.6", "--out", str(tmp_path / "out")],
                          cwd=project, env=env, capture_output=True, text=True, timeout=1500, check=False)
    text = done.stdout + done.stderr
    assert done.returncode == 1 and "\nUNSAFE\n" in text, text[-3000:]
    assert "cases: test_embed::TestEmbedding::test_lookup_gives_the_rows\n" in text
