"""What of ours a cell gets: the pytest plugin and what it imports, and nothing else.

A cell used to install this checkout editable, whose .pth put the whole checkout on the cell's sys.path, so a
project's own `reports`, `tests`, `cases` or `benchmarks` were answered by ours. Instead the in-cell part of the harness
(harness/cell, case, change, formats, vocabulary: the modules tests/test_layout.py keeps free of the host) is staged
as a distribution of its own, `shardmatrix-cell`, and installed into the cell non-editable, so only `harness` is ours
on its path. It is staged from the running harness, so a cell is built the same way from a checkout or from an
installed wheel.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

from harness.host.shipped import shipped, workspace

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the floor's interpreter
    import tomli as tomllib

#: The distribution a cell gets; its one package is the in-cell part of `harness`.
NAME = "shardmatrix-cell"
#: The in-cell modules, relative to the harness package.
IN_CELL = ("__init__.py", "case.py", "change.py", "formats.py", "outputs.py", "results.py", "vocabulary.py", "cell")
_HARNESS = Path(__file__).resolve().parents[1]


def dependencies(pyproject: Path | None = None) -> list[str]:
    """What the plugin needs in a cell besides the cell's pins: pyproject's [project] dependencies (one source)."""
    with (pyproject or shipped("pyproject.toml")).open("rb") as handle:
        return list(tomllib.load(handle)["project"]["dependencies"])


def files(harness: Path = _HARNESS) -> list[Path]:
    """The in-cell source files, relative to the harness package, in a stable order."""
    found = []
    for name in IN_CELL:
        path = harness / name
        # Every file of a folder, data too (harness/cell/shortage.toml), not its bytecode.
        found += sorted(p.relative_to(harness) for p in path.rglob("*")
                        if p.is_file() and "__pycache__" not in p.parts) if path.is_dir() else [Path(name)]
    return found


def digest(harness: Path = _HARNESS, pyproject: Path | None = None) -> str:
    """What the staged distribution is made of: the in-cell sources and the plugin's dependencies."""
    hashed = hashlib.sha256("\n".join(dependencies(pyproject)).encode())
    for relative in files(harness):
        hashed.update(f"\0{relative.as_posix()}\0".encode())
        hashed.update((harness / relative).read_bytes())
    return hashed.hexdigest()


def staged(root: Path | None = None, harness: Path = _HARNESS, pyproject: Path | None = None) -> Path:
    """The folder of the `shardmatrix-cell` distribution for this harness (made once per content, under
    <workspace>/.shardmatrix-cell), which `uv pip install` builds and installs."""
    key = digest(harness, pyproject)
    folder = (root or workspace() / ".shardmatrix-cell") / key[:16]
    if (folder / "pyproject.toml").is_file():
        return folder
    # Cells are built concurrently: each stages apart and the first to finish names the folder.
    partial = folder.with_name(f".{folder.name}.{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    for relative in files(harness):
        (partial / "harness" / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(harness / relative, partial / "harness" / relative)
    requirements = ", ".join(f'"{line}"' for line in dependencies(pyproject))
    (partial / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling>=1.18"]\nbuild-backend = "hatchling.build"\n\n'
        f'[project]\nname = "{NAME}"\nversion = "0+{key[:12]}"\ndependencies = [{requirements}]\n\n'
        '[project.entry-points.pytest11]\nshardmatrix = "harness.cell.plugin"\n\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["harness"]\n', encoding="utf-8")
    try:
        partial.rename(folder)
    except OSError:  # another cell staged the same content first
        shutil.rmtree(partial, ignore_errors=True)
    return folder
