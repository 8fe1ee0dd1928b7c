"""Order cells by version and shape records into the tables every report draws from.

A report column is one cell of one run: with several runs the same cell appears once per run, side by side.
Columns get short keys (c1, c2, ...) in version order so headers stay narrow and every table agrees.

Records of one case in one cell collapse into one result. A failing case is retried, each attempt its own
record numbered by `attempt`; the result is the last attempt's, and a case whose attempts disagree is *flaky*.
Several records of the same attempt are plain repeats: the last one's status stands and timings are medians. When
they disagree on the status, the case's status is harness.vocabulary's CONFLICTING (never passing, an unknown).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from packaging.version import InvalidVersion, Version

from harness.cellrecord import final_record
from harness.formats import Source
from harness.vocabulary import plugin_mismatches
from reports.data.load import TIMINGS
from reports.data.statuses import display_status, ordered
from reports.data.text import as_text
from reports.verdicts import documented

#: What makes one row of the matrix: repeats of a case in one cell of one run collapse into one row.
ROW_KEY: list[str] = ["run_id", "cell_id", "case_id"]

#: Fields that describe a cell rather than a case.
ENVIRONMENT: tuple[str, ...] = (
    "jax", "jaxlib", "flax", "numpy", "python", "backend", "device_kind", "device_count", "platform",
)


@dataclass(frozen=True)
class Layout:
    """Where each result sits in a pivot of every family: the (family, case) rows, the column keys, each result's
    row and column, and which results are shown (the last of two that share a row and column)."""

    index: pd.MultiIndex
    keys: list[str]
    rows: np.ndarray
    columns: np.ndarray
    shown: np.ndarray


@dataclass(frozen=True)
class Matrix:
    """Collapsed results (one row per run, cell, case) and their cells, keyed c1..cN in version order."""

    results: pd.DataFrame
    cells: pd.DataFrame

    @property
    def incomplete(self) -> list[str]:
        """Keys of the cells that were interrupted before they finished, in column order."""
        return [str(key) for key in self.cells.index[~self.cells["complete"]]]

    @property
    def run_ids(self) -> list[str]:
        """The runs shown, oldest first."""
        return sorted(self.cells["run_id"].unique())

    @property
    def run_labels(self) -> dict[str, str]:
        """Short labels r1, r2, ... for the runs shown, oldest first."""
        return {run_id: f"r{number}" for number, run_id in enumerate(self.run_ids, start=1)}

    @property
    def keys(self) -> list[str]:
        """Column keys in version order."""
        return list(self.cells.index)

    @cached_property
    def layout(self) -> Layout:
        """Where each result sits in pivot(): computed once, as a report pivots the same results many times."""
        return layout(self)

    @property
    def families(self) -> list[str]:
        """Families, alphabetically."""
        return sorted(self.results["family"].unique())


def version_key(text: object) -> tuple[int, Version, str]:
    """Sort key for a version string: releases in release order (0.4.38 < 0.10.2), then unparsable, then missing."""
    if not as_text(text):
        return (2, Version("0"), "")
    try:
        return (0, Version(str(text)), "")
    except InvalidVersion:
        return (1, Version("0"), str(text))


def build_matrix(records: pd.DataFrame, files: pd.DataFrame | None = None) -> Matrix:
    """Collapse records to one row per (run, cell, case) and order cells by jax, then flax, then python.

    `files` (load_cells(): run_id, cell_id, complete) says which cells finished; without it every cell counts as
    complete, and a file that holds no record still becomes a (blank) column."""
    results = collapse(records)
    cells = cell_table(results, files)
    keys = {
        (run_id, cell_id): key
        for key, run_id, cell_id in zip(cells.index, cells["run_id"].tolist(), cells["cell_id"].tolist(), strict=True)
    }
    pairs = zip(results["run_id"].tolist(), results["cell_id"].tolist(), strict=True)
    results["key"] = [keys[pair] for pair in pairs]
    position = {key: number for number, key in enumerate(cells.index)}
    results["_position"] = results["key"].map(position)
    results = results.sort_values(["_position", "family", "case_id"], kind="stable").drop(columns="_position")
    # Whether each failure is one its case's declared change documents: every verdict of the matrix reads it.
    return Matrix(results=documented.mark(results.reset_index(drop=True)), cells=cells)


def collapse(records: pd.DataFrame) -> pd.DataFrame:
    """One row per (run, cell, case): the last record (file order) of the last attempt, the median timings of
    that attempt's records (`repeats` of them), how many `attempts`, each attempt's status in `history`, and
    whether the attempts disagreed (`flaky`)."""
    ordered = records.sort_values(["source", "line"], kind="stable").reset_index(drop=True)
    # One number per (run, cell, case): every step below groups by it with pandas' built-in reducers, never with
    # a Python function per group (20,000 groups made that the slowest part of a report).
    row = ordered.groupby(ROW_KEY, sort=False).ngroup()
    final = ordered["attempt"].eq(ordered.groupby(row)["attempt"].transform("max")).to_numpy(dtype=bool)
    last_attempt, last_row = ordered[final], row[final]
    tail = ~last_row.duplicated(keep="last")
    results = last_attempt[tail].set_axis(last_row[tail], axis=0)
    timings = last_attempt[list(TIMINGS)].groupby(last_row)
    results[list(TIMINGS)] = timings.median()
    results["repeats"] = timings.size()
    # An attempt's status is its last record's; attempts in attempt order, whatever order the file has them in.
    statuses = ordered.assign(_row=row).drop_duplicates(["_row", "attempt"], keep="last")
    statuses = statuses.sort_values(["_row", "attempt"], kind="stable")
    if len(statuses) == len(results):
        # One attempt each (the common case): its status is the result's own.
        found = [[status] for status in results["status"].tolist()]
    else:
        history: dict[int, list[str]] = {}
        for number, status in zip(statuses["_row"].tolist(), statuses["status"].tolist(), strict=True):
            history.setdefault(number, []).append(status)
        found = [history[number] for number in results.index]
    _settle_conflicts(ordered, row, results)
    results["history"] = pd.Series(found, index=results.index, dtype=object)
    results["attempts"] = [len(statuses) for statuses in found]
    results["flaky"] = [len(set(statuses)) > 1 for statuses in found]
    results["shown"] = [
        display_status(status, warned)
        for status, warned in zip(results["status"].tolist(), results["warnings"].tolist(), strict=True)
    ]
    rest = [name for name in results.columns if name not in ROW_KEY]
    return results[[*ROW_KEY, *rest]].reset_index(drop=True)


def _settle_conflicts(ordered: pd.DataFrame, row: pd.Series, results: pd.DataFrame) -> None:
    """Give a case whose records of one attempt disagree on the status the status harness.cellrecord.final_record
    decides for it (CONFLICTING, its reason naming the statuses), in place; plain repeats are left alone."""
    keyed = ordered.assign(_row=row)
    repeated = keyed[keyed.duplicated(["_row", "attempt"], keep=False)]
    if repeated.empty:
        return
    differ = repeated.groupby(["_row", "attempt"])["status"].transform("nunique").gt(1)
    # Only the cases that disagree are asked, one at a time, through the vocabulary's one rule.
    suspects = keyed[keyed["_row"].isin(set(repeated.loc[differ, "_row"].tolist()))]
    for number, records in suspects.groupby("_row", sort=False):
        final = final_record({str(name): value for name, value in found.items()}
                             for found in records.drop(columns="_row").to_dict("records"))
        results.loc[number, ["status", "reason"]] = [final["status"], final["reason"]]


def cell_table(results: pd.DataFrame, files: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (run, cell) with its environment and whether it finished, in version order, keyed c1..cN."""
    # last() skips nulls: an install_error record that knows no numpy does not blank the cell's numpy.
    cells = results.groupby(["run_id", "cell_id"], sort=False)[list(ENVIRONMENT)].last().reset_index()
    if files is not None:
        # An outer join: a cell interrupted before its first case finished has a file but no record.
        carried = ("reused_from", "sources", "unaccounted", "collected", "machine", "precision")
        wanted = ["run_id", "cell_id", "complete", *(name for name in carried if name in files)]
        cells = cells.merge(files[wanted], how="outer", on=["run_id", "cell_id"])
    else:
        cells["complete"] = True
    if "reused_from" not in cells:
        cells["reused_from"] = None
    # Where each unreleased package came from: {} for a cell of releases (or one no freeze describes).
    found = cells["sources"].tolist() if "sources" in cells else [None] * len(cells)
    cells["sources"] = pd.Series([value if isinstance(value, dict) else {} for value in found], index=cells.index,
                                 dtype=object)
    # What the reading of each cell could not account for (harness.results): [] where it accounted for all, or where
    # the records were made in memory.
    found = cells["unaccounted"].tolist() if "unaccounted" in cells else [None] * len(cells)
    cells["unaccounted"] = pd.Series([list(value) if isinstance(value, list | tuple) else [] for value in found],
                                     index=cells.index, dtype=object)
    # The cases each cell collected: None where no collection was read (records made in memory).
    found = cells["collected"].tolist() if "collected" in cells else [None] * len(cells)
    cells["collected"] = pd.Series([list(value) if isinstance(value, list | tuple) else None for value in found],
                                   index=cells.index, dtype=object)
    # The stack each cell ran on, and its re-run at the highest matmul precision: None where none was recorded.
    for name in ("machine", "precision"):
        found = cells[name].tolist() if name in cells else [None] * len(cells)
        cells[name] = pd.Series([value if isinstance(value, dict) else None for value in found], index=cells.index,
                                dtype=object)
    # No file for a record's cell means nothing says it was interrupted.
    cells["complete"] = cells["complete"].fillna(True).astype(bool)
    order = sorted(
        range(len(cells)),
        key=lambda i: (
            # A package built from a source sorts after the release it carries the version of.
            version_key(tagged(cells["jax"].iloc[i], cells["sources"].iloc[i], "jax")),
            version_key(tagged(cells["flax"].iloc[i], cells["sources"].iloc[i], "flax")),
            version_key(minor(cells["python"].iloc[i])),
            str(cells["cell_id"].iloc[i]),
            str(cells["run_id"].iloc[i]),
        ),
    )
    cells = cells.iloc[order].reset_index(drop=True)
    cells.index = pd.Index([f"c{number}" for number in range(1, len(cells) + 1)], name="key")
    return cells


