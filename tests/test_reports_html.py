"""Tests for reports/views/html.py: matrix.html is self-contained, escapes every record text, and shows statuses."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import record_factory as factory
from html_parse import HoverTips, parse
from record_factory import matrix_of

from reports.views.html import render_html

RUN = "20261121T084500Z-ab12"
#: This file's records: the factory's, with what its tests read set.
record = partial(factory.record, compile_s=0.3, execute_s=0.2, device_kind="cpu", backend="cpu")
HOSTILE = '<script>alert(1)</script> | "quoted" \\ back\nnew line `tick` *star* [x](y) &amp; </style>'

#: Every element the page may hold: no script, no link, no img, nothing that could fetch or run anything.
ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "code", "nav", "a", "ul", "li",
                "span", "table", "thead", "tbody", "tr", "th", "td", "footer", "div", "strong", "details", "summary"}






def flaky_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """Two attempts of fam::a: failed, then passed."""
    return (record(case_id="fam::a", status="failed", attempt=1, error_type="ValueError"),
            record(case_id="fam::a", status="passed", attempt=2))


def legend_count(page: str, label: str) -> int:
    """The count the legend shows beside `label`."""
    found = re.search(rf'<span class="n">(\d+)</span> {re.escape(label)}</li>', page)
    assert found, label
    return int(found[1])


class _Tips(HoverTips):
    """The hover text (`<span class="pd-t">`) of each (row, col) data cell of the table with id `table_id`."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id, self.inside, self.row, self.col = table_id, False, -1, -1
        self.found: dict[tuple[int, int], str] = {}

    def reading(self) -> bool:
        return self.inside

    def tip_read(self, text: str) -> None:
        self.found[(self.row, self.col)] = text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.inside = dict(attrs).get("id") == self.table_id
        elif self.inside and tag == "tbody":
            self.row = -1
        elif self.inside and tag == "tr":
            self.row, self.col = self.row + 1, -1
        elif self.inside and tag == "td":
            self.col += 1
        super().handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        super().handle_endtag(tag)
        if tag == "table":
            self.inside = False


def tooltips(page: str, table: str = "matrix") -> dict[tuple[int, int], str]:
    """The decoded hover text of each (row, col) data cell of one table."""
    parser = _Tips(f"T_{table}")
    parser.feed(page)
    parser.close()
    return parser.found


@pytest.fixture(scope="module")
def hostile_page() -> str:
    return render_html(
        matrix_of(
            record("0.4.38", case_id="fam::a", status="failed", error_type="ValueError", error_message=HOSTILE,
                   reason=HOSTILE),
            record("0.4.38", case_id=f"fam::{HOSTILE}", warnings=[HOSTILE]),
            record("0.10.2", case_id="fam::a", status=HOSTILE, cell_id=HOSTILE),
            record("0.10.2", case_id=f"fam::{HOSTILE}", cell_id=HOSTILE, family=HOSTILE),
        )
    )


# --- the page -------------------------------------------------------------------------------------------------


def test_page_is_self_contained(hostile_page: str) -> None:
    page = parse(hostile_page)
    assert set(page.tags) <= ALLOWED_TAGS
    assert not [a for a in page.attributes if re.match(r"(src|href)=(?!#)", a)]
    assert "url(" not in hostile_page and "@import" not in hostile_page


def test_hostile_text_is_escaped_in_body_and_style(hostile_page: str) -> None:
    assert "<script>" not in hostile_page
    # The hostile text's own </style> never appears raw: every closing tag closes one of the page's own.
    assert hostile_page.lower().count("</style") == hostile_page.lower().count("<style")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in hostile_page
    assert "ValueError: <script>alert(1)</script> | \"quoted\" \\ back" in "".join(parse(hostile_page).text)


def test_hover_shows_status_error_reason_and_warning_as_text(hostile_page: str) -> None:
    tips = tooltips(hostile_page)
    failed = next(tip for tip in tips.values() if "status: failed" in tip)
    assert f"ValueError: {HOSTILE}" in failed
    assert f"reason: {HOSTILE.splitlines()[0]}" in failed
    warned = next(tip for tip in tips.values() if "status: passed, warned" in tip)
    assert f"warning: {HOSTILE.splitlines()[0]}" in warned
    assert "time: 0.500 s (compile 0.300 s, execute 0.200 s)" in failed


