"""Keep the case modules a cell ran beside its results, so a reproducer holds the code that actually ran."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from harness.cell.records import module_name


def snapshot(args: Iterable[str], target: Path, qualified: Iterable[str] = ()) -> list[Path]:
    """Copy the Python files of what pytest was given (a file's folder, or a folder's tree) into `target`, each as
    its case ids name its module (`<stem>.py`, or `<qualified name>.py` for a test file whose stem another shares:
    harness.cell.records.module_name), so a reproducer finds the file its case ran from."""
    copied: list[Path] = []
    names = tuple(qualified)
    for arg in args:
        path = Path(arg.split("::")[0])
        files = sorted(path.parent.glob("*.py")) if path.is_file() else sorted(path.rglob("*.py"))
        for file in files:
            destination = target / f"{module_name(str(file), names)}.py"
            if destination.exists() or file.name == "__init__.py":
                continue  # case ids name modules by file stem, so the first of a name is the one reported
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, destination)
            copied.append(destination)
    return copied
