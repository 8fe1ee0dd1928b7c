"""Finding the interpreters cells ask for, where uv cannot download them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from packaging.version import InvalidVersion, Version


def pyenv_root(environ: dict[str, str]) -> Path:
    """Where pyenv keeps its versions."""
    return Path(environ.get("PYENV_ROOT", str(Path.home() / ".pyenv")))


def pyenv_versions(root: Path) -> list[str]:
    """Installed pyenv CPython 3 versions: the global default first (it must stay `python`), then newest first."""
    folder = root / "versions"
    if not folder.is_dir():
        return []
    found = []
    for entry in folder.iterdir():
        try:
            if (entry / "bin" / "python").exists() and Version(entry.name).major == 3:
                found.append(entry.name)
        except InvalidVersion:
            continue
    found.sort(key=Version, reverse=True)
    global_file = root / "version"
    default = global_file.read_text().split()[0] if global_file.exists() and global_file.read_text().split() else None
    if default in found:
        found.remove(default)
        found.insert(0, default)
    return found


def expose_pyenv_versions(environ: dict[str, str] | None = None) -> str | None:
    """Make pyenv's shims answer for every installed version (python3.12, ...), keeping the current choice first.

    pyenv shims refuse versions not listed in PYENV_VERSION (and pyenv itself sets it to a single version in the
    processes it starts), so uv and nox would not find python3.12 and would try to download one.
    """
    env = os.environ if environ is None else environ
    current = [v for v in env.get("PYENV_VERSION", "").split(":") if v]
    found = pyenv_versions(pyenv_root(dict(env)))
    extra = [v for v in found if v not in current]
    if not extra:
        return None
    env["PYENV_VERSION"] = ":".join([*current, *extra])
    return env["PYENV_VERSION"]


#: The CPython minor versions a cell may ask for; `available` says which this machine has.
KNOWN_PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")


def available(candidates: tuple[str, ...] = KNOWN_PYTHONS, uv: list[str] | None = None) -> list[str]:
    """The candidates uv finds an interpreter for on this machine (it looks, never downloads): what a cell can use."""
    command = uv or [shutil.which("uv") or "uv"]
    found = []
    for python in candidates:
        done = subprocess.run([*command, "python", "find", "--no-python-downloads", python],
                              capture_output=True, text=True, check=False)
        if done.returncode == 0:
            found.append(python)
    return found
