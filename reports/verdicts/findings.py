"""What a reader should look at first: results that did not pass or were flaky, and warnings from passes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import pandas as pd

from harness.vocabulary import is_problem
from reports.data.statuses import attempts_text, ordered
from reports.data.tables import Matrix
from reports.data.text import first_line


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
    """Every (cell, case) that was flaky, or whose status is a problem (harness.vocabulary.is_problem: neither
    passing nor absent, an unknown status included), in column order, with a one-line detail."""
    results = matrix.results
    statuses = results["status"]
    # Each distinct status asked once, not once per result.
    problem = statuses.map({status: is_problem(status) for status in statuses.unique()}).astype(bool)
    rows = results[problem | results["flaky"].astype(bool)]
    # Only the fields detail() reads: DataFrame.to_dict("records") of every field cost more than the details.
    read = ["history", "flaky", "error_type", "error_message", "reason"]
    columns = [rows[name].tolist() for name in read]
    fields = [dict(zip(read, values, strict=True)) for values in zip(*columns, strict=True)]
    return pd.DataFrame(
        {
            "key": rows["key"],
            "cell_id": rows["cell_id"],
            "case_id": rows["case_id"],
            "status": rows["status"],
            "flaky": rows["flaky"].astype(bool),
            "detail": [detail(row) for row in fields],
        }
    ).reset_index(drop=True)


def grouped_problems(matrix: Matrix) -> pd.DataFrame:
    """Problems folded for reading, worst status first and flaky passes last: one row for a column whose every
    case failed alike, else one row per (case, status, detail) naming every column key it happened in."""
    rows = problems(matrix)
    totals = matrix.results.groupby("key").size()
    alike_in = ["status", "flaky", "detail"]
    # Plain loops over column values, not a groupby iterated group by group: a wide matrix has thousands of
    # problems, and a sub-frame per group made this a noticeable share of a report's time.
    columns = [rows[name].tolist() for name in ["key", "case_id", *alike_in]]
    by_key: dict[str, list[tuple[str, str, bool, str]]] = {}
    for key, case_id, status, flaky, text in zip(*columns, strict=True):
        by_key.setdefault(str(key), []).append((str(case_id), str(status), bool(flaky), str(text)))
    folded: list[Problem] = []
    by_problem: dict[tuple[str, str, bool, str], list[str]] = {}
    for key, found in by_key.items():
        alike = {problem[1:] for problem in found}
        if 1 < len(found) == totals[key] and len(alike) == 1:
            status, flaky, text = alike.pop()
            folded.append(Problem([key], f"all {len(found)} cases", status, flaky, text))
        else:
            for problem in found:
                by_problem.setdefault(problem, []).append(key)
    folded += [Problem(keys, *problem) for problem, keys in by_problem.items()]
    rank = {status: number for number, status in enumerate(ordered(rows["status"]))}
    position = {key: number for number, key in enumerate(matrix.keys)}
    folded.sort(key=lambda problem: (
        not is_problem(problem.status), rank[problem.status], position[problem.keys[0]], problem.case
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
