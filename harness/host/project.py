"""A user's project in every cell (`--project DIR`): its dependencies, its locked versions, its tests, its content.

Runs on the host. uv answers every question about a uv.lock (`uv lock --check`, given back the options the lock was
made with, and `uv export`); nothing here resolves. A `pylock.toml` (PEP 751, a standard with no uv reader for this)
is read here, its exact versions only. A lock this cannot read as made (a uv workspace) is refused in one line
naming what is unsupported, and uv's own reason is kept in every refusal it gives. The cell's own jax, jaxlib and
flax pins stand in for the project's requirements on them; every other package is installed at the version the
project locked when the cell allows it.
"""

from __future__ import annotations

import configparser
import hashlib
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from harness import formats
from harness.formats import ShardmatrixError
from harness.host.matrix import PINNED
from harness.host.uv import installer_message, stale_reason, uv_command
from harness.runs import is_run_id
from harness.vocabulary import COLLECTION_CASE, ERROR, FAILED

#: Lockfiles, in the order a project's own tools would trust them.
LOCKFILES = ("uv.lock", "pylock.toml", "requirements.lock", "requirements.txt")
#: Extras and dependency groups its CI installs to run the tests.
TEST_EXTRAS = ("test", "tests", "testing", "dev")
#: uv.lock's [options] and the `uv lock` flag that sets each: `uv lock --check` is given them back, so a lock made
#: with them (`uv lock --exclude-newer DATE`, as people pin a reproducible world) is checked as it was made; without
#: them uv calls it stale, and the `uv lock` it suggests would re-lock to the newest releases and lose the baseline.
LOCK_OPTIONS = {"exclude-newer": "--exclude-newer", "resolution-mode": "--resolution",
                "prerelease-mode": "--prerelease", "fork-strategy": "--fork-strategy"}
#: Folders that are never part of a project's source: virtual environments, caches, build output, VCS data.
NOT_SOURCE = frozenset({"__pycache__", "build", "dist", "node_modules", "venv"})


#: The record a cell leaves when a conftest.py stops pytest before any session (harness.cell.plugin).
CONFTEST_CASE = f"conftest::{COLLECTION_CASE}"


class ProjectError(ShardmatrixError, ValueError):
    """A project that cannot be put into cells as given, phrased as one line naming it; nothing is built."""


@dataclass(frozen=True)
class Project:
    """A downstream project: where it is, what it needs besides the cell's pins, and what it locked."""

    root: Path
    name: str
    #: Its declared requirements (and its test extras' and groups'), without jax, jaxlib and flax.
    dependencies: tuple[str, ...]
    #: Its locked environment as exact requirement lines (`uv export`), "" without a lockfile.
    locked: str
    lockfile: Path | None
    #: Its lower bounds on jax, jaxlib and flax (`flax>=0.12.4`), resolved with the cell's pins: a cell below one is a
    #: real conflict. Exact pins and upper bounds are left to the cell: they are what a bump moves.
    floors: tuple[str, ...] = ()

    def locked_versions(self) -> dict[str, str]:
        """{package: version} of the lock's exact pins that apply on any platform the lock names first (a package
        locked once per Python reaches each cell at its Python's version through uv's preferences, envbuild)."""
        found: dict[str, str] = {}
        for line in self.locked.splitlines():
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            exact = [s.version for s in requirement.specifier if s.operator in ("==", "===")]
            if exact:
                found.setdefault(requirement.name.lower().replace("_", "-"), exact[0])
        return found

    def locked_per_python(self, name: str) -> list[str]:
        """The lock's lines pinning `name` when it pins it at several versions (one per Python, by their markers), as
        written; [] when it pins it once or not at all."""
        lines = [line.strip() for line in self.locked.splitlines() if _pinned_name(line) == name]
        versions = {line.partition(";")[0].strip() for line in lines}
        return lines if len(versions) > 1 else []

    def testpaths(self) -> list[Path]:
        """Where its tests are: pytest's configured `testpaths`, else tests/ (else the project itself)."""
        configured = [self.root / entry for entry in _ini_testpaths(pytest_config(self.root))]
        existing = [path for path in configured if path.exists()]
        if existing:
            return existing
        return [self.root / "tests"] if (self.root / "tests").is_dir() else [self.root]

def _pinned_name(line: str) -> str:
    try:
        return Requirement(line).name.lower().replace("_", "-")
    except InvalidRequirement:
        return ""


