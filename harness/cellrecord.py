"""The cell record, owned here: its schema version and fields with their types, the `update_to_N` migrations that bring
an older record to the current schema, a case's final record, the done marker that says a cell finished, and where
every file of a cell lives (`CellFiles`, one spelling per path). harness.results reads and writes whole results trees
through it; harness.vocabulary says what a status means.

Imported inside every cell (any jax, the cell's Python), by the host, and by reports/, so it imports nothing but the
standard library and its dependency-free siblings (harness.vocabulary, harness.formats).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness import formats
from harness.vocabulary import XFAILED, XPASSED, devices_needed, is_breakage_reason

# --- records ----------------------------------------------------------------------------------------------------

#: 2 added `attempt` (failing cases are retried; each attempt is its own record); 3 added `change` (the upstream change
#: the case was written to catch, as declared on it: an object of harness.vocabulary.CHANGE_KEYS, or null) and `smoke`
#: (whether the case is in the smoke subset, `@case(smoke=True)`; null where the writer does not know); 4 added
#: `devices_needed` (the devices a case not applicable for its devices needed; null for any other record); 5 added
#: `known_breakage` (whether a declared known upstream breakage, harness.cell.known, applied to the case in its cell:
#: only then is its xfail a known upstream bug; a test's own `xfail` mark is not).
SCHEMA_VERSION = 5

#: Every field a record carries, in order; absent values are written as null.
FIELDS: tuple[str, ...] = (
    "schema_version",
    "run_id",
    "cell_id",
    "case_id",
    "family",
    "status",
    "attempt",
    "reason",
    "duration_s",
    "compile_s",
    "execute_s",
    "error_type",
    "error_message",
    "warnings",
    "change",
    "smoke",
    "devices_needed",
    "known_breakage",
    "jax",
    "jaxlib",
    "flax",
    "numpy",
    "python",
    "backend",
    "device_kind",
    "device_count",
    "platform",
    "timestamp",
)

Record = dict[str, Any]


class SchemaError(ValueError):
    """A record this vocabulary cannot bring to SCHEMA_VERSION (a newer writer, or a gap in the migrations)."""


def update_to_2(record: Record) -> Record:
    """Schema 1 -> 2: a version 1 writer never retried, so its every record is attempt 1."""
    return {**record, "attempt": 1, "schema_version": 2}


def update_to_3(record: Record) -> Record:
    """Schema 2 -> 3: a version 2 writer declared no change on any case, and did not say which were smoke cases."""
    return {**record, "change": None, "smoke": None, "schema_version": 3}


def update_to_4(record: Record) -> Record:
    """Schema 3 -> 4: a version 3 writer said the devices a case needed only in its reason, so they are read from
    there ("needs 8 devices, cell has 1"); null for every other record."""
    needed = devices_needed(record.get("status"), record.get("reason"))
    return {**record, "devices_needed": needed, "schema_version": 4}


def update_to_5(record: Record) -> Record:
    """Schema 4 -> 5: a version 4 writer did not say whether an xfail was a declared known breakage or a test's own
    mark, so it is read from the reason: a declared breakage's is 'why [ranges] link'
    (harness.vocabulary.breakage_reason); null for a record that is neither xfailed nor xpassed."""
    status, reason = record.get("status"), record.get("reason")
    known = is_breakage_reason(reason) if status in (XFAILED, XPASSED) else None
    return {**record, "known_breakage": known, "schema_version": 5}


#: MIGRATIONS[n] turns a version n-1 record into a version n record (asv style); a schema bump adds `update_to_N`
#: here and raises SCHEMA_VERSION, and every older file keeps loading.
MIGRATIONS: dict[int, Callable[[Record], Record]] = {2: update_to_2, 3: update_to_3, 4: update_to_4,
                                                    5: update_to_5}


def migrate(record: Record) -> Record:
    """Bring a record (with an integer schema_version) to SCHEMA_VERSION; SchemaError for a newer one."""
    version = record["schema_version"]
    if version > SCHEMA_VERSION:
        raise SchemaError(f"schema_version {version} is newer than this reader knows ({SCHEMA_VERSION}); "
                          "update shardmatrix to read these results")
    for target in range(version + 1, SCHEMA_VERSION + 1):
        if target not in MIGRATIONS:
            raise SchemaError(f"schema_version {version} has no migration to version {target}")
        record = MIGRATIONS[target](record)
        record["schema_version"] = target
    return record


# --- a case's final record ------------------------------------------------------------------------------------------

#: The status of a case whose records of one attempt disagree (two writers, a corrupt merge): deliberately outside
#: MEANINGS, so its class is UNKNOWN and whatever meets it is inconclusive. Never written by a cell; derived on read.
CONFLICTING = "conflicting_records"


def attempt_of(record: Record) -> int:
    """A record's attempt number; 1 where it is absent (a record made in memory, a version 1 writer)."""
    attempt = record.get("attempt")
    return attempt if isinstance(attempt, int) and not isinstance(attempt, bool) else 1


