"""The files of `shardmatrix watch`, named, versioned and read here only: the state (which releases were judged, kept
by the caller as an artifact, `--state FILE`), the JSON summary (`--json FILE`) and each release's saved report.

The state is a list of judgments. A judgment is keyed by the release (package, version) and the baseline it was
judged from (the project's locked jax, jaxlib and flax): a release is judged once per baseline, and again when the
lock moves. Every file carries its `schema_version`; a reader refuses a newer one and migrates an older one through
`UPDATES` (asv's rule). Where the state is kept is a `Store`: a file today; the rolling issue of the reusable
workflow can be another store with the same two methods.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.formats import INCONCLUSIVE_EXIT, SAFE_EXIT, UNSAFE_EXIT, ShardmatrixError

#: The versions of the two files (the state's default place is harness.host.homes.state_of).
STATE_VERSION = 1
SUMMARY_VERSION = 1
#: The verdict tokens (reports.compare's), mildest first: a run's verdict is its worst judgment's.
SAFE, INCONCLUSIVE, UNSAFE = "SAFE", "INCONCLUSIVE", "UNSAFE"
SEVERITY = (SAFE, INCONCLUSIVE, UNSAFE)
EXIT_CODES = {SAFE: SAFE_EXIT, UNSAFE: UNSAFE_EXIT, INCONCLUSIVE: INCONCLUSIVE_EXIT}


class WatchFileError(ShardmatrixError, ValueError):
    """A state file that cannot be read as one (unreadable, not JSON, a newer schema), in one line naming it."""


@dataclass(frozen=True)
class Judgment:
    """What one release was found to be, judged from one baseline."""

    package: str
    version: str
    #: The locked pins it was judged from: {'jax': ..., 'jaxlib': ..., 'flax': ...}.
    baseline: dict[str, str]
    verdict: str
    #: One line: why INCONCLUSIVE, or why a bisect did not answer.
    reason: str = ""
    #: Cases that passed on the baseline and fail on this release.
    regressed: list[str] = field(default_factory=list)
    #: The case bisected, and the first release where it stops passing ('jax==0.9.0'), with its error.
    case: str = ""
    first_bad: str = ""
    first_bad_error: str = ""
    #: The documented changes crossed: {label, kind, fix, cases, explains (regressed cases raising its exception)}.
    changes: list[dict[str, Any]] = field(default_factory=list)
    #: The reproducers of the regressed cases (OUT/report/repro/...), and this release's saved compare report.
    reproducers: list[str] = field(default_factory=list)
    report: str = ""
    #: What else the upgrade moved ('optax 0.2.4 -> 0.2.5'); each co-moving dependency held back once {package,
    #: version, verdict ('' when it could not be held), still_regressed, reason}; and the cause named: the package
    #: bumped, a co-moving dependency whose hold flips the verdict, or '' when neither could be told.
    moved: list[str] = field(default_factory=list)
    held: list[dict[str, Any]] = field(default_factory=list)
    cause: str = ""
    #: What the verdict was judged on when devices left cases out on both sides ('4 of 7 tests judged (3 need 2
    #: devices)'); '' otherwise, and in a state written before it was kept (an optional key: no version bump).
    coverage: str = ""

    @property
    def key(self) -> tuple[str, str, tuple[tuple[str, str], ...]]:
        """What makes two judgments one: the release and the baseline."""
        return self.package, self.version, tuple(sorted(self.baseline.items()))

    def to_json(self) -> dict[str, Any]:
        """The judgment as a JSON object (the state's and the summary's entries)."""
        return asdict(self)


def judgment(data: Mapping[str, Any], where: str) -> Judgment:
    """A Judgment from its JSON object; WatchFileError naming `where` when a field is missing or mistyped."""
    try:
        made = Judgment(**data)
    except TypeError as error:
        raise WatchFileError(f"{where}: not a judgment ({error})") from None
    if made.verdict not in SEVERITY or not isinstance(made.baseline, dict):
        raise WatchFileError(f"{where}: not a judgment (verdict {made.verdict!r})")
    return made


def key_of(package: str, version: str, baseline: Mapping[str, str]) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """The key a judgment of this release from this baseline has (Judgment.key)."""
    return package, version, tuple(sorted(baseline.items()))


# --- the state ------------------------------------------------------------------------------------------------------

#: {version it was: the function that makes it the next version's}; none yet.
UPDATES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def read_state(path: Path) -> list[Judgment]:
    """The judgments a state file holds; none when it does not exist yet (the first run). WatchFileError for a file
    that is not a state file of a version this reader knows."""
    path = Path(path)
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise WatchFileError(f"{path}: watch state unreadable ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("schema_version"), int):
        raise WatchFileError(f"{path}: not a watch state file (no schema_version)")
    if data["schema_version"] > STATE_VERSION:
        raise WatchFileError(f"{path}: watch state of schema {data['schema_version']}, newer than this shardmatrix "
                             f"reads ({STATE_VERSION}): upgrade shardmatrix")
    while data["schema_version"] < STATE_VERSION:
        data = UPDATES[data["schema_version"]](data)
    entries = data.get("judged")
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise WatchFileError(f"{path}: `judged` is not a list of judgments")
    return [judgment(entry, f"{path} entry {number}") for number, entry in enumerate(entries, 1)]


def write_state(path: Path, judged: Sequence[Judgment]) -> Path:
    """Write the judgments as a state file (written whole, then moved into place: a killed run keeps the old one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps({"schema_version": STATE_VERSION, "judged": [j.to_json() for j in judged]},
                                  indent=1) + "\n", encoding="utf-8")
    partial.replace(path)
    return path


