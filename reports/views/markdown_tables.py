"""matrix.md's tables of results: the legend, one status table per family, the warnings and the cells, each mark
drawn from reports.views.present and each text through reports.views.gfm.
"""

from __future__ import annotations

from collections.abc import Collection

from reports.data.tables import Matrix, column_anchor, counts, header_versions, pivot, source_notes, stack_notes
from reports.data.text import as_text
from reports.verdicts.findings import deprecations, key_ranges
from reports.views.gfm import code, escape, table
from reports.views.present import FLAKY, INCOMPLETE, legend, present


def mark_of(status: object, flaky: bool = False) -> str:
    """A result's mark; a flaky one carries the flaky mark as a superscript."""
    shown = as_text(status)
    if not shown:
        return ""
    return present(shown).mark + (f"<sup>{FLAKY.mark}</sup>" if flaky else "")


def key_label(key: str, interrupted: Collection[str]) -> str:
    """A column key in bold, with the interrupted mark when its cell never finished (is in `interrupted`)."""
    return f"**{key}**" + (f" {INCOMPLETE.mark}" if key in interrupted else "")


def legend_section(matrix: Matrix) -> str:
    rows = [(p.mark, escape(p.label), escape(p.meaning)) for _, p in legend(matrix.results["shown"].unique())]
    rows += [(f"{present('passed').mark}<sup>{FLAKY.mark}</sup>", escape(FLAKY.label), escape(FLAKY.meaning)),
             (f"**c1** {INCOMPLETE.mark}", escape(INCOMPLETE.label), escape(INCOMPLETE.meaning))]
    return "## Legend\n\n" + table(["Mark", "Status", "Meaning"], rows, ["c", "l", "l"])


def cells_section(matrix: Matrix) -> str:
    tally = counts(matrix)
    multi = len(matrix.run_ids) > 1
    flaky = matrix.results.groupby("key")["flaky"].sum().reindex(matrix.keys, fill_value=0)
    # A source note only when a cell built a package from a source: a matrix of releases keeps its width.
    notes = [source_notes(found) for found in matrix.cells["sources"]]
    sourced = any(notes)
    # The stack column only where a cell recorded one (harness.results' machine file): older runs keep their width.
    stacks = [stack_notes(found) for found in matrix.cells["machine"]] if "machine" in matrix.cells else []
    stacked = any(stacks)
    header = ["Key", *(["Run"] if multi else []), "Cell", "Finished", "jax", "jaxlib", "flax", "python", "numpy",
              "devices", *(["source"] if sourced else []), *(["stack"] if stacked else []),
              *(present(s).mark for s in tally.columns), FLAKY.mark]
    interrupted = set(matrix.incomplete)
    # Plain rows, not iterrows() and .loc per row.
    tallies = dict(zip(tally.index, tally.to_numpy().tolist(), strict=True))
    rows: list[list[str]] = []
    for key, cell in zip(matrix.cells.index, matrix.cells.to_dict("records"), strict=True):
        run = [f"{matrix.run_labels[cell['run_id']]} {code(cell['run_id'])}"] if multi else []
        reused = cell["reused_from"]
        if not cell["complete"]:
            finished = f"{INCOMPLETE.mark} **no, interrupted**"
        else:
            finished = f"yes, reused from {code(reused)}" if isinstance(reused, str) else "yes"
        versions = [escape(as_text(cell[name])) for name in ("jax", "jaxlib", "flax", "python", "numpy")]
        devices = escape(f"{as_text(cell['device_count'])} {as_text(cell['device_kind'])}")
        shown = [str(n) if n else "" for n in [*tallies[key], flaky[key]]]
        note = ["<br>".join(escape(text) for text in notes[len(rows)])] if sourced else []
        note += ["<br>".join(escape(text) for text in stacks[len(rows)])] if stacked else []
        rows.append([key_label(str(key), interrupted), *run, code(cell["cell_id"]), finished, *versions, devices, *note,
                     *shown])
    align = ["l"] * (len(header) - len(tally.columns) - 1) + ["r"] * (len(tally.columns) + 1)
    return "## Cells\n\n" + table(header, rows, align)


def family_sections(matrix: Matrix) -> list[str]:
    """One status table per family, sliced from one table of all of them (a pivot per family cost more)."""
    grid = pivot(matrix, "shown")
    # eq(True): a gap (a case that did not run in a column) is not flaky.
    flaky = pivot(matrix, "flaky").eq(True)
    versions = header_versions(matrix)
    interrupted = set(matrix.incomplete)
    # Versions stacked under each key, labelled by the first column's header, keep columns narrow.
    header = ["<br>".join(["key", *versions.columns])] + [
        "<br>".join([key_label(str(key), interrupted), *(escape(text) for text in values)])
        for key, values in zip(versions.index, versions.to_numpy().tolist(), strict=True)
    ]
    # The first table's header names each column, so the compatibility table can link to it.
    anchored = [header[0]] + [f'<a id="{column_anchor(str(key))}"></a>{label}'
                              for key, label in zip(versions.index, header[1:], strict=True)]
    # The grid's rows are sorted by family: each family is one run of rows, sliced by position (.loc on the
    # MultiIndex cost more than the tables).
    families = grid.index.get_level_values(0).tolist()
    cases = grid.index.get_level_values(1).tolist()
    statuses, flags = grid.to_numpy().tolist(), flaky.to_numpy().tolist()
    starts = {family: families.index(family) for family in matrix.families}
    tables = []
    for number, family in enumerate(matrix.families):
        start = starts[family]
        end = start + families.count(family)
        tables.append(_family(family, cases[start:end], statuses[start:end], flags[start:end], len(grid.columns),
                              anchored if number == 0 else header))
    return tables


def _family(family: str, cases: list[str], statuses: list[list[object]], flags: list[list[bool]], width: int,
            header: list[str]) -> str:
    """One family's status table: a row per case, `statuses` and `flags` (flaky) a list per case."""
    # A handful of distinct (status, flaky) pairs fill the whole grid: each mark is written once.
    marks: dict[tuple[object, bool], str] = {}

    def mark(status: object, flag: bool) -> str:
        found = marks.get((status, flag))
        if found is None:
            found = marks[(status, flag)] = mark_of(status, flag)
        return found

    rows = [
        [code(case), *map(mark, row, row_flags)] for case, row, row_flags in zip(cases, statuses, flags, strict=True)
    ]
    return f"### {escape(family)}\n\n" + table(header, rows, ["l"] + ["c"] * width)


def warnings_section(matrix: Matrix) -> str:
    found = deprecations(matrix)
    if found.empty:
        return ""
    rows = [[escape(text), str(cases), key_ranges(keys, matrix.keys)]
            for text, cases, keys in found.itertuples(index=False)]
    return "## Warnings\n\nPassed, but warned: usually a deprecation, an early sign of a coming break.\n\n" + table(
        ["Warning", "Cases", "Cells"], rows, ["l", "r", "l"])
