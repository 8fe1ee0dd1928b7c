"""Building a cell's environment with uv: resolve its pins once into a lock, sync it into the venv, freeze it.

Runs on the host. An install failure is returned as uv's one-line reason, which the caller records. A cell with a
project (`--project`) also gets the project's own requirements, resolved with its lockfile's versions as uv's
preferences (so whatever the cell's pins do not force stays as locked), and the project itself, editable and
without its dependencies (its pins on jax, jaxlib and flax are the cell's to decide), leaving its tree as it was.
Of ours, a cell gets only the plugin and what it imports (harness.host.cellplugin), installed non-editable. An
accelerator cell's lock is kept only when its plugin and pjrt are its jaxlib's own release (harness.host.runtimes).
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import subprocess
import tempfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from harness import formats
from harness.host import cellplugin, runtimes
from harness.host import project as projects
from harness.host.matrix import LIBTPU_ON_PYPI_SINCE, LIBTPU_RELEASES, Cell
from harness.host.renaming import StagingError
from harness.host.uv import installer_message, uv_command

__all__ = ["freeze", "install", "install_key", "install_project", "installer_message", "interpreter_version", "lock",
           "provenance", "resolves", "uv_command", "venv_python"]


def venv_python(venv: Path) -> Path:
    """The interpreter inside a virtual environment."""
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def install(cell: Cell, venv: Path, log: Path, plugin: Path | None = None) -> str | None:
    """Install the cell's exact pins and the harness into `venv`; None on success, else uv's key message.

    Resolution is the slow part of a build on a warm cache, so it runs once per set of inputs: its result is
    kept as a lock beside the venvs and synced into a new venv in well under a second; a venv already synced
    to the same inputs (its stamp says so) is left alone.
    """
    project = projects.load(cell.project) if cell.project else None
    key = install_key(cell, venv, project)
    try:
        plugin = plugin or cellplugin.wheel()
    except StagingError as error:  # recorded for the cell's cases, as a failed install of the plugin was
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"{error}\n", encoding="utf-8")
        return str(error)
    # The plugin's own content is in the venv's stamp, not in the lock's key: a changed harness reinstalls it without
    # resolving again.
    stamped = f"{key}\n{plugin.name}"
    stamp = venv / ".shardmatrix-installed"
    if stamp.exists() and stamp.read_text(encoding="utf-8") == stamped:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"unchanged since the last install (key {key[:12]}): nothing to do\n", encoding="utf-8")
        return None
    lock = venv.parent / ".shardmatrix-locks" / f"{key}.txt"
    transcript: list[str] = []
    problem = None
    if not lock.exists():
        problem = _compile(cell, project, lock, ["--python", str(venv_python(venv))], transcript)
    if problem is None:
        problem = _uv(["pip", "sync", "--python", str(venv_python(venv)), str(lock), *_index_options(cell)],
                      transcript)
    if problem is None:
        # Not editable: an editable install would put the folder above `harness` on the cell's path.
        problem = _uv(["pip", "install", "--no-deps", "--reinstall-package", cellplugin.NAME, "--python",
                       str(venv_python(venv)), str(plugin)], transcript)
    if problem is None and project is not None:
        problem = install_project(venv, project.root, transcript)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(transcript), encoding="utf-8")
    if problem is None:
        stamp.write_text(stamped, encoding="utf-8")
    else:
        lock.unlink(missing_ok=True)
    return problem


def install_project(venv: Path, root: Path, transcript: list[str]) -> str | None:
    """Install the project at `root` into `venv`, editable (as `uv sync` installs a project: an edit to its source is
    what the next run tests) and without its dependencies; None on success, else uv's reason. Its tree stays as it
    was: setuptools' `egg_info`, which its build hooks run in the project's folder, writes its `*.egg-info` into a
    temporary folder instead (`DIST_EXTRA_CONFIG`, a config file setuptools reads after the user's own), as nothing
    needs it once the editable wheel is installed. Other backends (hatchling, uv_build) write nothing there."""
    with tempfile.TemporaryDirectory(prefix="shardmatrix-egg-") as folder:
        config = configparser.ConfigParser()
        given = os.environ.get(EXTRA_CONFIG)
        if given:  # the user's own extra config still holds; only where egg_info writes is ours
            config.read(given, encoding="utf-8")
        if not config.has_section("egg_info"):
            config.add_section("egg_info")
        config.set("egg_info", "egg_base", folder)
        extra = Path(folder) / "setup.cfg"
        with extra.open("w", encoding="utf-8") as file:
            config.write(file)
        return _uv(["pip", "install", "--no-deps", "--python", str(venv_python(venv)), "-e", str(root)], transcript,
                   env={**os.environ, EXTRA_CONFIG: str(extra)})


#: The variable naming a config file setuptools (its distutils) reads after the system's and the user's own.
EXTRA_CONFIG = "DIST_EXTRA_CONFIG"


def resolves(cell: Cell) -> str | None:
    """None when the cell's requirements (its project's included) resolve together for its python, else uv's
    reason, which names both sides of a conflict; nothing is installed."""
    project = projects.load(cell.project) if cell.project else None
    with tempfile.TemporaryDirectory() as folder:
        problem = _compile(cell, project, Path(folder) / "lock.txt", ["--python-version", cell.python], [])
    if problem is None or project is None:
        return problem
    # uv says "you require" for the project's requirements too: name which of them are the project's.
    named = [line for line in _of_project(project) if re.search(rf"\b{re.escape(_name(line))}\b", problem)]
    return problem.rstrip(".") + (f" ({project.name} requires {', '.join(named)})" if named else "")


def lock(cell: Cell, destination: Path) -> str | None:
    """Resolve the cell (its pins, its project, the plugin's needs) for its python into the lock `destination`;
    None on success, else uv's reason or why the lock was refused."""
    project = projects.load(cell.project) if cell.project else None
    return _compile(cell, project, destination, ["--python-version", cell.python], [])


def _compile(cell: Cell, project: projects.Project | None, lock: Path, target: list[str],
             transcript: list[str]) -> str | None:
    """`uv pip compile` the cell's requirements for `target` (--python or --python-version) into `lock`; a lock
    whose accelerator runtime does not match its jaxlib is refused in one line and removed, never kept."""
    wanted = [*cell.requirements(), *_of_project(project), *cellplugin.dependencies()]
    if project is not None and project.locked:
        # uv prefers the versions an existing output file holds: the project's locked environment.
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_text(project.locked, encoding="utf-8")
    problem = _uv(["pip", "compile", "-", "--quiet", *target, "--output-file", str(lock), *_index_options(cell)],
                  transcript, stdin="\n".join(wanted) + "\n")
    if problem is None:
        try:
            runtimes.check(lock.read_text(encoding="utf-8"), cell.backend)
        except runtimes.RuntimeMismatch as mismatch:
            problem = str(mismatch)
            transcript.append(f"refused the lock: {problem}\n")
    if problem is not None:
        lock.unlink(missing_ok=True)
    return problem


def _of_project(project: projects.Project | None) -> list[str]:
    """What a project asks of a cell: its requirements, and its floors under the cell's jax, jaxlib and flax."""
    return [*project.dependencies, *project.floors] if project else []


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;@]", requirement.strip(), maxsplit=1)[0]


