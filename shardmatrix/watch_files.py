"""The files of `shardmatrix watch`, named, versioned and read here only: the state (which releases were judged, kept
by the caller as an artifact, `--state FILE`), the JSON summary (`--json FILE`) and each release's saved report.

The state is a list of judgments. A judgment is keyed by the release (package, version) and the baseline it was
judged from (the project's locked jax, jaxlib and flax): a release is judged once per baseline, and again when the
lock moves. A remembered judgment is checked before it is trusted (`distrust`): a SAFE that its own fields
contradict, or that does not say what it was judged on, is not SAFE; and one judged from this lock stands while the
lock does, listed on the index or not (`standing`). Every file carries its `schema_version`; a reader refuses a
newer one, migrates an older one through `UPDATES` (asv's rule) and refuses one older than any update. Where the
state is kept is a `Store`: a file today; the rolling issue of the reusable workflow can be another store with the
same two methods.
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
#: The verdict tokens (reports.verdicts.compare's), mildest first: a run's verdict is its worst judgment's.
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
    #: The tests the comparison compared, and of those the ones it judged (an answer on both sides); None in a
    #: state written before they were kept (optional keys: no version bump), which no SAFE can stand on.
    tests: int | None = None
    tests_judged: int | None = None

    @property
    def key(self) -> tuple[str, str, tuple[tuple[str, str], ...]]:
        """What makes two judgments one: the release and the baseline."""
        return self.package, self.version, tuple(sorted(self.baseline.items()))

    def to_json(self) -> dict[str, Any]:
        """The judgment as a JSON object (the state's and the summary's entries)."""
        return asdict(self)


#: What each field of a judgment must hold, and the keys each entry of its lists of objects must have as text.
_TEXT, _TEXTS, _COUNT = (str,), "texts", "count"
_FIELDS: dict[str, Any] = {"package": _TEXT, "version": _TEXT, "baseline": "pins", "verdict": _TEXT,
                           "reason": _TEXT, "regressed": _TEXTS, "case": _TEXT, "first_bad": _TEXT,
                           "first_bad_error": _TEXT, "changes": ("label", "kind", "fix"), "reproducers": _TEXTS,
                           "report": _TEXT, "moved": _TEXTS, "held": ("package", "version", "verdict", "reason"),
                           "cause": _TEXT, "coverage": _TEXT, "tests": _COUNT, "tests_judged": _COUNT}


def judgment(data: Mapping[str, Any], where: str) -> Judgment:
    """A Judgment from its JSON object; WatchFileError naming `where` and the field when one is missing, unknown or
    holds the wrong kind of value (read once here, so nothing later meets a string where a list was meant)."""
    try:
        made = Judgment(**data)
    except TypeError as error:
        raise WatchFileError(f"{where}: not a judgment ({error})") from None
    if made.verdict not in SEVERITY:
        raise WatchFileError(f"{where}: not a judgment (verdict {made.verdict!r})")
    for name, kind in _FIELDS.items():
        if not _holds(getattr(made, name), kind):
            raise WatchFileError(f"{where}: not a judgment ({name} is {getattr(made, name)!r})")
    return made


def _holds(value: Any, kind: Any) -> bool:
    if kind == "pins":
        return isinstance(value, dict) and all(isinstance(v, str) for v in (*value, *value.values()))
    if kind == _TEXTS:
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    if kind == _COUNT:
        return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)
    if kind == _TEXT:
        return isinstance(value, str)
    return isinstance(value, list) and all(isinstance(item, dict) and all(isinstance(item.get(key), str)
                                                                          for key in kind) for item in value)


#: Why a remembered SAFE is not SAFE, each a contradiction its own fields show (docs/watch.md lists them).
DOUBTS = {
    "regressed": "remembered SAFE with regressions (regressed cases or a first bad release beside it)",
    "unjudged": "remembered SAFE without the judgment it came from (no count of tests judged, or no report)",
    "none": "remembered SAFE with no test judged",
    "more": "remembered SAFE judging more tests than it compared",
}


def distrust(made: Judgment) -> str:
    """Why a remembered SAFE is not SAFE (one of DOUBTS), '' when it stands; never for a worse verdict, which no
    evidence can make better than it is."""
    if made.verdict != SAFE:
        return ""
    if made.regressed or made.first_bad:
        return DOUBTS["regressed"]
    if made.tests is None or made.tests_judged is None or not made.report:
        return DOUBTS["unjudged"]
    if made.tests_judged == 0:
        return DOUBTS["none"]
    if made.tests_judged > made.tests:
        return DOUBTS["more"]
    return ""


def checked(made: Judgment) -> Judgment:
    """The judgment as it may be trusted: a SAFE that `distrust` doubts is INCONCLUSIVE, saying why."""
    doubt = distrust(made)
    if not doubt:
        return made
    return Judgment(**{**made.to_json(), "verdict": INCONCLUSIVE,
                       "reason": "; ".join(reason for reason in (doubt, made.reason) if reason)})


def standing(kept: Sequence[Judgment], baseline: Mapping[str, str], packages: Sequence[str]) -> list[Judgment]:
    """The judgments of `packages` from this baseline, checked: they stand until the lock moves, whether or not the
    index still lists the release (a yanked UNSAFE release is still the answer the lock was given)."""
    return [checked(j) for j in kept if j.baseline == dict(baseline) and j.package in packages]


def coverage_line(made: Judgment) -> str:
    """What a verdict was judged on, printed beside it wherever it is written: the comparison's coverage when
    devices left tests out, else 'N of M tests judged' ('no test run' for none), else that no count was kept."""
    if made.coverage:
        return made.coverage
    if made.tests is None or made.tests_judged is None:
        return "tests judged not recorded"
    return f"{made.tests_judged} of {made.tests} tests judged" if made.tests else "no test run"


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
    if not isinstance(data, dict) or not isinstance(data.get("schema_version"), int) \
            or isinstance(data["schema_version"], bool):
        raise WatchFileError(f"{path}: not a watch state file (no schema_version)")
    if data["schema_version"] > STATE_VERSION:
        raise WatchFileError(f"{path}: watch state of schema {data['schema_version']}, newer than this shardmatrix "
                             f"reads ({STATE_VERSION}): upgrade shardmatrix")
    while data["schema_version"] < STATE_VERSION:
        if data["schema_version"] not in UPDATES:
            raise WatchFileError(f"{path}: watch state of schema {data['schema_version']}, older than any this "
                                 f"shardmatrix migrates (it reads {STATE_VERSION}); move it aside to judge anew")
        data = UPDATES[data["schema_version"]](data)
    entries = data.get("judged")
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise WatchFileError(f"{path}: `judged` is not a list of judgments")
    return [judgment(entry, f"{path} entry {number}") for number, entry in enumerate(entries, 1)]


def check_writable(path: Path, flag: str) -> None:
    """WatchFileError naming `flag` when `path` cannot be written as a file (a folder, or under a file): checked
    before anything is judged, so a run never ends in a traceback with its judgments unwritten."""
    path = Path(path)
    if path.is_dir():
        raise WatchFileError(f"{flag} {path}: a folder; name a file")
    above = next((parent for parent in path.parents if parent.exists()), None)
    if above is not None and not above.is_dir():
        raise WatchFileError(f"{flag} {path}: {above} is a file, not a folder")


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
    releases judged by this run, and those remembered from earlier runs (checked: `checked`). Each entry's
    `coverage` is its coverage_line(), never empty, so whatever shows a verdict shows what it was judged on."""
    remembered = [checked(j) for j in remembered]

    def entry(made: Judgment) -> dict[str, Any]:
        return {**made.to_json(), "coverage": coverage_line(made)}

    return {"schema_version": SUMMARY_VERSION, "project": project, "baseline": dict(baseline),
            "verdict": worst([j.verdict for j in (*judged, *remembered)]),
            "judged": [entry(j) for j in judged], "remembered": [entry(j) for j in remembered]}


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
