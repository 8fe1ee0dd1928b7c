"""Read the results tree, OUT/results/<run id>/<cell id>.jsonl, into frames: one of records, one of cells.

The reading itself is harness.results' (dependency-free): each cell's records migrated to the current schema, and
everything it could not account for (unreadable lines, missing expected cases, attempt gaps, conflicting records,
an unreadable done marker, a cell whose identity does not agree). This module only shapes that reading for pandas:
each cell's unaccounted lines are its `unaccounted` column, and each is also warned about, one line each.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from harness.cellrecord import FIELDS, CellFiles, Record
from harness.formats import FormatError, ShardmatrixError, Source
from harness.results import CellReading, read_cell
from harness.results import read_sources as read_freeze_sources
from harness.runs import Runs, results_files, run_start
from harness.runs import list_runs as find_runs
from reports.data.text import relative_paths

#: Where each record came from, so "the last record of a case" means the last one in file order.
SOURCE_FIELDS: tuple[str, ...] = ("source", "line")

TIMINGS: tuple[str, ...] = ("duration_s", "compile_s", "execute_s")

#: The columns of load_cells(): one row per results file; `sources` maps each unreleased package of the cell to
#: where it came from (harness.formats.Source, read from its freeze), {} for a cell of releases only;
#: `unaccounted` lists what the reading of the cell could not account for, one line each (empty: everything was);
#: `collected` the case ids its pytest collected (None: no collection recorded); `machine` the stack it ran on
#: (harness.celldocuments.read_machine; None: not recorded); `precision` its failed assertions' re-run at the highest
#: matmul precision (harness.celldocuments.read_precision; None: no re-run).
CELL_FIELDS: tuple[str, ...] = ("run_id", "cell_id", "complete", "reused_from", "sources", "unaccounted",
                                "collected", "machine", "precision")


class ResultsError(ShardmatrixError):
    """The results tree cannot become a report; the message is one line naming the culprit."""


def list_runs(results_root: Path) -> list[str]:
    """The ids of the runs under `results_root` that hold any results file, oldest first (by their start); a folder
    that is not a run is left out (runs().notes names it)."""
    return list(find_runs(Path(results_root)).ids)


def runs(results_root: Path) -> Runs:
    """The runs under `results_root` and the folders that are not runs (harness.runs.list_runs)."""
    return find_runs(Path(results_root))


@dataclass(frozen=True)
class Loaded:
    """The records of the chosen runs (one frame), their cells (load_cells' frame), and the runs chosen."""

    records: pd.DataFrame
    cells: pd.DataFrame
    runs: list[str]


def load(results_root: Path, run_ids: Sequence[str] | None = None, *, all_runs: bool = False,
         allow_empty: bool = False) -> Loaded:
    """Read the chosen runs once (None: the newest run; `all_runs`: every run): records and cells. Every line the
    reading could not account for is warned about; ResultsError when no record could be read (unless
    `allow_empty`)."""
    root = Path(results_root)
    chosen = choose_runs(root, run_ids, all_runs=all_runs)
    readings = [read_cell(path, run_id) for run_id in chosen for path in results_files(root / run_id)]
    for reading in readings:
        for line in reading.unaccounted:
            warnings.warn(line, RuntimeWarning, stacklevel=2)
    records = [record for reading in readings for record in reading.records]
    for record in records:
        _report_paths(record)
    if not records and not allow_empty:
        raise ResultsError(f"no readable records in run(s) {', '.join(chosen)} under {root}")
    return Loaded(records_frame(records), cells_frame(readings), chosen)


def load_results(
    results_root: Path, run_ids: Sequence[str] | None = None, *, all_runs: bool = False
) -> pd.DataFrame:
    """Read every record of `run_ids` (None: the newest run; `all_runs`: every run) into one frame."""
    return load(results_root, run_ids, all_runs=all_runs).records


def load_cells(
    results_root: Path, run_ids: Sequence[str] | None = None, *, all_runs: bool = False
) -> pd.DataFrame:
    """One row per results file of the chosen runs (as load_results chooses them): its run, its cell, whether the
    cell finished (its done marker exists and reads), and what its reading could not account for."""
    return load(results_root, run_ids, all_runs=all_runs, allow_empty=True).cells


def cells_frame(readings: Sequence[CellReading]) -> pd.DataFrame:
    """load_cells' frame of cell readings."""
    rows = []
    for reading in readings:
        # A cell whose inputs were unchanged copies an earlier run's records; the marker names that run.
        reused = reading.done.get("reused_from") if reading.done is not None else None
        rows.append({"run_id": reading.run_id, "cell_id": reading.cell_id, "complete": reading.complete,
                     "reused_from": reused if isinstance(reused, str) else None,
                     "sources": read_sources(reading.path), "unaccounted": list(reading.unaccounted),
                     "collected": list(reading.expected) if reading.expected is not None else None,
                     "machine": reading.machine, "precision": reading.precision})
    return pd.DataFrame(rows, columns=list(CELL_FIELDS)).astype({"complete": bool})


def read_done(results_file: Path) -> Record | None:
    """The done marker of a results file, as the reading holds it; None when it is absent, or unreadable (with a
    warning naming it)."""
    reading = read_cell(Path(results_file))
    for line in reading.problems:
        if line.startswith(str(CellFiles.of(results_file).done)):
            warnings.warn(line, RuntimeWarning, stacklevel=2)
    return reading.done


def read_sources(results_file: Path) -> dict[str, Source]:
    """Where each unreleased package of a cell came from (its freeze names them, harness.formats reads it); {} when
    it has none, or when its freeze is unreadable (with a warning naming it)."""
    try:
        return read_freeze_sources(results_file)
    except FormatError as exc:
        warnings.warn(f"{exc.path}: sources not shown: {exc.why}", RuntimeWarning, stacklevel=2)
        return {}


def choose_runs(results_root: Path, run_ids: Sequence[str] | None = None, *, all_runs: bool = False) -> list[str]:
    """Resolve a run selection to existing run ids, or raise ResultsError saying what is missing; a folder that is
    not a run is warned about once and never chosen."""
    results_root = Path(results_root)
    if run_ids and all_runs:
        raise ValueError("pass run_ids or all_runs, not both")
    if not results_root.is_dir():
        raise ResultsError(f"no results folder at {results_root}")
    found = runs(results_root)
    for note in found.notes:
        warnings.warn(f"{results_root / note}", RuntimeWarning, stacklevel=2)
    known = list(found.ids)
    if not known:
        raise ResultsError(f"no runs under {results_root} (expected <run id>/<cell id>.jsonl files, a run id being "
                           "YYYYmmddTHHMMSSZ-<tag>)")
    if all_runs:
        return known
    if not run_ids:
        return [known[-1]]
    missing = [run_id for run_id in run_ids if run_id not in known]
    if missing:
        newest = ", ".join(known[-3:])
        why = "" if run_start(missing[0]) else " (not a run id: YYYYmmddTHHMMSSZ-<tag>)"
        raise ResultsError(f"no run {missing[0]!r} under {results_root}{why} (newest runs: {newest})")
    return list(dict.fromkeys(run_ids))


def read_jsonl(path: Path, run_id: str | None = None) -> list[Record]:
    """The usable records of one results file at the current schema (harness.results reads it); each line it could
    not use is warned about."""
    reading = read_cell(Path(path), run_id)
    for line in reading.problems:
        if f"{path}:" in line:
            warnings.warn(line, RuntimeWarning, stacklevel=2)
    for record in reading.records:
        _report_paths(record)
    return reading.records


def _report_paths(record: Record) -> None:
    """Where a venv happened to live says nothing about a result: every report shows package-relative paths."""
    found = record.get("warnings")
    if found:
        record["warnings"] = [relative_paths(text) for text in found]
    for name in ("error_message", "reason"):
        value = record.get(name)
        if isinstance(value, str):
            record[name] = relative_paths(value)


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
