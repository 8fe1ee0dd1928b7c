"""Root causes: problems grouped by a normalized error signature, across cases and cells.

A broken pair shows the same error in every case of a cell (41 rows for one cell whose flax calls a removed
`jax.core` function), and one upstream change shows the same error in a run of cells. A reader wants one row per
cause: its signature, the cells it happened in (as version ranges), how many cases, the first cell in version
order, one reproducer, and the cases behind it on demand.

The signature is the exception type and its message's first sentence with what varies between cells and cases
made alike: paths become package-relative, `PartitionSpec(` is spelt `P(`, then addresses, shapes and numbers
become placeholders. A name that is gone is keyed by that name alone, as releases word its absence differently.
Display texts keep their numbers; only paths are rewritten (`relative_paths`), so no report shows a venv path.

A failure documented by its case's declared change (reports/verdicts/documented.py) is keyed by that change instead:
however each release words it, it is one cause, named after the change, and reports fold it under the Changes view.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from harness.vocabulary import XFAILED, is_known_breakage, is_problem
from reports.data.tables import version_key
from reports.data.text import as_text, first_line, relative_paths
from reports.verdicts import documented

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_BRACKETED_NUMBERS = re.compile(r"([\[(])\s*-?\d+(?:\s*,\s*-?\d+)*\s*,?\s*([\])])")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*")
_SPACES = re.compile(r"\s+")
#: jax prints one spec both ways across releases (`P(...)` from 0.7, `PartitionSpec(...)` before).
_SPEC = re.compile(r"\bPartitionSpec\(")
#: The end of a message's first sentence: what follows is advice ("For more guidance, see ...", "If running this on
#: CPU ...") that upstream rewords between releases of one and the same error.
_SENTENCE_END = re.compile(r"(?<=[\w)\]'\"`])\.\s+(?=[A-Z`])")


#: How a name that is gone is reported, across releases and import styles: `module 'jax' has no attribute
#: 'tree_map'`, `jax.tree_map was removed in JAX v0.6.0`, `cannot import name 'maps' from 'jax.experimental'`, ...
#: Each pattern names the owner and the name (or the dotted whole) of what is missing.
_MISSING = [
    re.compile(r"^module '(?P<owner>[\w.]+)' has no attribute '(?P<name>\w+)'"),
    re.compile(r"^'(?P<owner>\w+)' object has no attribute '(?P<name>\w+)'"),
    re.compile(r"^cannot import name '(?P<name>\w+)' from '(?P<owner>[\w.]+)'"),
    re.compile(r"^(?P<owner>[\w.]+) has no (?P<name>\w+)\b"),
    re.compile(r"^(?P<dotted>\w+(?:\.\w+)+)\s+(?:was|is|has been)\s+(?:removed|deprecated)\b"),
    # `import jax.experimental.shard_map` where `from jax.experimental import shard_map` says "cannot import name":
    # one removal, however the project imports it (a top-level module missing is a package not installed: kept).
    re.compile(r"^No module named '(?P<dotted>\w+(?:\.\w+)+)'"),
]
_NAME_ERRORS = ("AttributeError", "ImportError", "ModuleNotFoundError")


def missing_name(error_type: str, text: str) -> str | None:
    """The dotted name an AttributeError or ImportError says is gone ('jax.tree_map'); None for other errors."""
    if error_type not in _NAME_ERRORS:
        return None
    for pattern in _MISSING:
        match = pattern.match(text)
        if match:
            found = match.groupdict()
            return found.get("dotted") or f"{found['owner']}.{found['name']}"
    return None


@lru_cache(maxsize=65536)  # one error repeats across a cell's cases and across cells
def signature(error_type: object, message: object, fallback: object = "") -> str:
    """What makes two problems one cause: 'Type: message' with paths, addresses, shapes and numbers normalized; a
    name that is gone is one cause however each release words it ('missing name: jax.tree_map')."""
    text = first_line(relative_paths(message), limit=400) or first_line(relative_paths(fallback), limit=400)
    gone = missing_name(as_text(error_type), text)
    if gone is not None:
        return f"missing name: {gone}"
    text = _SENTENCE_END.split(text, maxsplit=1)[0]
    text = _SPEC.sub("P(", text)
    text = _ADDRESS.sub("<address>", text)
    text = _BRACKETED_NUMBERS.sub(r"\1…\2", text)
    text = _NUMBER.sub("N", text)
    text = _SPACES.sub(" ", text).strip()
    kind = as_text(error_type)
    return f"{kind}: {text}" if kind and text else kind or text


@dataclass
class Cause:
    """One root cause: its signature, statuses, the column keys it happened in, and the cases behind it."""

    signature: str
    statuses: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    cases: list[tuple[str, str]] = field(default_factory=list)
    example: str = ""
    #: The label of the declared change that documents every result behind it (reports.verdicts.documented.label),
    #: else "".
    change: str = ""
    #: Whether some xfailed result behind it is no declared known breakage (a test's own xfail mark).
    undeclared: bool = False

    @property
    def first_key(self) -> str:
        """The first cell, in version order, where the cause shows."""
        return self.keys[0]


#: The columns of causes(): one row per cause.
COLUMNS: list[str] = ["signature", "statuses", "keys", "cells", "cases", "case_count", "first_key", "example",
                      "change", "undeclared"]
#: The column of causes() saying some xfailed result behind the cause is a test's own xfail, no declared breakage.
UNDECLARED = "undeclared"

#: How the signature of a documented cause begins: 'documented: jax 0.9.0: what changed'.
DOCUMENTED_PREFIX = "documented: "


def problem_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The results a reader must look at: every problem status (anything that neither passes nor is absent, an
    unknown status included) and every flaky result."""
    statuses = results["status"]
    # Each distinct status asked once, not once per result.
    problem = statuses.map({status: is_problem(status) for status in statuses.unique()}).astype(bool)
    return results[problem | results["flaky"].astype(bool)]