def test_statuses_get_their_classes_and_symbols() -> None:
    page = render_html(
        matrix_of(record(case_id="fam::a"), record(case_id="fam::b", warnings=["DeprecationWarning: old"]),
                  record(case_id="fam::c", status="failed"), record(case_id="fam::d", status="quarantined"))
    )
    for css_class, symbol in [("st-passed", "✓"), ("st-passed_deprecated", "⚠\ufe0e"), ("st-failed", "✗"),
                              ("st-unknown", "?")]:
        assert re.search(rf'<td [^>]*class="[^"]*status {css_class}[^"]*"[^>]*>{re.escape(symbol)}<', page), css_class


def test_a_case_missing_from_a_cell_is_a_blank_cell() -> None:
    page = render_html(matrix_of(record("0.4.38", case_id="fam::a"), record("0.10.2", case_id="fam::b")))
    assert len(re.findall(r'class="[^"]*status none', page)) == 2


def test_columns_are_in_version_order_with_versions_in_the_header() -> None:
    page = render_html(matrix_of(record("0.10.2"), record("0.4.38")))
    matrix = page[page.index('id="T_matrix"') :]
    assert matrix.index(">0.4.38<") < matrix.index(">0.10.2<")


def test_timing_shows_the_median_duration() -> None:
    page = render_html(matrix_of(record(duration_s=1.0), record(duration_s=2.0), record(duration_s=10.0)))
    timing = page[page.index('id="T_timing"') :]
    assert re.search(r"<td [^>]*>2\.00<", timing)
    assert "median of 3 runs" in tooltips(page, "timing")[(0, 0)]


def test_page_is_reproducible() -> None:
    matrix = matrix_of(record(case_id="fam::a"), record(case_id="fam::b", status="failed"))
    assert render_html(matrix) == render_html(matrix)


# --- flaky results --------------------------------------------------------------------------------------------


def test_flaky_result_is_badged_counted_and_explained_on_hover() -> None:
    page = render_html(matrix_of(*flaky_pair(), record(case_id="fam::b")))
    assert re.search(r'<td [^>]*class="[^"]*status st-passed flaky"[^>]*>✓<', page)
    assert legend_count(page, "flaky") == 1
    assert any("status: passed\nflaky: failed → passed" in tip for tip in tooltips(page).values())
    found = page[page.index('id="T_causes"') : page.index('id="matrix"')]
    assert "✓ passed" in found and "flaky: failed → passed" in found


def test_retry_that_failed_alike_is_not_badged() -> None:
    page = render_html(matrix_of(record(status="failed", attempt=1), record(status="failed", attempt=2)))
    assert 'status st-failed"' in page and "st-failed flaky" not in page
    assert legend_count(page, "flaky") == 0


# --- interrupted cells ----------------------------------------------------------------------------------------


def test_interrupted_cell_is_marked_in_its_header_and_flagged_with_how_to_resume() -> None:
    cell = "jax0.10.2-flax0.12.8-py3.11"
    page = render_html(matrix_of(record("0.4.38", case_id="fam::b"), record("0.4.38"), record(), interrupted=(cell,)))
    matrix = page[page.index('id="T_matrix"') : page.index('id="cells"')]
    assert re.search(r"<th [^>]*>c2 ⏸\ufe0e</th>", matrix) and re.search(r"<th [^>]*>c1</th>", matrix)
    assert f"<code>nox -s matrix -- --resume {RUN}</code>" in page
    assert 'class="alert"' in page and legend_count(page, "interrupted") == 1
    # fam::b never ran in c2: hatched, with a hover saying why.
    assert len(re.findall(r'class="[^"]*status none incomplete', matrix)) == 1
    assert any(tip.endswith("fam::b\ninterrupted: stopped before this case ran") for tip in tooltips(page).values())
    assert "⏸\ufe0e no, interrupted" in page[page.index('id="T_cells"') :]


def test_finished_cells_have_no_interrupted_marks() -> None:
    page = render_html(matrix_of(record("0.4.38", case_id="fam::b"), record("0.4.38"), record()))
    assert 'class="alert"' not in page and "--resume" not in page
    assert "status none incomplete" not in page and "no, interrupted" not in page
    assert legend_count(page, "interrupted") == 0


# --- compatibility table and causes ---------------------------------------------------------------------------


def test_compatibility_table_comes_first_and_links_each_verdict_to_its_matrix_column() -> None:
    page = render_html(matrix_of(record("0.4.38"), record("0.10.2", status="failed", error_type="ValueError",
                                                          error_message="boom")))
    assert page.index('id="compat"') < page.index('id="causes"') < page.index('id="matrix"')
    compat = " ".join(page[page.index('id="T_compat"') : page.index('id="causes"')].split())
    assert re.search(r'<a class="cell" href="#col-c1">.*✓ works</a>', compat)
    assert re.search(r'<a class="cell" href="#col-c2">.*◐ partial</a>', compat)
    assert '0 documented · 0 known upstream · 1 unexplained <a href="#cause-1"' in compat
    matrix = page[page.index('id="T_matrix"') :]
    assert 'id="col-c1"' in matrix and 'id="col-c2"' in matrix


