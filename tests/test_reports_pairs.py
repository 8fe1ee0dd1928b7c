"""Tests for reports/verdicts/pairs.py: what is new in a pair against its neighbours, and what a row or the table
shares."""

from __future__ import annotations

import pandas as pd

from reports.verdicts import pairs
from reports.verdicts.pairs import Item


def bug(name: str) -> Item:
    return Item("known", name)


def change(name: str) -> Item:
    return Item("documented", name)


def table(*cells: tuple[str, str, list[str], list[str]]) -> pd.DataFrame:
    """Rows of verdicts() with only what pairs reads: (jax, flax, known bugs, documented changes)."""
    return pd.DataFrame([{"key": f"c{n}", "jax": jax, "flax": flax, "backend": "cpu", "known_bugs": bugs,
                          "changes": changes} for n, (jax, flax, bugs, changes) in enumerate(cells, start=1)])


def test_a_bug_the_previous_jax_and_the_previous_flax_lack_is_new_in_the_pair() -> None:
    found = table(("0.11.1", "0.12.8", ["jax#1"], []), ("0.12.0", "0.12.8", ["jax#1"], []),
                  ("0.11.1", "0.12.12", ["jax#1"], []), ("0.12.0", "0.12.12", ["jax#1", "flax#2"], ["make_mesh"]))
    assert pairs.neighbours(found)["c4"] == ["c3", "c2"]
    assert pairs.new_here(found) == {"c1": [], "c2": [], "c3": [], "c4": [bug("flax#2"), change("make_mesh")]}


def test_a_bug_one_neighbour_has_is_not_new_and_a_cell_without_neighbours_has_nothing_new() -> None:
    found = table(("0.11.1", "0.12.12", ["flax#2"], []), ("0.12.0", "0.12.8", [], []),
                  ("0.12.0", "0.12.12", ["flax#2"], []), ("0.9.0", "0.10.2", ["jax#9"], []))
    assert pairs.new_here(found)["c3"] == []  # the previous jax with the same flax has it
    assert pairs.new_here(found)["c4"] == []


def test_what_every_cell_shares_is_said_once_for_the_table_and_what_a_row_shares_once_for_the_row() -> None:
    found = table(("0.11.1", "0.12.12", ["jax#1", "flax#2"], []), ("0.12.0", "0.12.12", ["jax#1", "flax#2"], []),
                  ("0.12.0", "0.12.8", ["jax#1"], ["make_mesh"]))
    said = pairs.shared(found)
    assert said.table == (bug("jax#1"),)
    assert said.rows == {"0.12.12": (bug("flax#2"),), "0.12.8": ()}  # a row of one cell shares nothing with another
    assert pairs.shared(found.head(1)) == pairs.Shared((), {"0.12.12": ()})
