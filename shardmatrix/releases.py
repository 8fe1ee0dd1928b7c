"""What the package index says about jax and flax releases: which exist, when, what each flax declares about jax,
and on which Pythons a (jax, flax) pair can be installed at all.

Read from PyPI's JSON API (a mirror answers it too). A flax release's jax requirement comes from that release's
JSON, else from its wheel's METADATA (a mirror may not serve per-release JSON). The Pythons a pair installs on come
from the files themselves: jaxlib's wheel tags for this platform, and every package's Requires-Python.
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import Version

from harness.formats import ShardmatrixError
from harness.tools import index

upload_dates = index.upload_dates


class ReleaseError(ShardmatrixError, ValueError):
    """The index cannot answer what was asked (no release selected, no wheel to read), phrased as one line."""


def declared_jax(flax: Version, document: dict[str, Any], fetch: index.Fetch = index.fetch_json,
                 download: Callable[[str], bytes] | None = None) -> SpecifierSet:
    """The jax requirement a flax release declares (unconditional Requires-Dist lines only): from PyPI's JSON of
    that release, else from its wheel's METADATA (`document` is flax's project JSON, which lists the wheel)."""
    try:
        lines = index.requires_dist("flax", flax, document, fetch, download)
    except index.IndexError_ as error:
        raise ReleaseError(str(error)) from None
    return index.requirement_of(lines, "jax") or SpecifierSet()


def contemporary(flax_date: datetime | None, jax_dates: dict[Version, datetime],
                 candidates: list[Version]) -> Version | None:
    """The candidate jax nearest in time to the flax release (what it was tested with): the newest released
    before it, else (a flax older than every candidate) the oldest candidate."""
    if flax_date is None or not candidates:
        return None
    before = [v for v in candidates if v in jax_dates and jax_dates[v] <= flax_date]
    return max(before) if before else min(candidates)


# --- which Pythons a pair installs on ----------------------------------------------------------------------------

def wheel_pythons(document: dict[str, Any], version: Version, machine: str | None = None) -> set[str] | None:
    """The Pythons ('3.11') a compiled package's release has a wheel for on this platform (Linux, `machine`);
    None when its files do not say (no wheel names a CPython tag, e.g. a pure-Python package)."""
    machine = machine or platform.machine()
    found: set[str] = set()
    named = False
    for file in document["releases"].get(str(version), []):
        if file.get("yanked") or not str(file.get("filename", "")).endswith(".whl"):
            continue
        try:
            tags = parse_wheel_filename(str(file["filename"]))[3]
        except InvalidWheelFilename:
            continue
        for tag in tags:
            if not tag.interpreter.startswith("cp3"):
                continue
            named = True
            if tag.platform.endswith(machine) and ("linux" in tag.platform):
                found.add(f"3.{tag.interpreter[3:]}")
    return found if named else None


def requires_python(document: dict[str, Any], version: Version) -> SpecifierSet:
    """The Requires-Python of a release (the strictest its files state; empty when none does)."""
    found = SpecifierSet()
    for file in document["releases"].get(str(version), []):
        try:
            found &= SpecifierSet(file.get("requires_python") or "")
        except InvalidSpecifier:
            continue
    return found


def installable_pythons(available: Iterable[str], *constraints: SpecifierSet | set[str] | None) -> list[str]:
    """The available Pythons every constraint admits: a Requires-Python, or a set of Pythons with wheels."""
    chosen = []
    for python in available:
        version = Version(python)
        if all(c is None or (python in c if isinstance(c, set) else c.contains(version, prereleases=True))
               for c in constraints):
            chosen.append(python)
    return chosen


def preferred_order(pythons: list[str], preferred: str) -> list[str]:
    """`pythons` tried from `preferred` upward, then the older ones newest first: the pair's own choice wins."""
    floor = Version(preferred)
    upward = sorted((p for p in pythons if Version(p) >= floor), key=Version)
    downward = sorted((p for p in pythons if Version(p) < floor), key=Version, reverse=True)
    return upward + downward


# --- the releases of a frontier --------------------------------------------------------------------------------------

@dataclass
class Releases:
    """What the index says: flax releases and jax candidates (those with a jaxlib of the same version) and dates."""

    flax: list[Version]
    jax: list[Version]
    flax_dates: dict[Version, datetime]
    jax_dates: dict[Version, datetime]
    #: The projects' JSON: flax's lists each release's wheel (whose METADATA declares the jax requirement); all
    #: three name their files, whose tags and Requires-Python say which Pythons a pair installs on.
    flax_document: dict[str, Any]
    jax_document: dict[str, Any]
    jaxlib_document: dict[str, Any]

    def pythons(self, jax: Version, flax: Version, available: Iterable[str]) -> list[str]:
        """The available Pythons on which jax, jaxlib (== jax) and flax all have files for this platform."""
        return installable_pythons(
            available, requires_python(self.jax_document, jax), requires_python(self.jaxlib_document, jax),
            wheel_pythons(self.jaxlib_document, jax), requires_python(self.flax_document, flax))


def releases(flax_spec: SpecifierSet, jax_spec: SpecifierSet, fetch: index.Fetch = index.fetch_json) -> Releases:
    """Read the three packages' releases from the JSON API ($SHARDMATRIX_JSON_API's, else PyPI's); ReleaseError when a
    spec selects none."""
    try:
        documents = {name: fetch(index.json_api(name), "application/json")
                     for name in ("flax", "jax", "jaxlib")}
        flax_dates = upload_dates(documents["flax"])
        jax_dates = upload_dates(documents["jax"])
        jaxlibs = set(index.from_json_api(documents["jaxlib"]))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ReleaseError(f"cannot read releases from PyPI: {error}") from None
    flax = sorted(v for v in flax_dates if v in flax_spec)
    jax = sorted(v for v in jax_dates if v in jax_spec and v in jaxlibs)
    if not flax:
        raise ReleaseError(f"--flax {flax_spec or '(any)'} selects no flax release")
    if not jax:
        raise ReleaseError(f"--jax {jax_spec or '(any)'} selects no jax release that has a jaxlib of its version")
    return Releases(flax, jax, flax_dates, jax_dates, documents["flax"], documents["jax"], documents["jaxlib"])
