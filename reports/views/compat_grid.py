"""The compatibility grid's layout: flax releases by jax releases, each slot the column keys of its cells, and where
a source-built version came from (matrix.md and matrix.html draw it: reports/views/markdown.py, html.py)."""

from __future__ import annotations

import pandas as pd

from reports.data.tables import version_key


def grid(table: pd.DataFrame) -> pd.DataFrame:
    """Flax releases (rows, newest first) by jax releases (columns, oldest first), each holding the column keys of
    its cells (several when a pair ran on several Pythons or runs); empty where no cell pairs them. A cell on an
    accelerator has a column of its own, '0.11.2 (gpu)', never a slot shared with the CPU cell of its pins."""
    backends = table["backend"].tolist() if "backend" in table else [None] * len(table)
    columns = [(jax, backend if isinstance(backend, str) and backend not in ("", "cpu") else "")
               for jax, backend in zip(table["jax"], backends, strict=True)]
    ordered = sorted(dict.fromkeys(columns), key=lambda column: (version_key(column[0]), column[1]))
    jaxes = [f"{jax} ({backend})" if backend else jax for jax, backend in ordered]
    named = dict(zip(ordered, jaxes, strict=True))
    flaxes = sorted(dict.fromkeys(table["flax"]), key=version_key, reverse=True)
    slots: dict[tuple[str, str], list[str]] = {}
    for key, column, flax in zip(table["key"], columns, table["flax"], strict=True):
        slots.setdefault((flax, named[column]), []).append(key)
    layout = pd.DataFrame([[slots.get((flax, jax), []) for jax in jaxes] for flax in flaxes],
                          index=flaxes, columns=jaxes, dtype=object)
    layout.index.name, layout.columns.name = "flax", "jax"
    return layout


def origins(table: pd.DataFrame) -> dict[str, str]:
    """Where each source-built version of the table came from, by the version grid() names it: {'0.12.6+tree.5a0b
    5832': '/src/flax'}; a row or column label reads '0.12.6+tree.5a0b5832 (from /src/flax)'."""
    if "sources" not in table:
        return {}
    return {source.tag: source.shown for found in table["sources"] if isinstance(found, dict)
            for source in found.values()}
