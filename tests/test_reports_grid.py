"""Tests for reports/views/grid.py: the status and timing tables' markup, escaped, sparsified as Styler would."""

from __future__ import annotations

from html import escape

import pandas as pd
from html_parse import parse

from reports.views.grid import escape_all, grid_html, spans

HOSTILE = '<script>alert(1)</script> | "quoted" \\ back\nnew line & </span></td></table>'


def table(tips: str = "tip", label: str = "c2") -> str:
    index = pd.MultiIndex.from_tuples([("fam", "test_a"), ("fam", "test_b"), ("other", HOSTILE)])
    text = pd.DataFrame([["✓", "✗"], ["✓", ""], [HOSTILE, "✓"]], index=index, columns=["c1", "c2"])
    classes = pd.DataFrame([["status st-passed", "status st-failed"], ["status st-passed", "status none"],
                            ["status st-unknown", ""]], index=index, columns=text.columns)
    hovers = pd.DataFrame([[tips, tips], [tips, ""], [HOSTILE, tips]], index=index, columns=text.columns)
    header = pd.DataFrame([["0.4.38", "0.4.38"], ["c1", label]], index=["jax", "cell"], columns=text.columns)
    return grid_html("matrix", "matrix", header, text, classes, hovers, {"c2": "color: red;"})


def test_spans_merge_neighbours_that_agree_on_every_level_above() -> None:
    labels = [("a", "1"), ("a", "1"), ("a", "2"), ("b", "2")]
    assert spans(labels, 0) == [3, 0, 0, 1]
    assert spans(labels, 1) == [2, 0, 1, 1]


def test_spans_do_not_merge_a_label_across_a_parent_boundary() -> None:
    assert spans([("a", "1"), ("b", "1")], 1) == [1, 1]


def test_header_and_row_labels_span_like_styler() -> None:
    html = table()
    assert '<th class="col_heading level0" colspan="2">0.4.38</th>' in html
    assert '<th class="row_heading level0" rowspan="2">fam</th>' in html
    assert '<th class="row_heading level0" >other</th>' in html
    assert '<th class="col_heading level1" style="color: red;">c2</th>' in html


def test_cells_carry_their_classes_and_hover_text() -> None:
    html = table()
    assert '<td class="status st-passed">✓<span class="pd-t">tip</span></td>' in html
    assert '<td class="status none"></td>' in html


def test_hostile_text_stays_text_everywhere() -> None:
    html = table()
    parsed = parse(html)
    assert "script" not in parsed.tags and parsed.tags.count("table") == 1
    assert "".join(parsed.text).count(HOSTILE) == 3  # a row label, a cell and a hover text


def test_column_ids_name_the_last_header_row_only() -> None:
    header = pd.DataFrame([["0.4", "0.4"], ["c1", "c2"]], index=["jax", "cell"], columns=["c1", "c2"])
    text = pd.DataFrame([["x", "y"]], index=pd.MultiIndex.from_tuples([("fam", "a")]), columns=["c1", "c2"])
    page = grid_html("t", "t", header, text, text.map(lambda _: ""), text.map(lambda _: ""),
                     column_ids=["col-c1", "col-c2"])
    assert '<th class="col_heading level1" id="col-c1">c1</th>' in page
    assert page.count('id="col-') == 2


def test_escape_all_is_escape_of_each_text_even_with_the_separator_inside() -> None:
    texts = [HOSTILE, "", "plain", "a\0<b>", "'quoted' & \"double\""]
    assert escape_all(texts) == [escape(text) for text in texts]
    assert escape_all(texts[:3]) == [escape(text) for text in texts[:3]] and escape_all([]) == []
