"""Keep the case modules a cell ran beside its results, so a reproducer holds the code that actually ran."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path


def snapshot(args: Iterable[str], target: Path) -> list[Path]:
    """Copy the Python files of what pytest was given (a file's folder, or a folder's tree) into `target`."""
    copied: list[Path] = []
    for arg in args:
        path = Path(arg.split("::")[0])
        files = sorted(path.parent.glob("*.py")) if path.is_file() else sorted(path.rglob("*.py"))
        for file in files:
            destination = target / file.name
            if destination.exists() or file.name == "__init__.py":
                continue  # case ids name modules by file stem, so the first of a name is the one reported
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, destination)
            copied.append(destination)
    return copied