def minor(version: object) -> str:
    """'3.11.7' -> '3.11': a cell pins python by minor release, and the patch may differ between runs."""
    return ".".join(as_text(version).split(".")[:2])


def tagged(version: object, sources: object, package: str) -> str:
    """A package's version as its cell id names it: '0.12.6+tree.5a0b5832' when the cell built it from a source
    (its `sources`, harness.formats.Source by package), the plain version otherwise."""
    source = sources.get(package) if isinstance(sources, dict) else None
    return source.tag if isinstance(source, Source) else as_text(version)


def stack_notes(machine: object) -> list[str]:
    """What a cell's machine file says, one short line each: the GPU (nvidia-smi, else jax), the backend
    distributions (a mismatch with jaxlib first), and every setting of jax's that was set; [] without one."""
    if not isinstance(machine, dict):
        return []
    notes: list[str] = []
    ask: dict[str, Any] = machine["jax"] if isinstance(machine.get("jax"), dict) else {}
    found: dict[str, Any] = ask["distributions"] if isinstance(ask.get("distributions"), dict) else {}
    # Computed from the versions, never read from the file's own list of mismatches.
    mismatched = plugin_mismatches(found)
    for name in mismatched:
        notes.append(f"MISMATCH: {name} {found.get(name)} with jaxlib {found.get('jaxlib')}")
    gpus = machine.get("nvidia_smi")
    if isinstance(gpus, list) and gpus:
        notes += [", ".join(str(gpu.get(k)) for k in ("name", "driver_version", "memory_total", "compute_cap")
                            if isinstance(gpu, dict) and gpu.get(k)) for gpu in gpus[:1]]
        notes[-1] = f"{notes[-1]} (nvidia-smi)" + (f" \N{MULTIPLICATION SIGN}{len(gpus)}" if len(gpus) > 1 else "")
    else:
        devices = [d for d in ask.get("devices") or [] if isinstance(d, dict)]
        if devices and devices[0].get("compute_capability"):
            notes.append(f"{devices[0].get('kind')}, compute capability {devices[0]['compute_capability']}")
    notes += [f"{name} {version}" for name, version in found.items() if name not in ("jax", "jaxlib")
              and name not in mismatched]
    settings: dict[str, Any] = machine["settings"] if isinstance(machine.get("settings"), dict) else {}
    notes += [f"{name}={value}" for name, value in settings.items()]
    if machine.get("matmul_precision") and "JAX_DEFAULT_MATMUL_PRECISION" not in settings:
        notes.append(f"matmul precision {machine['matmul_precision']}")
    if machine.get("x64"):
        notes.append("x64")
    return notes