def test_new_verdicts_read_as_words_and_the_legend_says_each_meaning_and_token() -> None:
    matrix = matrix_of(record("0.4.38", status="not_applicable"), record("0.10.2", status="failed"))
    matrix.results["documented"] = matrix.results["status"].eq("failed")
    page = render_html(matrix)
    compat = " ".join(page[page.index('id="T_compat"') : page.index('id="causes"')].split())
    assert re.search(r'<div class="verdict v-no-evidence".*<a class="cell" href="#col-c1">.*\? no evidence</a>', compat)
    assert re.search(r'href="#col-c2">.*☑ works for current code</a> <span class="fails">1 documented · 0 known '
                     r'upstream · 0 unexplained', compat)
    assert ("☑ works for current code</span> only documented changes fail: code written for these releases works, "
            "older code breaks <code>works_for_current_code</code></li>") in compat


def test_one_error_across_cases_and_cells_is_one_cause_row_with_its_cases_on_demand() -> None:
    records = [record(jax, case_id=f"fam::t{n}", status="error", error_type="ImportError",
                      error_message=f"cannot import name 'x' (/v/.nox/c{n}/lib/python3.11/site-packages/flax/a.py:{n})")
               for jax in ("0.4.38", "0.5.3", "0.10.2") for n in range(4)]
    page = render_html(matrix_of(*records))
    found = page[page.index('id="T_causes"') : page.index('id="matrix"')]
    assert len(re.findall(r'<tr id="cause-\d+">', found)) == 1
    assert "<summary>12 cases</summary>" in found
    assert "<strong>c1\N{EN DASH}c3</strong>: <code>fam::t0</code>, <code>fam::t1</code>" in found
    assert ">all 3 cells<" in found  # every cell of the matrix: no list of ranges


def test_known_breakages_fold_into_one_row_after_the_unexpected_causes() -> None:
    page = render_html(matrix_of(record(case_id="fam::a", status="xfailed", reason="known one"),
                                 record(case_id="fam::b", status="xfailed", reason="known two"),
                                 record(case_id="fam::c", status="failed", error_type="KeyError")))
    found = " ".join(page[page.index('id="T_causes"') : page.index('id="matrix"')].split())
    assert "2 known upstream breakages" in found
    assert found.index('<tr id="cause-1">') < found.index("known upstream") < found.index('<tr id="cause-2">')
    assert "KeyError" in found[: found.index("known upstream")]


def test_a_cause_links_the_reproducer_of_its_first_cell() -> None:
    failing = {"status": "failed", "error_type": "ValueError", "case_id": "fam::a"}
    matrix = matrix_of(record("0.4.38", **failing), record("0.10.2", **failing))
    repros = {("jax0.10.2-flax0.12.8-py3.11", "fam::a"): Path("repro/b/fam__a.py"),
              ("jax0.4.38-flax0.12.8-py3.11", "fam::a"): Path("repro/a/fam__a.py")}
    found = render_html(matrix, repros)
    assert '<a href="repro/a/fam__a.py"' in found and "repro/b/fam__a.py" not in found


def test_timing_shades_by_share_of_the_slowest_of_the_row_and_leaves_gaps_and_untimed_rows_blank() -> None:
    from reports.views.html import _shades

    durations = np.array([
        [1.0, 0.5, np.nan, 0.25],  # 4 + 30 * share, rounded half to even as round() does
        [0.0, 0.0, np.nan, 0.0],  # the slowest is 0: nothing to compare
        [np.nan, np.nan, np.nan, np.nan],
        [0.2, 0.1, 0.05, 0.0],
    ])
    assert _shades(durations) == [
        ["shade-34", "shade-19", "", "shade-12"],
        ["", "", "", ""],
        ["", "", "", ""],
        ["shade-34", "shade-19", "shade-12", "shade-4"],
    ]


def test_a_flaky_cell_reads_flaky_with_its_own_mark_and_a_steady_one_works() -> None:
    matrix = matrix_of(record("0.4.38", status="failed", attempt=1, error_type="AssertionError"),
                       record("0.4.38", status="passed", attempt=2), record("0.10.2"))
    compat = " ".join(render_html(matrix).split())
    compat = compat[compat.index('id="T_compat"') : compat.index('id="causes"')]
    assert re.search(r'<div class="verdict v-flaky".*<a class="cell" href="#col-c1">.*↻ flaky</a> '
                     r'<span class="fails">attempts disagreed in 1 of 1', compat)
    assert re.search(r'<a class="cell" href="#col-c2">.*✓ works</a>', compat)


