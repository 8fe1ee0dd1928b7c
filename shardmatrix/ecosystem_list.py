"""The projects `shardmatrix ecosystem` runs: `cases/ecosystem.toml`, read strictly here and nowhere else.

Each entry says where a project's tests come from (its git repository at a release's tag or at a day, or its own
sdist or wheel when they carry the tests), which of them run (folders, `-k`, `-m`; the sharding-related ones by
default, every one with `whole = true`), what else they need, how many devices, and how long a test may take. An
unknown key, a missing one or a value of the wrong kind is refused in one line naming the entry: nothing runs.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the host runs nox on 3.11+
    import tomli as tomllib

from packaging.requirements import InvalidRequirement, Requirement

from harness.formats import ShardmatrixError
from harness.host.shipped import shipped

SCHEMA_VERSION = 1
#: Where a project's tests come from.
SOURCES = ("git", "sdist", "wheel")
#: How a git source picks its revision: the release's tag, or the last commit of the day.
AT = ("tag", "date")
#: The tests run by default: those whose names say they are about sharding (pytest -k, case-insensitive).
SHARDING = "shard or mesh or partition or spmd or pjit or named_sharding or device_put"
DEFAULT_DEVICES = 8
DEFAULT_BUDGET_S = 180.0
REQUIRED = ("name", "why", "source", "tests")
OPTIONAL = ("package", "repository", "tag", "at", "keywords", "whole", "markers", "requires", "devices", "budget")


class EcosystemListError(ShardmatrixError, ValueError):
    """An ecosystem list that cannot be read as given, in one line naming the file and the entry."""


@dataclass(frozen=True)
class Entry:
    """One project of the list: where its tests come from and which of them run."""

    name: str
    why: str
    source: str
    tests: tuple[str, ...]
    package: str
    repository: str = ""
    tag: str = "v{version}"
    at: str = "tag"
    keywords: str = SHARDING
    whole: bool = False
    markers: str = ""
    requires: tuple[str, ...] = ()
    devices: int = DEFAULT_DEVICES
    budget: float = DEFAULT_BUDGET_S

    def keyword_expression(self, whole_suite: bool = False) -> str:
        """The `-k` its tests run with: none for the whole suite (asked here or on the command line)."""
        return "" if self.whole or whole_suite else self.keywords


def default_path() -> Path:
    """The shipped list: cases/ecosystem.toml in the checkout or the installed package."""
    return shipped("cases") / "ecosystem.toml"


def load(path: Path | None = None) -> list[Entry]:
    """The entries of an ecosystem list, in its order; EcosystemListError (one line) for anything it cannot use."""
    path = default_path() if path is None else Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EcosystemListError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise EcosystemListError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise EcosystemListError(f"{path}: malformed TOML ({exc})") from None
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise EcosystemListError(f"{path}: schema_version {version!r} is not {SCHEMA_VERSION} (this shardmatrix reads "
                                 f"version {SCHEMA_VERSION})")
    unknown = sorted(set(data) - {"schema_version", "project"})
    if unknown:
        raise EcosystemListError(f"{path}: unknown key {unknown[0]!r} (keys: schema_version, [[project]])")
    tables = data.get("project", [])
    if not isinstance(tables, list) or not tables:
        raise EcosystemListError(f"{path}: no [[project]] entries")
    entries = [entry(table, f"{path}: project {number}") for number, table in enumerate(tables, 1)]
    names = [e.name for e in entries]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise EcosystemListError(f"{path}: project {twice[0]!r} is listed twice")
    return entries


def entry(table: dict[str, Any], where: str) -> Entry:
    """One [[project]] table as an Entry; EcosystemListError naming `where` and the key for anything wrong."""
    if "name" in table and isinstance(table["name"], str):
        where = f"{where} ({table['name']})"
    unknown = sorted(set(table) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise EcosystemListError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join((*REQUIRED, *OPTIONAL))})")
    missing = [key for key in REQUIRED if key not in table]
    if missing:
        raise EcosystemListError(f"{where}: {missing[0]!r} is required")
    name, why, source = (_text(table, key, where) for key in ("name", "why", "source"))
    if source not in SOURCES:
        raise EcosystemListError(f"{where}: source {source!r} is not one of {', '.join(SOURCES)}")
    at = _text(table, "at", where, "tag")
    if at not in AT:
        raise EcosystemListError(f"{where}: at {at!r} is not one of {', '.join(AT)}")
    repository = _text(table, "repository", where, "")
    if source == "git" and not repository:
        raise EcosystemListError(f"{where}: a git source needs 'repository'")
    tag = _text(table, "tag", where, "v{version}")
    if "{version}" not in tag:
        raise EcosystemListError(f"{where}: tag {tag!r} does not say where the version goes ({{version}})")
    tests = _texts(table, "tests", where)
    if not tests or any(Path(test).is_absolute() or ".." in Path(test).parts for test in tests):
        raise EcosystemListError(f"{where}: tests must be folders inside the project, e.g. [\"tests\"]")
    requires = _texts(table, "requires", where)
    for line in requires:
        try:
            Requirement(line)
        except InvalidRequirement:
            raise EcosystemListError(f"{where}: requires {line!r} is not a requirement") from None
    devices = table.get("devices", DEFAULT_DEVICES)
    if not isinstance(devices, int) or isinstance(devices, bool) or devices < 1:
        raise EcosystemListError(f"{where}: devices must be a whole number of at least 1, got {devices!r}")
    budget = table.get("budget", DEFAULT_BUDGET_S)
    if not isinstance(budget, (int, float)) or isinstance(budget, bool) or budget <= 0:
        raise EcosystemListError(f"{where}: budget must be seconds above 0, got {budget!r}")
    whole = table.get("whole", False)
    if not isinstance(whole, bool):
        raise EcosystemListError(f"{where}: whole must be true or false, got {whole!r}")
    keywords = _text(table, "keywords", where, SHARDING)
    if not keywords.strip():
        raise EcosystemListError(f"{where}: keywords is empty (whole = true runs every test)")
    return Entry(name=name, why=why, source=source, tests=tests, package=_text(table, "package", where, name),
                 repository=repository, tag=tag, at=at, keywords=keywords, whole=whole,
                 markers=_text(table, "markers", where, ""), requires=requires, devices=devices,
                 budget=float(budget))


def select(entries: list[Entry], names: list[str]) -> list[Entry]:
    """The entries named (all when none is); EcosystemListError for a name the list does not hold."""
    if not names:
        return entries
    known = {e.name: e for e in entries}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise EcosystemListError(f"--only {unknown[0]}: no such project in the list ({', '.join(known)})")
    return [known[name] for name in dict.fromkeys(names)]


def _text(table: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise EcosystemListError(f"{where}: {key} must be text, got {value!r}")
    return value


def _texts(table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise EcosystemListError(f"{where}: {key} must be a list of text, got {value!r}")
    return tuple(value)
