"""The projects `shardmatrix ecosystem` runs: `cases/ecosystem.toml`, read strictly here and nowhere else.

Each entry says where a project's tests come from (its git repository at a release's tag or at a day, or its own
sdist or wheel when they carry the tests), which of them run (folders, `-k`, `-m`; the sharding-related ones by
default, every one with `whole = true`), what of them is left out on purpose and why (`exclude`), what else they
need, the variables its tests read, how many devices, how long a test may take and how long its whole suite may take
in one cell. An
unknown key, a missing one or a value of the wrong kind is refused in one line naming the entry: nothing runs.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from harness import formats
from harness.formats import ShardmatrixError
from harness.host import options
from harness.host.matrix import PINNED
from harness.host.shipped import shipped

SCHEMA_VERSION = 1
#: Where a project's tests come from.
SOURCES = ("git", "sdist", "wheel")
#: How a git source picks its revision: the release's tag, or the last commit of the day.
AT = ("tag", "date")
#: The tests run by default: those whose names say they are about sharding (pytest -k, case-insensitive).
SHARDING = "shard or mesh or partition or spmd or pjit or named_sharding or device_put"
DEFAULT_DEVICES = 8
#: The most devices a cell simulates: each is a thread of the cell's one CPU process, sharing its cores, so a count
#: past this is a typo (80 for 8) that would make every test of the project crawl, not a mesh any listed suite builds.
MAX_DEVICES = 64
DEFAULT_BUDGET_S = 180.0
#: A test's budget above a day is no budget: a typo, or `inf`, which would let a hanging suite hold its job forever.
MAX_BUDGET_S = 86400.0
#: A project's name names its folders and report files: nothing that could step out of them or collide on a
#: case-insensitive disk.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
#: A distribution's name on the index (PEP 508).
PACKAGE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
#: A cell's whole selection, past which pytest stops after the running test (the issue's target is 3 minutes).
DEFAULT_SUITE_BUDGET_S = 1200.0
#: Variables shardmatrix sets for every cell itself (an entry's value would be overridden, or break the plugin), and
#: those that steer pytest or the process past the list's checked selection (a test left out through
#: PYTEST_ADDOPTS would be left out unreported: `exclude` is the way, with its reason in the report).
RESERVED_ENV = (*options.RESERVED_ENV, "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
                "LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "JAX_PLATFORM_NAME")
#: Prefixes of the same: pytest's own variables (PYTEST_DEBUG, PYTEST_THEME, ...) and Python's warning filters.
RESERVED_ENV_PREFIXES = ("PYTEST_", "PYTHONWARNINGS")
#: jax's configuration variables (JAX_DISABLE_JIT, JAX_ENABLE_CHECKS, JAX_DEBUG_NANS, ...): a project's SAFE would be
#: of a jax configured unlike its users' (attack 39b's B8).
JAX_ENV_PREFIX = "JAX_"
#: A repository's address: a scheme git fetches from, then no white space.
ADDRESS = re.compile(r"(https?|ssh|git|file)://[^\s]+")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
REQUIRED = ("name", "why", "source", "tests")
OPTIONAL = ("package", "repository", "tag", "at", "keywords", "whole", "markers", "exclude", "requires", "env",
            "devices", "budget", "suite_budget")
#: What an `exclude` table leaves out: a path (pytest's --ignore: a folder or file pytest then never imports, for a
#: module that cannot even be collected) or a test (upgrade's --deselect, a case id as reports name it).
EXCLUDE_KINDS = ("path", "test")


class EcosystemListError(ShardmatrixError, ValueError):
    """An ecosystem list that cannot be read as given, in one line naming the file and the entry."""


@dataclass(frozen=True)
class Exclusion:
    """Tests of a project left out on purpose, in both cells: a path (`--ignore`) or a case id (`--deselect`), with
    the reason the report shows beside it."""

    kind: str
    target: str
    reason: str

    def describe(self) -> str:
        """'--ignore tests/contrib/kernels' or '--deselect core/misc_util_test::test_x'."""
        return f"{'--ignore' if self.kind == 'path' else '--deselect'} {self.target}"


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
    suite_budget: float = DEFAULT_SUITE_BUDGET_S
    #: Variables set for its tests (keras's KERAS_BACKEND), in the list's order.
    env: tuple[tuple[str, str], ...] = ()
    #: Tests left out on purpose, each with its reason, in the list's order.
    exclude: tuple[Exclusion, ...] = ()

    def selection(self) -> str:
        """A digest of what decides which tests ran and how (everything but `why`): two summaries of one project
        judged under lists that differ in it are of two selections, never one (attack 39b's B11)."""
        chosen = {key: value for key, value in asdict(self).items() if key != "why"}
        return hashlib.sha256(json.dumps(chosen, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def keyword_expression(self, whole_suite: bool = False) -> str:
        """The `-k` its tests run with: none for the whole suite (asked here or on the command line)."""
        return "" if self.whole or whole_suite else self.keywords


def default_path() -> Path:
    """The shipped list: cases/ecosystem.toml in the checkout or the installed package."""
    return shipped("cases") / "ecosystem.toml"


def load(path: Path | None = None) -> list[Entry]:
    """The entries of an ecosystem list, in its order; EcosystemListError (one line) for anything it cannot use."""
    path = default_path() if path is None else Path(path)
    data = formats.read_toml(path, EcosystemListError)
    version = data.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise EcosystemListError(f"{path}: schema_version {version!r} is not {SCHEMA_VERSION} (this shardmatrix reads "
                                 f"version {SCHEMA_VERSION})")
    unknown = sorted(set(data) - {"schema_version", "project"})
    if unknown:
        raise EcosystemListError(f"{path}: unknown key {unknown[0]!r} (keys: schema_version, [[project]])")
    tables = data.get("project", [])
    if not isinstance(tables, list) or not tables:
        raise EcosystemListError(f"{path}: no [[project]] entries")
    for number, table in enumerate(tables, 1):
        if not isinstance(table, dict):
            raise EcosystemListError(f"{path}: project {number} is {table!r}, not a [[project]] table")
    entries = [entry(table, f"{path}: project {number}") for number, table in enumerate(tables, 1)]
    # Folders and report files are named after projects: two names one disk may fold together are one name.
    names = [e.name.lower() for e in entries]
    twice = sorted({e.name for e in entries if names.count(e.name.lower()) > 1})
    if twice:
        raise EcosystemListError(f"{path}: project {twice[0]!r} is listed twice (names are told apart "
                                 "without case)")
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
    if not NAME.fullmatch(name):
        raise EcosystemListError(f"{where}: name {name!r} must be letters, digits, '.', '_' or '-' (it names "
                                 "the project's folders and report files)")
    if source not in SOURCES:
        raise EcosystemListError(f"{where}: source {source!r} is not one of {', '.join(SOURCES)}")
    package = _text(table, "package", where, name)
    if not PACKAGE.fullmatch(package):
        raise EcosystemListError(f"{where}: package {package!r} is not a distribution name on the index")
    # A repository may say where an sdist's project lives; a tag or a day to check out means a git source.
    git_only = [key for key in ("tag", "at") if key in table and source != "git"]
    if git_only:
        raise EcosystemListError(f"{where}: {git_only[0]} applies to a git source only (source is {source!r})")
    at = _text(table, "at", where, "tag")
    if at not in AT:
        raise EcosystemListError(f"{where}: at {at!r} is not one of {', '.join(AT)}")
    repository = _text(table, "repository", where, "")
    if source == "git" and not repository:
        raise EcosystemListError(f"{where}: a git source needs 'repository'")
    if repository and not (ADDRESS.fullmatch(repository) or Path(repository).is_absolute()):
        # git reads a value starting with '-' as its own option (--upload-pack=CMD runs CMD): only an address.
        raise EcosystemListError(f"{where}: repository {repository!r} is not an https, ssh, git or file address, "
                                 "or an absolute path")
    tag = _text(table, "tag", where, "v{version}")
    if "{version}" not in tag or not _formats(tag):
        raise EcosystemListError(f"{where}: tag {tag!r} does not say where the version goes ({{version}}, and no "
                                 "other {...})")
    tests = _tests(table, where)
    requires = _requires(table, where)
    devices = table.get("devices", DEFAULT_DEVICES)
    if not isinstance(devices, int) or isinstance(devices, bool) or not 1 <= devices <= MAX_DEVICES:
        raise EcosystemListError(f"{where}: devices must be a whole number from 1 to {MAX_DEVICES} (the simulated "
                                 f"CPU devices of a cell), got {devices!r}")
    budget = _seconds(table, "budget", DEFAULT_BUDGET_S, where)
    suite_budget = _seconds(table, "suite_budget", DEFAULT_SUITE_BUDGET_S, where)
    # Given below one test's budget, pytest would stop the whole suite before one test could use its own time.
    if "suite_budget" in table and suite_budget < budget:
        raise EcosystemListError(f"{where}: suite_budget {suite_budget:g} s is below budget {budget:g} s (one test's): "
                                 "the whole suite's budget must hold at least one test's")
    keywords, whole, markers = _selection(table, where)
    return Entry(name=name, why=why, source=source, tests=tests, package=package,
                 repository=repository, tag=tag, at=at, keywords=keywords, whole=whole,
                 markers=markers, requires=requires, devices=devices,
                 budget=budget, suite_budget=suite_budget, env=_env(table, where),
                 exclude=_exclude(table, tests, where))


def _tests(table: dict[str, Any], where: str) -> tuple[str, ...]:
    """The entry's test folders: inside the project, folders not files, each once."""
    tests = _texts(table, "tests", where)
    if not tests or any(Path(test).is_absolute() or ".." in Path(test).parts for test in tests):
        raise EcosystemListError(f"{where}: tests must be folders inside the project, e.g. [\"tests\"]")
    patterns = [test for test in tests if any(sign in test for sign in "*?[")]
    if patterns:  # never expanded: fetching would say "no folder"
        raise EcosystemListError(f"{where}: tests names a pattern, {patterns[0]!r}: name each folder (no glob)")
    files = [test for test in tests if Path(test).suffix.lower() == ".py"]
    if files:  # fetching would say "no folder" of a file that is there
        raise EcosystemListError(f"{where}: tests names a file, {files[0]!r}: name its folder, and pick its tests with "
                                 "keywords")
    for number, test in enumerate(tests):
        _refuse_overlap(test, tests[:number], where)
    return tests


def _refuse_overlap(test: str, earlier: tuple[str, ...], where: str) -> None:
    """EcosystemListError when a test folder is one named before (in another case too: one folder on macOS), or lies
    inside one, or holds one: its tests would run twice."""
    parts = tuple(part.lower() for part in Path(test).parts)
    for other in earlier:
        others = tuple(part.lower() for part in Path(other).parts)
        if parts == others:
            raise EcosystemListError(f"{where}: tests names {test!r} twice" + (f" (as {other!r})" if other != test
                                                                                 else ""))
        shorter = min(len(parts), len(others))
        if parts[:shorter] == others[:shorter]:
            inner, outer = (test, other) if len(parts) > len(others) else (other, test)
            raise EcosystemListError(f"{where}: tests names {inner!r} inside {outer!r}: its tests would run twice; "
                                     "name the outer folder only")


def _exclude(table: dict[str, Any], tests: tuple[str, ...], where: str) -> tuple[Exclusion, ...]:
    """What the entry leaves out: [[project.exclude]] tables, each a `path` inside its test folders or a `test` case
    id, and a `reason`; each once."""
    tables = table.get("exclude", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise EcosystemListError(f"{where}: exclude must be a list of tables ([[project.exclude]] with path or test, "
                                 f"and reason), got {tables!r}")
    made: list[Exclusion] = []
    for number, excluded in enumerate(tables, 1):
        named = f"{where}: exclude {number}"
        kinds = [kind for kind in EXCLUDE_KINDS if kind in excluded]
        unknown = sorted(set(excluded) - {*EXCLUDE_KINDS, "reason"})
        if unknown or len(kinds) != 1:
            raise EcosystemListError(f"{named}: give one of path or test, and reason (got "
                                     f"{', '.join(sorted(excluded)) or 'nothing'})")
        target, reason = _text(excluded, kinds[0], named), _text(excluded, "reason", named)
        if kinds[0] == "path" and not _inside(target, tests):
            raise EcosystemListError(f"{named}: path {target!r} is not inside its tests ({', '.join(tests)})")
        if kinds[0] == "test" and not options.is_case_id(target):
            raise EcosystemListError(f"{named}: test {target!r} is not a case id, <file stem>::<test> (as reports "
                                     "name it)")
        if any(e.kind == kinds[0] and e.target == target for e in made):
            raise EcosystemListError(f"{named}: {kinds[0]} {target!r} is left out twice")
        made.append(Exclusion(kinds[0], target, reason))
    return tuple(made)


def _inside(path: str, tests: tuple[str, ...]) -> bool:
    """Whether a relative path lies inside one of the test folders (and is not one of them whole)."""
    parts = Path(path).parts
    return (not Path(path).is_absolute() and ".." not in parts
            and any(parts[:len(Path(t).parts)] == Path(t).parts and len(parts) > len(Path(t).parts) for t in tests))


def _requires(table: dict[str, Any], where: str) -> tuple[str, ...]:
    """What else the entry's project needs: requirements, none naming what the candidate and baseline decide."""
    requires = _texts(table, "requires", where)
    for line in requires:
        try:
            required = Requirement(line)
        except InvalidRequirement:
            raise EcosystemListError(f"{where}: requires {line!r} is not a requirement") from None
        if canonicalize_name(required.name) in PINNED:
            raise EcosystemListError(f"{where}: requires {line!r}: the candidate and the baseline decide "
                                     f"{', '.join(PINNED)}, never the list")
    return requires


def _selection(table: dict[str, Any], where: str) -> tuple[str, bool, str]:
    """Which tests run: (keywords, whole, markers), each a pytest expression pytest can parse, not both whole and
    keywords."""
    whole = table.get("whole", False)
    if not isinstance(whole, bool):
        raise EcosystemListError(f"{where}: whole must be true or false, got {whole!r}")
    keywords = _text(table, "keywords", where, SHARDING)
    if not keywords.strip():
        raise EcosystemListError(f"{where}: keywords is empty (whole = true runs every test)")
    markers = _text(table, "markers", where, "")
    for flag, key, expression in (("-k", "keywords", keywords), ("-m", "markers", markers)):
        wrong = _unparsed(expression)
        if wrong:
            raise EcosystemListError(f"{where}: {key} {expression!r} is no pytest {flag} expression ({wrong})")
    if whole and "keywords" in table:
        raise EcosystemListError(f"{where}: whole = true runs every test, so its keywords would be ignored: "
                                 "keep one")
    return keywords, whole, markers


def _seconds(table: dict[str, Any], key: str, default: float, where: str) -> float:
    """A budget in seconds: a finite number above 0 and at most a day (`inf` would let a hanging suite hold its job
    forever); EcosystemListError naming the entry otherwise."""
    value = table.get(key, default)
    if (not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value)
            or not 0 < value <= MAX_BUDGET_S):
        raise EcosystemListError(f"{where}: {key} must be seconds above 0 and at most {MAX_BUDGET_S:g}, "
                                 f"got {value!r}")
    return float(value)


def select(entries: list[Entry], names: list[str]) -> list[Entry]:
    """The entries named (all when none is); EcosystemListError for a name the list does not hold."""
    if not names:
        return entries
    known = {e.name: e for e in entries}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise EcosystemListError(f"--only {unknown[0]}: no such project in the list ({', '.join(known)})")
    return [known[name] for name in dict.fromkeys(names)]


def _unparsed(expression: str) -> str:
    """Why pytest cannot read a -k or -m expression ("" when it can): each cell's pytest would otherwise exit 4 on
    it, and the project read as crashed on both sides (harness.host.options.unparsed, which upgrade checks too)."""
    return options.unparsed(expression)


def _formats(tag: str) -> bool:
    """Whether the tag's only replacement field is {version} (`str.format` raises on any other)."""
    try:
        tag.format(version="0")
    except (KeyError, IndexError, ValueError, AttributeError):
        return False
    return True


def _text(table: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise EcosystemListError(f"{where}: {key} must be text, got {value!r}")
    return value


def _env(table: dict[str, Any], where: str) -> tuple[tuple[str, str], ...]:
    value = table.get("env", {})
    if not isinstance(value, dict):
        raise EcosystemListError(f"{where}: env must be a table of NAME = \"value\", got {value!r}")
    for name, setting in value.items():
        if not ENV_NAME.fullmatch(name):
            raise EcosystemListError(f"{where}: env {name!r} is not a variable name")
        if name in RESERVED_ENV or name.startswith(RESERVED_ENV_PREFIXES):
            raise EcosystemListError(f"{where}: env {name} is shardmatrix's or steers pytest itself (tests are left "
                                     "out with exclude, which the report lists)")
        if name.startswith(JAX_ENV_PREFIX):
            raise EcosystemListError(f"{where}: env {name} is a jax setting: it changes what the candidate is judged "
                                     "on (JAX_DISABLE_JIT would never reach jit's sharding), so the list cannot set it")
        if not isinstance(setting, str):
            raise EcosystemListError(f"{where}: env {name} must be text, got {setting!r}")
    return tuple(value.items())


def _texts(table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise EcosystemListError(f"{where}: {key} must be a list of text, got {value!r}")
    return tuple(value)