def install_key(cell: Cell, venv: Path, project: projects.Project | None = None) -> str:
    """What an install depends on: the pins, the resolution cut-off, the interpreter and the harness's deps, and
    the project's requirements and locked versions."""
    parts = [*cell.requirements(), cell.backend, cell.exclude_newer or "", interpreter_version(venv),
             *cellplugin.dependencies(), *_index_options(cell)]
    if project is not None:
        parts += [str(project.root), *_of_project(project), project.locked]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def interpreter_version(venv: Path) -> str:
    """The venv's Python version, as its pyvenv.cfg records it ("" when unknown)."""
    config = venv / "pyvenv.cfg"
    if not config.exists():
        return ""
    found = re.search(r"^version(?:_info)?\s*=\s*(\S+)", config.read_text(encoding="utf-8"), re.MULTILINE)
    return found.group(1) if found else ""


#: The day the harness's own requirements are held to when a cell resolves as of an earlier one: none (they are
#: ours, not the day's; pytest-rerunfailures 16.6.1 came out long after many days a cell replays).
NOT_HELD = "2100-01-01"


def _index_options(cell: Cell) -> list[str]:
    options = ["--exclude-newer", cell.exclude_newer] if cell.exclude_newer else []
    if cell.exclude_newer:
        options += [arg for line in cellplugin.dependencies()
                    for arg in ("--exclude-newer-package", f"{Requirement(line).name}={NOT_HELD}")]
    options += ["--prerelease", "allow"] if cell.pre else []
    options += [arg for url in cell.indexes for arg in ("--extra-index-url", url)]
    if cell.backend == "tpu" and Version(cell.jax) < LIBTPU_ON_PYPI_SINCE:
        options += ["--find-links", LIBTPU_RELEASES]
    return options


def _uv(arguments: list[str], transcript: list[str], stdin: str | None = None,
        env: dict[str, str] | None = None) -> str | None:
    """Run one uv command, append it and its output to the transcript; None on success, else why it failed."""
    command = [*uv_command(), *arguments]
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False, env=env)
    transcript.append(f"$ {' '.join(command)}\n{stdin or ''}{done.stdout}{done.stderr}\n")
    return None if done.returncode == 0 else installer_message(done.stderr or done.stdout)


def freeze(venv: Path, destination: Path, cell: Cell | None = None) -> str:
    """Save the cell's fully resolved environment beside its results, and return it; comment lines first say
    where its unreleased packages and its project came from (so the results cache keys on their content)."""
    done = subprocess.run([*uv_command(), "pip", "freeze", "--python", str(venv_python(venv))],
                          capture_output=True, text=True, check=False)
    text = (provenance(cell) if cell is not None else "") + done.stdout
    destination.write_text(text, encoding="utf-8")
    return text


def provenance(cell: Cell) -> str:
    """Comment lines naming the cell's sources and project, each with the hash of its content now."""
    lines = [formats.source_line(formats.Source(o.package, o.version, o.where, o.label)) for o in cell.sources]
    if cell.project:
        lines.append(f"{projects.provenance(cell.project)}\n")
    return "".join(lines)
