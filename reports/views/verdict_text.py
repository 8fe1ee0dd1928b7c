"""A cell's verdict in words, as the grid, matrix.md and the issue body write it: its words with what it adds (its
failures counted by kind) and its coverage when any case was left out (reports/verdicts/compat.py decides the
verdict, reports/views/present.py gives its words)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from harness.vocabulary import link_name
from reports.data.text import as_text
from reports.verdicts.compat import (
    BROKEN,
    CURRENT,
    DOCUMENTED_KIND,
    FLAKY,
    KNOWN_BUGS,
    KNOWN_KIND,
    PARTIAL,
    UNEXPLAINED_KIND,
)
from reports.views.present import label

#: How each kind of failure (reports.verdicts.compat.KINDS) is counted in a verdict's text.
KIND_WORDS: dict[str, str] = {DOCUMENTED_KIND: "documented", KNOWN_KIND: "known upstream",
                              UNEXPLAINED_KIND: "unexplained"}


def kinds_text(row: Mapping[Any, Any] | pd.Series) -> str:
    """A cell's failures counted by kind, joined by middle dots: '29 documented, 9 known upstream, 0 unexplained'."""
    return " \N{MIDDLE DOT} ".join(f"{int(row.get(kind) or 0)} {words}" for kind, words in KIND_WORDS.items())


def failing_kinds(counts: Mapping[str, Any]) -> str:
    """Only the kinds of failure that occur, joined by middle dots ('2 known upstream'); empty when nothing fails."""
    return " \N{MIDDLE DOT} ".join(f"{int(counts.get(kind) or 0)} {words}" for kind, words in KIND_WORDS.items()
                                    if counts.get(kind))


def family_order(table: pd.DataFrame) -> list[str]:
    """The families of a verdicts() table's `family_verdicts`, in the order they first come."""
    found: dict[str, None] = {}
    for families in table.get("family_verdicts", pd.Series([], dtype=object)):
        found.update(dict.fromkeys(families if isinstance(families, dict) else {}))
    return list(found)


def detail(row: Mapping[Any, Any] | pd.Series) -> str:
    """What a verdict adds to its words: its failures counted by kind (partial, works except known bugs, works for
    current code, and broken where cases fail), 'attempts disagreed in k of n' (flaky); empty otherwise."""
    if row["verdict"] in (PARTIAL, KNOWN_BUGS, CURRENT) or (row["verdict"] == BROKEN and row.get("failing")):
        return kinds_text(row)
    if row["verdict"] == FLAKY and row.get("flaky"):
        return f"attempts disagreed in {row['flaky']} of {row['applicable']}"
    return ""


def item_name(item: str) -> str:
    """A known bug or documented change as a box names it: a GitHub issue or pull request link as 'jax#40907', anything
    else as itself."""
    return link_name(item)


def is_link(item: str) -> bool:
    """Whether an item is a link a view can point at."""
    return item.startswith(("http://", "https://"))


def describe(row: Mapping[Any, Any] | pd.Series) -> str:
    """A verdict as a reader sees it: 'works', 'works except known bugs: 29 documented, 9 known upstream, 0
    unexplained' (the counts joined by middle dots); with its coverage when any case was left out ('works (on 19 of
    103 cases: 80 need 8 devices)')."""
    extra = detail(row)
    said = f"{label(str(row['verdict']))}: {extra}" if extra else label(str(row["verdict"]))
    covered = coverage_note(row)
    return f"{said} {covered}" if covered else said


def coverage_note(row: Mapping[Any, Any] | pd.Series) -> str:
    """'(on 19 of 103 cases: 80 need 8 devices, 4 need an API this cell lacks)' whenever the cell left any case out
    (its coverage names a cause: devices, a missing API, no record); empty when every collected case ran."""
    ran, _, rest = as_text(row.get("coverage")).partition(" (")
    return f"(on {ran} cases: {rest.removesuffix(')')})" if rest else ""