def test_the_cells_table_shows_the_stack_a_cell_recorded() -> None:
    files = factory.cell_files([record()]).assign(machine=[{"settings": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}}])
    cells = render_html(matrix_of(record(), files=files))
    cells = cells[cells.index('id="T_cells"') :]
    assert ">stack</th>" in cells and "XLA_PYTHON_CLIENT_PREALLOCATE=false" in cells


def test_a_cells_table_without_a_machine_file_has_no_stack_column() -> None:
    cells = render_html(matrix_of(record()))
    assert ">stack</th>" not in cells[cells.index('id="T_cells"') :]


def test_a_cell_that_lacks_an_api_shows_its_verdict_with_its_coverage_and_one_that_ran_all_without() -> None:
    absent = record(case_id="fam::b", status="not_applicable", reason="jax.sharding.use_mesh is absent")
    assert "(on 1 of 2 cases: 1 needs an API this cell lacks)" in render_html(matrix_of(record(), absent))
    assert "(on " not in render_html(matrix_of(record(), record(case_id="fam::b")))


def test_a_bug_new_in_a_pair_is_named_in_its_box_and_one_every_pair_of_a_row_has_once_for_the_row() -> None:
    page = render_html(factory.pairs_matrix(compile_s=0.3, execute_s=0.2, device_kind="cpu", backend="cpu"))
    compat = " ".join(page[page.index('id="compat"') : page.index('id="causes"')].split())
    link = '<a href="https://github.com/jax-ml/jax/issues/{0}">jax#{0}</a>'.format
    assert f"Every cell below has {link(1)}." in compat
    assert f'<th>0.12.12<span class="row-shared">every pair: {link(3)}</span></th>' in compat
    assert compat.count('<span class="new">new here:') == 2
    assert f'<span class="new">new here: {link(2)}</span>' in compat
    assert f'<span class="new">new here: {link(3)}</span>' in compat


def test_a_documented_change_new_in_a_pair_is_named_by_its_release_with_its_whole_text_on_hover() -> None:
    matrix = matrix_of(record("0.4.38", status="not_applicable"), record("0.10.2", status="failed"))
    matrix.results["documented"] = matrix.results["status"].eq("failed")
    matrix.results["change_name"] = "jax 0.9: make_mesh makes Explicit axes"
    page = " ".join(render_html(matrix).split())
    compat = page[page.index('id="compat"') : page.index('id="causes"')]
    assert ('new here: documented: <span class="change" title="jax 0.9: make_mesh makes Explicit axes">jax 0.9</span>'
            in compat)
    # The box stays short: the change's text is on hover and in the Changes section, not in the box.
    assert '<span class="new">new here: documented: jax 0.9: make_mesh' not in compat


def test_two_documented_changes_of_one_release_new_in_a_pair_name_it_once() -> None:
    matrix = matrix_of(record("0.4.38", status="not_applicable"), record("0.10.2", status="failed"),
                       record("0.10.2", case_id="fam::b", status="failed"))
    matrix.results["documented"] = matrix.results["status"].eq("failed")
    matrix.results["change_name"] = ["", "jax 0.9: make_mesh", "jax 0.9: gathers"]
    page = " ".join(render_html(matrix).split())
    compat = page[page.index('id="compat"') : page.index('id="causes"')]
    assert compat.count('<span class="change" title="') == 1
    assert ">jax 0.9</span></span>" in compat


def test_each_pair_is_judged_per_family_in_a_table_one_can_fold() -> None:
    matrix = matrix_of(record("0.4.38", case_id="gathers::a", family="gathers"),
                       factory.known_bug("0.4.38", "0.12.8", 1, family="gathers", compile_s=0.3, execute_s=0.2,
                                         device_kind="cpu", backend="cpu"),
                       record("0.4.38", case_id="merge::a", family="merge", status="failed", error_type="KeyError"))
    page = " ".join(render_html(matrix).split())
    families = page[page.index('<details class="families" open>') : page.index("</details>", page.index(
        '<details class="families"'))]
    assert '<th>gathers</th><th>merge</th>' in families
    assert ('<div class="verdict v-known-bugs" title="works except known bugs">\N{CHECK MARK}\N{LOW ASTERISK} 1 known '
            'upstream</div>') in families
    assert '<div class="verdict v-partial" title="partial">◐ 1 unexplained</div>' in families
