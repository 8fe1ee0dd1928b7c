"""Pins for cells made on the command line (upgrade, bisect): parse them, read them from a project, fill the rest.

A pin set names exact jax and flax releases; jaxlib always follows jax, and python is the lowest the pair needs
unless a baseline already runs a newer one.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from harness import formats
from harness.formats import ShardmatrixError
from harness.host import cellenv, unreleased
from harness.host.matrix import Cell, Origin, default_id
from harness.host.project import Project
from harness.tools import index

#: The packages a pin set may name; jaxlib is accepted and must equal jax.
PACKAGES = ("jax", "jaxlib", "flax")
#: (package, first release needing it, python): jax >= 0.11 and flax >= 0.12.9 ship wheels for Python >= 3.12 only.
PYTHON_FLOORS: tuple[tuple[str, str, str], ...] = (("jax", "0.11", "3.12"), ("flax", "0.12.9", "3.12"))
OLDEST_PYTHON = "3.11"
#: (jaxlib range, requirement) a cell of such a jaxlib installs beside its pins: what its wheels were built against and
#: the resolver would otherwise take newer. jaxlib < 0.4.26 was built against numpy 1.x and fails on numpy 2 with
#: "Unknown NumPy dtype" (jax 0.4.26 is the first release built for numpy 2).
JAXLIB_COMPANIONS: tuple[tuple[str, str], ...] = (("<0.4.26", "numpy<2"),)


class PinError(ShardmatrixError, ValueError):
    """Pins that cannot make a cell, phrased as one line."""


def parse_pins(specs: list[str], pre: bool = False) -> dict[str, str]:
    """'jax==0.11.2', 'flax==0.12.12' (or one comma-separated string) -> {'jax': '0.11.2', 'flax': '0.12.12'};
    pre-releases only with `pre` (--pre). A package named twice is refused, even at one version: the later pin
    would silently win over the earlier one (`jax==0.9.2,jax==0.9.1`)."""
    pins: dict[str, str] = {}
    given: dict[str, str] = {}
    for spec in (part.strip() for text in specs for part in text.split(",")):
        if not spec:
            continue
        try:
            requirement = Requirement(spec)
        except InvalidRequirement:
            raise PinError(f"{spec!r} is not a pin like jax==0.11.2") from None
        name = requirement.name.lower()
        specifiers = list(requirement.specifier)
        if name not in PACKAGES:
            raise PinError(f"{spec!r}: only {', '.join(PACKAGES)} can be pinned")
        if len(specifiers) != 1 or specifiers[0].operator != "==" or "*" in specifiers[0].version:
            raise PinError(f"{spec!r}: pin an exact release with ==")
        if name in given:
            raise PinError(f"{name} is pinned twice ({given[name]!r} and {spec!r}): pin each package once")
        given[name] = spec
        pins[name] = _exact(specifiers[0].version, spec, pre)
    return pins


def split_sources(specs: list[str]) -> tuple[list[str], list[str]]:
    """Pins and direct references ('flax @ file:///src/flax') apart; a reference is never split at its commas."""
    references = [spec for spec in specs if unreleased.is_reference(spec)]
    return [spec for spec in specs if spec not in references], references


def candidate_pins(specs: list[str], pre: bool = False) -> tuple[dict[str, str], list[str]]:
    """The candidate's pins and its direct references, checked together before anything is built: a package named
    twice, by two pins or by a pin and a source, is refused in one line."""
    asked, references = split_sources(specs)
    named = parse_pins(asked, pre=pre)
    seen: dict[str, str] = {name: f"{name}=={version}" for name, version in named.items()}
    for reference in references:
        try:
            name = Requirement(reference).name.lower()
        except InvalidRequirement:
            continue  # unreleased.resolve names what is wrong with it
        if name in seen:
            raise PinError(f"{name} is pinned twice ({seen[name]!r} and {reference!r}): pin each package once")
        seen[name] = reference
    return named, references


def _exact(text: str, where: str, pre: bool = False) -> str:
    try:
        version = Version(text)
    except InvalidVersion:
        raise PinError(f"{where}: {text!r} is not a version") from None
    if (version.is_prerelease or version.is_devrelease) and not pre:
        raise PinError(f"{where}: {text!r} is a pre-release (--pre to allow it)")
    if version.local:
        raise PinError(f"{where}: {text!r} is not a released version (a local version: give its source instead)")
    return text


def project_pins(project: Project, ranges: bool = False) -> dict[str, str]:
    """The jax and flax a project runs today: its lockfile's versions, else the exact pins of its pyproject (with
    `ranges`, a range pins nothing, for --baseline or the default cell to fill; else PinError names it)."""
    if not project.locked:
        return read_pins(project.root / "pyproject.toml", ranges)
    locked = project.locked_versions()
    for name in PACKAGES if not ranges else ():
        several = project.locked_per_python(name)
        if several:  # which one is the baseline depends on the cell's Python: the caller must say
            raise PinError(f"{project.lockfile}: {name} is locked at several versions, one per Python "
                           f"({'; '.join(several)}): give --baseline {name}==X")
    if "jax" not in locked:
        raise PinError(f"{project.lockfile}: no jax in the project's locked environment")
    return {name: locked[name] for name in PACKAGES if name in locked}


def read_pins(path: Path, ranges: bool = False) -> dict[str, str]:
    """Exact jax/jaxlib/flax pins of a downstream project: a uv.lock, a pyproject.toml or a requirements file (with
    `ranges`, only those pinned exactly, maybe none)."""
    path = Path(path)
    text = formats.read_text(path, PinError)
    data = formats.parse_toml(text, path, PinError) if path.name == "uv.lock" or path.suffix == ".toml" else {}
    if path.name == "uv.lock":
        found = {str(p["name"]).lower(): str(p["version"]) for p in data.get("package", []) if "version" in p}
        pins = {name: found[name] for name in PACKAGES if name in found}
    elif path.suffix == ".toml":
        project = data.get("project", {})
        lines = [*project.get("dependencies", [])]
        for group in [*project.get("optional-dependencies", {}).values(), *data.get("dependency-groups", {}).values()]:
            lines.extend(item for item in group if isinstance(item, str))
        pins = _pins_in(lines, str(path), ranges)
    else:
        lines = [line.split("#")[0].strip() for line in text.splitlines()]
        pins = _pins_in([line for line in lines if line and not line.startswith("-")], str(path), ranges)
    if "jax" not in pins and not ranges:
        raise PinError(f"{path}: no exact jax pin found (jax==X; a lock file always has one)")
    return pins


def _pins_in(lines: list[str], where: str, ranges: bool = False) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in lines:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        name = requirement.name.lower()
        if name not in PACKAGES:
            continue
        exact = [s.version for s in requirement.specifier if s.operator in ("==", "===")]
        if not exact and ranges:
            continue
        if not exact:
            raise PinError(f"{where}: {line!r} is a range; name the baseline (--baseline jax==A,flax==B), or pass "
                           "the project's uv.lock")
        pins[name] = exact[0]
    return pins


def python_for(jax: str, flax: str, floor: str = OLDEST_PYTHON) -> str:
    """The lowest python the pair installs on, never below `floor` (a baseline's python is kept)."""
    chosen = Version(floor)
    versions = {"jax": Version(jax), "flax": Version(flax)}
    for package, first, python in PYTHON_FLOORS:
        if versions[package] >= Version(first):
            chosen = max(chosen, Version(python))
    return f"{chosen.major}.{chosen.minor}"


def make_cell(jax: str, flax: str, python: str, *, devices: int = 8, jaxlib: str | None = None) -> Cell:
    """A cell for exact jax and flax releases: jaxlib follows jax (or `jaxlib_for`'s pick, named in the id), the id is
    the matrix's default id."""
    companions = companions_for(jaxlib or jax)
    if jaxlib is None or jaxlib == jax:
        return Cell(id=default_id(jax, flax, python), jax=jax, jaxlib=jax, flax=flax, python=python, devices=devices,
                    extras=companions)
    # Its own id: a cell of jaxlib == jax at this pair (one that did not install) must not answer for it.
    return Cell(id=f"jax{jax}-jaxlib{jaxlib}-flax{flax}-py{python}", jax=jax, jaxlib=jaxlib, flax=flax,
                python=python, devices=devices, extras=companions)


def companions_for(jaxlib: str) -> tuple[str, ...]:
    """The requirements JAXLIB_COMPANIONS adds to a cell of this jaxlib; none for one that is not a release (an
    unreleased source takes what its own metadata asks for)."""
    try:
        version = Version(jaxlib)
    except InvalidVersion:
        return ()
    return tuple(requirement for spec, requirement in JAXLIB_COMPANIONS if version in SpecifierSet(spec))


def jaxlib_for(jax: Version, jaxlibs: Collection[Version], requires: list[str]) -> Version | None:
    """The jaxlib a cell of this jax release pins: the matrix's rule, jaxlib == jax, where jaxlib has that release;
    else the newest jaxlib the jax release itself requires (its Requires-Dist, `requires`): jax 0.5.2 requires
    jaxlib>=0.5.1,<=0.5.2 and no jaxlib 0.5.2 was released, so 0.5.1. None where no released jaxlib meets it."""
    if jax in jaxlibs:
        return jax
    required = index.requirement_of(requires, "jaxlib")
    if required is None:  # a jax that names no jaxlib says nothing of which one it runs with
        return None
    return max((version for version in jaxlibs if version in required), default=None)


def baseline_cell(cells: list[Cell], pins: dict[str, str] | None = None) -> Cell:
    """The baseline: given pins (an unpinned flax is the one the matrix pairs with that jax, `flax_for`), else the
    default cell."""
    default = default_cell(cells)
    if not pins:
        return default
    _check_jaxlib(pins)
    jax = pins.get("jax", default.jax)
    flax = pins.get("flax") or flax_for(cells, jax)
    return make_cell(jax, flax, python_for(jax, flax), devices=default.devices)


def flax_for(cells: list[Cell], jax: str) -> str:
    """The flax for a baseline whose jax is pinned and flax is not (a project that locks jax alone, `--baseline
    jax==X`): the newest flax the default set pairs with the newest jax not newer than X. The default cell's flax
    may need a newer jax than X (flax 0.12.12 needs jax>=0.11.1), so a jax-only project locked at jax 0.8.0 could
    not install its own baseline. PinError when every cell's jax is newer."""
    paired = [cell for cell in cells if cell.default and Version(cell.jax) <= Version(jax)]
    if not paired:
        raise PinError(f"no cell of the matrix pairs a flax with jax {jax} or older: give --baseline "
                       f"jax=={jax},flax==X")
    return max(paired, key=Cell.sort_key).flax


def candidate_cell(baseline: Cell, pins: dict[str, str], origins: tuple[Origin, ...] = ()) -> Cell:
    """The candidate: the baseline with the given pins changed, or packages from sources (named by them); python
    is the baseline's unless the pair needs a newer one."""
    if not pins and not origins:
        raise PinError("name the candidate, e.g. jax==0.12.0.1 (and flax==X), or 'flax @ file:///src/flax'")
    _check_jaxlib(pins)
    versions = {**pins, **{o.package: o.version for o in origins}}
    jax, flax = versions.get("jax", baseline.jax), versions.get("flax", baseline.flax)
    cell = make_cell(jax, flax, python_for(jax, flax, floor=baseline.python), devices=baseline.devices)
    if not origins:
        return cell
    cell = cellenv.with_sources(replace(cell, jaxlib=pins.get("jax", baseline.jaxlib)), origins)
    return replace(cell, id=cellenv.named(cell))


def default_cell(cells: list[Cell]) -> Cell:
    """The default baseline: the cell of the default set that sorts last by (jax, flax, python), i.e. the newest jax
    with the newest flax paired with it, the top of the matrix's diagonal."""
    defaults = [cell for cell in cells if cell.default]
    if not defaults:
        raise PinError("the matrix has no cells in its default set to take a baseline from")
    return max(defaults, key=Cell.sort_key)


def _check_jaxlib(pins: dict[str, str]) -> None:
    if "jaxlib" in pins and "jax" not in pins:  # it would be dropped: jaxlib follows the jax the cell keeps
        raise PinError(f"jaxlib=={pins['jaxlib']} without jax: cells pin jaxlib to jax, so pin jax=={pins['jaxlib']}")
    if "jaxlib" in pins and pins["jaxlib"] != pins["jax"]:
        raise PinError(f"jaxlib=={pins['jaxlib']} differs from jax=={pins['jax']}; cells pin jaxlib to jax")


def case_module(case_id: str) -> tuple[str, str]:
    """'sharded_gathers::test_take[x]' -> ('sharded_gathers', 'test_take[x]'); a module named by the end of its path
    ('v1/misc_util_test', harness.cell.records.module_name) keeps it."""
    module, sep, name = case_id.partition("::")
    if not sep or not module or not name or not re.fullmatch(r"[\w.]+(/[\w.]+)*", module):
        raise PinError(f"case {case_id!r} is not <module>::<test>")
    return module, name