def load(root: Path | str) -> Project:
    """Read a project folder; ProjectError (one line) for no pyproject.toml or a lock that does not match it."""
    root = Path(root).expanduser().resolve()
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        raise ProjectError(f"--project {root}: no pyproject.toml there")
    data = _toml(pyproject)
    project = _table(data.get("project", {}), pyproject, "[project]")
    name = name_of(root)
    if "dependencies" in project.get("dynamic", []):
        raise ProjectError(f"--project {root}: its dependencies are dynamic; declare them in [project] dependencies")
    _refuse_workspace(root, data)
    lines = _strings(project.get("dependencies", []), pyproject, "[project] dependencies")
    optional = _table(project.get("optional-dependencies", {}), pyproject, "[project.optional-dependencies]")
    dependency_groups = _table(data.get("dependency-groups", {}), pyproject, "[dependency-groups]")
    extras = [extra for extra in TEST_EXTRAS if extra in optional]
    groups = [group for group in TEST_EXTRAS if group in dependency_groups]
    for extra in extras:
        lines += _strings(optional[extra], pyproject, f"optional dependencies {extra!r}")
    for group in groups:
        lines += group_requirements(dependency_groups, group, pyproject)
    lockfile = next((root / name for name in LOCKFILES if (root / name).is_file()), None)
    return Project(root=root, name=name, dependencies=tuple(_without_pins(lines, pyproject)),
                   locked=_locked(root, lockfile, extras, groups), lockfile=lockfile, floors=tuple(floors(lines)))


def group_requirements(groups: dict[str, Any], name: str, where: Path, seen: tuple[str, ...] = ()) -> list[str]:
    """The requirements of dependency group `name` (PEP 735), its `{include-group = ...}` entries expanded;
    ProjectError naming a group that includes itself or one that does not exist."""
    if name in seen:
        raise ProjectError(f"{where}: dependency group {name!r} includes itself ({' -> '.join([*seen, name])})")
    if name not in groups:
        raise ProjectError(f"{where}: dependency group {seen[-1]!r} includes {name!r}, which is not a group there")
    entries = groups[name]
    if not isinstance(entries, list):
        raise ProjectError(f"{where}: dependency group {name!r} is {type(entries).__name__}, not a list")
    found: list[str] = []
    for entry in entries:
        if isinstance(entry, dict) and set(entry) == {"include-group"} and isinstance(entry["include-group"], str):
            found += group_requirements(groups, entry["include-group"], where, (*seen, name))
        elif isinstance(entry, str):
            found.append(entry)
        else:
            raise ProjectError(f"{where}: dependency group {name!r} holds {entry!r}, neither a requirement nor "
                               "{include-group = NAME}")
    return found


def _table(value: object, where: Path, what: str) -> dict[str, Any]:
    """`value` when it is a TOML table, else ProjectError naming `what` and the file."""
    if not isinstance(value, dict):
        raise ProjectError(f"{where}: {what} is {type(value).__name__}, not a table")
    return value


def _strings(value: object, where: Path, what: str) -> list[str]:
    """`value` when it is a list of text (requirements), else ProjectError naming `what` and the file: a string read
    as a list would be one requirement per character."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ProjectError(f"{where}: {what} must be a list of requirement strings, not {value!r}"[:300])
    return list(value)


def _refuse_workspace(root: Path, data: dict[str, Any]) -> None:
    """ProjectError for a uv workspace, its root or a member: its members are built from their folders, which a cell
    (one project, its other requirements from the index) cannot do, and its lock is the workspace's."""
    if _is_workspace(data, root / "pyproject.toml"):
        raise ProjectError(f"--project {root}: a uv workspace ([tool.uv.workspace]) is not supported; shardmatrix "
                           "builds one project with its requirements from the index")
    for parent in root.parents:
        pyproject = parent / "pyproject.toml"
        if not pyproject.is_file():
            continue
        try:
            above = _is_workspace(_toml(pyproject), pyproject)
        except ProjectError as error:  # uv reads it too, looking for the workspace the project may belong to
            raise ProjectError(f"--project {root}: looking for a uv workspace above it: {error}") from None
        if above:
            raise ProjectError(f"--project {root}: a member of the uv workspace at {parent} is not supported "
                               "(its lock is the workspace's); shardmatrix builds one project with its own lock")


def _is_workspace(data: dict[str, Any], where: Path) -> bool:
    """Whether a pyproject's data declares a uv workspace; ProjectError for a [tool] or [tool.uv] that is no table."""
    tool = _table(data.get("tool", {}), where, "[tool]")
    return "workspace" in _table(tool.get("uv", {}), where, "[tool.uv]")


