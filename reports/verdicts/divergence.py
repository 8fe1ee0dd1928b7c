"""Where an accelerator and the CPU disagree on the same pins, and why.

Each accelerator cell is compared with the CPU cell of the same jax, jaxlib, flax and Python at the same device
count (of the same run where there is one). A case whose final status or exception type differs between the two is
a divergence. Its label says what explains it: "default matmul precision" when the accelerator's re-run of the case
at the highest matmul precision (harness.host.precision) gave what the CPU gave, and the case failed an assertion
at the default precision (the only failure the harness re-runs), so the accelerator's default
precision (TF32 on NVIDIA GPUs from Ampere on) is the cause and setting the precision or loosening the tolerance
fixes it; "unexplained" otherwise, with both outcomes shown. The status stays what the default precision gave.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from harness.vocabulary import is_precision_candidate
from reports.data.tables import Matrix
from reports.data.text import as_text, first_line

PRECISION = "default matmul precision"
UNEXPLAINED = "unexplained"
#: What a maintainer does about each label.
FIXES = {
    PRECISION: ("set JAX_DEFAULT_MATMUL_PRECISION=highest (or jax.config.update('jax_default_matmul_precision', "
                "'highest')) where the test needs float32 matmuls, or loosen its tolerance to what the "
                "accelerator's default precision gives"),
    UNEXPLAINED: "compare the two errors: the accelerator's backend differs from the CPU's here",
}
COLUMNS = ("case_id", "family", "accelerator", "cpu", "devices", "accelerator_outcome", "cpu_outcome",
           "highest_outcome", "label", "fix")
#: The pins two cells must share to be compared.
PINS = ("jax", "jaxlib", "flax", "python")


def outcome(row: Any) -> str:
    """A final record as one line: its status, and its exception with the first line of its message."""
    status, error, message = (as_text(row.get(name)) for name in ("status", "error_type", "error_message"))
    if not error:
        return status
    return f"{status} {error}" + (f": {first_line(message)}" if first_line(message) else "")


def twins(matrix: Matrix) -> dict[str, str | None]:
    """Each accelerator cell's key and the key of its CPU twin (same pins, same device count, its own run first);
    None where there is none."""
    cells = matrix.cells
    found: dict[str, str | None] = {}
    for key, cell in cells[cells["backend"].astype(str) != "cpu"].iterrows():
        same = cells[(cells["backend"].astype(str) == "cpu") & (cells["device_count"] == cell["device_count"])]
        for pin in PINS:
            same = same[same[pin].astype(str) == str(cell[pin])]
        ordered = sorted(same.index, key=lambda other: (cells.loc[other, "run_id"] != cell["run_id"], str(other)))
        found[str(key)] = str(ordered[0]) if ordered else None
    return found


def table(matrix: Matrix, pairs: dict[str, str | None] | None = None) -> pd.DataFrame:
    """One row per divergent (accelerator cell, case), in case order (`pairs`: twins(), unless the caller has it)."""
    rows = []
    results = matrix.results
    for accelerator, cpu in (twins(matrix) if pairs is None else pairs).items():
        if cpu is None:
            continue
        ours = results[results["key"] == accelerator].set_index("case_id")
        theirs = results[results["key"] == cpu].set_index("case_id")
        recorded = matrix.cells.loc[accelerator, "precision"]
        rerun: dict[str, dict[str, Any]] = recorded if isinstance(recorded, dict) else {}
        for case_id in sorted(set(ours.index) & set(theirs.index)):
            mine, other = ours.loc[case_id], theirs.loc[case_id]
            if (mine["status"], _error(mine)) == (other["status"], _error(other)):
                continue
            # Explained only where the default precision's failure is one the harness re-ran (a failed assertion)
            # and the re-run (harness.results checked its cell and its precision) gave what the CPU gave.
            highest = rerun.get(case_id) if is_precision_candidate(mine["status"], _error(mine)) else None
            explained = highest is not None and (highest.get("status"), _error(highest)) == (
                other["status"], _error(other))
            label = PRECISION if explained else UNEXPLAINED
            rows.append({"case_id": case_id, "family": mine["family"], "accelerator": accelerator, "cpu": cpu,
                         "devices": int(as_text(matrix.cells.loc[accelerator, "device_count"]) or 0),
                         "accelerator_outcome": outcome(mine), "cpu_outcome": outcome(other),
                         "highest_outcome": None if highest is None else outcome(highest),
                         "label": label, "fix": FIXES[label]})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def compared(matrix: Matrix, found: pd.DataFrame | None = None, name: Callable[[str], str] = str,
             pairs: dict[str, str | None] | None = None) -> list[str]:
    """One line per pair compared: the cells (`name` of each key), the device count, the cases both recorded and how
    many diverge."""
    pairs = twins(matrix) if pairs is None else pairs
    found = table(matrix, pairs) if found is None else found
    lines = []
    for accelerator, cpu in pairs.items():
        if cpu is None:
            continue
        cells, results = matrix.cells, matrix.results
        both = set(results.loc[results["key"] == accelerator, "case_id"]) & set(
            results.loc[results["key"] == cpu, "case_id"])
        kind = as_text(cells.loc[accelerator, "device_kind"])
        count = int(as_text(cells.loc[accelerator, "device_count"]) or 0)
        diverging = int((found["accelerator"] == accelerator).sum())
        lines.append(f"{name(accelerator)} ({kind}) against {name(cpu)} (CPU) at {count} "
                     f"device{'s' if count != 1 else ''}: "
                     f"{len(both)} cases compared, {diverging or 'none'} divergent.")
    return lines


def view(matrix: Matrix) -> dict[str, Any] | None:
    """What the pages show of it; None when the report has no accelerator cell."""
    pairs = twins(matrix)  # once: each part below reads the same pairs
    if not pairs:
        return None
    found = table(matrix, pairs)
    return {"rows": found.to_dict("records"), "compared": compared(matrix, found, pairs=pairs),
            "unpaired": unpaired(matrix, pairs=pairs)}


def unpaired(matrix: Matrix, name: Callable[[str], str] = str,
             pairs: dict[str, str | None] | None = None) -> list[str]:
    """One line per accelerator cell (`name` of its key) with no CPU cell to compare with."""
    pairs = twins(matrix) if pairs is None else pairs
    counts = {key: as_text(matrix.cells.loc[key, "device_count"]) for key in pairs}
    return [f"{name(key)}: no CPU cell of the same pins at {counts[key]} device(s) to compare with (run installed mode "
            f"with --backend cpu --devices {counts[key]})" for key, cpu in pairs.items() if cpu is None]


def _error(row: Any) -> str | None:
    return as_text(row.get("error_type")) or None