def source_notes(sources: object) -> list[str]:
    """One note per unreleased package of a cell: 'flax 0.12.6+tree.5a0b5832 from /src/flax'."""
    if not isinstance(sources, dict):
        return []
    return [f"{s.package} {s.tag} from {s.shown}" for _, s in sorted(sources.items()) if isinstance(s, Source)]


def header_versions(matrix: Matrix) -> pd.DataFrame:
    """What a column header shows of each column key, coarsest first: jax, flax, python (minor), and the run
    label when several runs are shown."""
    cells = matrix.cells
    versions = pd.DataFrame(
        {"jax": cells["jax"].map(as_text), "flax": cells["flax"].map(as_text), "python": cells["python"].map(minor)},
        index=cells.index,
    )
    if len(matrix.run_ids) > 1:
        versions["run"] = cells["run_id"].map(matrix.run_labels)
    return versions


def column_anchor(key: str) -> str:
    """The id of a column key's header in the status table, so other tables can link to its column: 'col-c5'."""
    return f"col-{key}"


def case_name(case_id: str, family: str) -> str:
    """A case's name within its family: 'sharded_gathers::test_take' -> 'test_take'."""
    prefix = f"{family}::"
    return case_id[len(prefix):] if case_id.startswith(prefix) else case_id


def row_names(pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Each distinct (family, case id)'s row name: its case_name(), unless another case id of its family would
    read the same (a 'fam::test_x' beside a bare 'test_x'), then its whole case id, so two cases never share a
    row and one's failure never hides behind the other's pass."""
    distinct = list(dict.fromkeys(pairs))
    ids_of: dict[tuple[str, str], set[str]] = {}
    for family, case_id in distinct:
        ids_of.setdefault((family, case_name(case_id, family)), set()).add(case_id)
    return {(family, case_id): case_id if len(ids_of[family, case_name(case_id, family)]) > 1
            else case_name(case_id, family) for family, case_id in distinct}


def pivot(matrix: Matrix, values: str | pd.Series, family: str | None = None) -> pd.DataFrame:
    """Cases (rows) by column keys in version order, of one results column or of a Series aligned with results;
    for one family (rows named by case) or for all (rows named by family and case)."""
    column = matrix.results[values] if isinstance(values, str) else values
    if family is None:
        return _fill(matrix.layout, column)
    rows = matrix.results.assign(_values=column)
    rows = rows[rows["family"] == family]
    # tolist() first: iterating a string column element by element is many times slower.
    pairs = list(zip(rows["family"].tolist(), rows["case_id"].tolist(), strict=True))
    names = row_names(pairs)
    rows = rows.assign(case=[names[pair] for pair in pairs])
    table = rows.pivot(index=["case"], columns="key", values="_values")
    table = table.reindex(columns=matrix.keys).sort_index()
    table.columns.name = None
    return table


def layout(matrix: Matrix) -> Layout:
    """Where each result of `matrix` sits in a pivot of every family (computed once per matrix, see Matrix.layout)."""
    results = matrix.results
    # Per distinct (family, case id), not per result: a case's name is worked out once, however many cells ran it.
    distinct, found = pd.MultiIndex.from_arrays([results["family"], results["case_id"]]).factorize()
    pairs = [(str(family), str(case_id)) for family, case_id in found]
    names = row_names(pairs)
    named = [(family, names[family, case_id]) for family, case_id in pairs]
    index = pd.MultiIndex.from_tuples(sorted(set(named)), names=["family", "case"])
    row_of = {pair: number for number, pair in enumerate(index)}
    rows = np.array([row_of[pair] for pair in named], dtype=np.intp)[distinct]
    columns = pd.Index(matrix.keys).get_indexer(pd.Index(results["key"])).astype(np.intp)
    # Distinct case ids have distinct rows (row_names); two results in one place are one case's, the last shown.
    places = rows * max(len(matrix.keys), 1) + columns
    _, first_from_end = np.unique(places[::-1], return_index=True)
    shown = np.sort(len(places) - 1 - first_from_end).astype(np.intp)
    return Layout(index, matrix.keys, rows, columns, shown)


def pivot_gaps(matrix: Matrix, values: pd.Series, gap: object) -> pd.DataFrame:
    """pivot() of every family, holding `gap` (not NaN) where a case did not run in a column: for a grid of texts,
    without a fillna() over every cell of it afterwards."""
    return _fill(matrix.layout, values, gap)


def _fill(layout: Layout, column: pd.Series, gap: object = np.nan) -> pd.DataFrame:
    """`column` (aligned with results) laid out as the layout's cases by keys, `gap` where a case did not run."""
    values = column.to_numpy()
    numeric = values.dtype.kind in "fiu" and isinstance(gap, float) and np.isnan(gap)
    grid = np.full((len(layout.index), len(layout.keys)), gap, dtype=float if numeric else object)
    grid[layout.rows[layout.shown], layout.columns[layout.shown]] = values[layout.shown]
    return pd.DataFrame(grid, index=layout.index, columns=pd.Index(layout.keys))


def counts(matrix: Matrix, column: str = "shown") -> pd.DataFrame:
    """How many cases of each status (reports.data.statuses order) each column key has."""
    # Counted with numpy: pd.crosstab (a pivot_table underneath) cost more than every other step of this table.
    keys = pd.Index(matrix.keys, name="key")
    rows = keys.get_indexer(pd.Index(matrix.results["key"]))
    codes, found = pd.factorize(matrix.results[column], use_na_sentinel=True)
    known = (rows >= 0) & (codes >= 0)
    tally = np.zeros((len(keys), len(found)), dtype=np.int64)
    np.add.at(tally, (rows[known], codes[known]), 1)
    present = set(found.tolist())
    order = [status for status in ordered(sorted(present)) if status in present]
    table = pd.DataFrame(tally, index=keys, columns=pd.Index(found))
    return table[order]
