"""The wheel, installed outside any checkout: `shardmatrix` runs, and finds the corpus and the matrix it carries."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_reports_cli import CELL, RUN, record, write_run

ROOT = Path(__file__).resolve().parent.parent
UV = shutil.which("uv")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv outside the checkout with the built wheel (and its report extra) installed: its bin folder."""
    if UV is None:
        pytest.skip("uv is not on PATH")
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run([UV, "build", "--wheel", "--out-dir", str(folder / "dist"), str(ROOT)], check=True,
                   capture_output=True)
    (wheel,) = (folder / "dist").glob("shardmatrix-*.whl")
    subprocess.run([UV, "venv", "--quiet", str(folder / "venv")], check=True, capture_output=True)
    subprocess.run([UV, "pip", "install", "--quiet", "--python", str(folder / "venv" / "bin" / "python"),
                    f"shardmatrix[report] @ {wheel.as_uri()}"], check=True, capture_output=True)
    return folder / "venv" / "bin"


def outside(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run as a user would, away from the checkout: no PYTHONPATH, no venv of ours active."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_the_command_and_its_subcommands_answer_help(installed: Path, tmp_path: Path) -> None:
    done = outside([str(installed / "shardmatrix"), "--help"], tmp_path)
    assert done.returncode == 0 and "upgrade" in done.stdout, done.stderr
    done = outside([str(installed / "shardmatrix"), "upgrade", "--help"], tmp_path)
    assert done.returncode == 0 and "--baseline" in done.stdout, done.stderr


def test_it_reports_a_stored_run(installed: Path, tmp_path: Path) -> None:
    write_run(tmp_path, json.dumps(record()), json.dumps(record(case_id="fam::b", status="failed")))
    done = outside([str(installed / "shardmatrix"), "report", "--out", str(tmp_path), "--run", RUN], tmp_path)
    assert done.returncode == 0, done.stderr
    assert CELL in done.stdout and (tmp_path / "report" / "matrix.html").exists()


def test_the_corpus_and_the_matrix_come_from_inside_the_installed_package(installed: Path, tmp_path: Path) -> None:
    probe = ("from harness.host import corpus, plan, matrix\n"
             "paths = corpus.case_paths(['builtin'])\n"
             "inside = all('site-packages' in str(p) for p in paths)\n"
             "print(len(paths), inside, len(matrix.load(plan.default_matrix())))\n"
             "print(len(corpus.known_breakage_files(['builtin'])))\n")
    done = outside([str(installed / "python"), "-c", probe], tmp_path)
    assert done.returncode == 0, done.stderr
    files, inside, cells = done.stdout.split()[:3]
    assert int(files) == len([p for p in (ROOT / "cases").glob("*.py") if not p.name.startswith("_")])
    assert inside == "True" and int(cells) > 0
    assert done.stdout.split()[3] == "1"


def test_a_bad_option_is_one_line_from_the_installed_command(installed: Path, tmp_path: Path) -> None:
    done = outside([str(installed / "shardmatrix"), "upgrade", "jax==0.9.0", "--cases", str(tmp_path / "none")],
                   tmp_path)
    assert done.returncode == 64 and done.stderr.strip().count("\n") == 0, done.stderr
    assert "--cases" in done.stderr and "no such folder" in done.stderr


@pytest.mark.e2e
def test_from_inside_a_project_an_upgrade_needs_no_clone_and_no_project_option(installed: Path,
                                                                                tmp_path: Path) -> None:
    # Issue 25's first promise: the wheel alone, run inside a copy of tests/downstream, answers on its own tests.
    from test_e2e_project import FIXTURE, GATHER, GATHER_WITH_OUT_SHARDING

    project = tmp_path / "trainer"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "SHARDMATRIX_RUN_ID")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # its venvs and locks, away from any checkout's .nox

    def upgrade() -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(installed / "shardmatrix"), "upgrade", "jax==0.9.2", "--out", str(tmp_path / "out")],
                              cwd=project, env=env, capture_output=True, text=True, timeout=1500, check=False)

    unsafe = upgrade()
    text = unsafe.stdout + unsafe.stderr
    assert unsafe.returncode == 1 and "\nUNSAFE\n" in text, text[-3000:]
    assert "cases: test_embed::TestEmbedding::test_lookup_gives_the_rows\n" in text
    assert "Regressions (passing → broken): 1 case(s)" in text
    assert (tmp_path / "cache" / "shardmatrix").is_dir()
    embed = project / "src" / "tinytrainer" / "embed.py"
    fixed = embed.read_text(encoding="utf-8").replace("import jax\n", "import functools\n\nimport jax\n", 1)
    embed.write_text(fixed.replace(GATHER, GATHER_WITH_OUT_SHARDING), encoding="utf-8")
    safe = upgrade()
    assert safe.returncode == 0 and "\nSAFE\n" in safe.stdout, (safe.stdout + safe.stderr)[-3000:]
