"""Render the matrix as one self-contained HTML page (matrix.html): no script, no network.

The tables with a row per cell or per problem are drawn by pandas Styler, each escaping values and labels
(`escape="html"`): at that size Styler costs little and keeps formatting, classes and escaping declarative. The
status and timing tables, a cell per result, are written by reports/views/grid.py, which escapes their texts and hover
texts: at 20,000 results Styler took seconds for each, and its hover CSS was most of the page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from jinja2 import Environment, Template
from pandas.io.formats.style import Styler

from reports.data.tables import (
    Matrix,
    column_anchor,
    counts,
    header_versions,
    minor,
    pivot,
    pivot_gaps,
    source_notes,
    stack_notes,
)
from reports.data.text import as_text, seconds_each
from reports.verdicts import compat, divergence, documented_table, pairs
from reports.verdicts.causes import CauseView, causes, views
from reports.verdicts.findings import deprecations, key_ranges
from reports.views import _page
from reports.views.compat_grid import grid, origins
from reports.views.grid import grid_html
from reports.views.hover import FIELDS as HOVER_FIELDS
from reports.views.hover import Columns, not_run_tip, status_tips, timing_lines, timing_tips
from reports.views.present import FLAKY, INCOMPLETE, LOOKS, VERDICTS, legend, present, resume_command
from reports.views.repro import Repros
from reports.views.verdict_text import (
    coverage_note,
    describe,
    detail,
    failing_kinds,
    family_order,
    is_link,
    item_name,
)


def render_html(
    matrix: Matrix, repros: Repros | None = None, found: pd.DataFrame | None = None,
    table: pd.DataFrame | None = None, frontier_html: str = "", changed: pd.DataFrame | None = None,
) -> str:
    """The whole matrix.html page; causes link `repros`, the reproducer scripts by (cell id, case id). `found`
    (causes()) and `table` (compat.verdicts()) are computed unless the caller has them already; `frontier_html`
    (reports.views.frontier_render.html_fragment, already escaped) is shown after the matrix when given; `changed`
    (reports.verdicts.documented_table.table()) is computed unless given."""
    template = _template()
    totals = matrix.results["shown"].value_counts()
    cells = matrix.cells
    found = causes(matrix.results, cells) if found is None else found
    table = compat.verdicts(matrix, found) if table is None else table
    shown = views(found, cells, repros or {})
    changed = documented_table.table(matrix.results, cells, compat.broken(table)) if changed is None else changed
    hovered = hovers(matrix)
    warned = deprecations(matrix)
    return template.render(
        css=_page.CSS,
        runs=list(matrix.run_labels.items()),
        n_cells=len(matrix.keys),
        n_cases=matrix.results["case_id"].nunique(),
        legend=[(p, int(totals.get(status, 0))) for status, p in legend(matrix.results["shown"].unique())],
        marks=[(FLAKY, int(matrix.results["flaky"].sum())), (INCOMPLETE, len(matrix.incomplete))],
        interrupted=[
            (key, cells.loc[key, "cell_id"], resume_command(cells.loc[key, "run_id"])) for key in matrix.incomplete
        ],
        incomplete=INCOMPLETE,
        compat=compat_view(matrix, table, shown),
        frontier=frontier_html,
        verdicts=[(LOOKS[token], token, meaning) for token, meaning in VERDICTS.items()],
        causes=[cause_view(view, matrix.keys) for view in shown if view.unexpected],
        documented=[cause_view(view, matrix.keys) for view in shown if view.documented],
        known=[cause_view(view, matrix.keys) for view in shown if view.known],
        changes=changes_view(changed, cells),
        divergence=divergence.view(matrix),
        # Styler and grid_html output is already escaped; the template marks it `safe`.
        cells=cells_table(matrix).to_html(),
        matrix=status_table(matrix, hovered),
        warnings=warnings_table(matrix, warned).to_html() if not warned.empty else None,
        timing=timing_table(matrix, hovered),
    )


@lru_cache(maxsize=1)
def _template() -> Template:
    """The page template, compiled once per process (compiling it cost more than rendering it)."""
    environment = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    return environment.from_string(_page.TEMPLATE)


def compat_view(matrix: Matrix, table: pd.DataFrame, shown: list[CauseView]) -> dict[str, Any]:
    """The compatibility table for the template: jax releases, then one row per flax release holding, for each
    jax release, the verdicts of its cells (each linking its matrix column, a partial one its causes)."""
    layout = grid(table)
    rows = table.set_index("key")
    where = origins(table)

    def release(version: str) -> str:
        return f"{version} (from {where[version]})" if version in where else version

    numbers = {view.signature: view.number for view in shown}
    new, said = pairs.new_here(table), pairs.shared(table)
    slots = []
    for flax, keys_by_jax in zip(layout.index, layout.to_numpy().tolist(), strict=True):
        entries = []
        for keys in keys_by_jax:
            entries.append([{**_verdict_entry(matrix, key, rows.loc[key], numbers), "new": _items(new.get(key, []))}
                            for key in keys])
        slots.append((release(flax), entries, _items(said.rows.get(flax, ()))))
    order = [key for keys_by_jax in layout.to_numpy().tolist() for keys in keys_by_jax for key in keys]
    return {"jaxes": [release(jax) for jax in layout.columns], "rows": slots, "everywhere": _items(said.table),
            **_per_family(rows, order)}


def _per_family(rows: pd.DataFrame, order: list[str]) -> dict[str, Any]:
    """Each pair (in the grid's order) by family: the verdict of that family's cases alone, with what fails there."""
    families = family_order(rows)
    if len(families) < 2:
        return {"families": [], "family_rows": []}
    found: list[dict[str, Any]] = []
    for key in order:
        judged = rows.loc[key, "family_verdicts"]
        if not isinstance(judged, dict):
            continue
        entries = []
        for family in families:
            said = judged.get(family)
            look = LOOKS.get(str(said["verdict"])) if isinstance(said, dict) else None
            entries.append(None if look is None or not isinstance(said, dict) else {
                "css_class": look.css_class, "symbol": look.symbol, "label": look.words,
                "detail": failing_kinds(said)})
        found.append({"key": key, "anchor": column_anchor(key),
                      "pair": f"jax {rows.loc[key, 'jax']} \N{MIDDLE DOT} flax {rows.loc[key, 'flax']}",
                      "entries": entries})
    return {"families": families, "family_rows": found}


def _items(found: Iterable[pairs.Item]) -> dict[str, Any]:
    """Known bugs (name, link or '') and documented changes (names) for the template."""
    found = list(found)
    return {"bugs": [(item_name(item.name), item.name if is_link(item.name) else "") for item in found
                     if item.kind == compat.KNOWN_KIND],
            "changes": [item.name for item in found if item.kind == compat.DOCUMENTED_KIND]}


def _verdict_entry(matrix: Matrix, key: str, row: pd.Series, numbers: dict[str, int]) -> dict[str, Any]:
    look = LOOKS[row["verdict"]]
    found = sorted((numbers[signature], signature) for signature in row["causes"] if signature in numbers)
    python = minor(row["python"])
    title = [f"{key} \N{MIDDLE DOT} {row['cell_id']} \N{MIDDLE DOT} python {python}", describe(row)]
    title += [f"#{number} {signature}" for number, signature in found]
    title += [f"documented: {change}" for change in row["changes"]]
    return {
        "key": key, "anchor": column_anchor(key), "symbol": look.symbol, "css_class": look.css_class,
        "label": look.words, "python": python,
        "detail": " ".join(part for part in (detail(row), coverage_note(row)) if part),
        "causes": found if row["verdict"] == compat.PARTIAL else [], "title": "\n".join(title),
    }


def changes_view(changed: pd.DataFrame, cells: pd.DataFrame) -> list[dict[str, Any]]:
    """The Changes section's rows: each documented change with its cells named by key and versions."""
    def cell(key: str) -> str:
        jax, flax = as_text(cells.at[key, "jax"]), as_text(cells.at[key, "flax"])
        return f"{key} jax {jax} \N{MULTIPLICATION SIGN} flax {flax}"

    rows: list[dict[str, Any]] = [{str(name): value for name, value in row.items()}
                                  for row in changed.to_dict("records")]
    return [{**row, "last_passing": cell(row["last_passing"]) if row["last_passing"] else "",
             "first_failing": cell(row["first_failing"]) if row["first_failing"] else "",
             "anchors": {key: column_anchor(key) for key in row["cells_warned"]}} for row in rows]


def cause_view(view: CauseView, order: list[str]) -> dict[str, Any]:
    """One cause for the template: its statuses drawn as chips, its first cell's column anchor, each case's
    column keys as runs of the column `order`."""
    return {
        "view": view, "anchor": f"cause-{view.number}", "first_anchor": column_anchor(view.first_key),
        "statuses": [present(status) for status in view.statuses],
        "cases": [(key_ranges(keys, order), cases) for keys, cases in view.by_keys()],
    }


def key_label(matrix: Matrix, key: str) -> str:
    """A column key as its header shows it: with the interrupted mark when its cell never finished."""
    return key_labels(matrix, [key])[0]


def key_labels(matrix: Matrix, keys: list[str]) -> list[str]:
    """key_label() of each of `keys`, asking the cells which were interrupted once, not once per key."""
    interrupted = set(matrix.incomplete)
    return [f"{key} {INCOMPLETE.symbol}" if key in interrupted else key for key in keys]


def cells_table(matrix: Matrix) -> Styler:
    """One row per column key: the cell, whether it finished, its versions and devices, and how many cases got
    each status and were flaky."""
    cells = matrix.cells
    tally = counts(matrix)
    several = len(matrix.run_ids) > 1
    runs = {run_id: f"{label} {run_id}" for run_id, label in matrix.run_labels.items()} if several else {}
    frame = pd.DataFrame(
        {
            "cell": cells["cell_id"],
            **({"run": cells["run_id"].map(runs)} if runs else {}),
            "finished": [
                (f"yes, reused from run {reused}" if isinstance(reused, str) else "yes")
                if done else f"{INCOMPLETE.symbol} no, interrupted"
                for done, reused in zip(cells["complete"], cells["reused_from"], strict=True)
            ],
            **{name: cells[name].map(as_text) for name in ("jax", "jaxlib", "flax", "python", "numpy", "backend")},
            "devices": [
                f"{as_text(n)} {as_text(kind)}".strip()
                for n, kind in zip(cells["device_count"], cells["device_kind"], strict=True)
            ],
        }
    )
    notes = [source_notes(found) for found in cells["sources"]]
    if any(notes):  # only when a cell built a package from a source: a matrix of releases keeps its width
        frame["source"] = ["; ".join(found) for found in notes]
    stacks = [stack_notes(found) for found in cells["machine"]] if "machine" in cells else []
    if any(stacks):  # only where a cell recorded its stack (harness.results' machine file)
        frame["stack"] = ["; ".join(found) for found in stacks]
    labels = {status: f"{present(status).symbol} {present(status).label}" for status in tally.columns}
    flaky_label = f"{FLAKY.symbol} {FLAKY.label}"
    flaky = matrix.results.groupby("key")["flaky"].sum().reindex(matrix.keys, fill_value=0).astype(int)
    frame = frame.join(tally.rename(columns=labels)).assign(**{flaky_label: flaky})
    classes = pd.DataFrame("", index=frame.index, columns=frame.columns)
    classes["finished"] = ["" if done else f"badge-{INCOMPLETE.css_class}" for done in cells["complete"]]
    for status, label in labels.items():
        classes[label] = [f"count {present(status).css_class}" if n else "count zero" for n in tally[status]]
    classes[flaky_label] = [f"count badge-{FLAKY.css_class}" if n else "count zero" for n in flaky]
    frame.index = pd.Index(key_labels(matrix, [str(key) for key in frame.index]))
    classes.index = frame.index
    return (
        _styler(frame, "cells", "cells")
        .set_td_classes(classes)
        .format(lambda n: str(n) if n else "·", subset=[*labels.values(), flaky_label])
    )


def status_table(matrix: Matrix, found: Hovers | None = None) -> str:
    """Cases (grouped by family) by columns in version order: a coloured status symbol, a badge on a flaky one,
    a hatched blank where an interrupted cell never ran a case, details on hover (`found`: hovers(), if at hand)."""
    shown = pivot(matrix, "shown")
    looks = {status: present(status) for status in matrix.results["shown"].unique()}
    # Written per result, then laid out: one lookup each, not a Python call per cell of the grid.
    statuses = matrix.results["shown"].tolist()
    symbol = {status: look.symbol for status, look in looks.items()}
    symbols = pivot_gaps(matrix, _aligned(matrix, [symbol[status] for status in statuses]), "")
    css = {status: f"status {look.css_class}" for status, look in looks.items()}
    badged = zip(statuses, matrix.results["flaky"].tolist(), strict=True)
    looked = [css[status] + (f" {FLAKY.css_class}" if flaky else "") for status, flaky in badged]
    classes = pivot_gaps(matrix, _aligned(matrix, looked), "status none")
    tips = pivot_gaps(matrix, _tips(matrix, status_tips, found), "")
    if matrix.incomplete:
        _never_ran(matrix, shown, classes, tips)
    return grid_html(
        "matrix", "matrix", _header(matrix), symbols, _group_starts(classes), tips, _incomplete_look(matrix),
        [column_anchor(key) for key in matrix.keys],
    )


def _never_ran(matrix: Matrix, shown: pd.DataFrame, classes: pd.DataFrame, tips: pd.DataFrame) -> None:
    """Hatch, and explain on hover, each case an interrupted column never ran (`classes` and `tips` in place)."""
    # Each row's case id, from whichever column ran it, for the hover of a column that did not.
    case_ids = pivot(matrix, "case_id").bfill(axis=1).ffill(axis=1)
    for key in matrix.incomplete:
        never_ran = shown[key].isna()
        classes[key] = classes[key].mask(never_ran, f"status none {INCOMPLETE.css_class}")
        cell_id = matrix.cells.loc[key, "cell_id"]
        tips[key] = [
            not_run_tip(key, cell_id, case_id) if gap else tip
            for gap, tip, case_id in zip(never_ran, tips[key], case_ids[key], strict=True)
        ]


def timing_table(matrix: Matrix, found: Hovers | None = None) -> str:
    """Median duration_s of every case in every column, shaded by its share of the slowest column of its case
    (`found`: hovers(), if at hand)."""
    durations = pivot(matrix, "duration_s")
    tips = pivot_gaps(matrix, _tips(matrix, timing_tips, found), "")
    shades = pd.DataFrame(_shades(durations.to_numpy(dtype=float)), index=durations.index, columns=durations.columns)
    # Written per result, each distinct duration once, then laid out ('' where a case did not run, as for NaN).
    texts = pivot_gaps(matrix, _aligned(matrix, seconds_each(matrix.results["duration_s"].tolist())), "")
    return grid_html(
        "timing", "timing", _header(matrix), texts, _group_starts(shades), tips,
        _incomplete_look(matrix),
    )


def warnings_table(matrix: Matrix, found: pd.DataFrame | None = None) -> Styler:
    """Each distinct warning of a passing case, how many cases raised it, and where (`found`: deprecations(), if
    at hand)."""
    found = deprecations(matrix) if found is None else found
    frame = pd.DataFrame(
        {
            "warning": found["warning"],
            "cases": found["cases"],
            "cells": [key_ranges(keys, matrix.keys) for keys in found["keys"]],
        }
    )
    return _styler(frame.reset_index(drop=True), "warnings", "warnings").hide(axis="index")


def _styler(frame: pd.DataFrame, uuid: str, css_class: str) -> Styler:
    """A Styler that escapes every value and label, with a fixed id so the page is byte-for-byte reproducible."""
    return (
        frame.style.set_uuid(uuid)
        .format(escape="html")
        .format_index(escape="html", axis=0)
        .format_index(escape="html", axis=1)
        .set_table_attributes(f'class="{css_class}"')
        .hide(names=True, axis="index")
    )


def _shades(durations: np.ndarray) -> list[list[str]]:
    """Blue shading by each duration's share of the slowest in its row, so a slow cell stands out: a class
    `shade-N` (N the colour's opacity in hundredths, reports/views/_page.py draws it) for each, '' for a gap or a row
    without a duration."""
    missing = np.isnan(durations)
    with np.errstate(invalid="ignore", divide="ignore"):
        slowest = np.where(missing.all(axis=1), np.nan, np.nanmax(np.where(missing, -np.inf, durations), axis=1))
        # The same float steps as Python's round(4 + 30 * value / slowest): both round half to even.
        levels = np.rint(4 + 30 * durations / slowest[:, None])
    blank = missing | ~(np.nan_to_num(slowest, nan=0.0) != 0)[:, None]
    return [
        ["" if gap else f"shade-{int(level)}" for gap, level in zip(gaps, row, strict=True)]
        for gaps, row in zip(blank.tolist(), levels.tolist(), strict=True)
    ]


def _group_starts(classes: pd.DataFrame) -> pd.DataFrame:
    """`classes` (rows indexed by family, case) with `group-start` added to each family's first row."""
    families = classes.index.get_level_values(0).tolist()
    grid = classes.to_numpy(dtype=object, copy=True)
    # Only each family's first row changes: a handful of rows, not every cell.
    for row in (n for n in range(1, len(families)) if families[n] != families[n - 1]):
        grid[row] = [f"{c} group-start".strip() for c in grid[row]]
    return pd.DataFrame(grid, index=classes.index, columns=classes.columns)


def _header(matrix: Matrix) -> pd.DataFrame:
    """The header of the status and timing tables: the cells' versions stacked above each key (marked when its
    cell was interrupted), one row per level, one column per key."""
    versions = header_versions(matrix)
    versions["cell"] = key_labels(matrix, [str(key) for key in versions.index])
    return versions.T


def _incomplete_look(matrix: Matrix) -> dict[str, str]:
    """The style of each interrupted cell's key header, so its column reads as partial at a glance."""
    look = f"background-color: {INCOMPLETE.background}; color: {INCOMPLETE.foreground};"
    return {label: look for label in key_labels(matrix, matrix.incomplete)}


#: Each result's hover fields (as lists) and its timing line, aligned with matrix.results: both big tables read them.
Hovers = tuple[dict[str, list[Any]], list[str]]


def hovers(matrix: Matrix) -> Hovers:
    """The fields a hover text reads of each result, and its timing line, written once for both tables."""
    # Column by column, never a mapping per result: 20,000 dicts took longer than writing the texts.
    columns = {name: matrix.results[name].tolist() for name in HOVER_FIELDS}
    return columns, timing_lines(columns)


def _tips(matrix: Matrix, describe: Callable[[Columns, list[str]], list[str]], found: Hovers | None) -> pd.Series:
    """The hover text of each result, aligned with matrix.results."""
    columns, timings = found or hovers(matrix)
    return _aligned(matrix, describe(columns, timings))


def _aligned(matrix: Matrix, values: list[Any]) -> pd.Series:
    """`values`, one per result, as a Series aligned with matrix.results (objects, so texts stay texts)."""
    return pd.Series(values, index=matrix.results.index, dtype=object)
