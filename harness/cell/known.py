"""Known upstream breakages as data: (case, version ranges, reason, link, raises) applied as strict xfail.

A file holds `[[breakage]]` tables. Version ranges use PEP 440 specifiers on installed distributions; a range
left out matches every version. An entry that matches no collected case is stale and is reported as such; an
entry that matches a case which now passes turns that case `xpassed` (strict), which says the same per cell.
`raises` (an exception class name, or a list of them) is the exception the breakage raises: it matches any name
in the raised exception's class hierarchy, and a different exception makes the case `failed`.
"""

from __future__ import annotations

import importlib.metadata
import platform
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from harness.formats import ShardmatrixError, read_toml
from harness.vocabulary import breakage_reason

FILENAME = "known_breakages.toml"
RANGED = ("jax", "jaxlib", "flax", "python")
KEYS = ("case", "reason", "link", "raises", *RANGED)


class KnownBreakageError(ShardmatrixError, ValueError):
    """A malformed known-breakages file, named with the entry at fault."""


@dataclass(frozen=True)
class Breakage:
    """One known upstream breakage of one case over a range of versions."""

    case: str
    reason: str
    link: str
    ranges: dict[str, SpecifierSet] = field(default_factory=dict)
    raises: tuple[str, ...] = ()

    def applies(self, installed: dict[str, str | None]) -> bool:
        """Whether every declared range contains the installed version."""
        for name, spec in self.ranges.items():
            version = installed.get(name)
            if version is None or not spec.contains(version, prereleases=True):
                return False
        return True

    def describe(self) -> str:
        """The xfail reason: why, which versions, and where upstream says so."""
        ranges = ", ".join(f"{name}{spec}" for name, spec in self.ranges.items())
        return breakage_reason(self.reason, ranges, self.link)

    def unexpected(self, exc: BaseException) -> str | None:
        """None when `exc` is the declared exception (or none is declared), else 'expected X, got Type: text'."""
        if not self.raises:
            return None
        names = set()
        for cls in type(exc).__mro__:
            names |= {cls.__name__, f"{cls.__module__}.{cls.__qualname__}"}
        if names & set(self.raises):
            return None
        text = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
        got = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        return f"expected {' or '.join(self.raises)}, got {got}"[:500]


def is_unexpected(message: object) -> bool:
    """Whether a record's error message is Breakage.unexpected's: a known breakage that raised another exception than
    it declares, so its case failed and was not xfailed."""
    return isinstance(message, str) and message.startswith("expected ") and ", got " in message


def load(path: Path) -> list[Breakage]:
    """Read and validate a known-breakages file."""
    data = read_toml(Path(path), KnownBreakageError)
    entries = []
    for index, table in enumerate(data.get("breakage", []), start=1):
        where = f"{path}: breakage #{index}"
        unknown = set(table) - set(KEYS)
        if unknown:
            raise KnownBreakageError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        for key in ("case", "reason", "link"):
            if not isinstance(table.get(key), str) or not table[key]:
                raise KnownBreakageError(f"{where}: {key!r} is required")
        if not _is_link(table["link"]):
            # A known upstream bug is one the public record shows: its link is what reports name it by.
            raise KnownBreakageError(f"{where}: link {table['link']!r} is not an http(s):// address of the upstream "
                                     "report")
        ranges = {}
        for name in RANGED:
            if name in table:
                try:
                    ranges[name] = SpecifierSet(table[name])
                except InvalidSpecifier:
                    raise KnownBreakageError(f"{where}: {name} range {table[name]!r} is not valid") from None
        entries.append(Breakage(table["case"], table["reason"], table["link"], ranges, _raises(table, where)))
    return entries


def _raises(table: dict[str, object], where: str) -> tuple[str, ...]:
    value = table.get("raises", [])
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) and _is_class_name(n) for n in names):
        raise KnownBreakageError(f"{where}: raises {value!r} is not an exception class name or a list of them")
    return tuple(names)


def _is_link(text: str) -> bool:
    """Whether `text` is one http(s) address with a host: no spaces, so it stays the reason's last word."""
    scheme, _, rest = text.partition("://")
    return scheme in ("http", "https") and bool(rest.split("/")[0]) and not any(c.isspace() for c in text)


def _is_class_name(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def installed_versions() -> dict[str, str | None]:
    """The versions ranges are checked against, read from package metadata and the interpreter."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("jax", "jaxlib", "flax"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def matching(entries: list[Breakage], case_id: str, installed: dict[str, str | None]) -> Breakage | None:
    """The first entry for this case whose ranges contain the installed versions."""
    base = case_id.split("[")[0]
    for entry in entries:
        if entry.case in (case_id, base) and entry.applies(installed):
            return entry
    return None


def stale(entries: list[Breakage], case_ids: set[str]) -> list[Breakage]:
    """Entries naming a case that does not exist (renamed or deleted)."""
    bases = {case_id.split("[")[0] for case_id in case_ids} | case_ids
    return [entry for entry in entries if entry.case not in bases]
