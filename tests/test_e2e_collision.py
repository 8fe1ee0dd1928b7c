"""End to end: a project whose own top-level packages are named `reports` and `cases`, and whose tests folder is a
package named `tests`, runs its own modules in both cells of an upgrade, asked from inside the project with the
`shardmatrix` command (no --project). Before, every cell had the shardmatrix checkout on its path (an editable
install), and our `reports`, `cases` and `tests` answered the project's imports. Slow (two real cells): marked e2e.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "downstream"
OWN = "test_own_modules::test_the_projects_own_modules_answer"
OWN_TEST = '''import cases
import reports

import tests


def test_the_projects_own_modules_answer() -> None:
    assert (reports.ORIGIN, cases.ORIGIN, tests.ORIGIN) == ("tinytrainer",) * 3
'''


@pytest.mark.e2e
def test_a_projects_own_reports_cases_and_tests_answer_in_both_cells(tmp_path: Path) -> None:
    project = tmp_path / "tinytrainer"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    for package in ("reports", "cases", "tests"):
        (project / package).mkdir(exist_ok=True)
        (project / package / "__init__.py").write_text('ORIGIN = "tinytrainer"\n', encoding="utf-8")
    (project / "tests" / "test_own_modules.py").write_text(OWN_TEST, encoding="utf-8")
    out = tmp_path / "out"
    env = {**{k: v for k, v in os.environ.items() if k != "SHARDMATRIX_RUN_ID"}, "PYTHONPATH": str(ROOT)}
    # -P: as the installed `shardmatrix` script runs, without the folder it is run from first on the host's path.
    done = subprocess.run([sys.executable, "-P", "-m", "harness.tools.command", "upgrade", "jax==0.9.2", "--out",
                           str(out)],
                          cwd=project, env=env, capture_output=True, text=True, timeout=1500, check=False)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text[-3000:]  # UNSAFE: the gather case, as without the collisions
    assert "test_embed::TestEmbedding::test_lookup_gives_the_rows" in text
    finals: dict[str, dict[str, str]] = {}
    for results in out.glob("results/*/*.jsonl"):
        for line in results.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            finals.setdefault(record["cell_id"], {})[record["case_id"]] = record["status"]
    assert len(finals) == 2, text[-3000:]
    assert all(cases.get(OWN) == "passed" for cases in finals.values()), finals


@pytest.mark.e2e
def test_a_project_of_ranges_without_a_lock_answers_on_its_tests_from_the_baseline_named(tmp_path: Path) -> None:
    project = tmp_path / "tinytrainer"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("__pycache__", ".venv", "uv.lock"))
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('"jax==0.8.3", "flax==0.12.6"', '"jax>=0.8", "flax>=0.12"'), encoding="utf-8")
    env = {**{k: v for k, v in os.environ.items() if k != "SHARDMATRIX_RUN_ID"}, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-P", "-m", "harness.tools.command", "upgrade", "jax==0.9.2",
                           "--baseline", "jax==0.8.3,flax==0.12.6", "--out", str(tmp_path / "out")],
                          cwd=project, env=env, capture_output=True, text=True, timeout=1500, check=False)
    text = done.stdout + done.stderr
    assert done.returncode == 1 and "\nUNSAFE\n" in text, text[-3000:]
    assert "cases: test_embed::TestEmbedding::test_lookup_gives_the_rows\n" in text