class Store(Protocol):
    """Where the judgments are kept between runs (a file; later, the rolling issue)."""

    def load(self) -> list[Judgment]:
        """Every judgment kept."""

    def save(self, judged: Sequence[Judgment]) -> None:
        """Keep these judgments (all of them, the old ones included)."""


@dataclass(frozen=True)
class FileStore:
    """The state in a JSON file the caller keeps (an artifact of the scheduled run)."""

    path: Path

    def load(self) -> list[Judgment]:
        """read_state() of the file."""
        return read_state(self.path)

    def save(self, judged: Sequence[Judgment]) -> None:
        """write_state() of the file."""
        write_state(self.path, judged)


# --- the summary and the saved reports -------------------------------------------------------------------------------

def worst(verdicts: Sequence[str]) -> str:
    """The most severe verdict (UNSAFE over INCONCLUSIVE over SAFE); SAFE when there is none."""
    return max(verdicts, key=SEVERITY.index, default=SAFE)


def summary(project: str, baseline: Mapping[str, str], judged: Sequence[Judgment],
            remembered: Sequence[Judgment]) -> dict[str, Any]:
    """The JSON summary: the verdict over every release judged from this baseline (new and remembered), the
    releases judged by this run, and those remembered from earlier runs."""
    return {"schema_version": SUMMARY_VERSION, "project": project, "baseline": dict(baseline),
            "verdict": worst([j.verdict for j in (*judged, *remembered)]),
            "judged": [j.to_json() for j in judged], "remembered": [j.to_json() for j in remembered]}


def write_summary(path: Path, data: Mapping[str, Any]) -> Path:
    """Write the JSON summary."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def read_summary(path: Path) -> dict[str, Any]:
    """A JSON summary written by write_summary(); WatchFileError naming it when it is not one of this version."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise WatchFileError(f"{path}: watch summary unreadable ({error})") from None
    if not isinstance(data, dict) or data.get("schema_version") != SUMMARY_VERSION:
        raise WatchFileError(f"{path}: not a watch summary of schema {SUMMARY_VERSION}")
    return data


def report_path(out: Path, package: str, version: str) -> Path:
    """OUT/report/watch/<package>-<version>.md: a release's compare report, kept (compare.md is the latest's only)."""
    return Path(out) / "report" / "watch" / f"{package}-{version}.md"
