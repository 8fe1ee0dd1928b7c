"""harness.host.bytecode: where the shell says to write no bytecode, shardmatrix's processes and its cells keep it in
the workspace's folder, none beside a source; elsewhere nothing changes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.host import bytecode, invocation, matrix, runner

CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def test_where_the_shell_says_to_write_no_bytecode_it_is_kept_in_the_workspace(tmp_path: Path) -> None:
    env = {bytecode.NO_BYTECODE: "1"}
    bytecode.keep(env, tmp_path)
    # An empty PYTHONDONTWRITEBYTECODE is no setting: Python writes, under the folder, mirroring each source's path.
    assert env == {bytecode.NO_BYTECODE: "", bytecode.BYTECODE_FOLDER: str(tmp_path / bytecode.FOLDER)}


@pytest.mark.parametrize("shell", [{}, {bytecode.NO_BYTECODE: ""}, {bytecode.BYTECODE_FOLDER: "/elsewhere"}])
def test_where_the_shell_writes_bytecode_it_is_left_as_python_writes_it(tmp_path: Path, shell: dict[str, str]) -> None:
    env = dict(shell)
    bytecode.keep(env, tmp_path)
    assert env == shell


def test_a_process_started_so_writes_its_bytecode_in_the_folder_and_none_beside_the_source(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mod.py").write_text("VALUE = 1\n")
    env = {**os.environ, bytecode.NO_BYTECODE: "1"}
    bytecode.keep(env, tmp_path / "work")
    subprocess.run([sys.executable, "-c", "import mod"], cwd=tmp_path / "src", env=env, check=True)
    assert not (tmp_path / "src" / "__pycache__").exists()
    assert list((tmp_path / "work" / bytecode.FOLDER).rglob("mod.*.pyc"))


def test_every_cell_and_every_session_of_a_nox_invocation_keep_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bytecode.NO_BYTECODE, "1")
    cell = runner.cell_environment(CELL, runner.devices_for(CELL, None))
    assert cell[bytecode.NO_BYTECODE] == "" and cell[bytecode.BYTECODE_FOLDER].endswith(bytecode.FOLDER)
    sessions = {bytecode.NO_BYTECODE: "1"}
    invocation.share(sessions)
    assert sessions[bytecode.BYTECODE_FOLDER] == cell[bytecode.BYTECODE_FOLDER]