def pytest_config(root: Path) -> Path:
    """The file pytest reads its configuration from in the project's own CI (pyproject.toml when none has it)."""
    for name in ("pytest.ini", ".pytest.ini"):
        if (root / name).is_file():
            return root / name
    pyproject = root / "pyproject.toml"
    if "pytest" in _toml(pyproject).get("tool", {}):
        return pyproject
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if (root / name).is_file() and _ini(root / name).has_section(section):
            return root / name
    return pyproject


def name_of(root: Path) -> str:
    """The project's name as its pyproject.toml gives it (the folder's name when it gives none); nothing else read."""
    return str(_toml(root / "pyproject.toml").get("project", {}).get("name") or root.name)


def provenance(root: Path | str) -> str:
    """One line saying which project, in which state (the hash of its tree now), a cell ran."""
    root = Path(root)
    name = name_of(root)
    return f"# project {name} @ {root} (tree.{tree_hash(root)[:12]})"


def _without_pins(lines: list[str], where: Path) -> list[str]:
    kept = []
    for line in lines:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            raise ProjectError(f"{where}: {line!r} is not a requirement") from None
        if requirement.name.lower() not in PINNED:  # the cell's own pins stand in for these
            kept.append(line)
    return kept


def floors(lines: Iterable[str]) -> list[str]:
    """The lower bounds among requirements on the pinned packages, as requirement lines (`~=X` bounds below by X)."""
    found = []
    for line in lines:
        requirement = Requirement(line)
        lower = [f">={s.version}" if s.operator == "~=" else str(s) for s in requirement.specifier
                 if s.operator in (">=", ">", "~=")]
        if requirement.name.lower() in PINNED and lower:
            marker = f"; {requirement.marker}" if requirement.marker else ""
            found.append(f"{requirement.name}{','.join(sorted(lower))}{marker}")
    return found


def _locked(root: Path, lockfile: Path | None, extras: Iterable[str] = (), groups: Iterable[str] = ()) -> str:
    """The lock's exact pins as requirement lines (the test extras' and groups' included), read by uv; ProjectError
    when the lock is stale, with uv's reason."""
    if lockfile is None:
        return ""
    if lockfile.name == "uv.lock":
        check = ["lock", "--check", *lock_options(lockfile), "--project", str(root)]
        _uv(check, f"--project {root}: uv.lock does not match pyproject.toml "
            "(run `uv lock`)")
        return _uv(["export", "--frozen", "--no-hashes", "--no-emit-project", "--no-header", "--no-annotate",
                    *(f"--extra={extra}" for extra in extras), *(f"--group={group}" for group in groups),
                    "--project", str(root)], f"--project {root}: uv export")
    if lockfile.name == "pylock.toml":
        return pylock_requirements(lockfile)
    text = _text(lockfile)
    lines = [line.split("#")[0].strip() for line in text.splitlines()]
    loose = [line for line in lines if line and not line.startswith("-") and "==" not in line and " @ " not in line]
    if loose:
        raise ProjectError(f"{lockfile}: {loose[0]!r} is not an exact pin; a lockfile pins every package with ==")
    return text


def lock_options(lockfile: Path) -> list[str]:
    """The `uv lock` flags a uv.lock was made with, from its [options] (LOCK_OPTIONS, a relative cut-off's span in
    place of its placeholder date, and each package's own exclude-newer date), to check it as it was made."""
    options = dict(_table(_toml(lockfile).get("options", {}), lockfile, "[options]"))
    if "exclude-newer-span" in options:  # `--exclude-newer '1 week'`: the lock's timestamp is a placeholder then
        options["exclude-newer"] = options["exclude-newer-span"]
    flags = [arg for key, flag in LOCK_OPTIONS.items() if key in options for arg in (flag, str(options[key]))]
    for package, date in sorted(_table(options.get("exclude-newer-package", {}), lockfile,
                                       "[options] exclude-newer-package").items()):
        flags += ["--exclude-newer-package", f"{package}={date}"]
    return flags


