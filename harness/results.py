"""A cell's results files, owned here: where each lives (one spelling per file, a property of `CellFiles`), the done
marker's schema, writer and reader, the one writer of records, and the one reader that accounts for everything in them.

Imported inside every cell (any jax, the cell's Python), by the host, and by reports/, so it imports nothing but
the standard library and its dependency-free siblings (harness.vocabulary, harness.formats).

The reading of a cell (`read_cell`) holds its records, migrated to the current schema, and everything it could not
account for, one line each naming the file (and line): a line that is not UTF-8, not JSON, torn, not an object, of
a newer schema, without a case id or status or with a field of the wrong type; an expected case (the cell's
collection, `<cell>.collected.json`) without a record, or no collection recorded at all; a retry whose earlier
attempt is absent; records of one attempt that disagree; a done marker that does not read; and any disagreement
between the cell id, the done marker, the freeze and the records' own versions. A verdict that depends on a cell
whose reading is not `accounted` is never good. What the cell is, and where its files disagree on it, is
harness.cellidentity's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from harness import cellrecord, formats
from harness.celldocuments import read_collection, read_machine, read_precision
from harness.cellidentity import identity_problems
from harness.cellrecord import RESULTS_SUFFIX, SCHEMA_VERSION, CellFiles, Record, read_done
from harness.vocabulary import COLLECTION_CASE

# --- where a cell's files live --------------------------------------------------------------------------------------

def read_sources(results_file: Path) -> dict[str, formats.Source]:
    """The unreleased packages of the cell whose results file this is, from its freeze; {} when it has none."""
    try:
        return formats.parse_sources(CellFiles.of(results_file).freeze.read_text(encoding="utf-8", errors="replace"))
    except FileNotFoundError:
        return {}
    except OSError as error:
        freeze = CellFiles.of(results_file).freeze
        raise formats.FormatError(freeze, f"unreadable ({error.strerror or error})") from None


# --- writing --------------------------------------------------------------------------------------------------------


class JsonlWriter:
    """Appends records to one file, one JSON object per line, flushed per line so a killed run keeps them."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = self.path.open("a", encoding="utf-8")

    def write(self, record: Record) -> None:
        """Write one record as one line and flush it."""
        self._file.write(formats.dump_jsonl_line(record))
        self._file.flush()

    def close(self) -> None:
        """Close the file; later writes raise."""
        self._file.close()


