"""What of ours a cell gets: the pytest plugin and what it imports, and nothing else.

A cell used to install this checkout editable, whose .pth put the whole checkout on the cell's sys.path, so a project's
own `reports`, `tests`, `cases` or `benchmarks` were answered by ours. Instead the in-cell part of the harness
(harness/cell, case, change, formats, vocabulary, cellrecord, results, celldocuments, cellidentity, runs, outputs: the
modules tests/test_layout.py keeps free of the host) is staged as a distribution of its own, `shardmatrix-cell`, and
installed into the cell non-editable. Its one package is named `shardmatrix_cell` (its imports of `harness` rewritten
when staged), so a project's own top-level `harness` is its own too. The corpus's cases import the case API as
`harness.case`: the plugin binds that name only when the runner says the cases do (harness.cell.caseapi). It is staged
from the running harness, so a cell is built the same way from a checkout or from an installed wheel.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from harness.formats import Refusal, read_toml
from harness.host import renaming
from harness.host.shipped import shipped, workspace
from harness.host.uv import installer_message, uv_command

#: The distribution a cell gets; its one package is the in-cell part of `harness`.
NAME = "shardmatrix-cell"
#: The name of that package in a cell: one no project's own code uses (as pytest-timeout ships `pytest_timeout`).
PACKAGE = "shardmatrix_cell"
#: The plugin's module in a cell, the pytest11 entry point of the staged distribution.
ENTRY_POINT = f"{PACKAGE}.cell.plugin"
#: The name of that entry point, which older shardmatrix wheels' own (`harness.cell.plugin`) shares: the runner blocks
#: the name and loads ENTRY_POINT by module, so whichever is installed, only `shardmatrix_cell` answers.
PLUGIN_NAME = "shardmatrix"
#: The distributions the plugin runs with in a cell. pyproject's [project] dependencies hold their floors, and what the
#: command alone needs besides (uv, pandas, jinja2), which a cell never gets.
RUNS_WITH = ("pytest", "pytest-xdist", "pytest-timeout", "pytest-rerunfailures", "packaging", "tomli")
#: The package the sources import themselves from, which staging renames: `harness` in a checkout,
#: `shardmatrix.harness` in the installed wheel (hatch_build.py).
_OURS = __name__.removesuffix(".host.cellplugin")
#: The in-cell modules, relative to the harness package.
IN_CELL = ("__init__.py", "case.py", "celldocuments.py", "cellidentity.py", "cellrecord.py", "change.py", "formats.py",
           "outputs.py", "results.py", "runs.py", "vocabulary.py", "cell")
_HARNESS = Path(__file__).resolve().parents[1]


def project_dependencies(pyproject: Path, refuse: Refusal) -> list[str]:
    """The lines of pyproject's [project] dependencies, the one source of the harness's floors (what installed mode
    checks, what a cell's plugin runs with); `refuse(line)` naming the file where it holds none."""
    project = read_toml(pyproject, refuse).get("project")
    lines = project.get("dependencies") if isinstance(project, dict) else None
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise refuse(f"{pyproject}: no [project] dependencies (a list of requirements)")
    return lines


def dependencies(pyproject: Path | None = None) -> list[str]:
    """What the plugin needs in a cell besides the cell's pins: the lines of pyproject's [project] dependencies that
    name a distribution of RUNS_WITH (one source of floors); StagingError for one that pyproject does not declare."""
    path = pyproject or shipped("pyproject.toml")
    lines = project_dependencies(path, renaming.StagingError)
    chosen = [line for line in lines if canonicalize_name(Requirement(line).name) in RUNS_WITH]
    missing = [name for name in RUNS_WITH if name not in {canonicalize_name(Requirement(line).name) for line in chosen}]
    if missing:
        raise renaming.StagingError(f"{path}: [project] dependencies declare no {', '.join(missing)}, which a cell's "
                                    "plugin runs with")
    return chosen


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
    # How it is staged (the package's name, the rewrite) is part of what it is made of.
    hashed.update(Path(__file__).read_bytes())
    hashed.update(Path(renaming.__file__).read_bytes())
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
        target = partial / PACKAGE / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if relative.suffix == ".py":
            target.write_text(renaming.renamed(harness / relative, {_OURS: PACKAGE}), encoding="utf-8")
        else:  # data the package finds beside its modules (cell/shortage.toml)
            shutil.copyfile(harness / relative, target)
    requirements = ", ".join(f'"{line}"' for line in dependencies(pyproject))
    (partial / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling>=1.18"]\nbuild-backend = "hatchling.build"\n\n'
        f'[project]\nname = "{NAME}"\nversion = "0+{key[:12]}"\ndependencies = [{requirements}]\n\n'
        f'[project.entry-points.pytest11]\n{PLUGIN_NAME} = "{ENTRY_POINT}"\n\n'
        f'[tool.hatch.build.targets.wheel]\npackages = ["{PACKAGE}"]\n', encoding="utf-8")
    try:
        partial.rename(folder)
    except OSError:  # another cell staged the same content first
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def wheel(folder: Path | None = None) -> Path:
    """The wheel of the staged distribution in `folder` (default: this harness's, staged()), built once per content
    beside it: installing a folder makes uv build it anew for every cell (--reinstall-package refreshes its cache
    entry), about a second each, while a wheel installs in milliseconds. StagingError with uv's reason when the
    build fails."""
    source = folder or staged()
    built = source.with_name(f"{source.name}-wheel")
    wheels = sorted(built.glob("*.whl")) if built.is_dir() else []
    if wheels:
        return wheels[0]
    scratch = Path(tempfile.mkdtemp(prefix=f".{built.name}.", dir=built.parent))
    done = subprocess.run([*uv_command(), "build", "--wheel", "--quiet", "--out-dir", str(scratch), str(source)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        raise renaming.StagingError(f"{source}: the cell's plugin does not build: "
                                    f"{installer_message(done.stderr or done.stdout)}")
    try:
        scratch.rename(built)  # atomic: cells starting at once build the same content, and one build is kept
    except OSError:  # another cell's build was kept first
        shutil.rmtree(scratch, ignore_errors=True)
    return sorted(built.glob("*.whl"))[0]
