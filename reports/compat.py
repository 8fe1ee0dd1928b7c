"""The compatibility table: one verdict per cell, laid out as flax releases by jax releases.

"Which pairs work?" is the first question a maintainer asks, and the status matrix answers it only after reading
all of it. Each cell gets one verdict from its collapsed results:

- not built: its environment could not be built (install_error);
- broken: jax or flax themselves do not import in it, or its backend does not start;
- interrupted: it never finished, so what is missing is unknown;
- partial: k of its n applicable cases do not pass (with their causes);
- works with warnings: every applicable case passes, some with deprecation warnings;
- works: every applicable case passes cleanly.

The same verdicts go to compat.csv and compat.json for other tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from harness.vocabulary import INSTALL_ERROR, is_absent, is_cell_unusable, is_passing
from reports.causes import causes
from reports.matrix import Matrix, version_key
from reports.text import as_text

WORKS = "works"
WARNED = "works with warnings"
PARTIAL = "partial"
BROKEN = "broken"
INTERRUPTED = "interrupted"
NOT_BUILT = "not built"

#: Verdicts in order of severity, each with its one-line meaning for the legend.
VERDICTS: dict[str, str] = {
    WORKS: "every applicable case passes",
    WARNED: "every applicable case passes; some raise deprecation warnings",
    PARTIAL: "some applicable cases do not pass (their causes are listed)",
    INTERRUPTED: "the cell did not finish; the cases it never ran are unknown",
    BROKEN: "jax or flax do not import in this cell, or its backend does not start",
    NOT_BUILT: "the cell's environment could not be built",
}

#: How each verdict is drawn: an emoji mark (Markdown), a text symbol and a CSS class (HTML, reports/_page.py).
LOOKS: dict[str, tuple[str, str, str]] = {
    WORKS: ("\N{WHITE HEAVY CHECK MARK}", "\N{CHECK MARK}", "v-works"),
    WARNED: ("\N{WARNING SIGN}\N{VARIATION SELECTOR-16}", "\N{WARNING SIGN}\N{VARIATION SELECTOR-15}", "v-warned"),
    PARTIAL: ("\N{LARGE ORANGE DIAMOND}", "\N{CIRCLE WITH LEFT HALF BLACK}", "v-partial"),
    INTERRUPTED: ("\N{DOUBLE VERTICAL BAR}\N{VARIATION SELECTOR-16}", "\N{DOUBLE VERTICAL LINE}", "v-interrupted"),
    BROKEN: ("\N{CROSS MARK}", "\N{BALLOT X}", "v-broken"),
    NOT_BUILT: ("\N{PACKAGE}", "\N{EMPTY SET}", "v-not-built"),
}

#: The columns of verdicts(), and of compat.csv.
COLUMNS: list[str] = ["key", "cell_id", "run_id", "jax", "flax", "python", "verdict", "applicable", "failing",
                      "warned", "causes"]


def verdicts(matrix: Matrix, found: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per column key (version order): the cell, its verdict, how many applicable cases, how many of them do
    not pass, how many passed with warnings, and the causes of the failures (signatures, most cases first).

    `found` is causes() of the matrix when the caller has it already (a report shows both)."""
    results = matrix.results
    statuses = results["status"].tolist()
    # Each distinct status asked once, not once per result.
    absent = {status: is_absent(status) for status in set(statuses)}
    passes = {status: is_passing(status) for status in absent}
    applicable = pd.Series([not absent[status] for status in statuses], index=results.index)
    passing = pd.Series([passes[status] for status in statuses], index=results.index)
    failing = applicable & ~passing
    warned = passing & results["warnings"].map(len).gt(0)
    built = results["status"].ne(INSTALL_ERROR)
    reasons = results["reason"].tolist()
    failed = {text: is_cell_unusable(text) for text in set(reasons)}
    unimportable = pd.Series([failed[text] for text in reasons], index=results.index, dtype=bool)
    by_key = pd.DataFrame({"key": results["key"], "applicable": applicable, "failing": failing, "warned": warned,
                           "built": built, "importable": ~unimportable, "cases": 1}).groupby("key").sum()
    by_key = by_key.reindex(matrix.keys, fill_value=0)
    # Signatures once for every failing result, then counted per cell: one causes() call, not one per cell.
    if found is None:
        found = causes(results[failing].assign(flaky=False), matrix.cells)
    # Only failures count: a full causes() table also holds flaky passes.
    failures = set(zip(results.loc[failing, "key"].tolist(), results.loc[failing, "case_id"].tolist(), strict=True))
    per_key: dict[str, dict[str, int]] = {}
    for signature, cases in zip(found["signature"], found["cases"], strict=True):
        for key, case in cases:
            if (key, case) in failures:
                per_key.setdefault(key, {}).setdefault(signature, 0)
                per_key[key][signature] += 1
    totals = {str(key): {str(name): int(value) for name, value in row.items()}
              for key, row in by_key.to_dict("index").items()}
    rows = []
    for key, cell in matrix.cells.iterrows():
        counts = totals[str(key)]
        mine = per_key.get(str(key), {})
        rows.append({
            "key": key, "cell_id": cell["cell_id"], "run_id": cell["run_id"], "jax": as_text(cell["jax"]),
            "flax": as_text(cell["flax"]), "python": as_text(cell["python"]),
            "verdict": _verdict(counts, bool(cell["complete"])),
            "applicable": int(counts["applicable"]), "failing": int(counts["failing"]), "warned": int(counts["warned"]),
            "causes": sorted(mine, key=lambda signature: -mine[signature]),
        })
    return pd.DataFrame(rows, columns=COLUMNS)


def _verdict(counts: dict[str, int], complete: bool) -> str:
    cases = int(counts["cases"])
    if cases and not counts["built"]:
        return NOT_BUILT
    if cases and not counts["importable"]:
        return BROKEN
    if not complete:
        return INTERRUPTED
    if counts["failing"]:
        return PARTIAL
    return WARNED if counts["warned"] else WORKS


def describe(row: pd.Series) -> str:
    """A verdict as a reader sees it: 'works', 'partial: 3 of 40 fail', 'broken'."""
    if row["verdict"] == PARTIAL:
        return f"{PARTIAL}: {row['failing']} of {row['applicable']} fail"
    return str(row["verdict"])


def grid(table: pd.DataFrame) -> pd.DataFrame:
    """Flax releases (rows, newest first) by jax releases (columns, oldest first), each holding the column keys of
    its cells (several when a pair ran on several Pythons or runs); empty where no cell pairs them."""
    jaxes = sorted(dict.fromkeys(table["jax"]), key=version_key)
    flaxes = sorted(dict.fromkeys(table["flax"]), key=version_key, reverse=True)
    slots: dict[tuple[str, str], list[str]] = {}
    for key, jax, flax in zip(table["key"], table["jax"], table["flax"], strict=True):
        slots.setdefault((flax, jax), []).append(key)
    layout = pd.DataFrame([[slots.get((flax, jax), []) for jax in jaxes] for flax in flaxes],
                          index=flaxes, columns=jaxes, dtype=object)
    layout.index.name, layout.columns.name = "flax", "jax"
    return layout


def write(table: pd.DataFrame, report_dir: Path) -> tuple[Path, Path]:
    """compat.csv (causes joined by ' | ') and compat.json (a list of objects) in `report_dir`."""
    csv_path, json_path = Path(report_dir) / "compat.csv", Path(report_dir) / "compat.json"
    table.assign(causes=[" | ".join(found) for found in table["causes"]]).to_csv(csv_path, index=False)
    json_path.write_text(json.dumps(table.to_dict("records"), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return csv_path, json_path
