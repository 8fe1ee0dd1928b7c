"""The two big tables of matrix.html, status and timing (one cell per case and column), written as plain HTML.

Every other table of the page is drawn by pandas Styler. These two are not: at 100 cells x 200 cases Styler
took seconds for each (it turns every cell into a dict, renders it through Jinja, and writes each hover text as
a CSS rule of its own, some 700 bytes a result). This writes the markup Styler would, with the same classes, so
the page's stylesheet applies unchanged, and puts each hover text inline, HTML-escaped, in the
`<span class="pd-t">` that the stylesheet shows on hover.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

import pandas as pd


def spans(labels: list[tuple[str, ...]], level: int) -> list[int]:
    """How many positions each label of `level` spans (0 under a span), merging neighbours that agree on every
    level up to `level`, as Styler sparsifies a MultiIndex: [('a', 1), ('a', 2), ('b', 2)], 0 -> [2, 0, 1]."""
    found = [0] * len(labels)
    start = 0
    for position in range(1, len(labels) + 1):
        if position == len(labels) or labels[position][: level + 1] != labels[start][: level + 1]:
            found[start] = position - start
            start = position
    return found


def grid_html(
    uuid: str,
    css_class: str,
    header: pd.DataFrame,
    text: pd.DataFrame,
    classes: pd.DataFrame,
    tips: pd.DataFrame,
    header_styles: Mapping[str, str] | None = None,
    column_ids: Sequence[str] | None = None,
) -> str:
    """A table whose rows are `text`'s (family, case) index and whose columns stack `header`'s rows (one per
    header level, the last naming each column); `classes` and `tips` (hover texts, '' for none) align with
    `text`; `header_styles` gives an inline style to the last header level's labels, by label; `column_ids` an id
    to each column's last header cell, so a link can point at a column."""
    styles = header_styles or {}
    ids = list(column_ids) if column_ids is not None else [""] * len(header.columns)
    levels = [tuple(str(value) for value in column) for column in header.T.itertuples(index=False)]
    head = []
    for level, name in enumerate(header.index):
        cells = [f'<th class="blank" >&nbsp;</th>\n<th class="index_name level{level}" >{escape(str(name))}</th>']
        last = level == len(header.index) - 1
        for span, labels, anchor in zip(spans(levels, level), levels, ids, strict=True):
            if not span:
                continue
            label = labels[level]
            style = f' style="{escape(styles[label])}"' if last and label in styles else ""
            colspan = f' colspan="{span}"' if span > 1 else ""
            named = f' id="{escape(anchor)}"' if last and anchor else ""
            cells.append(f'<th class="col_heading level{level}"{named}{colspan}{style}>{escape(label)}</th>')
        head.append("<tr>\n" + "\n".join(cells) + "\n</tr>")
    rows = [tuple(str(value) for value in row) for row in text.index]
    families = spans(rows, 0)
    # Symbols, durations and classes repeat across the grid: each distinct (class, text) opens its cells, escaped
    # once.
    openings: dict[tuple[str, str], str] = {}

    def opening(look: str, value: str) -> str:
        found = openings[(look, value)] = (f'<td class="{escape(look)}">' if look else "<td>") + escape(value)
        return found

    hovered = escape_all(tips.to_numpy().ravel().tolist())
    width = len(text.columns)
    body = []
    for number, (row, span, values, looks) in enumerate(
        zip(rows, families, text.to_numpy().tolist(), classes.to_numpy().tolist(), strict=True)
    ):
        hovers = hovered[number * width:(number + 1) * width]
        rowspan = f' rowspan="{span}"' if span > 1 else " "
        cells = [f'<th class="row_heading level0"{rowspan}>{escape(row[0])}</th>'] if span else []
        cells.append(f'<th class="row_heading level1" >{escape(row[1])}</th>')
        cells += [
            (openings.get((look, value)) or opening(look, value))
            + (f'<span class="pd-t">{hover}</span></td>' if hover else "</td>")
            for value, look, hover in zip(values, looks, hovers, strict=True)
        ]
        body.append("<tr>\n" + "\n".join(cells) + "\n</tr>")
    return (
        f'<table id="T_{uuid}" class="{css_class}">\n<thead>\n' + "\n".join(head) + "\n</thead>\n<tbody>\n"
        + "\n".join(body) + "\n</tbody>\n</table>\n"
    )


def escape_all(texts: list[str]) -> list[str]:
    """html.escape() of each text, in one pass over them all: 20,000 hover texts escaped one call each were a good
    part of the page. NUL, which escape() leaves alone, separates them; a text holding one is escaped alone."""
    joined = "\0".join(texts)
    if joined.count("\0") != len(texts) - 1:
        return [escape(text) for text in texts]
    return escape(joined).split("\0")
