"""The matrix file: cells as data, validated before any environment is built.

Each `[[cell]]` pins exact jax, jaxlib, flax and python versions. A cell with `default = false` is outside the
default set: a run takes it only when `--cells` names it (an accelerator cell, which a CPU machine cannot run). A
malformed file, an unknown key, a version
that is not an exact release, or a duplicate id stops everything with one error naming the file, line and cell.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, replace
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from harness import formats
from harness.formats import ShardmatrixError
from harness.host import runtimes

PINNED = ("jax", "jaxlib", "flax")
REQUIRED = (*PINNED, "python")
OPTIONAL = ("id", "note", "backend", "devices", "exclude_newer", "default")
#: Top-level keys besides the cells: `with`, extra requirements installed in every cell (orbax, a test helper).
TOP_LEVEL = ("cell", "with")
#: cpu cells simulate their devices; the others run on the runner's real accelerators through a jax extra.
BACKENDS = ("cpu", "cuda12", "cuda13", "tpu")
#: The first jax release whose metadata declares the extra (PyPI: 0.6.2 lacks [cuda13], 0.7.0 has it); [cuda12]
#: and [tpu] are in every jax since 0.4.25, older than any cell here.
EXTRA_SINCE = {"cuda13": Version("0.7.0")}
#: The first jax whose release has its backend's plugin on PyPI: jax 0.7.0 and 0.7.1 declare [cuda13], but no
#: jax-cuda13-plugin of their release was published, so a cell of theirs could never lock one.
PLUGIN_SINCE = {"cuda13": Version("0.7.2")}
#: Older jax pins libtpu builds that live only on this page; jax's own install instructions name it.
LIBTPU_RELEASES = "https://storage.googleapis.com/jax-releases/libtpu_releases.html"
#: The first jax whose [tpu] extra pins a libtpu on PyPI (0.5.0 and older pin libtpu-nightly builds of the page above),
#: so a tpu cell from it on resolves where only a package index is reachable.
LIBTPU_ON_PYPI_SINCE = Version("0.5.1")
_PYTHON = re.compile(r"^3\.\d{1,2}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class MatrixError(ShardmatrixError, ValueError):
    """A problem with the matrix file, phrased as one line that names where it is."""


@dataclass(frozen=True)
class Origin:
    """Where an unreleased package comes from (harness.host.unreleased): its version, a label naming the build
    (tree.<hash>, wheel.<hash>, git.<commit>), the reference the user gave, and the requirement a cell installs."""

    package: str
    version: str
    label: str
    where: str
    requirement: str

    @property
    def tag(self) -> str:
        """How a cell id names it: the version, '+', the label (0.12.6+tree.1a2b3c4d)."""
        return f"{self.version}+{self.label}"


@dataclass(frozen=True)
class Cell:
    """One (jax, jaxlib, flax, python) combination and how to run it."""

    id: str
    jax: str
    jaxlib: str
    flax: str
    python: str
    backend: str = "cpu"
    devices: int = 8
    note: str = ""
    exclude_newer: str | None = None
    #: Extra requirements installed beside the pins (`--with`, `with = [...]`).
    extras: tuple[str, ...] = ()
    #: Packages installed from an unreleased source instead of their pin.
    sources: tuple[Origin, ...] = ()
    #: A downstream project installed into the cell (its folder), its locked versions preferred; "" for none.
    project: str = ""
    #: Pre-releases allowed (`--pre`), and extra package indexes (`--index`).
    pre: bool = False
    indexes: tuple[str, ...] = ()
    #: In the default set: taken by a run that names no cells (`default = false`: only when --cells names it).
    default: bool = True

    @property
    def accelerated(self) -> bool:
        """Whether the cell runs on real accelerators (its devices are the runner's, never simulated)."""
        return self.backend != "cpu"

    def requirements(self) -> list[str]:
        """The exact pins this cell installs; an accelerator cell installs jax with its backend's extra, and its
        plugin and pjrt pinned to its jaxlib (harness.host.runtimes)."""
        extra = f"[{self.backend}]" if self.accelerated else ""
        pins = {"jax": f"jax{extra}=={self.jax}", "jaxlib": f"jaxlib=={self.jaxlib}", "flax": f"flax=={self.flax}"}
        for origin in self.sources:
            pins[origin.package] = origin.requirement.replace("jax @", f"jax{extra} @", 1)
            if origin.package == "jax" and not re.fullmatch(r"\d+(\.\d+)+", self.jaxlib):
                pins.pop("jaxlib")  # an unreleased jax takes the jaxlib its own metadata asks for
        # With no jaxlib pin, the lock's own jaxlib is what runtimes.check holds the plugin to.
        runtime = runtimes.pins(self.backend, self.jaxlib) if "jaxlib" in pins else []
        return [*pins.values(), *runtime, *self.extras]

    def sort_key(self) -> tuple[Version, Version, Version]:
        """Cells order by jax, then flax, then python release."""
        return (Version(self.jax), Version(self.flax), Version(self.python))


def default_id(jax: str, flax: str, python: str, backend: str = "cpu") -> str:
    """The readable id of a cell, e.g. jax0.10.2-flax0.12.8-py3.11, or ...-py3.11-cuda12 off the CPU."""
    return f"jax{jax}-flax{flax}-py{python}" + ("" if backend == "cpu" else f"-{backend}")


def load(path: Path) -> list[Cell]:
    """Read and validate a matrix file; raise MatrixError naming the culprit."""
    path = Path(path)
    return parse(formats.read_text(path, MatrixError), str(path))


def parse(text: str, source: str = "matrix.toml") -> list[Cell]:
    """Validate matrix TOML text into cells."""
    data = formats.parse_toml(text, Path(source), MatrixError)
    unknown_top = set(data) - set(TOP_LEVEL)
    if unknown_top:
        raise MatrixError(f"{source}: unknown top-level key {sorted(unknown_top)[0]!r} (expected [[cell]] tables "
                          "and with = [...])")
    extras = data.get("with", [])
    if not isinstance(extras, list) or not all(isinstance(item, str) for item in extras):
        raise MatrixError(f"{source}: with must be a list of requirement strings, got {extras!r}")
    for item in extras:
        try:
            Requirement(item)
        except InvalidRequirement:
            raise MatrixError(f"{source}: with: {item!r} is not a requirement like 'optax==0.2.8'") from None
    tables = data.get("cell", [])
    if not isinstance(tables, list) or not tables:
        raise MatrixError(f"{source}: no [[cell]] tables")
    lines = _cell_header_lines(text)
    cells: list[Cell] = []
    seen: dict[str, int] = {}
    for index, table in enumerate(tables):
        where = f"{source}:{lines[index] if index < len(lines) else '?'}: cell #{index + 1}"
        cell = replace(_cell(table, where), extras=tuple(extras))
        if cell.id in seen:
            raise MatrixError(f"{where}: duplicate id {cell.id!r} (first at cell #{seen[cell.id] + 1})")
        seen[cell.id] = index
        cells.append(cell)
    return cells


def _cell(table: dict[str, object], where: str) -> Cell:
    unknown = set(table) - set(REQUIRED) - set(OPTIONAL)
    if unknown:
        raise MatrixError(f"{where}: unknown key {sorted(unknown)[0]!r} (allowed: {', '.join(REQUIRED + OPTIONAL)})")
    missing = [key for key in REQUIRED if key not in table]
    if missing:
        raise MatrixError(f"{where}: missing key {missing[0]!r}")
    values = {key: table[key] for key in REQUIRED}
    for key, value in values.items():
        if not isinstance(value, str):
            raise MatrixError(f"{where}: {key} must be a quoted version string, got {value!r}")
    for key in PINNED:
        _exact_version(str(values[key]), f"{where}: {key}")
    if not _PYTHON.match(str(values["python"])):
        raise MatrixError(f"{where}: python must look like '3.12', got {values['python']!r}")
    backend = table.get("backend", "cpu")
    cell_id = table.get("id") or default_id(str(values["jax"]), str(values["flax"]), str(values["python"]),
                                            str(backend))
    where = f"{where} ({cell_id})"
    if not isinstance(cell_id, str) or not re.fullmatch(r"[A-Za-z0-9._+-]+", cell_id):
        raise MatrixError(f"{where}: id may hold only letters, digits and . _ + -")
    if backend not in BACKENDS:
        raise MatrixError(f"{where}: unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if backend in EXTRA_SINCE and Version(str(values["jax"])) < EXTRA_SINCE[backend]:
        raise MatrixError(f"{where}: jax {values['jax']} has no [{backend}] extra "
                          f"(first in jax {EXTRA_SINCE[backend]})")
    if backend in PLUGIN_SINCE and Version(str(values["jaxlib"])) < PLUGIN_SINCE[backend]:
        raise MatrixError(f"{where}: jaxlib {values['jaxlib']} has no jax-{backend}-plugin release on PyPI "
                          f"(first {PLUGIN_SINCE[backend]})")
    devices = table.get("devices", 8)
    if not isinstance(devices, int) or isinstance(devices, bool) or devices < 1:
        raise MatrixError(f"{where}: devices must be a positive integer, got {devices!r}")
    default = table.get("default", True)
    if not isinstance(default, bool):
        raise MatrixError(f"{where}: default must be true or false, got {default!r}")
    exclude_newer = table.get("exclude_newer")
    if exclude_newer is not None and not (isinstance(exclude_newer, str) and _DATE.match(exclude_newer)):
        raise MatrixError(f"{where}: exclude_newer must be a YYYY-MM-DD date, got {exclude_newer!r}")
    return Cell(
        id=cell_id,
        jax=str(values["jax"]),
        jaxlib=str(values["jaxlib"]),
        flax=str(values["flax"]),
        python=str(values["python"]),
        backend=str(backend),
        devices=devices,
        note=str(table.get("note", "")),
        exclude_newer=exclude_newer,
        default=default,
    )


def _exact_version(text: str, where: str) -> None:
    try:
        Version(text)
    except InvalidVersion:
        raise MatrixError(f"{where} {text!r} is not a valid version") from None
    if not re.fullmatch(r"\d+(\.\d+)+", text):
        raise MatrixError(f"{where} {text!r} must be an exact release like 0.4.38")


def _cell_header_lines(text: str) -> list[int]:
    return [number for number, line in enumerate(text.splitlines(), start=1) if line.strip().startswith("[[cell]]")]


def select(cells: list[Cell], patterns: list[str]) -> list[Cell]:
    """The cells whose id matches any glob pattern (the default set when there is none); a dead pattern is an
    error."""
    if not patterns:
        return [cell for cell in cells if cell.default]
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(cell.id, pattern) for cell in cells):
            raise MatrixError(f"--cells {pattern!r} matches no cell (ids: {', '.join(c.id for c in cells)})")
    return [cell for cell in cells if any(fnmatch.fnmatchcase(cell.id, p) for p in patterns)]
