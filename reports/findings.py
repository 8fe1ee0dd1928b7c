"""What a reader should look at first: results that did not pass or were flaky, and warnings from passes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import pandas as pd

from reports.matrix import Matrix
from reports.present import attempts_text, legend
from reports.text import first_line

#: Statuses that are a pass or a documented absence; every other one is a problem.
NOT_PROBLEMS: frozenset[str] = frozenset({"passed", "not_applicable"})


class Problem(NamedTuple):
    """One row of the folded problems table."""

    keys: list[str]
    case: str
    status: str
    flaky: bool
    detail: str


def detail(row: Mapping[Any, Any]) -> str:
    """One line saying why a case did not pass: 'flaky: failed → passed — ErrorType: first line — reason'."""
    flaky = f"flaky: {attempts_text(row['history'])}" if row.get("flaky") else ""
    error = ": ".join(part for part in (first_line(row["error_type"]), first_line(row["error_message"])) if part)
    return " — ".join(part for part in (flaky, error, first_line(row["reason"])) if part)


def problems(matrix: Matrix) -> pd.DataFrame:
    """Every (cell, case) that was flaky, or neither passed nor was not applicable, in column order, with a
    one-line detail."""
    results = matrix.results
    rows = results[~results["status"].isin(NOT_PROBLEMS) | results["flaky"]]
    return pd.DataFrame(
        {
            "key": rows["key"],
            "cell_id": rows["cell_id"],
            "case_id": rows["case_id"],
            "status": rows["status"],
            "flaky": rows["flaky"].astype(bool),
            "detail": [detail(row) for row in rows.to_dict("records")],
        }
    ).reset_index(drop=True)


def grouped_problems(matrix: Matrix) -> pd.DataFrame:
    """Problems folded for reading, worst status first and flaky passes last: one row for a column whose every
    case failed alike, else one row per (case, status, detail) naming every column key it happened in."""
    rows = problems(matrix)
    totals = matrix.results.groupby("key").size()
    folded: list[Problem] = []
    rest = []
    alike_in = ["status", "flaky", "detail"]
    for key, group in rows.groupby("key", sort=False):
        alike = group[alike_in].drop_duplicates()
        if 1 < len(group) == totals[key] and len(alike) == 1:
            status, flaky, text = alike.iloc[0]
            folded.append(Problem([str(key)], f"all {len(group)} cases", str(status), bool(flaky), str(text)))
        else:
            rest.append(group)
    if rest:
        for (case_id, status, flaky, text), group in pd.concat(rest).groupby(["case_id", *alike_in], sort=False):
            keys = [str(key) for key in group["key"]]
            folded.append(Problem(keys, str(case_id), str(status), bool(flaky), str(text)))
    rank = {status: number for number, (status, _) in enumerate(legend(rows["status"]))}
    position = {key: number for number, key in enumerate(matrix.keys)}
    folded.sort(key=lambda problem: (
        problem.status in NOT_PROBLEMS, rank[problem.status], position[problem.keys[0]], problem.case
    ))
    return pd.DataFrame(folded, columns=list(Problem._fields))


def deprecations(matrix: Matrix) -> pd.DataFrame:
    """Each distinct warning (first line) of a case, how many cases raised it, and in which column keys."""
    rows = matrix.results[["key", "case_id", "warnings"]].explode("warnings").dropna(subset=["warnings"])
    if rows.empty:
        return pd.DataFrame(columns=["warning", "cases", "keys"])
    rows = rows.assign(warning=[first_line(text) for text in rows["warnings"]])
    position = {key: number for number, key in enumerate(matrix.keys)}
    grouped = rows.groupby("warning", sort=True)
    table = pd.DataFrame(
        {
            "cases": grouped["case_id"].nunique(),
            "keys": grouped["key"].agg(lambda keys: sorted(set(keys), key=position.__getitem__)),
        }
    )
    return table.reset_index().sort_values(["cases", "warning"], ascending=[False, True], kind="stable")


def key_ranges(keys: list[str], order: list[str]) -> str:
    """Column keys as runs in column order: ['c1', 'c2', 'c3', 'c5'] -> 'c1-c3, c5' (the dash an en dash)."""
    position = {key: number for number, key in enumerate(order)}
    spans: list[list[int]] = []
    for number in sorted({position[key] for key in keys}):
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    parts: list[str] = []
    for start, end in spans:
        if end - start >= 2:
            parts.append(f"{order[start]}\N{EN DASH}{order[end]}")
        else:
            parts.extend(order[start : end + 1])
    return ", ".join(parts)