def final_record(records: Iterable[Record]) -> Record:
    """The record one case ended with: the last written of its highest attempt. When two records of any one attempt
    disagree on the status (the case's history is then unknown), that record comes back with status CONFLICTING and
    a reason naming the statuses; records of one attempt that agree are plain repeats.

    `records` are one case's records of one cell and run, in file order; ValueError when there are none."""
    by_attempt: dict[int, list[Record]] = {}
    for record in records:
        by_attempt.setdefault(attempt_of(record), []).append(record)
    if not by_attempt:
        raise ValueError("final_record needs at least one record of the case")
    final = by_attempt[max(by_attempt)][-1]
    conflicts = [(attempt, statuses) for attempt, group in sorted(by_attempt.items())
                 if len(statuses := list(dict.fromkeys(str(record.get("status")) for record in group))) > 1]
    if not conflicts:
        return final
    said = "; ".join(f"attempt {attempt} was recorded as {' and '.join(statuses)}" for attempt, statuses in conflicts)
    return {**final, "status": CONFLICTING, "reason": f"conflicting records: {said}"}


def final_records(records: Iterable[Record]) -> dict[str, Record]:
    """Each case's final record (`final_record`) by case id, in the order cases first appear; records without a
    case id are left out."""
    by_case: dict[str, list[Record]] = {}
    for record in records:
        if "case_id" in record:
            by_case.setdefault(str(record["case_id"]), []).append(record)
    return {case_id: final_record(group) for case_id, group in by_case.items()}


# --- a record's fields and their types --------------------------------------------------------------------------

#: Fields that hold text or nothing, and fields that hold a number or nothing: anything else is a bad record.
TEXT_FIELDS = ("run_id", "cell_id", "family", "reason", "error_type", "error_message", "jax", "jaxlib", "flax",
               "numpy", "python", "backend", "device_kind", "platform", "timestamp")
NUMBER_FIELDS = ("duration_s", "compile_s", "execute_s", "device_count", "devices_needed")


def make_record(**values: Any) -> Record:
    """A complete record: known fields in schema order, unknown field names refused."""
    unknown = set(values) - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown record fields: {sorted(unknown)}")
    record = {name: values.get(name) for name in FIELDS}
    record["schema_version"] = SCHEMA_VERSION
    record["timestamp"] = values.get("timestamp") or datetime.now(timezone.utc).isoformat()
    if record["warnings"] is None:
        record["warnings"] = []
    if record["attempt"] is None:
        record["attempt"] = 1
    return record


def normalise(record: Record, run_id: str, cell_id: str) -> str | None:
    """Fill what the path implies and coerce loose types in place; return why the record is unusable, if it is."""
    get = record.get
    for name in ("case_id", "status"):
        value = get(name)
        if not isinstance(value, str) or not value:
            return f"{name} is {value!r}, not a string"
    # The path names the run and the cell too; it stands in when a writer left them out.
    if get("run_id") is None:
        record["run_id"] = run_id
    if get("cell_id") is None:
        record["cell_id"] = cell_id
    if not get("family"):
        family, sep, _ = record["case_id"].partition("::")
        record["family"] = family if sep else "(none)"
    found = get("warnings")
    if found is None:
        record["warnings"] = []
    elif isinstance(found, str):
        record["warnings"] = [found]
    elif not isinstance(found, list) or not all(isinstance(text, str) for text in found):
        return f"warnings is {found!r}, not a list of strings"
    attempt = get("attempt")
    if attempt is None:
        record["attempt"] = 1
    elif type(attempt) is not int or attempt < 1:
        return f"attempt is {attempt!r}, not a positive integer"
    for name in TEXT_FIELDS:
        value = get(name)
        if value is not None and not isinstance(value, str):
            return f"{name} is {value!r}, not a string"
    for name in NUMBER_FIELDS:
        value = get(name)
        if value is not None and (type(value) not in (int, float)):
            return f"{name} is {value!r}, not a number"
    if get("change") is not None and not isinstance(get("change"), dict):
        return f"change is {get('change')!r}, not an object"
    if get("smoke") is not None and not isinstance(get("smoke"), bool):
        return f"smoke is {get('smoke')!r}, not true or false"
    return None


# --- the done marker ----------------------------------------------------------------------------------------------

#: <cell id>.done.json, written atomically once a cell finished; a results file without one was interrupted.
#: Version 1: cell_id, finished (ISO time), returncode, fingerprint, reused_from, seconds. A marker without a
#: schema_version is read as version 1 (hand-made and early markers hold only some of the fields).
DONE_SCHEMA_VERSION = 1


def write_done(path: Path, *, cell_id: str, finished: str, returncode: int, fingerprint: str | None,
               reused_from: str | None, seconds: float | None) -> None:
    """Write a cell's done marker so that readers see either nothing or all of it."""
    formats.write_json_atomically(path, {
        "schema_version": DONE_SCHEMA_VERSION, "cell_id": cell_id, "finished": finished, "returncode": returncode,
        "fingerprint": fingerprint, "reused_from": reused_from, "seconds": seconds,
    })


