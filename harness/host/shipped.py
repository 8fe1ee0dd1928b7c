"""Where the files shardmatrix ships besides its code are found: one function, whether it runs from a checkout or
from an installed wheel (which carries them under harness/_shipped, see pyproject's force-include)."""

from __future__ import annotations

import os
from pathlib import Path

#: The files and folders the command needs at run time, as the wheel carries them and a checkout holds them.
SHIPPED = ("cases", "matrix.toml", "pyproject.toml")
_PACKAGE = Path(__file__).resolve().parents[1]


def shipped(name: str) -> Path:
    """The shipped file or folder `name` (one of SHIPPED): inside the installed package, else in the checkout that
    this package is part of."""
    if name.split("/")[0] not in SHIPPED:
        raise ValueError(f"{name} is not shipped (shipped: {', '.join(SHIPPED)})")
    inside = _PACKAGE / "_shipped"
    return (inside if inside.is_dir() else _PACKAGE.parent) / name


def in_checkout() -> bool:
    """Whether this package runs from a checkout (its noxfile beside it) rather than from an installed wheel."""
    return (_PACKAGE.parent / "noxfile.py").is_file() and not (_PACKAGE / "_shipped").is_dir()


def workspace() -> Path:
    """Where venvs, locks, built sources and durations are kept: the checkout's .nox (beside nox's own venvs),
    else the user's cache ($XDG_CACHE_HOME/shardmatrix, default ~/.cache/shardmatrix)."""
    if in_checkout():
        return _PACKAGE.parent / ".nox"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "shardmatrix"