def causes(results: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """One row per cause, most widespread first (then first cell): the signature, statuses, column keys in version
    order, those keys as version ranges, the (key, case id) pairs, how many, the first key and one example text."""
    rows = problem_rows(results)
    order = {key: number for number, key in enumerate(cells.index)}
    found: dict[str, Cause] = {}
    read = ["key", "case_id", "status", "flaky", "error_type", "error_message", "reason", "history"]
    flags = rows["known_breakage"].tolist() if "known_breakage" in rows.columns else [None] * len(rows)
    judged = documented.classify(rows).tolist()
    declared = rows["change"].tolist() if "change" in rows.columns else [None] * len(rows)
    for values, verdict, change, flag in zip(zip(*(rows[name].tolist() for name in read), strict=True), judged,
                                             declared, flags, strict=True):
        row = dict(zip(read, values, strict=True))
        named = documented.label(change) if verdict == documented.DOCUMENTED else ""
        key = DOCUMENTED_PREFIX + named if named else _signature_of(row)
        cause = found.setdefault(key, Cause(key, example=_example(row), change=named))
        status = as_text(row["status"])
        if status not in cause.statuses:
            cause.statuses.append(status)
        if status == KNOWN and not is_known_breakage(status, flag):
            cause.undeclared = True
        if row["key"] not in cause.keys:
            cause.keys.append(row["key"])
        cause.cases.append((str(row["key"]), str(row["case_id"])))
    listed = sorted(found.values(), key=lambda c: (-len(c.cases), min(order[k] for k in c.keys), c.signature))
    table = []
    for cause in listed:
        keys = sorted(cause.keys, key=order.__getitem__)
        table.append({
            "signature": cause.signature,
            "statuses": cause.statuses,
            "keys": keys,
            "cells": version_ranges(cells, keys),
            "cases": sorted(cause.cases, key=lambda pair: (order[pair[0]], pair[1])),
            "case_count": len(cause.cases),
            "first_key": keys[0],
            "example": cause.example,
            "change": cause.change,
            "undeclared": cause.undeclared,
        })
    return pd.DataFrame(table, columns=COLUMNS)


#: What a case now marked xfail says where neither an error nor the marker's reason does (a bare non-strict
#: `xfail`; the marker's reason, where given, is its words already): a bare status is no cause, and says nothing.
XFAIL_UNSAID = "now marked xfail (no reason given)"


def _unexplained_xfail(row: Mapping[str, Any]) -> bool:
    """Whether a case is xfailed with no error and no reason: its words are then XFAIL_UNSAID."""
    return row["status"] == XFAILED and not any(as_text(row[key]) for key in ("error_type", "error_message", "reason"))


def _signature_of(row: Mapping[str, Any]) -> str:
    if not is_problem(row["status"]) and row["flaky"]:
        return f"flaky: attempts were {' → '.join(map(str, row['history']))}"
    if _unexplained_xfail(row):
        return XFAIL_UNSAID
    return signature(row["error_type"], row["error_message"], row["reason"] or row["status"])


def _example(row: Mapping[str, Any]) -> str:
    if not is_problem(row["status"]) and row["flaky"]:
        return f"flaky: {' → '.join(map(str, row['history']))}"
    if _unexplained_xfail(row):
        return XFAIL_UNSAID
    error = ": ".join(t for t in (as_text(row["error_type"]), first_line(relative_paths(row["error_message"]))) if t)
    return error or first_line(relative_paths(row["reason"])) or as_text(row["status"])


def version_ranges(cells: pd.DataFrame, keys: list[str]) -> str:
    """Column keys as version ranges, per jax release: 'jax 0.12.0.1 x flax 0.8.5-0.12.8; jax 0.4.30 x flax 0.10.4'
    (written with a multiplication sign and an en dash).

    A range spans flax releases that are adjacent among the cells of the same jax release, so a cell of that jax
    where the cause does not show breaks the range. A cause in every cell from one jax release on (an upstream
    change that stays) reads 'jax >= 0.9.0: all 11 cells' instead, or with a few exceptions
    'flax >= 0.11.0: 13 of 15 cells (not c19, c20)'."""
    # Plain lists, not a filtered frame per jax release: a wide matrix has a cause in dozens of releases.
    jaxes = [as_text(value) for value in cells["jax"].tolist()]
    flaxes = [as_text(value) for value in cells["flax"].tolist()]
    position = {key: number for number, key in enumerate(cells.index)}
    names, shown = [str(key) for key in cells.index], sorted(position[key] for key in keys)
    # A change that stays shows in (nearly) every cell from one release of jax or of flax on: the fewer exceptions
    # the better the description, jax first on a tie.
    since = [f for f in (_since_release("jax", jaxes, names, shown), _since_release("flax", flaxes, names, shown)) if f]
    if since:
        return min(since, key=lambda pair: pair[0])[1]
    hit: dict[str, set[str]] = {}
    for key in keys:
        hit.setdefault(jaxes[position[key]], set()).add(flaxes[position[key]])
    parts = []
    for jax, found in hit.items():
        runs: list[list[str]] = []
        for flax in dict.fromkeys(flax for other, flax in zip(jaxes, flaxes, strict=True) if other == jax):
            if flax not in found:
                runs.append([])
            elif runs and runs[-1]:
                runs[-1].append(flax)
            else:
                runs.append([flax])
        spans = [run[0] if len(run) == 1 else f"{run[0]}\N{EN DASH}{run[-1]}" for run in runs if run]
        parts.append(f"jax {jax or '?'} \N{MULTIPLICATION SIGN} flax {', '.join(spans) or '?'}")
    return "; ".join(parts)


def _since_release(package: str, versions: list[str], names: list[str],
                   positions: list[int]) -> tuple[int, str] | None:
    """'jax >= X: all N cells' when the positions are every cell whose `package` is at least the oldest release
    among them (three cells or more, two releases or more), or 'flax >= X: n of N cells (not c17-c19)' when they
    miss at most a quarter of eight or more such cells, with how many they miss; else None (the caller lists
    ranges)."""
    if not positions:
        return None
    keys = [version_key(version) for version in versions]
    # The oldest release among the positions: cells are in jax order, so for flax it need not be the first.
    oldest = min(positions, key=keys.__getitem__)
    tail = [i for i, key in enumerate(keys) if key >= keys[oldest]]
    hit = set(positions)
    missing = [i for i in tail if i not in hit]
    # Short runs read better as ranges; exceptions are named only where they are few among many cells.
    if len(tail) < 3 or len(set(versions[i] for i in tail)) < 2 or (missing and (len(tail) < 8
                                                                              or 4 * len(missing) > len(tail))):
        return None
    since = "" if len(tail) == len(versions) else f"{package} \N{GREATER-THAN OR EQUAL TO} {versions[oldest]}: "
    if not missing:
        return 0, f"{since}all {len(tail)} cells"
    runs: list[list[int]] = []
    for i in missing:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    spans = ", ".join(names[r[0]] if len(r) == 1 else f"{names[r[0]]}\N{EN DASH}{names[r[-1]]}" for r in runs)
    return len(missing), f"{since}{len(positions)} of {len(tail)} cells (not {spans})"


#: The status of a known upstream breakage, declared as data: its causes are expected, so a report folds them.
KNOWN = "xfailed"


@dataclass(frozen=True)
class CauseView:
    """One cause as a report shows it: numbered, with the cells as version ranges and each case's column keys."""

    number: int
    signature: str
    #: The first occurrence's own text (numbers kept): what a reader is shown.
    example: str
    statuses: list[str]
    cells: str
    case_count: int
    first_key: str
    first_cell: str
    reproducer: Path | None
    #: (case id, the column keys it shows in), in version order of its first key.
    cases: list[tuple[str, list[str]]]
    #: The declared change documenting every result behind it (reports.verdicts.documented.label), else "".
    change: str = ""
    #: Whether some xfailed result behind it is a test's own xfail mark, no declared breakage.
    undeclared: bool = False

    def by_keys(self) -> list[tuple[list[str], list[str]]]:
        """The cases grouped by the column keys they show in: (keys, case ids), so a cause of 40 cases in the same
        two cells reads as one line."""
        grouped: dict[tuple[str, ...], list[str]] = {}
        for case, keys in self.cases:
            grouped.setdefault(tuple(keys), []).append(case)
        return [(list(keys), found) for keys, found in grouped.items()]

    @property
    def known(self) -> bool:
        """Whether every result behind the cause is a declared known breakage (xfailed, no test's own mark)."""
        return self.statuses == [KNOWN] and not self.undeclared

    @property
    def documented(self) -> bool:
        """Whether every result behind the cause is a failure its case's declared change documents."""
        return bool(self.change)

    @property
    def unexpected(self) -> bool:
        """Neither a known breakage nor a documented change: what a reader looks at first."""
        return not self.known and not self.documented


def views(found: pd.DataFrame, cells: pd.DataFrame, repros: Mapping[tuple[str, str], Path]) -> list[CauseView]:
    """The rows of causes() as a report lists them: unexpected causes first (their order kept), then the documented
    changes (in release order), then the known breakages; numbered from 1 in that order. `repros` maps (cell id,
    case id) to a reproducer: each cause links the first of its cases, in version order, that has one."""
    cell_ids = cells["cell_id"].to_dict()
    shown = []
    for row in found.to_dict("records"):
        by_case: dict[str, list[str]] = {}
        for key, case in row["cases"]:
            by_case.setdefault(case, []).append(key)
        reproducer = next((repros[pair] for pair in ((str(cell_ids[key]), case) for key, case in row["cases"])
                           if pair in repros), None)
        shown.append(CauseView(0, row["signature"], row["example"], row["statuses"], row["cells"], row["case_count"],
                               row["first_key"], str(cell_ids[row["first_key"]]), reproducer, list(by_case.items()),
                               change=str(row.get("change") or ""), undeclared=row.get(UNDECLARED) is not False))
    documented = sorted((view for view in shown if view.documented), key=lambda view: _release_order(view.change))
    ordered = ([view for view in shown if view.unexpected] + documented
               + [view for view in shown if view.known and not view.documented])
    return [replace(view, number=number) for number, view in enumerate(ordered, start=1)]


def _release_order(text: str) -> tuple[object, ...]:
    """'jax 0.9.0: ...' sorts jax before flax, then by release."""
    package, _, rest = text.partition(" ")
    return (package != "jax", documented.version_order(rest.partition(":")[0]), text)
