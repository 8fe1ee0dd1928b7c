"""What is new in a pair: the known upstream bugs and documented changes a cell has that its neighbours do not, and
what every cell of a row, or of the whole table, shares (said once there instead of in every box).

A cell's neighbours are the cells of the previous jax with the same flax and of the previous flax with the same jax
(the nearest older release that the table holds, on the same backend), so a maintainer moving one pin sees what that
move brings. The items compared are reports.verdicts.compat.verdicts()'s `known_bugs` and `changes`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import pandas as pd

from reports.data.tables import version_key
from reports.verdicts.compat import DOCUMENTED_KIND, KNOWN_KIND

#: The columns of verdicts() whose entries a pair is compared by, with the kind of failure each names.
COMPARED = {"known_bugs": KNOWN_KIND, "changes": DOCUMENTED_KIND}


class Item(NamedTuple):
    """One known upstream bug (by link) or documented change (by name) of a cell."""

    kind: str
    name: str


@dataclass(frozen=True)
class Shared:
    """What every cell of the table has, and per flax release what every cell of its row has beyond that."""

    table: tuple[Item, ...]
    rows: dict[str, tuple[Item, ...]]


def items(row: pd.Series | dict[str, object]) -> list[Item]:
    """A cell's known bugs, then its documented changes, each once."""
    found: list[Item] = []
    for column, kind in COMPARED.items():
        value = row.get(column)
        for name in value if isinstance(value, list) else []:
            if Item(kind, str(name)) not in found:
                found.append(Item(kind, str(name)))
    return found


def _backend(row: pd.Series) -> str:
    backend = row.get("backend")
    return backend if isinstance(backend, str) and backend not in ("", "cpu") else ""


def neighbours(table: pd.DataFrame) -> dict[str, list[str]]:
    """{key: the keys of its neighbours}: the cells of the nearest older jax with its flax, and of the nearest older
    flax with its jax, on its backend (several where that pair ran on several Pythons or runs)."""
    rows = [row for _, row in table.iterrows()]
    found: dict[str, list[str]] = {}
    for row in rows:
        keys: list[str] = []
        for same, moved in (("flax", "jax"), ("jax", "flax")):
            older = [other for other in rows if other[same] == row[same] and _backend(other) == _backend(row)
                     and version_key(str(other[moved])) < version_key(str(row[moved]))]
            if older:
                nearest = max(version_key(str(other[moved])) for other in older)
                keys += [str(other["key"]) for other in older if version_key(str(other[moved])) == nearest]
        found[str(row["key"])] = keys
    return found


def new_here(table: pd.DataFrame) -> dict[str, list[Item]]:
    """{key: its items that none of its neighbours has}; empty for a cell without neighbours (nothing to compare)."""
    by_key = {str(row["key"]): items(row) for _, row in table.iterrows()}
    return {key: [item for item in by_key[key] if not any(item in by_key[other] for other in others)]
            if others else [] for key, others in neighbours(table).items()}


def _common(lists: Iterable[list[Item]]) -> tuple[Item, ...]:
    lists = list(lists)
    if len(lists) < 2:
        return ()
    return tuple(item for item in lists[0] if all(item in other for other in lists[1:]))


def shared(table: pd.DataFrame) -> Shared:
    """What every cell of the table shares (with two cells or more), and per flax release what every cell of its
    row shares beyond that (with two cells or more in the row)."""
    everywhere = _common(items(row) for _, row in table.iterrows())
    rows = {}
    for flax, group in table.groupby("flax", sort=False):
        common = _common(items(row) for _, row in group.iterrows())
        rows[str(flax)] = tuple(item for item in common if item not in everywhere)
    return Shared(everywhere, rows)
