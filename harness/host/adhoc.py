"""Venvs of cells made on the command line (upgrade, bisect, frontier probes): <workspace>/adhoc-<cell id> (the
checkout's .nox, harness.host.shipped.workspace), built with
`uv venv` for the cell's Python. harness.host.cellrun.probe runs such a cell; this module only makes its venv, and
holds it (`held`) while one run builds into it and runs its pytest: two upgrades of the same pins at once (two
terminals, a watcher beside a manual run) would otherwise install into one venv together and read each other's
half-built environment as a broken cell.
"""

from __future__ import annotations

import fcntl
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


@contextmanager
def held(venv: Path, say: Callable[[str], object] = print) -> Iterator[None]:
    """Hold `venv` for one run (an exclusive lock on <venv>.lock beside it), waiting, and saying so, while another
    process holds it. The lock goes with the process, so a run that dies leaves nothing held."""
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.with_name(f"{venv.name}.lock"), "a+b") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"{venv.name}: another run is using this cell's venv; waiting for it")
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
