"""What a module that is not installed in the cell at all means for its cases, and what the user can do about it.

A test module, or a case, that imports a module the cell lacks cannot run: its record is `error` with a reason that
says which module and how to give the cell it. A module that lives beside the cases, in their own project, is the
project itself (`--project DIR`); anything else is a dependency the cell was not given (`--with REQ`).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

#: Import names whose distribution is named otherwise, only where there is no doubt which one is meant.
DISTRIBUTIONS: dict[str, str] = {
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "cv2": "opencv-python",
    "PIL": "pillow",
    "yaml": "pyyaml",
    "absl": "absl-py",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
    "attr": "attrs",
    "tensorflow_datasets": "tensorflow-datasets",
}

#: Files that mark a project's root: the walk from a test module up to its project stops there.
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


def missing_module(exc: BaseException) -> str | None:
    """The top-level module of a ModuleNotFoundError when the cell has no such module at all; None for anything
    else (a name or submodule missing from a package that is installed is harness.cell.health.missing_name's)."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    top = exc.name.split(".")[0]
    try:
        installed = importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        installed = False
    return None if installed else top


def is_own_module(name: str, test_module: Path) -> bool:
    """Whether a top-level module lives in the project of a test module: a package or module of that name (or under
    src/) in a folder from the test module's up to its project's root."""
    return any((folder / name / "__init__.py").is_file() or (folder / f"{name}.py").is_file()
               or (folder / "src" / name).is_dir() for folder in _project_folders(test_module))


def _project_folders(test_module: Path) -> list[Path]:
    """The folders from a test module's up to the first that marks a project's root; without one, only the module's
    folder and its parent (a walk to / would find a package of any name somewhere)."""
    folders: list[Path] = []
    for folder in Path(test_module).resolve().parents:
        folders.append(folder)
        if any((folder / marker).is_file() for marker in PROJECT_MARKERS):
            return folders
    return folders[:2]


def hint(exc: BaseException, test_module: Path) -> str | None:
    """Why a module the cell lacks stops a test module or a case, and what to do; None when `exc` is no such case.

    "No module named 'sklearn': the cell lacks it; add it with --with scikit-learn", or, for a module of the cases'
    own project, "...: it belongs to the cases' own project, which this cell does not have; install the project
    with --project DIR"."""
    name = missing_module(exc)
    if name is None:
        return None
    if is_own_module(name, test_module):
        return (f"No module named '{name}': it belongs to the cases' own project, which this cell does not have; "
                "install the project with --project DIR")
    distribution = DISTRIBUTIONS.get(name, "<its distribution>")
    return f"No module named '{name}': the cell lacks it; add it with --with {distribution}"
