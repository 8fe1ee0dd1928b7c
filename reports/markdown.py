"""Render the matrix as GitHub-flavoured Markdown (matrix.md).

Every text that came from a record goes through `escape` or `code`: a message holding `|`, a newline or
`<script>` must stay inside its table cell and read as text.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence

import pandas as pd

from reports.findings import deprecations, grouped_problems, key_ranges
from reports.matrix import Matrix, counts, header_versions, pivot
from reports.present import FLAKY, INCOMPLETE, legend, present, resume_command
from reports.repro import Repros, problem_links
from reports.text import as_text

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


def render_markdown(matrix: Matrix, repros: Repros | None = None) -> str:
    """The whole matrix.md: header, legend, one status table per family, problems (linking `repros`, the
    reproducer scripts by (cell id, case id)), warnings, then the cells."""
    sections = [
        _header(matrix),
        _interrupted(matrix),
        _legend(matrix),
        "## Matrix\n\nColumns are cells in version order (jax, then flax, then python); **Cells** below maps each key"
        " to its cell.",
        *_families(matrix),
        _problems(matrix, repros or {}),
        _warnings(matrix),
        _cells(matrix),
    ]
    return "\n\n".join(section for section in sections if section) + "\n"


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
    rows = [(p.mark, escape(p.label), escape(p.meaning)) for _, p in legend(matrix.results["shown"])]
    rows += [(f"{present('passed').mark}<sup>{FLAKY.mark}</sup>", escape(FLAKY.label), escape(FLAKY.meaning)),
             (f"**c1** {INCOMPLETE.mark}", escape(INCOMPLETE.label), escape(INCOMPLETE.meaning))]
    return "## Legend\n\n" + table(["Mark", "Status", "Meaning"], rows, ["c", "l", "l"])


def _cells(matrix: Matrix) -> str:
    tally = counts(matrix)
    multi = len(matrix.run_ids) > 1
    flaky = matrix.results.groupby("key")["flaky"].sum().reindex(matrix.keys, fill_value=0)
    header = ["Key", *(["Run"] if multi else []), "Cell", "Finished", "jax", "jaxlib", "flax", "python", "numpy",
              "devices", *(present(s).mark for s in tally.columns), FLAKY.mark]
    interrupted = set(matrix.incomplete)
    # Plain rows, not iterrows() and .loc per row.
    tallies = dict(zip(tally.index, tally.to_numpy().tolist(), strict=True))
    rows = []
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
        rows.append([_key(str(key), interrupted), *run, code(cell["cell_id"]), finished, *versions, devices, *shown])
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
    return [
        _family(family, grid.loc[[family]].droplevel(0), flaky.loc[[family]].droplevel(0), header)
        for family in matrix.families
    ]


def _family(family: str, grid: pd.DataFrame, flaky: pd.DataFrame, header: list[str]) -> str:
    rows = [
        [code(case), *(_mark(status, flag) for status, flag in zip(statuses, flags, strict=True))]
        for case, statuses, flags in zip(grid.index, grid.to_numpy(), flaky.to_numpy(), strict=True)
    ]
    return f"### {escape(family)}\n\n" + table(header, rows, ["l"] + ["c"] * len(grid.columns))


def _problems(matrix: Matrix, repros: Repros) -> str:
    found = grouped_problems(matrix)
    if found.empty:
        return "## Problems\n\nNone: every case passed or was not applicable."
    rows = [
        [key_ranges(keys, matrix.keys), code(case),
         f"{present(status).mark} {escape(present(status).label)}" + (f", {FLAKY.mark} {FLAKY.label}" if flaky else ""),
         escape(text),
         " ".join(f"[{key}]({path})" for key, path in problem_links(matrix, keys, case, repros))]
        for keys, case, status, flaky, text in found.itertuples(index=False)
    ]
    header = ["Cells", "Case", "Status", "Detail", "Reproduce"]
    if not any(row[-1] for row in rows):  # no reproducer was written: no empty column
        header, rows = header[:-1], [row[:-1] for row in rows]
    return f"## Problems ({len(found)})\n\n" + table(header, rows)


def _warnings(matrix: Matrix) -> str:
    found = deprecations(matrix)
    if found.empty:
        return ""
    rows = [[escape(text), str(cases), key_ranges(keys, matrix.keys)]
            for text, cases, keys in found.itertuples(index=False)]
    return "## Warnings\n\nPassed, but warned: usually a deprecation, an early sign of a coming break.\n\n" + table(
        ["Warning", "Cases", "Cells"], rows, ["l", "r", "l"])
