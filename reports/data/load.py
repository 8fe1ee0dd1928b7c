"""Read the results tree, OUT/results/<run id>/<cell id>.jsonl, into one frame of records.

Reports are rebuilt from files alone: the schema, its migrations and the file layout come from
harness.vocabulary (dependency-free), and nothing else of the harness is imported. A record newer than this reader
refuses the whole load; an older one is upgraded through the vocabulary's `update_to_N` functions, one step at a
time.

Beside each results file the harness writes <cell id>.done.json once the cell finished; a results file without
one belongs to a cell that was interrupted, whose records are still good but whose missing cases never ran.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness.formats import FormatError, ShardmatrixError, Source, jsonl_lines
from harness.formats import read_done as read_done_marker
from harness.formats import read_sources as read_freeze_sources
from harness.vocabulary import FIELDS, SCHEMA_VERSION, SchemaError, done_marker, migrate
from reports.data.text import relative_paths

Record = dict[str, Any]

#: Where each record came from, so "the last record of a case" means the last one in file order.
SOURCE_FIELDS: tuple[str, ...] = ("source", "line")

TIMINGS: tuple[str, ...] = ("duration_s", "compile_s", "execute_s")



#: The columns of load_cells(): one row per results file; `sources` maps each unreleased package of the cell to
#: where it came from (harness.formats.Source, read from its freeze), {} for a cell of releases only.
CELL_FIELDS: tuple[str, ...] = ("run_id", "cell_id", "complete", "reused_from", "sources")


class ResultsError(ShardmatrixError):
    """The results tree cannot become a report; the message is one line naming the culprit."""


def list_runs(results_root: Path) -> list[str]:
    """Return the ids of the runs under `results_root` that hold any results file, oldest first."""
    root = Path(results_root)
    if not root.is_dir():
        return []
    # Run ids start with a UTC timestamp, so name order is chronological order.
    return sorted(
        entry.name
        for entry in root.iterdir()
        if entry.is_dir() and not entry.name.startswith(".") and any(entry.glob("*.jsonl"))
    )


def load_results(
    results_root: Path, run_ids: Sequence[str] | None = None, *, all_runs: bool = False
) -> pd.DataFrame:
    """Read every record of `run_ids` (None: the newest run; `all_runs`: every run) into one frame."""
    root = Path(results_root)
    chosen = choose_runs(root, run_ids, all_runs=all_runs)
    records: list[Record] = []
    for run_id in chosen:
        for path in sorted((root / run_id).glob("*.jsonl")):
            records.extend(read_jsonl(path, run_id))
    if not records:
        raise ResultsError(f"no readable records in run(s) {', '.join(chosen)} under {root}")
    return records_frame(records)


def load_cells(
    results_root: Path, run_ids: Sequence[str] | None = None, *, all_runs: bool = False
) -> pd.DataFrame:
    """One row per results file of the chosen runs (as load_results chooses them): its run, its cell, and whether
    the cell finished (its done marker exists and reads) or was interrupted."""
    root = Path(results_root)
    rows = []
    for run_id in choose_runs(root, run_ids, all_runs=all_runs):
        for path in sorted((root / run_id).glob("*.jsonl")):
            done = read_done(path)
            # A cell whose inputs were unchanged copies an earlier run's records; the marker names that run.
            reused = done.get("reused_from") if done is not None else None
            rows.append({"run_id": run_id, "cell_id": path.stem, "complete": done is not None,
                         "reused_from": reused if isinstance(reused, str) else None, "sources": read_sources(path)})
    return pd.DataFrame(rows, columns=list(CELL_FIELDS)).astype({"complete": bool})


def read_done(results_file: Path) -> Record | None:
    """The done marker of a results file (harness.formats reads it); None when it is absent, or unreadable (with a
    warning naming it)."""
    try:
        return read_done_marker(done_marker(results_file))
    except FormatError as exc:
        warnings.warn(f"{exc.path}: ignored done marker: {exc.why}; the cell counts as interrupted", RuntimeWarning,
                      stacklevel=2)
        return None


def read_sources(results_file: Path) -> dict[str, Source]:
    """Where each unreleased package of a cell came from (its freeze names them, harness.formats reads it); {} when
    it has none, or when its freeze is unreadable (with a warning naming it)."""
    try:
        return read_freeze_sources(results_file)
    except FormatError as exc:
        warnings.warn(f"{exc.path}: sources not shown: {exc.why}", RuntimeWarning, stacklevel=2)
        return {}


def choose_runs(results_root: Path, run_ids: Sequence[str] | None = None, *, all_runs: bool = False) -> list[str]:
    """Resolve a run selection to existing run ids, or raise ResultsError saying what is missing."""
    results_root = Path(results_root)
    if run_ids and all_runs:
        raise ValueError("pass run_ids or all_runs, not both")
    if not results_root.is_dir():
        raise ResultsError(f"no results folder at {results_root}")
    known = list_runs(results_root)
    if not known:
        raise ResultsError(f"no runs under {results_root} (expected <run id>/<cell id>.jsonl files)")
    if all_runs:
        return known
    if not run_ids:
        return [known[-1]]
    missing = [run_id for run_id in run_ids if run_id not in known]
    if missing:
        newest = ", ".join(known[-3:])
        raise ResultsError(f"no run {missing[0]!r} under {results_root} (newest runs: {newest})")
    return list(dict.fromkeys(run_ids))


def read_jsonl(path: Path, run_id: str | None = None) -> Iterator[Record]:
    """Yield the records of one results file, upgraded to the current schema; warn about and skip bad lines."""
    # errors="replace": a torn multi-byte character should cost one line, not the file.
    with Path(path).open(encoding="utf-8", errors="replace") as stream:
        text = stream.read()
    numbered = list(jsonl_lines(text))
    source = str(path)
    for number, raw in _parsed(numbered, source):
        if not isinstance(raw, dict):
            _skip(f"{source}:{number}", f"a JSON {type(raw).__name__}, not an object")
            continue
        version = raw.get("schema_version")
        # A current record needs no migration (most of them): only an older or odd one goes through upgrade().
        if type(version) is not int or version != SCHEMA_VERSION:
            if not isinstance(version, int) or isinstance(version, bool):
                _skip(f"{source}:{number}", f"schema_version is {version!r}, not an integer")
                continue
            raw = upgrade(raw, f"{source}:{number}")
        problem = _normalise(raw, path, run_id)
        if problem:
            _skip(f"{source}:{number}", problem)
            continue
        raw["source"] = source
        raw["line"] = number
        yield raw


def _parsed(numbered: list[tuple[int, str]], source: str) -> Iterator[tuple[int, Any]]:
    """Each (line number, JSON value) of the non-blank lines; a line that is not JSON is warned about and left out."""
    # One parse of the whole file as a JSON array: per-line json.loads was most of the cost of reading results.
    # A bad line breaks the array (or its count), and then each line is parsed alone to name it.
    try:
        values = json.loads("[" + ",".join(line for _, line in numbered) + "]")
    except json.JSONDecodeError:
        values = None
    if isinstance(values, list) and len(values) == len(numbered):
        yield from zip((number for number, _ in numbered), values, strict=True)
        return
    for number, line in numbered:
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            _skip(f"{source}:{number}", f"not valid JSON ({exc.msg})")
            continue
        yield number, value


def upgrade(record: Record, where: str) -> Record:
    """Bring a record to SCHEMA_VERSION (harness.vocabulary's migrations); refuse one from a newer writer."""
    try:
        return migrate(record)
    except SchemaError as exc:
        raise ResultsError(f"{where}: {exc}") from None


def records_frame(records: Sequence[Record]) -> pd.DataFrame:
    """One row per record, every schema field a column, numbers as numbers; list order stands in for file order."""
    # pandas reads the dicts itself (in C): a list per field built in Python took longer than reading the files.
    frame = pd.DataFrame(records, columns=list(FIELDS))
    frame["source"] = [record.get("source", "") for record in records]
    frame["line"] = [record.get("line", number) for number, record in enumerate(records, start=1)]
    for name in TIMINGS:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("float64")
    # A record made in memory may leave `attempt` out; like a version 1 record, it is a first attempt.
    frame["attempt"] = pd.to_numeric(frame["attempt"], errors="coerce").fillna(1).astype("Int64")
    counts = pd.to_numeric(frame["device_count"], errors="coerce")
    # Nullable integers keep "8" from being written as "8.0"; a non-integral count is kept as a float.
    if (counts.dropna() % 1 == 0).all():
        frame["device_count"] = counts.astype("Int64")
    else:
        frame["device_count"] = counts
    return frame


def _normalise(record: Record, path: Path, run_id: str | None) -> str | None:
    """Fill what the path implies and coerce loose types in place; return why the record is unusable, if it is."""
    # Each field read once: this runs for every record of every file.
    get = record.get
    for name in ("case_id", "status"):
        value = get(name)
        if not isinstance(value, str) or not value:
            return f"{name} is {value!r}, not a string"
    # The path names the run and the cell too; it stands in when a writer left them out.
    if not get("run_id"):
        record["run_id"] = run_id or Path(path).parent.name
    if not get("cell_id"):
        record["cell_id"] = Path(path).stem
    if not get("family"):
        family, sep, _ = record["case_id"].partition("::")
        record["family"] = family if sep else "(none)"
    found = get("warnings")
    if found is None:
        record["warnings"] = []
    elif isinstance(found, str):
        record["warnings"] = [found]
    elif isinstance(found, list):
        if found:
            record["warnings"] = [relative_paths(text) for text in found]
    else:
        return f"warnings is a JSON {type(found).__name__}, not a list"
    # Where a venv happened to live says nothing about a result: every report shows package-relative paths.
    for name in ("error_message", "reason"):
        value = get(name)
        if isinstance(value, str):
            record[name] = relative_paths(value)
    for name in ("run_id", "cell_id", "family"):
        value = record[name]
        if type(value) is not str:
            record[name] = str(value)
    attempt = get("attempt")
    if attempt is None:
        record["attempt"] = 1
    elif not isinstance(attempt, int) or isinstance(attempt, bool) or attempt < 1:
        return f"attempt is {attempt!r}, not a positive integer"
    return None


def _skip(where: str, why: str) -> None:
    warnings.warn(f"{where}: skipped line: {why}", RuntimeWarning, stacklevel=2)
