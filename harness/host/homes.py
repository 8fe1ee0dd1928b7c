"""Where shardmatrix keeps its own files for a project (`--project`): a home of their own, outside the project's tree.

A project's results and reports (the default `--out`) and the watcher's state (the default `--state`) live in
`$SHARDMATRIX_HOME/projects/<name>-<hash of its path>/`, `SHARDMATRIX_HOME` defaulting to
`$XDG_STATE_HOME/shardmatrix` (`~/.local/state/shardmatrix`). Outside the tree, so writing them leaves the project's
content, and with it its tree hash (harness.host.project.tree_hash, part of every cell's fingerprint), unchanged: an
unchanged project reuses its baseline (harness.host.cache) and nothing is left in the user's folder. State rather than
cache: the stored runs are what the next upgrade reuses and the state is what the next watch remembers; the
disposable venvs stay in the cache (harness.host.shipped.workspace). `--out` and `--state` still put them anywhere.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from harness.formats import ShardmatrixError

#: The variable that moves every project's home (a CI cache folder, a scratch disk).
HOME_ENV = "SHARDMATRIX_HOME"
#: The watcher's state file inside a project's home.
STATE_FILE = "watch.json"


def root() -> Path:
    """$SHARDMATRIX_HOME, else $XDG_STATE_HOME/shardmatrix (default ~/.local/state/shardmatrix)."""
    if os.environ.get(HOME_ENV):
        return Path(os.environ[HOME_ENV]).expanduser()
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "shardmatrix"


def project_home(project: Path | str) -> Path:
    """The folder of one project's files: named by the project's folder name and a hash of its full path, so two
    checkouts of one project never share (or overwrite) each other's runs."""
    folder = Path(project).expanduser().resolve()
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", folder.name) or "project"
    return root() / "projects" / f"{name}-{hashlib.sha256(str(folder).encode()).hexdigest()[:12]}"


def out_of(project: Path | str) -> Path:
    """A project's default output folder (results/ and report/)."""
    return project_home(project) / "out"


def state_of(project: Path | str) -> Path:
    """A project's default watch state file."""
    return project_home(project) / STATE_FILE


class HomeError(ShardmatrixError, OSError):
    """A folder shardmatrix must write to that cannot be made or written, named with what it is for."""


def writable(folder: Path | str, what: str) -> Path:
    """`folder`, made if absent, checked before anything is built or judged: HomeError naming `what` (`--state`,
    `--out`, $SHARDMATRIX_HOME) when a file stands on its way or it is not writable, instead of a failure after the
    first cell was built or the first release judged (and that judgment lost)."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        blocking = next((part for part in (folder, *folder.parents) if part.exists() and not part.is_dir()), None)
        why = f"{blocking} is a file, not a folder" if blocking else (error.strerror or str(error))
        raise HomeError(f"{what} {folder}: cannot be made: {why}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise HomeError(f"{what} {folder}: not writable")
    return folder