def pylock_requirements(lockfile: Path) -> str:
    """A pylock.toml's packages as exact requirement lines (`name==version ; marker`); ProjectError naming a package
    it locks without a version (a folder, VCS or archive source: not a release a cell can pin)."""
    data = _toml(lockfile)
    if not str(data.get("lock-version", "")).startswith("1."):
        raise ProjectError(f"{lockfile}: lock-version {data.get('lock-version')!r} is not supported (PEP 751 1.x)")
    packages = data.get("packages", [])
    if not isinstance(packages, list):
        raise ProjectError(f"{lockfile}: packages is {type(packages).__name__}, not an array of tables")
    lines = []
    for index, package in enumerate(packages, start=1):
        if not isinstance(package, dict) or not isinstance(package.get("name"), str):
            raise ProjectError(f"{lockfile}: package #{index} has no name")
        if "version" not in package:
            raise ProjectError(f"{lockfile}: {package.get('name')!r} is locked without a version (a folder, VCS or "
                               "archive source), which is not supported")
        marker = f" ; {package['marker']}" if package.get("marker") else ""
        line = f"{package['name']}=={package['version']}{marker}"
        try:
            Requirement(line)
        except InvalidRequirement:
            raise ProjectError(f"{lockfile}: package {package['name']!r} (version {package['version']!r}, marker "
                               f"{package.get('marker')!r}) does not read as an exact pin") from None
        lines.append(line + "\n")
    return "".join(lines)


def _uv(arguments: list[str], what: str) -> str:
    done = subprocess.run([*uv_command(), *arguments], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        output = done.stderr or done.stdout
        raise ProjectError(f"{what}: {stale_reason(output) or installer_message(output)}")
    return done.stdout


def conftest_failure(records: Iterable[dict[str, Any]]) -> tuple[str, str] | None:
    """(exception type, message) of a conftest.py that could not be imported and so stopped pytest before any case
    (a project's conftest importing the project, when the cell lacks it), as the cell recorded it; else None. The
    record is `failed` where the import failed on a jax name the cell's jax removed (aimz's conftest imports numpyro,
    whose `from jax.interpreters.pxla import xla_pmap_p` jax 0.10 removed): it stopped pytest just the same."""
    for record in records:
        if record.get("case_id") == CONFTEST_CASE and record.get("status") in (ERROR, FAILED):
            return str(record.get("error_type") or "ImportError"), str(record.get("error_message") or "")
    return None


def tree_hash(root: Path) -> str:
    """The sha256 of a source tree's files, by relative path and content (caches, venvs and build output aside, and
    shardmatrix's own output folders: an `--out` given inside the project, as a CI workflow's, would otherwise
    change the hash with every run it records, and so every fingerprint)."""
    digest = hashlib.sha256()
    for path in sorted(_source_files(root)):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _source_files(folder: Path) -> list[Path]:
    found = []
    for entry in folder.iterdir():
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if not (entry.name.startswith(".") or entry.name in NOT_SOURCE or entry.name.endswith(".egg-info")
                    or is_output(entry)):
                found += _source_files(entry)
        elif entry.is_file() and not entry.name.endswith((".pyc", ".pyo")):
            found.append(entry)
    return found


def is_output(folder: Path) -> bool:
    """Whether `folder` is an output folder of shardmatrix (`--out`): it holds results/ with a run in it."""
    results = folder / "results"
    return results.is_dir() and any(is_run_id(run.name) for run in results.iterdir() if run.is_dir())


def _text(path: Path) -> str:
    """A project file's text; ProjectError naming it when it cannot be read as UTF-8 text."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ProjectError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ProjectError(f"{path}: {exc.strerror or exc}") from None


def _toml(path: Path) -> dict[str, Any]:
    """A project's TOML file (harness.formats reads it); ProjectError naming it when it cannot be read or parsed."""
    return formats.read_toml(path, ProjectError)


def _ini(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(_text(path), source=str(path))
    except configparser.Error as exc:
        raise ProjectError(f"{path}: {' '.join(str(exc).split())}") from None
    return parser


def _ini_testpaths(config: Path) -> list[str]:
    paths = ini_option(config, "testpaths")
    if paths is None or isinstance(paths, list):
        return paths or []
    # TOML text is one path; an ini file's text is paths apart by whitespace, as pytest reads each.
    return [paths] if config.suffix == ".toml" else paths.split()


def ini_option(config: Path, name: str) -> str | list[str] | None:
    """The value of pytest's ini option `name` in a configuration file (pytest_config()) as written there: text, or
    a TOML list of text; None where the file does not set it."""
    if config.suffix == ".toml":
        tool = _toml(config).get("tool", {})
        options = tool.get("pytest", {}) if isinstance(tool, dict) else {}
        options = options.get("ini_options", options) if isinstance(options, dict) else {}
        value = options.get(name) if isinstance(options, dict) else None
        if value is None:
            return None
        return [str(item) for item in value] if isinstance(value, list) else str(value)
    parser = _ini(config)
    for section in ("pytest", "tool:pytest"):
        if parser.has_option(section, name):
            return parser.get(section, name)
    return None
