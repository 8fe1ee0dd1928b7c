"""Installed mode: run the corpus on an interpreter's own jax and flax instead of building a cell's environment.

This is how a machine with a preinstalled stack is tested (a GPU box with CUDA jaxlib, a TPU VM, a machine with
no package index): the cell is read off the installed distributions, its id is derived from their versions and
the backend, and the cases run through the same cell-run story as a built cell (`cellrun.installed`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from harness.cellrecord import CellFiles
from harness.formats import ShardmatrixError, command
from harness.host import cellplugin, cellrun, corpus, envbuild, matrix
from harness.host import options as session_options
from harness.host.options import Options
from harness.host.shipped import shipped

SUFFIX = "installed"
#: What the cell's interpreter needs besides jax and flax: what the staged plugin imports and the plugins the
#: runner's pytest command uses (the harness's own dependencies). The plugin itself is put on pytest's path, never
#: taken from the interpreter's shardmatrix (harness.host.cellrun.installed).
NEEDED = ("jax", "jaxlib", "flax", "pytest", "pytest-xdist", "pytest-timeout", "pytest-rerunfailures", "packaging")
#: The backend an installed distribution implies, most specific first.
BACKEND_OF = (("jax-cuda13-plugin", "cuda13"), ("jax-cuda12-plugin", "cuda12"), ("libtpu", "tpu"),
              ("libtpu-nightly", "tpu"))

_PROBE = """
import json, sys
from importlib import metadata
found = {}
for dist in metadata.distributions():
    name = (dist.metadata["Name"] or "").lower().replace("_", "-")
    found.setdefault(name, dist.version)
print(json.dumps({"python": "%d.%d" % sys.version_info[:2], "dists": found}))
"""

PYPROJECT = shipped("pyproject.toml")


def floors(pyproject: Path = PYPROJECT) -> dict[str, SpecifierSet]:
    """The harness's own requirements on what a cell's interpreter needs (pyproject's dependencies: one source)."""
    lines = cellplugin.project_dependencies(pyproject, InstalledError)
    found = {}
    for line in lines:
        requirement = Requirement(line)
        name = requirement.name.lower().replace("_", "-")
        if name in NEEDED and requirement.specifier:
            found[name] = requirement.specifier
    return found


class InstalledError(ShardmatrixError, RuntimeError):
    """The interpreter cannot run the corpus as it is; the message names what is missing and how to add it."""


def probe(python: str) -> dict[str, object]:
    """The interpreter's version and its installed distributions (lower-case, dash-separated names)."""
    done = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise InstalledError(f"{python} could not list its packages: {done.stderr.strip()[-300:]}")
    return dict(json.loads(done.stdout))


def backend_of(dists: dict[str, str]) -> str:
    """The backend the installed jax plugins imply: cuda13, cuda12, tpu, else cpu."""
    return next((backend for dist, backend in BACKEND_OF if dist in dists), "cpu")


def cell_of(found: dict[str, object], backend: str | None = None, devices: int = 8) -> matrix.Cell:
    """The cell an interpreter is: its installed versions and backend, under an id that says it was not built."""
    dists = dict(found["dists"])  # type: ignore[call-overload]
    missing = [name for name in NEEDED if name not in dists]
    if missing:
        raise InstalledError(f"not installed in this interpreter: {', '.join(missing)} (the harness's plugins "
                             "install with: pip install pytest pytest-xdist pytest-timeout pytest-rerunfailures "
                             "packaging)")
    old = {name: spec for name, spec in floors().items() if not spec.contains(dists[name], prereleases=True)}
    if old:
        # An older plugin misreads outcomes (pytest-timeout < 2.4 words timeouts so they read as failures).
        named = ", ".join(f"{name} {dists[name]} (needs {spec})" for name, spec in old.items())
        upgrade = " ".join(f"'{name}{spec}'" for name, spec in old.items())
        raise InstalledError(f"older than the harness needs: {named} (upgrade with: pip install {upgrade})")
    backend = backend or backend_of(dists)
    if backend not in matrix.BACKENDS:
        raise InstalledError(f"--backend {backend!r} is not a backend (known: {', '.join(matrix.BACKENDS)})")
    python = str(found["python"])
    cell_id = f"{matrix.default_id(dists['jax'], dists['flax'], python, backend)}-{SUFFIX}"
    return matrix.Cell(id=cell_id, jax=dists["jax"], jaxlib=dists["jaxlib"], flax=dists["flax"], python=python,
                       backend=backend, devices=devices, note=f"the packages installed in {sys.executable}")


def run(options: Options, backend: str | None = None, python: str = sys.executable) -> matrix.Cell:
    """Run the corpus on `python`'s installed packages (default: this interpreter) and record it as one cell."""
    if options.project or options.extras or options.overrides or options.indexes or options.pre:
        raise InstalledError("--project, --with, --override, --index and --pre build into a cell, and installed mode "
                             "builds nothing: install them into this interpreter instead")
    paths = corpus.case_paths(options.cases)  # a bad --cases is refused before the interpreter is asked anything
    prefix = Path(python).absolute().parent.parent
    if not envbuild.venv_python(prefix).exists():
        raise InstalledError(f"{python} is not {envbuild.venv_python(prefix)}; run from a venv, or the interpreter "
                             "named python in its bin folder")
    found = probe(python)
    cell = cell_of(found, backend, options.devices or 8)
    files = CellFiles(options.out, options.run_id, cell.id)
    files.freeze.parent.mkdir(parents=True, exist_ok=True)
    dists = dict(found["dists"])  # type: ignore[call-overload]
    files.freeze.write_text("".join(f"{n}=={v}\n" for n, v in sorted(dists.items())), encoding="utf-8")
    cellrun.installed(cell, prefix, options, paths)
    return cell


def parser(prog: str = "nox -s installed --") -> session_options.Parser:
    """`--backend` and the shared session options, refused in one line when not declared."""
    p = session_options.Parser(prog=prog, parents=[session_options.parser(add_help=False)])
    p.add_argument("--backend", default=None, help="the backend to record (default: read off jax's plugins)")
    return p


def record(argv: Sequence[str], prog: str = "nox -s installed --") -> int:
    """Record this interpreter as one cell, from `[--backend NAME] [session options]`; 0."""
    namespace = parser(prog).parse_strictly(argv)
    opts = session_options.from_namespace(namespace)
    cell = run(opts, namespace.backend)
    print(f"shardmatrix: recorded {CellFiles(opts.out, opts.run_id, cell.id).results}")
    return 0


@command
def main(argv: Sequence[str] | None = None) -> int:
    """`python -m harness.host.installed [--backend NAME] [session options]`: record this interpreter as one cell;
    bad input exits 64 with one line."""
    return record(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
