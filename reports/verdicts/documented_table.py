"""The Changes table: one row per declared upstream change, with its release, kind, the cells that warned, the last
passing and first failing cells, the cases and the fix, and the cells where it was documented, stale or unexpected
(each result judged by reports.verdicts.documented; reports/views/changes_csv.py writes the table as changes.csv).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import pandas as pd

from harness.vocabulary import CHANGE_KINDS, CHANGE_PACKAGES, is_passing
from reports.data.text import as_text
from reports.verdicts.documented import DOCUMENTED, STALE, UNEXPECTED, classify, in_range, release, version_order

#: The columns of table(), and of changes.csv.
COLUMNS: list[str] = ["package", "release", "kind", "what", "since", "warned", "cells_warned", "last_passing",
                      "first_failing", "cases", "fix", "documented", "stale", "unexpected"]


def table(results: pd.DataFrame, cells: pd.DataFrame, broken: Collection[str] = ()) -> pd.DataFrame:
    """One row per declared change (its release and `what`), oldest jax first then flax: the kind, the declared
    ranges, the column keys that warned inside the declared `warned` range, the last passing and first failing keys
    (in the change's package's order), the cases, the fix, and the keys where it was documented, stale or
    unexpected. `results` are a matrix's (with `key`); `cells` its cell table (keys as index, jax, flax); `broken`
    the keys whose compatibility verdict is broken, where a failure says nothing of one change (nothing works
    there), so none is called unexpected."""
    if "change" not in results.columns:
        return pd.DataFrame(columns=COLUMNS)
    declared = results[results["change"].map(lambda value: isinstance(value, dict))]
    verdict = classify(declared)
    groups: dict[tuple[str, str], list[int]] = {}
    for index, change in zip(declared.index, declared["change"], strict=True):
        groups.setdefault((as_text(change.get("since") or change.get("warned")), as_text(change.get("what"))),
                          []).append(index)
    rows = []
    for indexes in groups.values():
        mine = declared.loc[indexes]
        change = mine["change"].iloc[0]
        package, version = release(change)
        judged = verdict.loc[indexes]
        order = _order(cells, package)
        passing = mine[mine["status"].map(is_passing).astype(bool)]
        earlier = [bool(change.get("since")) and not in_range(change.get("since"), row)
                   for row in passing[list(CHANGE_PACKAGES)].to_dict("records")]
        before = passing[pd.Series(earlier, index=passing.index, dtype=bool)]
        failing = mine[judged.eq(DOCUMENTED)]
        rows.append({
            "package": package, "release": version, "kind": CHANGE_KINDS.get(as_text(change.get("kind")), "?"),
            "what": as_text(change.get("what")), "since": as_text(change.get("since")),
            "warned": as_text(change.get("warned")),
            "cells_warned": _keys(_warned(passing, change.get("warned")), order),
            "last_passing": (_keys(before, order)[-1:] or [""])[0],
            "first_failing": (_keys(failing, order)[:1] or [""])[0],
            "cases": sorted(dict.fromkeys(mine["case_id"])), "fix": as_text(change.get("fix")),
            "documented": _keys(failing, order), "stale": _keys(mine[judged.eq(STALE)], order),
            "unexpected": [key for key in _keys(mine[judged.eq(UNEXPECTED)], order) if key not in broken],
        })
    rows.sort(key=lambda row: (CHANGE_PACKAGES.index(row["package"]) if row["package"] in CHANGE_PACKAGES else 9,
                               version_order(row["release"]), row["what"]))
    return pd.DataFrame(rows, columns=COLUMNS)


def _warned(passing: pd.DataFrame, warned: object) -> pd.DataFrame:
    """The passing results that warned inside the declared `warned` range (a case also carries the warnings of its
    module's imports, so a warning elsewhere says nothing of this change)."""
    inside = [bool(found) and in_range(warned, row) for found, row in
              zip(passing["warnings"], passing[list(CHANGE_PACKAGES)].to_dict("records"), strict=True)]
    return passing[pd.Series(inside, index=passing.index, dtype=bool)]


def _order(cells: pd.DataFrame, package: str) -> dict[str, tuple[Any, ...]]:
    """Each column key's place in `package`'s release order (then the other package's, then the key's own)."""
    other = next((name for name in CHANGE_PACKAGES if name != package), package)
    position = {key: number for number, key in enumerate(cells.index)}
    if package not in cells.columns:
        return {str(key): (position[key],) for key in cells.index}
    return {str(key): (version_order(cells.at[key, package]), version_order(cells.at[key, other]), position[key])
            for key in cells.index}


def _keys(rows: pd.DataFrame, order: Mapping[str, tuple[Any, ...]]) -> list[str]:
    return sorted(dict.fromkeys(str(key) for key in rows["key"]), key=lambda key: order.get(key, (key,)))