def write_records(path: Path, records: Iterable[Record]) -> int:
    """Write `records` as a new results file (a reused run's copy); returns how many."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(formats.dump_jsonl_line(record))
            count += 1
    return count


def copy_records(source: Path, target: Path, source_run: str, run_id: str) -> int:
    """Copy a results file line by line as run `run_id`'s (a reused run's copy); returns how many records moved run.

    Only a whole line holding a record of `source_run` takes the new id; every other line (torn, malformed, not
    UTF-8, another run's) is copied as it stands, so the copy reads with the problems its source had."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    moved = 0
    with target.open("wb") as out:
        for line in Path(source).read_bytes().splitlines(keepends=True):
            record = _whole_record(line)
            if record is not None and record.get("run_id") == source_run:
                out.write(formats.dump_jsonl_line({**record, "run_id": run_id}).encode("utf-8"))
                moved += 1
            else:
                out.write(line)
    return moved


def _whole_record(line: bytes) -> dict[str, Any] | None:
    """The JSON object a newline-terminated line holds, else None."""
    if not line.endswith(b"\n"):
        return None
    try:
        value = json.loads(line)
    except ValueError:  # UnicodeDecodeError and JSONDecodeError both are
        return None
    return value if isinstance(value, dict) else None


#: Version 1: one JSON object a line, {"schema_version", "mark", "at" (epoch seconds), "pid"}, and for a
#: `child_process` mark "case_id" and "cpu_s". Written by the host (the cell's run) and the cell's pytest in turn, never
#: at once; read by the bench's time budget (benchmarks/time_budget.py), never by a verdict.
TIMELINE_SCHEMA_VERSION = 1


def write_mark(results_file: Path, mark: str, at: float | None = None, **extra: Any) -> None:
    """Append one mark of the cell's timeline, flushed at once (a killed process keeps the marks it wrote)."""
    path = CellFiles.of(results_file).timeline
    path.parent.mkdir(parents=True, exist_ok=True)
    line = {"schema_version": TIMELINE_SCHEMA_VERSION, "mark": mark,
            "at": datetime.now(timezone.utc).timestamp() if at is None else at, "pid": os.getpid(), **extra}
    with path.open("a", encoding="utf-8") as sink:
        sink.write(formats.dump_jsonl_line(line))


def read_timeline(results_file: Path) -> list[dict[str, Any]]:
    """The marks of a cell's timeline in the order written; [] when it has none. A line that does not read, or of
    another schema, is left out: the budget is a measurement, and a mark it lacks leaves its part unnamed."""
    try:
        text = CellFiles.of(results_file).timeline.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    return [found for _, found in formats.parse_jsonl(text)
            if isinstance(found, dict) and found.get("schema_version") == TIMELINE_SCHEMA_VERSION
            and isinstance(found.get("mark"), str) and isinstance(found.get("at"), (int, float))]


def write_inflight(path: Path, nodeid: str) -> None:
    """Name the case a cell's own pytest process starts now, so that a death can be pinned on it: one node id a line,
    appended (read_inflight reads the last); a killed process leaves it for the host.

    Appended, never rewritten: a file truncated and written again is flushed to disk when closed (ext4's
    auto_da_alloc), and truncating it again waits for that write. Rewritten at each case's start it took a median of
    6 ms, and up to 2 s, on a busy disk (measured 2026-11-28, cases 50 ms apart); appended, 0.2 ms at most."""
    with path.open("a", encoding="utf-8") as sink:
        sink.write(nodeid.replace("\n", " ") + "\n")


def read_inflight(path: Path) -> str:
    """The node id of the case a dead cell process was running (write_inflight's last line); '' when none."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return next((line.strip() for line in reversed(lines) if line.strip()), "")


# --- reading --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CellReading:
    """Everything one cell's files say, and everything they leave unaccounted for."""

    run_id: str
    cell_id: str
    path: Path
    #: Each usable record at SCHEMA_VERSION, in file order, with `source` (the file) and `line` added.
    records: list[Record] = field(default_factory=list)
    #: The done marker's fields; None when the cell did not finish (or its marker does not read: see problems).
    done: dict[str, Any] | None = None
    #: The case ids the cell's pytest collected; None when no collection was recorded.
    expected: tuple[str, ...] | None = None
    #: One line each, naming the file (and line): what the reading could not account for.
    problems: tuple[str, ...] = ()
    #: One line each: where the cell id, the done marker, the freeze and the records disagree on what the cell is.
    mismatches: tuple[str, ...] = ()
    #: The stack the cell ran on (read_machine); None when none was recorded.
    machine: dict[str, Any] | None = None
    #: Each re-run case's outcome at the highest matmul precision (read_precision); None without a re-run.
    precision: dict[str, dict[str, Any]] | None = None

    @property
    def complete(self) -> bool:
        """Whether the cell finished (its done marker exists and reads)."""
        return self.done is not None

    @property
    def unaccounted(self) -> tuple[str, ...]:
        """Every line that keeps a verdict on this cell from being good."""
        return (*self.mismatches, *self.problems)

    @property
    def accounted(self) -> bool:
        """Whether everything in the cell's files is accounted for and its identity agrees."""
        return not self.problems and not self.mismatches

    @property
    def unusable(self) -> bool:
        """Whether the cell's identity is in doubt: no verdict on it is good."""
        return bool(self.mismatches)

    def finals(self) -> dict[str, Record]:
        """Each case's final record (harness.cellrecord.final_records)."""
        return cellrecord.final_records(self.records)


def read_cell(results_file: Path, run_id: str | None = None) -> CellReading:
    """The reading of one cell's files: its records, done marker, expected cases, and what is unaccounted for."""
    path = Path(results_file)
    cell_id = path.name[: -len(RESULTS_SUFFIX)] if path.name.endswith(RESULTS_SUFFIX) else path.stem
    run = run_id or path.parent.name
    problems: list[str] = []
    records = list(_records(path, run, cell_id, problems))
    try:
        done = read_done(CellFiles.of(path).done)
    except formats.FormatError as error:
        done = None
        problems.append(f"{error.path}: ignored done marker: {error.why}; the cell counts as interrupted")
    try:
        expected = read_collection(path)
    except formats.FormatError as error:
        expected = None
        problems.append(str(error))
    try:
        machine = read_machine(path)
    except formats.FormatError as error:
        machine = None
        problems.append(str(error))
    try:
        precision = read_precision(path)
    except formats.FormatError as error:  # the re-run explains a divergence; its loss is said, never guessed
        precision = None
        problems.append(str(error))
    if path.is_file():
        problems += _history(path, records)
        problems += _expected(path, records, expected)
    return CellReading(run_id=run, cell_id=cell_id, path=path, records=records, done=done, expected=expected,
                       problems=tuple(problems),
                       mismatches=tuple(identity_problems(path, cell_id, records, done, machine)),
                       machine=machine, precision=precision)


def read_records(path: Path) -> Iterator[Record]:
    """The usable records of one results file at SCHEMA_VERSION (what read_cell holds; the rest is its problems)."""
    problems: list[str] = []
    path = Path(path)
    return _records(path, path.parent.name, path.name.removesuffix(RESULTS_SUFFIX), problems, located=False)


def recorded_case_ids(path: Path) -> set[str]:
    """Case ids already in a results file."""
    return {record["case_id"] for record in read_records(path)}


def _decoded(path: Path, problems: list[str]) -> tuple[list[tuple[int, str]], int | None]:
    """(line number, text) of each non-blank line, and the number of the last line when the file does not end with
    a newline (a record torn mid-write); a line that is not UTF-8 is a problem, not a replaced character."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], None
    except IsADirectoryError:
        problems.append(f"{path}: a folder, not a results file")
        return [], None
    except OSError as error:
        problems.append(f"{path}: unreadable ({error.strerror or error})")
        return [], None
    unterminated = not data.endswith(b"\n")
    try:
        lines = list(formats.jsonl_lines(data.decode("utf-8")))
        return lines, lines[-1][0] if lines and unterminated else None
    except UnicodeDecodeError:
        pass
    lines = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.append(f"{path}:{number}: skipped line: not UTF-8 (byte {error.start})")
            continue
        if text.strip():
            lines.append((number, text))
    return lines, lines[-1][0] if lines and unterminated else None


def _parsed(path: Path, numbered: list[tuple[int, str]], torn: int | None,
            problems: list[str]) -> Iterator[tuple[int, Any]]:
    """Each (line number, JSON value); a line that is not JSON is a problem (`torn`: the last line, unterminated)."""
    # One parse of the whole file as a JSON array: per-line json.loads was most of the cost of reading results.
    try:
        values = json.loads("[" + ",".join(line for _, line in numbered) + "]")
    except ValueError:
        values = None
    if isinstance(values, list) and len(values) == len(numbered):
        yield from zip((number for number, _ in numbered), values, strict=True)
        return
    for number, line in numbered:
        try:
            value = json.loads(line)
        except ValueError as error:
            why = f"not valid JSON ({'torn: the file ends mid-record' if number == torn else error})"
            problems.append(f"{path}:{number}: skipped line: {why}")
            continue
        yield number, value


def _records(path: Path, run_id: str, cell_id: str, problems: list[str], *,
             located: bool = True) -> Iterator[Record]:
    """The usable records of a file, each problem added to `problems`; `located` adds `source` and `line`."""
    numbered, torn = _decoded(path, problems)
    for number, raw in _parsed(path, numbered, torn, problems):
        where = f"{path}:{number}: skipped line"
        if not isinstance(raw, dict):
            problems.append(f"{where}: a JSON {type(raw).__name__}, not an object")
            continue
        version = raw.get("schema_version")
        # A current record needs no migration (most of them): only an older or odd one is migrated.
        if type(version) is not int or version != SCHEMA_VERSION:
            if type(version) is not int:
                problems.append(f"{where}: schema_version is {version!r}, not an integer")
                continue
            try:
                raw = cellrecord.migrate(raw)
            except cellrecord.SchemaError as error:
                problems.append(f"{where}: {error}")
                continue
        why = cellrecord.normalise(raw, run_id, cell_id)
        if why:
            problems.append(f"{where}: {why}")
            continue
        if located:
            raw["source"] = str(path)
            raw["line"] = number
        yield raw


def _history(path: Path, records: list[Record]) -> list[str]:
    """A case's attempts with a gap (attempt 2 without attempt 1: its history is unknown, never a pass) and records
    of one attempt that disagree on the status (a repeat that agrees is a timing repeat, and fine)."""
    attempts: dict[str, dict[int, list[Record]]] = {}
    for record in records:
        attempts.setdefault(record["case_id"], {}).setdefault(record["attempt"], []).append(record)
    found = []
    for case_id, by_attempt in attempts.items():
        missing = [number for number in range(1, max(by_attempt)) if number not in by_attempt]
        if missing:
            first = by_attempt[max(by_attempt)][0]
            found.append(f"{path}:{first['line']}: {case_id} has attempt {max(by_attempt)} without attempt "
                         f"{missing[0]}: its history is unknown")
        for number, group in sorted(by_attempt.items()):
            statuses = list(dict.fromkeys(record["status"] for record in group))
            if len(statuses) > 1:
                found.append(f"{path}:{group[-1]['line']}: {case_id} attempt {number} is recorded as "
                             f"{' and '.join(statuses)}: conflicting records")
    return found


def _expected(path: Path, records: list[Record], expected: tuple[str, ...] | None) -> list[str]:
    """Expected cases without a record; a cell that recorded no collection at all."""
    if expected is None:
        return [f"{CellFiles.of(path).collection}: no collection recorded: which cases the cell was to run is unknown"]
    recorded = {record["case_id"] for record in records}
    # A module that did not import answers for its cases through its one collection record.
    failed_modules = {case.partition("::")[0] for case in recorded if case.endswith(f"::{COLLECTION_CASE}")}
    missing = [case for case in expected if case not in recorded and case.partition("::")[0] not in failed_modules]
    if not missing:
        return []
    shown = ", ".join(missing[:3]) + (f" (+{len(missing) - 3} more)" if len(missing) > 3 else "")
    return [f"{path}: {len(missing)} of {len(expected)} expected case(s) have no record: {shown}"]