def read_done(path: Path) -> dict[str, Any] | None:
    """A done marker's fields; None when there is none, FormatError naming it when it cannot be read as one."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise formats.FormatError(path, f"unreadable ({error})") from None
    marker = formats.parse_json(text, dict, lambda why: formats.FormatError(path, why))
    version = marker.get("schema_version", 1)
    if not isinstance(version, int) or version > DONE_SCHEMA_VERSION:
        raise formats.FormatError(path, f"done marker schema {version!r}, this reader knows {DONE_SCHEMA_VERSION}")
    return marker


# --- where a cell's files live ----------------------------------------------------------------------------------

RESULTS_SUFFIX = ".jsonl"
#: <cell id>.done.json, written atomically once a cell finished (write_done).
DONE_SUFFIX = ".done.json"
#: <cell id>.collected.json: the case ids the cell's pytest collected (after deselection), harness.celldocuments.
COLLECTION_SUFFIX = ".collected.json"
INSTALL_LOG_SUFFIX = ".install.log"
LOG_SUFFIX = ".log"
INFLIGHT_SUFFIX = ".inflight"
#: <cell id>.freeze.txt: the cell's `uv pip freeze` after its source lines (harness.formats.parse_sources reads them).
FREEZE_SUFFIX = ".freeze.txt"
#: The stack a cell ran on, written once per cell (asv's machine.json): harness.celldocuments.
MACHINE_SUFFIX = ".machine.json"
#: <cell id>.precision.json: the highest-precision re-run of an accelerator cell's failed assertions.
PRECISION_SUFFIX = ".precision.json"


@dataclass(frozen=True)
class CellFiles:
    """The files of cell `cell_id` in run `run_id` under `out`: passed instead of an options object or a triple."""

    out: Path
    run_id: str
    cell_id: str
    #: The results file these files sit beside, where `of` was given one (kept as given, wherever it lies).
    located: Path | None = field(default=None, compare=False, repr=False)

    @property
    def results(self) -> Path:
        """OUT/results/<run>/<cell>.jsonl: the records; the one place that decides where a cell's files live, all
        of them beside it."""
        if self.located is not None:
            return self.located
        return Path(self.out) / "results" / self.run_id / f"{self.cell_id}{RESULTS_SUFFIX}"

    @property
    def done(self) -> Path:
        """The done marker, written atomically once the cell finished; a results file without it was interrupted."""
        return self.results.with_suffix(DONE_SUFFIX)

    @property
    def collection(self) -> Path:
        """The case ids the cell's pytest collected: the cases it was expected to run."""
        return self.results.with_suffix(COLLECTION_SUFFIX)

    @property
    def log(self) -> Path:
        """What the installer and pytest printed."""
        return self.results.with_suffix(LOG_SUFFIX)

    @property
    def inflight(self) -> Path:
        """Where the cell's pytest names the case it is running, so a process death can be pinned on it."""
        return self.results.with_suffix(INFLIGHT_SUFFIX)

    @property
    def install_log(self) -> Path:
        """The installer's transcript."""
        return self.results.with_suffix(INSTALL_LOG_SUFFIX)

    @property
    def freeze(self) -> Path:
        """The cell's resolved environment (`uv pip freeze`, after its source lines: harness.formats reads them)."""
        return self.results.with_suffix(FREEZE_SUFFIX)

    @property
    def machine(self) -> Path:
        """The stack the cell ran on (devices, plugin versions, driver, jax's settings)."""
        return self.results.with_suffix(MACHINE_SUFFIX)

    @property
    def precision(self) -> Path:
        """The outcomes of the cell's cases re-run at the highest matmul precision (accelerator cells)."""
        return self.results.with_suffix(PRECISION_SUFFIX)

    @property
    def sources(self) -> Path:
        """<cell>/cases/: one copy of each case module that ran, with its sibling helpers (reproducers use them)."""
        return self.results.with_suffix("") / "cases"

    @property
    def timeline(self) -> Path:
        """<cell>/timeline.jsonl: when each part of the cell's run began (write_mark, read_timeline); inside the cell's
        folder, so no run folder lists it as a cell's results."""
        return self.results.with_suffix("") / TIMELINE_NAME

    def fault_log(self, worker: str) -> Path:
        """A worker process's faulthandler log (fatal-signal and hard-timeout tracebacks)."""
        return self.results.with_suffix("") / "faults" / f"{worker}.log"

    def in_run(self, run_id: str) -> CellFiles:
        """The same cell's files in another run."""
        return CellFiles(self.out, run_id, self.cell_id)

    @property
    def complete(self) -> bool:
        """Whether the cell finished in this run (its done marker exists)."""
        return self.done.exists()

    @classmethod
    def of(cls, results_file: Path) -> CellFiles:
        """The files of the cell whose results file this is (OUT/results/<run>/<cell>.jsonl), beside that very file."""
        path = Path(results_file)
        return cls(path.parent.parent.parent, path.parent.name, path.name.removesuffix(RESULTS_SUFFIX), located=path)


#: <cell id>/timeline.jsonl, inside the cell's folder: its TIMELINE_SCHEMA_VERSION is harness.results'.
TIMELINE_NAME = "timeline.jsonl"
