"""The noxfile, loaded by nox itself: one session per cell, and a bad matrix stops everything in one line."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_a_misspelt_option_ends_the_session_in_one_line_before_anything_runs() -> None:
    # Before, `--timout 5` went to the report builder's arguments and the cell ran with the default 300 s limit.
    first = matrix.load(ROOT / "matrix.toml")[0]
    done = nox("--no-venv", "-s", f"cell({first.id})", "--", "--timout", "5")
    said = done.stdout + done.stderr  # a cell session runs in a child of nox (-j), which prints to stdout
    assert done.returncode == 1
    assert f"nox -s cell({first.id}): unknown option --timout (did you mean --timeout?)" in said
    assert "pytest" not in said and ".jsonl" not in said  # no install, no run, no progress line


def test_a_cell_outside_the_default_set_is_skipped_unless_named_saying_how_to_name_it() -> None:
    optional = next(c for c in matrix.load(ROOT / "matrix.toml") if not c.default)
    done = nox("--no-venv", "-s", f"cell({optional.id})")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "outside the default set: name it with --cells" in done.stdout + done.stderr


def test_a_default_cell_another_glob_names_is_skipped_as_not_selected() -> None:
    first = matrix.load(ROOT / "matrix.toml")[0]
    done = nox("--no-venv", "-s", f"cell({first.id})", "--", "--cells", "*-cuda13")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "not selected by --cells" in done.stdout + done.stderr


def test_report_refuses_an_option_of_the_matrix() -> None:
    done = nox("--no-venv", "-s", "report", "--", "--cells", "x")
    assert done.returncode == 1 and "nox -s report: unknown option --cells" in done.stdout + done.stderr


PASS_THROUGH = """
import sys
sys.path.insert(0, {root!r})
import nox
from noxfile import _run_keeping_exit_code  # the real noxfile's helper, as upgrade and report use it


@nox.session(venv_backend="none")
def verdict(session: nox.Session) -> None:
    exit_with = "import sys; raise SystemExit(int(sys.argv[1]))"
    _run_keeping_exit_code(session, sys.executable, "-c", exit_with, *session.posargs)
"""


@pytest.mark.parametrize("code", [0, 1, 2, 3, 64])
def test_the_verdicts_exit_code_is_the_exit_code_of_nox(tmp_path: Path, code: int) -> None:
    # nox itself knows only passed (0) and failed (1): INCONCLUSIVE (2), an internal error (3) and bad input (64)
    # must not read as UNSAFE (1) to a script.
    noxfile = tmp_path / "verdict_noxfile.py"
    noxfile.write_text(PASS_THROUGH.format(root=str(ROOT)))
    done = nox("-f", str(noxfile), "-s", "verdict", "--", str(code))
    assert done.returncode == code, done.stderr[-2000:]


def test_sessions_catch_the_one_error_base_not_lists_of_classes() -> None:
    # Before, each session caught its own list of error classes, and a class left out of a list was a traceback.
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    caught = {ast.unparse(handler.type) for handler in ast.walk(tree)
              if isinstance(handler, ast.ExceptHandler) and handler.type is not None}
    assert caught == {"ShardmatrixError", "nox.command.CommandFailed"}


def test_a_usage_error_of_a_session_ends_it_in_one_line() -> None:
    done = nox("-s", "upgrade", "--", "jax==0.4.38", "--timout", "5")
    assert done.returncode != 0
    assert "unknown option --timout (did you mean --timeout?)" in done.stderr
    assert "Traceback" not in done.stderr


#: What a constant may be built from: no call into our code or anything that reads or changes the world.
PURE = {"Path", "TypeVar"}


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call):
        node = node.value if isinstance(node, ast.Attribute) else node.func
    return node.id if isinstance(node, ast.Name) else None


def _constant(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.Assign | ast.AnnAssign) or statement.value is None:
        return False
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    named = all((isinstance(t, ast.Name) and t.id.isupper()) or _root(t) == "nox" for t in targets)
    return named and all(_root(call.func) in PURE for call in ast.walk(statement.value) if isinstance(call, ast.Call))


def work_at_load(source: str) -> list[str]:
    """The noxfile's module-level statements beyond imports, constants, session definitions and its docstring."""
    body = ast.parse(source).body
    return [ast.unparse(s) for i, s in enumerate(body)
            if not (isinstance(s, ast.Import | ast.ImportFrom | ast.FunctionDef) or _constant(s)
                    or (i == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)))]


def test_the_noxfile_does_at_most_three_things_at_load() -> None:
    done = work_at_load((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    assert len(done) <= 3, done


def test_the_load_check_counts_a_read_a_mutation_and_a_try_as_work() -> None:
    source = ('"""doc"""\nimport os\nROOT = Path(__file__).resolve().parent\nnox.options.reuse_venv = "yes"\n'
              'CELLS = matrix.load(ROOT)\nos.environ["X"] = "1"\ntry:\n    pass\nexcept E:\n    pass\n'
              'def s(session): ...\n')
    assert work_at_load(source) == ["CELLS = matrix.load(ROOT)", "os.environ['X'] = '1'",
                                    "try:\n    pass\nexcept E:\n    pass"]


def test_one_helper_turns_a_shardmatrix_error_into_the_sessions_error() -> None:
    source = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert source.count("except ShardmatrixError") == 1


def test_a_tool_session_installs_what_the_command_needs_and_runs_the_command(tmp_path: Path) -> None:
    # The session's venv gets pyproject's dependencies (pandas for the report among them): the report runs, and
    # answers on the empty folder in its own one line, as the installed command would.
    done = nox("-s", "report", "--", "--out", str(tmp_path))
    said = done.stdout + done.stderr
    assert done.returncode == 64, said[-2000:]
    assert "'pandas>=2.1'" in said and f"no results folder at {tmp_path / 'results'}" in said
