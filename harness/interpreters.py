"""Finding the interpreters cells ask for, where uv cannot download them."""

from __future__ import annotations

import os
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
    """Make pyenv's shims answer for every installed version (python3.12, ...) unless the user already chose.

    pyenv shims refuse versions not listed in PYENV_VERSION, and uv then tries to download an interpreter.
    """
    env: dict[str, str] = dict(os.environ) if environ is None else environ
    if env.get("PYENV_VERSION"):
        return None
    found = pyenv_versions(pyenv_root(env))
    if not found:
        return None
    value = ":".join(found)
    if environ is None:
        os.environ["PYENV_VERSION"] = value
    else:
        environ["PYENV_VERSION"] = value
    return value
