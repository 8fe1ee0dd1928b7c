"""What the command line adds to every cell's environment: a project, extra requirements, unreleased sources.

`--project DIR`, `--with REQ`, `--override PIN`, `--pre` and `--index URL` are checked here once, before any cell is
built (one line naming the culprit), then applied to each cell. A cell whose packages come from a source is named
by it (`jax0.9.2-flax0.12.6+tree.1a2b3c4d-py3.11`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from harness.host import corpus, projectsettings, unreleased
from harness.host import project as projects
from harness.host.matrix import PINNED, Cell, Origin, default_id
from harness.host.options import BUILTIN, Options, OptionsError


@dataclass(frozen=True)
class Additions:
    """Everything added to each cell, checked: the project, extra requirements, pins and sources overriding."""

    project: projects.Project | None = None
    extras: tuple[str, ...] = ()
    pins: tuple[tuple[str, str], ...] = ()
    origins: tuple[Origin, ...] = ()
    pre: bool = False
    indexes: tuple[str, ...] = ()


def prepare(opts: Options) -> Additions:
    """Check the additions the options ask for and build their sources; with a project and no --cases, its
    tests become the corpus. ProjectError, SourceError, OptionsError or CorpusError in one line; nothing else is
    built."""
    project = projects.load(opts.project) if opts.project else None
    if project is not None:
        projectsettings.read(project.root)  # addopts pytest could not read: refused before any build
    if project is not None and not opts.cases:
        opts.cases = [str(path) for path in project.testpaths()]
    elif not opts.cases:
        opts.cases = [BUILTIN]
    if project is not None:
        # The project's own `harness` beside cases that import ours as `harness.case`: refused before any build.
        corpus.case_api_wanted(corpus.case_paths(opts.cases), project.root)
    extras = tuple(_requirement(spec, "--with").__str__() for spec in opts.extras)
    pins: list[tuple[str, str]] = []
    origins: list[Origin] = []
    for spec in opts.overrides:
        if unreleased.is_reference(spec):
            origins.append(unreleased.resolve(spec))
            continue
        requirement = _requirement(spec, "--override")
        exact = [s.version for s in requirement.specifier if s.operator == "=="]
        if requirement.name.lower() not in PINNED or len(exact) != 1:
            raise OptionsError(f"--override {spec!r}: override jax, jaxlib or flax with an exact pin (==) or a "
                               "source ('flax @ file:///src/flax')")
        pins.append((requirement.name.lower(), exact[0]))
    return Additions(project, extras, tuple(pins), tuple(origins), opts.pre, tuple(opts.indexes))


def _requirement(spec: str, flag: str) -> Requirement:
    try:
        return Requirement(spec)
    except InvalidRequirement:
        raise OptionsError(f"{flag} {spec!r} is not a requirement like 'optax==0.2.8'") from None


def apply(cell: Cell, additions: Additions) -> Cell:
    """The cell with the additions: pins and sources in place of its own, renamed when they change what it is."""
    changed = replace(
        cell,
        extras=(*cell.extras, *additions.extras),
        project=str(additions.project.root) if additions.project else cell.project,
        pre=cell.pre or additions.pre,
        indexes=(*cell.indexes, *additions.indexes),
    )
    for package, version in additions.pins:
        changed = replace(changed, **_pinned(package, version))
    if additions.origins:
        changed = with_sources(changed, additions.origins)
    if (changed.jax, changed.flax, changed.sources) == (cell.jax, cell.flax, cell.sources):
        return changed
    own_id = cell.id == default_id(cell.jax, cell.flax, cell.python, cell.backend)
    return replace(changed, id=named(changed) if own_id else f"{cell.id}-{_label(changed)}")


def with_sources(cell: Cell, origins: tuple[Origin, ...]) -> Cell:
    """The cell with packages from sources: their versions are the built ones, the id is not changed here."""
    kept = tuple(o for o in cell.sources if o.package not in {new.package for new in origins})
    changed = replace(cell, sources=(*kept, *origins))
    for origin in origins:
        if origin.package in ("jax", "flax"):
            changed = replace(changed, **_pinned(origin.package, origin.version, jaxlib=False))
    return changed


def _pinned(package: str, version: str, jaxlib: bool = True) -> dict[str, Any]:
    """The Cell fields a pin sets: jaxlib follows a released jax."""
    return {package: version, **({"jaxlib": version} if package == "jax" and jaxlib else {})}


def named(cell: Cell) -> str:
    """The default id of a cell, its sources named by version and build (jax0.9.2-flax0.12.6+tree.1a2b3c4d-py3.11)."""
    tags = {origin.package: origin.tag for origin in cell.sources}
    return default_id(tags.get("jax", cell.jax), tags.get("flax", cell.flax), cell.python, cell.backend)


def _label(cell: Cell) -> str:
    tags = {origin.package: origin.tag for origin in cell.sources}
    return f"jax{tags.get('jax', cell.jax)}-flax{tags.get('flax', cell.flax)}"


def project_settings(cell: Cell, paths: Sequence[Path]) -> projectsettings.ProjectSettings | None:
    """The project's own pytest settings when the cases are its own tests, as in its CI (None for other cases:
    they keep the harness's)."""
    if not cell.project:
        return None
    root = Path(cell.project)
    if not paths or not all(Path(str(path).partition("::")[0]).resolve().is_relative_to(root) for path in paths):
        return None
    return projectsettings.read(root)
