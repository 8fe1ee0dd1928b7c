"""Where shardmatrix's processes and its cells keep their bytecode when the shell says to write none.

With PYTHONDONTWRITEBYTECODE set (as in the shell the speed page's figures were measured in), every cell process
compiled each module it imported (jax, flax, pytest, the plugin, the cases) on every run, and every nox session, a
process of its own, the checkout's harness: about 1 s of an idle cell's start and collection, three times that under
load. The bytecode is kept instead in one folder of the workspace (PYTHONPYCACHEPREFIX, under which Python mirrors each
source's absolute path), so none is written beside a source: in a checkout, a project's tree or a user's interpreter.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path

from harness.host.shipped import workspace

#: Python's variable that keeps it from writing bytecode (an empty one is no setting), and the one that puts bytecode
#: in a folder of its own.
NO_BYTECODE, BYTECODE_FOLDER = "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"
#: The workspace's folder of bytecode.
FOLDER = ".shardmatrix-bytecode"


def keep(env: MutableMapping[str, str], where: Path | None = None) -> None:
    """Where `env` says to write no bytecode, have the processes started with it keep their bytecode in the folder
    FOLDER of `where` (default: the workspace) instead; elsewhere leave `env` as it is."""
    if env.get(NO_BYTECODE):
        env[NO_BYTECODE] = ""
        env[BYTECODE_FOLDER] = str((where or workspace()) / FOLDER)
