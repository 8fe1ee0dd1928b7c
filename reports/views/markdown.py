"""Render the matrix as GitHub-flavoured Markdown (matrix.md): the document top to bottom, its header, the
compatibility grid, the causes, the documented changes and the accelerator's divergences; the tables of results
(legend, one per family, warnings, cells) are reports.views.markdown_tables'.

Every text that came from a record goes through reports.views.gfm's `escape` or `code`: a message holding `|`, a
newline or `<script>` must stay inside its table cell and read as text.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from harness import outputs
from reports.data.tables import Matrix, column_anchor
from reports.data.text import as_text
from reports.verdicts import compat, divergence, documented_table, pairs
from reports.verdicts.causes import KNOWN, CauseView, causes, views
from reports.verdicts.findings import key_ranges
from reports.views.compat_grid import grid, origins
from reports.views.gfm import code, escape, table
from reports.views.markdown_tables import cells_section, family_sections, legend_section, warnings_section
from reports.views.present import FLAKY, INCOMPLETE, LOOKS, VERDICTS, legend, present, resume_command
from reports.views.repro import Repros
from reports.views.verdict_text import coverage_note, detail, failing_kinds, family_order, is_link, item_name


def render_markdown(
    matrix: Matrix, repros: Repros | None = None, found: pd.DataFrame | None = None,
    verdicts: pd.DataFrame | None = None, changed: pd.DataFrame | None = None,
) -> str:
    """The whole matrix.md: header, the compatibility table, the causes (linking `repros`, the reproducer scripts
    by (cell id, case id)), the documented changes, legend, one status table per family, warnings, then the cells.
    `found` (causes()), `verdicts` (compat.verdicts()) and `changed` (documented_table.table()) are computed unless the
    caller has them already."""
    found = causes(matrix.results, matrix.cells) if found is None else found
    verdicts = compat.verdicts(matrix, found) if verdicts is None else verdicts
    if changed is None:
        changed = documented_table.table(matrix.results, matrix.cells, compat.broken(verdicts))
    shown = views(found, matrix.cells, repros or {})
    sections = [
        _header(matrix),
        _interrupted(matrix),
        _compat(verdicts, shown),
        _causes(matrix, shown),
        changes_section(changed, matrix.cells),
        divergence_section(matrix),
        legend_section(matrix),
        "## Matrix\n\nColumns are cells in version order (jax, then flax, then python); **Cells** below maps each key"
        " to its cell.",
        *family_sections(matrix),
        warnings_section(matrix),
        cells_section(matrix),
    ]
    return "\n\n".join(section for section in sections if section) + "\n"


def _compat(verdicts: pd.DataFrame, shown: list[CauseView]) -> str:
    """Flax releases by jax releases, each cell's verdict linking its matrix column, a partial one its causes, each
    with what is new in it against its neighbours; what every cell of a row or of the table shares is said once."""
    layout = grid(verdicts)
    rows = {row["key"]: row for row in verdicts.to_dict("records")}
    numbers = {view.signature: view.number for view in shown}
    new, said = pairs.new_here(verdicts), pairs.shared(verdicts)

    def entry(key: str) -> str:
        row = rows[key]
        look = LOOKS[str(row["verdict"])]
        text = f"[{key} {look.mark} {escape(look.words)}](#{column_anchor(key)})"
        extra = " ".join(part for part in (detail(row), coverage_note(row)) if part)
        if row["verdict"] == compat.PARTIAL:
            refs = [f"[#{n}](#cause-{n})" for n in sorted(numbers[s] for s in row["causes"] if s in numbers)]
            extra += f" ({', '.join(refs)})" if refs else ""
        extra += f"<br>new here: {_items(new.get(key, []))}" if new.get(key) else ""
        return f"{text} {extra}" if extra else text

    where = origins(verdicts)

    def release(version: str) -> str:
        return escape(version) + (f" (from {code(where[version])})" if version in where else "")

    def row_label(flax: str) -> str:
        common = said.rows.get(flax, ())
        return f"**{release(flax)}**" + (f"<br>every pair: {_items(common, brief=True)}" if common else "")

    table_rows = [[row_label(flax), *("<br>".join(entry(key) for key in keys) for keys in slots)]
                  for flax, slots in zip(layout.index, layout.to_numpy().tolist(), strict=True)]
    everywhere = (f"Every cell below has {_items(said.table, brief=True)}. A box names what is new in its pair "
                  "(against the previous jax with its flax and the previous flax with its jax), a row what every pair "
                  "of it has.\n\n" if said.table else "")
    header = ["flax \\ jax", *(release(jax) for jax in layout.columns)]
    key = "\n".join(f"- {look.mark} **{escape(look.words)}** (`{token}`): {escape(VERDICTS[token])}"
                    for token, look in LOOKS.items())
    return ("## Compatibility\n\nEach flax release (rows) with each jax release (columns): the verdict of every cell "
            "that pairs them, linking its column in the matrix; a partial one names its causes. Each verdict, with "
            f"its token in `{outputs.COMPAT_CSV.name}`, is listed under the table.\n\n" + everywhere
            + table(header, table_rows, ["r"] + ["l"] * len(layout.columns)) + f"\n\n{key}"
            + _per_family(verdicts, [key for slots in layout.to_numpy().tolist() for keys in slots for key in keys]))


def _per_family(verdicts: pd.DataFrame, order: list[str]) -> str:
    """Each pair (in the grid's order) by family: the verdict of that family's cases alone, with what fails."""
    families = family_order(verdicts)
    if len(families) < 2:
        return ""
    rows = {str(row["key"]): row for row in verdicts.to_dict("records")}

    def entry(said: object) -> str:
        if not isinstance(said, dict):
            return ""
        look = LOOKS.get(str(said["verdict"]))
        mark = look.mark if look else escape(said["verdict"])
        extra = failing_kinds(said)
        return f"{mark} {extra}" if extra else f"{mark} {escape(look.words) if look else ''}".strip()

    body = [[f"[{key}](#{column_anchor(key)}) jax {escape(rows[key]['jax'])} \N{MIDDLE DOT} flax "
             f"{escape(rows[key]['flax'])}", *(entry(rows[key]["family_verdicts"].get(family)) for family in families)]
            for key in order if isinstance(rows[key].get("family_verdicts"), dict)]
    return ("\n\n### Per family\n\nEach pair's verdict on one family's cases alone, for a maintainer who uses only "
            "some of them (rows in the grid's order; each mark as in the list above), with what fails there.\n\n"
            + table(["pair", *(code(family) for family in families)], body, ["l"] * (len(families) + 1)))


def _items(found: Iterable[pairs.Item], brief: bool = False) -> str:
    """Known bugs and documented changes as a box names them, a bug's link where it has one; `brief`: the documented
    changes counted, not named (the Changes section names them)."""
    found = list(found)
    bugs = [f"[{escape(item_name(item.name))}]({item.name})" if is_link(item.name) else escape(item.name)
            for item in found if item.kind == compat.KNOWN_KIND]
    changed = [escape(item.name) for item in found if item.kind == compat.DOCUMENTED_KIND]
    said = [f"known upstream bug{'s' if len(bugs) > 1 else ''} {', '.join(bugs)}"] if bugs else []
    if changed:
        said.append(f"{len(changed)} documented change{'s' if len(changed) > 1 else ''}" if brief
                    else f"documented: {'; '.join(changed)}")
    return "; ".join(said)


def _causes(matrix: Matrix, shown: list[CauseView]) -> str:
    """One row per cause, the known breakages folded into one, then the cases behind each as a compact list."""
    if not shown:
        return "## Causes\n\nNone: every case passed or was not applicable."
    unexpected = [view for view in shown if view.unexpected]
    documented = [view for view in shown if view.documented]
    known = [view for view in shown if view.known]
    rows = [[f'<a id="cause-{view.number}"></a>#{view.number}', escape(view.example), _statuses(view.statuses),
             escape(view.cells), str(view.case_count), f"**{view.first_key}** {code(view.first_cell)}",
             f"[{view.reproducer.name}]({view.reproducer.as_posix()})" if view.reproducer else ""]
            for view in unexpected]
    if documented:
        rows.append([_numbers(documented), f"{_plural(len(documented), 'documented change')} (failing as their cases "
                     "declare, see [Changes](#changes)), listed below", _statuses(["failed"]), "",
                     str(sum(view.case_count for view in documented)), "", ""])
    if known:
        rows.append([_numbers(known),
                     f"{_plural(len(known), 'known upstream breakage')} (xfailed as declared), listed below",
                     _statuses([KNOWN]), "", str(sum(view.case_count for view in known)), "", ""])
    lines = [f"- **#{view.number}** ({view.case_count}): " + _cases(view, matrix.keys) for view in unexpected]
    lines += [f'- <a id="cause-{view.number}"></a>**#{view.number}** '
              + (f"documented change {escape(view.change)}, as " if view.documented else "")
              + f"{escape(view.example)} in {escape(view.cells)} ({view.case_count}): " + _cases(view, matrix.keys)
              for view in [*documented, *known]]
    listed = len(unexpected) + bool(documented) + bool(known)
    return (f"## Causes ({listed})\n\nEvery result that neither passed nor was not "
            "applicable, and every flaky one, grouped by its error (paths, addresses and numbers made alike).\n\n"
            + table(["#", "Cause", "Status", "Cells", "Cases", "First cell", "Reproduce"], rows,
                    ["r", "l", "l", "l", "r", "l", "l"])
            + "\n\nThe cases behind each cause, with the column keys they show in:\n\n" + "\n".join(lines))


def _numbers(folded: list[CauseView]) -> str:
    """'#4', or '#4' to '#9' joined by an en dash: the numbers of causes folded into one row."""
    first, last = folded[0].number, folded[-1].number
    return f"#{first}\N{EN DASH}#{last}" if last != first else f"#{first}"


def changes_section(changed: pd.DataFrame, cells: pd.DataFrame) -> str:
    """## Changes: one row per upstream change a case documents (reports.verdicts.documented_table.table()), the
    cells named by their versions so that the table reads the same copied elsewhere (the README shows one)."""
    if changed.empty:
        return ""

    def cell(key: str) -> str:
        return (f"jax {as_text(cells.at[key, 'jax'])} \N{MULTIPLICATION SIGN} flax {as_text(cells.at[key, 'flax'])}"
                if key else "")

    def seen(row: pd.Series) -> str:
        versions = dict.fromkeys(as_text(cells.at[key, row["package"]]) for key in row["cells_warned"])
        measured = f"seen in {row['package']} {', '.join(versions)}" if versions else ""
        return "; ".join(text for text in (code(row["warned"]) if row["warned"] else "", measured) if text)

    def flags(row: pd.Series) -> str:
        found = [f"**{name}** in {', '.join(cell(key) for key in row[name])}" for name in ("stale", "unexpected")
                 if row[name]]
        return f" ({'; '.join(found)})" if found else ""

    rows = [[f"{escape(row['package'])} {escape(row['release'])}", escape(row["what"]) + flags(row),
             escape(row["kind"]), seen(row), escape(cell(row["last_passing"])), escape(cell(row["first_failing"])),
             "<br>".join(code(case) for case in row["cases"]), escape(row["fix"])]
            for _, row in changed.iterrows()]
    return ("## Changes\n\nEach upstream change a case documents (`@case(changed=Change(...))`): "
            "the release it came with, its kind, the cells that warned before it, the last passing and first failing "
            "cells, the cases and the fix. A case failing inside its change's range with the exception it declares is "
            "documented; one passing there is **stale**, one failing elsewhere or otherwise **unexpected** (but in "
            "a broken cell, where nothing works). "
            f"`{outputs.CHANGES_CSV.name}` holds the same rows.\n\n"
            + table(["release", "what changed", "kind", "warned", "last passing", "first failing", "cases", "fix"],
                    rows))


def divergence_section(matrix: Matrix) -> str:
    """## Accelerator vs CPU: each divergent case with its cause and fix (reports.verdicts.divergence); nothing
    when no accelerator cell is shown."""
    shown = divergence.view(matrix)
    if shown is None:
        return ""
    rows = [[code(d["case_id"]), escape(f"{d['accelerator']}: {d['accelerator_outcome']}"),
             escape(f"{d['cpu']}: {d['cpu_outcome']}"), escape(d["highest_outcome"] or "not re-run"),
             f"**{d['label']}**", escape(d["fix"])] for d in shown["rows"]]
    lines = [*shown["compared"], *shown["unpaired"]]
    return ("## Accelerator vs CPU\n\nEach accelerator cell against the CPU cell of the same pins at the same device "
            "count; a case that failed an assertion on the accelerator ran once more at the highest matmul precision "
            "(its status stays the default precision's).\n\n" + "\n\n".join(escape(line) for line in lines)
            + ("\n\n" + table(["case", "accelerator", "CPU", "at the highest precision", "cause", "fix"], rows)
               if rows else ""))


def _statuses(statuses: list[str]) -> str:
    return ", ".join(f"{present(status).mark} {escape(present(status).label)}" for status in statuses)


def _cases(view: CauseView, order: list[str]) -> str:
    """The cases of a cause grouped by the column keys they show in: 'c15, c16: `a`, `b` · c17: `a`'."""
    return " · ".join(f"{key_ranges(keys, order)}: " + ", ".join(code(case) for case in cases)
                      for keys, cases in view.by_keys())


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _header(matrix: Matrix) -> str:
    if len(matrix.run_ids) == 1:
        label, runs = "Run", code(matrix.run_ids[0])
    else:
        label, runs = "Runs", ", ".join(f"{short} {code(run_id)}" for run_id, short in matrix.run_labels.items())
    cases = matrix.results["case_id"].nunique()
    totals = matrix.results["shown"].value_counts()
    shown = [f"{present(s).mark} {totals[s]} {escape(present(s).label)}" for s, _ in legend(totals.index)
             if s in totals.index]
    flaky = int(matrix.results["flaky"].sum())
    if flaky:
        shown.append(f"{FLAKY.mark} {flaky} {FLAKY.label}")
    return "\n\n".join([
        "# shardmatrix compatibility matrix",
        f"{label} {runs} · {_plural(len(matrix.keys), 'cell')}, {_plural(cases, 'case')}",
        " · ".join(shown),
    ])


def _interrupted(matrix: Matrix) -> str:
    """A warning above everything else when any cell was interrupted: its results are partial."""
    if not matrix.incomplete:
        return ""
    lines = [f"> {INCOMPLETE.mark} **{_plural(len(matrix.incomplete), 'cell')} did not finish** (interrupted): "
             "the cases it recorded are shown, the rest never ran.", ">"]
    for key in matrix.incomplete:
        cell = matrix.cells.loc[key]
        lines.append(f"> - **{key}** {code(cell['cell_id'])}: resume with {code(resume_command(cell['run_id']))}")
    return "\n".join(lines)


