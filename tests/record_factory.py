"""The one test-record factory: complete records at the current schema, built from the vocabulary's fields.

Every test that needs a record asks here, so the reader's fast path (records already at SCHEMA_VERSION) is what
the tests exercise; records of an older schema appear only in the migration tests, written out there on purpose.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from harness.celldocuments import write_collection
from harness.cellrecord import FIELDS, SCHEMA_VERSION
from reports.data.load import SOURCE_FIELDS, records_frame
from reports.data.tables import Matrix, build_matrix

#: The run every factory record belongs to unless told otherwise.
RUN = "20261121T084500Z-ab12"


def cell_id(jax: str = "0.10.2", flax: str = "0.12.8", python: str = "3.11") -> str:
    """The id the default matrix gives the cell of these versions."""
    return f"jax{jax}-flax{flax}-py{python}"


def record(jax: str | None = "0.10.2", flax: str | None = "0.12.8", python: str | None = "3.11",
           **fields: Any) -> dict[str, Any]:
    """A complete record at SCHEMA_VERSION of a passing case `fam::test_a` in the cell of these versions, run RUN;
    keyword arguments override any field (a field neither the schema nor the loader knows is refused)."""
    unknown = set(fields) - set(FIELDS) - set(SOURCE_FIELDS)
    if unknown:
        raise TypeError(f"not record fields: {sorted(unknown)}")
    base: dict[str, Any] = dict.fromkeys(FIELDS)
    base.update(schema_version=SCHEMA_VERSION, attempt=1, run_id=RUN, case_id="fam::test_a", family="fam",
                status="passed", duration_s=0.5, warnings=[], jax=jax, jaxlib=jax, flax=flax, python=python,
                device_count=8)
    if jax is not None and flax is not None and python is not None:
        base["cell_id"] = cell_id(jax, flax, python)
    # As the corpus's cells write it: an xfail there is a declared known breakage's (a test's own mark says False).
    base["known_breakage"] = fields.get("status") in ("xfailed", "xpassed")
    return {**base, **fields}


def collected(results_file: Path, cases: Iterable[str] | None = None) -> Path:
    """Write the collection a cell's pytest records beside `results_file` (harness.celldocuments.write_collection): the
    case ids of the records it holds (lines that are not records left out), or `cases`; returns the results file."""
    if cases is None:
        found = []
        for line in Path(results_file).read_text(encoding="utf-8", errors="replace").split("\n"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and isinstance(value.get("case_id"), str):
                found.append(value["case_id"])
        cases = found
    write_collection(Path(results_file), Path(results_file).name.removesuffix(".jsonl"), list(cases))
    return Path(results_file)


def cell_files(records: Collection[dict[str, Any]], interrupted: Collection[str] = (),
               run: str = RUN) -> pd.DataFrame:
    """What load_cells() would say of the records' cells (and of the `interrupted` ones): each finished, but those
    named in `interrupted`, which have no done marker."""
    cells = dict.fromkeys([r["cell_id"] for r in records] + list(interrupted))
    return pd.DataFrame([{"run_id": run, "cell_id": cell, "complete": cell not in interrupted} for cell in cells])


def matrix_of(*records: dict[str, Any], files: pd.DataFrame | None = None,
              interrupted: Collection[str] = ()) -> Matrix:
    """The matrix of `records` (with `files` as load_cells() read them, or each cell finished but the
    `interrupted`)."""
    if files is None and interrupted:
        files = cell_files(records, interrupted)
    return build_matrix(records_frame(list(records)), files)


def known_bug(jax: str, flax: str, number: int, **fields: Any) -> dict[str, Any]:
    """A record of case `fam::bug<number>` failing as a declared known upstream bug (xfailed), its reason ending in
    the link https://github.com/jax-ml/jax/issues/<number> as harness.cell.known writes it."""
    return record(jax, flax, case_id=f"fam::bug{number}", status="xfailed", error_type="TypeError",
                  reason=f"why [jax>=0.4] https://github.com/jax-ml/jax/issues/{number}", **fields)


def pairs_matrix(**fields: Any) -> Matrix:
    """Four cells whose known bugs differ by pair: jax#1 in every cell, jax#3 in both cells of flax 0.12.12's row,
    jax#2 new in (jax 0.10.2, flax 0.12.8) against its previous jax, jax#3 new in (0.4.38, 0.12.12) against its previous
    flax; (0.10.2, 0.12.12) has nothing its neighbours lack."""
    bugs = {("0.4.38", "0.12.8"): (1,), ("0.10.2", "0.12.8"): (1, 2), ("0.4.38", "0.12.12"): (1, 3),
            ("0.10.2", "0.12.12"): (1, 2, 3)}
    return build_matrix(records_frame([found for (jax, flax), numbers in bugs.items() for found in (
        record(jax, flax, case_id="fam::a", **fields), *(known_bug(jax, flax, n, **fields) for n in numbers))]))
