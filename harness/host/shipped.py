"""Where the files shardmatrix ships besides its code are found: one function, whether it runs from a checkout or
from an installed wheel (which carries them beside its harness, under shardmatrix/_shipped: hatch_build.py)."""

from __future__ import annotations

import os
from pathlib import Path

#: The files and folders the command needs at run time, as the wheel carries them and a checkout holds them.
SHIPPED = ("cases", "matrix.toml", "pyproject.toml")
#: Where the wheel carries them, beside the harness package (hatch_build.py puts them there).
FOLDER = "_shipped"
_PACKAGE = Path(__file__).resolve().parents[1]
#: The harness's parent: the checkout, or the installed `shardmatrix` package.
_HOME = _PACKAGE.parent


def shipped(name: str) -> Path:
    """The shipped file or folder `name` (one of SHIPPED): inside the installed package, else in the checkout that
    this package is part of."""
    if name.split("/")[0] not in SHIPPED:
        raise ValueError(f"{name} is not shipped (shipped: {', '.join(SHIPPED)})")
    inside = _HOME / FOLDER
    return (inside if inside.is_dir() else _HOME) / name


def in_checkout() -> bool:
    """Whether this package runs from a checkout (its noxfile beside it) rather than from an installed wheel."""
    return (_HOME / "noxfile.py").is_file() and not (_HOME / FOLDER).is_dir()


def workspace() -> Path:
    """Where venvs, locks, built sources and durations are kept: the checkout's .nox (beside nox's own venvs),
    else the user's cache (user_cache())."""
    if in_checkout():
        return _PACKAGE.parent / ".nox"
    return user_cache()


def user_cache() -> Path:
    """The user's cache of shardmatrix, shared by every checkout and the installed command: $XDG_CACHE_HOME/shardmatrix
    (default ~/.cache/shardmatrix), beside uv's own cache (~/.cache/uv)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "shardmatrix"
