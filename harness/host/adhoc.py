"""Venvs of cells made on the command line (upgrade, bisect, frontier probes): <workspace>/adhoc-<cell id> (the
checkout's .nox, harness.host.shipped.workspace), built with
`uv venv` for the cell's Python. harness.host.cellrun.probe runs such a cell; this module only makes its venv.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.host import envbuild
from harness.host.matrix import Cell
from harness.host.shipped import workspace

VENVS = workspace()


def ensure_venv(cell: Cell, venvs: Path = VENVS) -> tuple[Path, str | None]:
    """The cell's venv (created with uv for its python when absent); the second item is why it could not be."""
    venv = venvs / f"adhoc-{cell.id}"
    if envbuild.venv_python(venv).exists():
        return venv, None
    done = subprocess.run([*envbuild.uv_command(), "venv", "--python", cell.python, str(venv)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return venv, f"interpreter python{cell.python}: {envbuild.installer_message(done.stderr or done.stdout)}"
    return venv, None
