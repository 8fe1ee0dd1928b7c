"""Render the matrix as GitHub-flavoured Markdown (matrix.md).

Every text that came from a record goes through `escape` or `code`: a message holding `|`, a newline or
`<script>` must stay inside its table cell and read as text.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

import pandas as pd

from harness import outputs
from reports.data.tables import Matrix, column_anchor, counts, header_versions, pivot, source_notes, stack_notes
from reports.data.text import as_text
from reports.verdicts import compat, divergence, documented, pairs
from reports.verdicts.causes import KNOWN, CauseView, causes, views
from reports.verdicts.findings import deprecations, key_ranges
from reports.views.compat_grid import grid, origins
from reports.views.present import FLAKY, INCOMPLETE, LOOKS, VERDICTS, legend, present, resume_command
from reports.views.repro import Repros
from reports.views.verdict_text import coverage_note, detail, failing_kinds, family_order, is_link, item_name

# Backslash-escaping ASCII punctuation is always literal in CommonMark; these are the characters that can start
# emphasis, code, links, HTML, entities, strikethrough or (on GitHub) math, plus the table's own `|`.
_SPECIALS = re.compile(r"([\\`*_\[\]<>|~&$])")
_BACKTICKS = re.compile(r"`+")


def one_line(text: object) -> str:
    """Text with every line break turned into a space, so it cannot end a table row."""
    return " ".join(str(text).splitlines()).strip()


def escape(text: object) -> str:
    """Plain text that renders literally inside a GFM table cell."""
    return _SPECIALS.sub(r"\\\1", one_line(text))


def code(text: object) -> str:
    """Text as an inline code span that stays inside a GFM table cell, whatever backticks it holds."""
    body = one_line(text)
    if not body:
        return ""
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    # GFM splits table cells before it parses code spans, so a pipe must be escaped even inside one.
    body = body.replace("|", "\\|")
    return f"{fence}{pad}{body}{pad}{fence}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]], align: Sequence[str] | None = None) -> str:
    """A GFM table from already-escaped cells; `align` holds one of 'l', 'c', 'r' per column."""
    rule = {"l": ":--", "c": ":-:", "r": "--:"}
    aligns = align or ["l"] * len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule[a] for a in aligns) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(
    matrix: Matrix, repros: Repros | None = None, found: pd.DataFrame | None = None,
    verdicts: pd.DataFrame | None = None, changed: pd.DataFrame | None = None,
) -> str:
    """The whole matrix.md: header, the compatibility table, the causes (linking `repros`, the reproducer scripts
    by (cell id, case id)), the documented changes, legend, one status table per family, warnings, then the cells.
    `found` (causes()), `verdicts` (compat.verdicts()) and `changed` (documented.table()) are computed unless the
    caller has them already."""
    found = causes(matrix.results, matrix.cells) if found is None else found
    verdicts = compat.verdicts(matrix, found) if verdicts is None else verdicts
    changed = documented.table(matrix.results, matrix.cells, compat.broken(verdicts)) if changed is None else changed
    shown = views(found, matrix.cells, repros or {})
    sections = [
        _header(matrix),
        _interrupted(matrix),
        _compat(verdicts, shown),
        _causes(matrix, shown),
        changes_section(changed, matrix.cells),
        divergence_section(matrix),
        _legend(matrix),
        "## Matrix\n\nColumns are cells in version order (jax, then flax, then python); **Cells** below maps each key"
        " to its cell.",
        *_families(matrix),
        _warnings(matrix),
        _cells(matrix),
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
    """## Changes: one row per upstream change a case documents (reports.verdicts.documented.table()), the cells named
    by their versions so that the table reads the same copied elsewhere (the README shows one)."""
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


def _mark(status: object, flaky: bool = False) -> str:
    """A result's mark; a flaky one carries the flaky mark as a superscript."""
    shown = as_text(status)
    if not shown:
        return ""
    return present(shown).mark + (f"<sup>{FLAKY.mark}</sup>" if flaky else "")


def _key(key: str, interrupted: Collection[str]) -> str:
    """A column key in bold, with the interrupted mark when its cell never finished (is in `interrupted`)."""
    return f"**{key}**" + (f" {INCOMPLETE.mark}" if key in interrupted else "")


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


def _legend(matrix: Matrix) -> str:
    rows = [(p.mark, escape(p.label), escape(p.meaning)) for _, p in legend(matrix.results["shown"].unique())]
    rows += [(f"{present('passed').mark}<sup>{FLAKY.mark}</sup>", escape(FLAKY.label), escape(FLAKY.meaning)),
             (f"**c1** {INCOMPLETE.mark}", escape(INCOMPLETE.label), escape(INCOMPLETE.meaning))]
    return "## Legend\n\n" + table(["Mark", "Status", "Meaning"], rows, ["c", "l", "l"])


def _cells(matrix: Matrix) -> str:
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
        rows.append([_key(str(key), interrupted), *run, code(cell["cell_id"]), finished, *versions, devices, *note,
                     *shown])
    align = ["l"] * (len(header) - len(tally.columns) - 1) + ["r"] * (len(tally.columns) + 1)
    return "## Cells\n\n" + table(header, rows, align)


def _families(matrix: Matrix) -> list[str]:
    """One status table per family, sliced from one table of all of them (a pivot per family cost more)."""
    grid = pivot(matrix, "shown")
    # eq(True): a gap (a case that did not run in a column) is not flaky.
    flaky = pivot(matrix, "flaky").eq(True)
    versions = header_versions(matrix)
    interrupted = set(matrix.incomplete)
    # Versions stacked under each key, labelled by the first column's header, keep columns narrow.
    header = ["<br>".join(["key", *versions.columns])] + [
        "<br>".join([_key(str(key), interrupted), *(escape(text) for text in values)])
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
            found = marks[(status, flag)] = _mark(status, flag)
        return found

    rows = [
        [code(case), *map(mark, row, row_flags)] for case, row, row_flags in zip(cases, statuses, flags, strict=True)
    ]
    return f"### {escape(family)}\n\n" + table(header, rows, ["l"] + ["c"] * width)


def _warnings(matrix: Matrix) -> str:
    found = deprecations(matrix)
    if found.empty:
        return ""
    rows = [[escape(text), str(cases), key_ranges(keys, matrix.keys)]
            for text, cases, keys in found.itertuples(index=False)]
    return "## Warnings\n\nPassed, but warned: usually a deprecation, an early sign of a coming break.\n\n" + table(
        ["Warning", "Cases", "Cells"], rows, ["l", "r", "l"])
