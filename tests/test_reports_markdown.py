"""Tests for reports/views/markdown.py: matrix.md content, and that hostile text cannot break its tables."""

from __future__ import annotations

import re
from functools import partial

import record_factory as factory
from record_factory import matrix_of
from test_reports_gfm import HOSTILE, cells_of, unescape

from reports.views.gfm import escape
from reports.views.markdown import render_markdown
from reports.views.present import VERDICTS

RUN = "20261121T084500Z-ab12"
#: This file's records: the factory's, with what its tests read set.
record = partial(factory.record, device_kind="cpu")


def table_rows(markdown: str) -> list[list[str]]:
    return [cells_of(line) for line in markdown.splitlines() if line.startswith("|")]


def outside_code(text: str) -> str:
    """`text` with its code spans removed: inside one, `<script>` is literal text already."""
    return re.sub(r"(?<![`\\])(`+)(?!`).*?(?<!`)\1(?!`)", "", text)


# --- the document ---------------------------------------------------------------------------------------------


def test_document_has_title_run_legend_and_a_heading_per_family() -> None:
    text = render_markdown(matrix_of(record(case_id="x::a", family="x"), record(case_id="y::b", family="y")))
    assert text.startswith("# shardmatrix compatibility matrix\n")
    assert f"Run `{RUN}` · 1 cell, 2 cases" in text
    assert "## Legend" in text and "| ✅ | passed |" in text
    assert "### x\n" in text and "### y\n" in text
    assert "None: every case passed" in text


def test_columns_are_in_version_order_not_string_order() -> None:
    text = render_markdown(matrix_of(record("0.10.2"), record("0.4.38")))
    header = next(line for line in text.splitlines() if line.startswith("| key<br>"))
    assert cells_of(header)[1:] == ['<a id="col-c1"></a>**c1**<br>0.4.38<br>0.12.8<br>3.11',
                                    '<a id="col-c2"></a>**c2**<br>0.10.2<br>0.12.8<br>3.11']


def test_problem_rows_hold_the_hostile_message_in_one_cell() -> None:
    text = render_markdown(
        matrix_of(record(case_id="fam::a", status="failed", error_type="ValueError", error_message=HOSTILE),
                  record(case_id="fam::b"))
    )
    found = text[text.index("## Causes") :]
    header, _, row = table_rows(found)[:3]
    assert len(row) == len(header) == 7
    assert row[2] == "❌ failed"
    assert unescape(row[1]) == "ValueError: <script>alert(1)</script> | pipe"
    assert "<script>" not in text


def test_every_table_row_keeps_its_column_count_with_hostile_text_everywhere() -> None:
    text = render_markdown(
        matrix_of(
            record(case_id=f"fam::{HOSTILE}", status="failed", error_message=HOSTILE, reason=HOSTILE),
            record(case_id="fam::b", warnings=[HOSTILE]),
            record(case_id="fam::c", status=HOSTILE),
        )
    )
    blocks = [block for block in text.split("\n\n") if block.startswith("|")]
    assert len(blocks) == 6  # compatibility, causes, legend, fam, warnings, cells
    for block in blocks:
        widths = {len(row) for row in table_rows(block)}
        assert len(widths) == 1, block
    assert "<script>" not in outside_code(text)


def test_warned_passes_get_their_own_mark_and_section() -> None:
    text = render_markdown(matrix_of(record(warnings=["DeprecationWarning: jax.experimental.shard_map"])))
    assert "| `test_a` | ⚠️ |" in text
    assert "## Warnings" in text and "| DeprecationWarning: jax.experimental.shard\\_map | 1 | c1 |" in text


def test_clean_passes_have_no_warnings_section() -> None:
    text = render_markdown(matrix_of(record()))
    assert "| `test_a` | ✅ |" in text
    assert "## Warnings" not in text


def test_unknown_status_gets_the_neutral_mark_and_a_legend_row() -> None:
    text = render_markdown(matrix_of(record(status="quarantined")))
    assert "| `test_a` | ❓ |" in text
    assert "| ❓ | quarantined | a status this report does not know |" in text


# --- flaky results and interrupted cells ----------------------------------------------------------------------


def test_flaky_result_gets_a_superscript_mark_a_legend_row_and_a_problem_row() -> None:
    text = render_markdown(matrix_of(record(status="failed", attempt=1), record(status="passed", attempt=2)))
    assert "| `test_a` | ✅<sup>🔁</sup> |" in text
    assert "| ✅<sup>🔁</sup> | flaky | the attempts disagreed" in text
    assert "✅ 1 passed · 🔁 1 flaky" in text
    found = text[text.index("## Causes") :]
    assert table_rows(found)[2][1:3] == ["flaky: failed → passed", "✅ passed"]


def test_retry_that_failed_alike_gets_no_flaky_mark() -> None:
    text = render_markdown(matrix_of(record(status="failed", attempt=1), record(status="failed", attempt=2)))
    assert "| `test_a` | ❌ |" in text
    # The compatibility legend names the flaky token with the same mark; no result or count carries it.
    before_legend = text.split("## Legend")[0]
    assert "<sup>🔁</sup>" not in before_legend and "🔁 1 flaky" not in text and "flaky:" not in text


def test_interrupted_cell_is_marked_in_its_header_cells_row_and_a_warning() -> None:
    cell = "jax0.10.2-flax0.12.8-py3.11"
    text = render_markdown(matrix_of(record("0.4.38"), record(), interrupted=(cell,)))
    header = next(line for line in text.splitlines() if line.startswith("| key<br>"))
    assert [c.split("<br>")[0].split("</a>")[-1] for c in cells_of(header)[1:]] == ["**c1**", "**c2** ⏸️"]
    assert f"> - **c2** `{cell}`: resume with `nox -s matrix -- --resume {RUN}`" in text
    cells = text[text.index("## Cells") :]
    assert [row[2] for row in table_rows(cells)[2:]] == ["yes", "⏸️ **no, interrupted**"]


def test_new_verdicts_read_as_words_with_their_detail_and_the_legend_gives_each_token() -> None:
    matrix = matrix_of(record("0.4.38", status="not_applicable"), record("0.10.2", status="failed"))
    matrix.results["documented"] = matrix.results["status"].eq("failed")
    matrix.results["change_name"] = "jax 0.9: make_mesh"
    text = render_markdown(matrix)
    compat = text[text.index("## Compatibility") : text.index("## Causes")]
    assert table_rows(compat)[2][1:] == ["[c1 ❔ no evidence](#col-c1) (on 0 of 1 cases: 1 needs an API this cell "
                                         "lacks)",
                                         "[c2 ☑️ works for current code](#col-c2) 1 documented · 0 known upstream · 0 "
                                         "unexplained<br>new here: documented: jax 0.9: make\\_mesh"]
    assert "- ☑️ **works for current code** (`works_for_current_code`): only documented changes fail" in compat
    assert compat.count("\n- ") == len(VERDICTS)  # one legend line per token


def test_finished_cells_get_no_interrupted_marks() -> None:
    text = render_markdown(matrix_of(record("0.4.38"), record()))
    header = next(line for line in text.splitlines() if line.startswith("| key<br>"))
    assert "⏸️" not in header and "did not finish" not in text and "--resume" not in text


def test_compatibility_table_and_causes_come_first_with_links_to_columns_and_causes() -> None:
    text = render_markdown(matrix_of(record("0.4.38"), record("0.10.2", status="failed", error_type="ValueError"),
                                     record("0.10.2", case_id="fam::b", status="xfailed", reason="known")))
    assert text.index("## Compatibility") < text.index("## Causes") < text.index("## Legend")
    compat = text[text.index("## Compatibility") : text.index("## Causes")]
    header, _, row = table_rows(compat)[:3]
    assert header == ["flax \\ jax", "0.4.38", "0.10.2"]
    assert row == ["**0.12.8**", "[c1 ✅ works](#col-c1)",
                   "[c2 🔶 partial](#col-c2) 0 documented · 1 known upstream · 1 unexplained ([#1](#cause-1))<br>new "
                   "here: known upstream bug known"]
    assert '<a id="col-c2"></a>**c2**' in text
    found = text[text.index("## Causes") : text.index("## Legend")]
    assert found.startswith("## Causes (2)")
    rows = table_rows(found)
    assert rows[2][:3] == ['<a id="cause-1"></a>#1', "ValueError", "❌ failed"]
    assert rows[3][1:3] == ["1 known upstream breakage (xfailed as declared), listed below", "🐛 xfailed"]
    assert "- **#1** (1): c2: `fam::test_a`" in found
    assert ('- <a id="cause-2"></a>**#2** known in jax 0.10.2 \N{MULTIPLICATION SIGN} flax 0.12.8 (1): c2: `fam::b`'
            in found)


def test_a_cell_short_of_devices_shows_its_verdict_with_its_coverage() -> None:
    short = record(case_id="fam::b", status="not_applicable", reason="needs 8 devices, cell has 1", devices_needed=8)
    text = render_markdown(matrix_of(record(device_count=1), {**short, "device_count": 1}))
    compat = text[text.index("## Compatibility") : text.index("## Legend")]
    assert table_rows(compat)[2][1] == "[c1 ✅ works](#col-c1) (on 1 of 2 cases: 1 needs 8 devices)"


def test_a_cell_absent_an_api_writes_works_with_its_coverage_and_one_that_ran_everything_as_before() -> None:
    absent = record(case_id="fam::b", status="not_applicable", reason="jax.sharding.use_mesh is absent")
    text = render_markdown(matrix_of(record(), absent))
    compat = text[text.index("## Compatibility") : text.index("## Legend")]
    assert table_rows(compat)[2][1] == "[c1 ✅ works](#col-c1) (on 1 of 2 cases: 1 needs an API this cell lacks)"
    text = render_markdown(matrix_of(record(), record(case_id="fam::b")))
    compat = text[text.index("## Compatibility") : text.index("## Legend")]
    assert table_rows(compat)[2][1] == "[c1 ✅ works](#col-c1)"


def test_the_cells_table_shows_the_stack_a_cell_recorded() -> None:
    files = factory.cell_files([record()]).assign(
        machine=[{"settings": {"JAX_DEFAULT_MATMUL_PRECISION": "highest"}, "nvidia_smi": None}])
    cells = render_markdown(matrix_of(record(), files=files))
    cells = cells[cells.index("## Cells") :]
    header, _, row = table_rows(cells)[:3]
    assert row[header.index("stack")] == escape("JAX_DEFAULT_MATMUL_PRECISION=highest")


def test_a_cells_table_without_a_machine_file_has_no_stack_column() -> None:
    cells = render_markdown(matrix_of(record()))
    assert "stack" not in table_rows(cells[cells.index("## Cells") :])[0]


def test_a_bug_new_in_a_pair_is_named_in_its_box_and_one_every_pair_of_a_row_has_once_for_the_row() -> None:
    text = render_markdown(factory.pairs_matrix(device_kind="cpu"))
    compat = text[text.index("## Compatibility") : text.index("## Causes")]
    link = "[jax#{0}](https://github.com/jax-ml/jax/issues/{0})".format
    assert f"Every cell below has known upstream bug {link(1)}." in compat
    header, _, newest, older = table_rows(compat)[:4]
    assert header == ["flax \\ jax", "0.4.38", "0.10.2"]
    assert newest[0] == f"**0.12.12**<br>every pair: known upstream bug {link(3)}"
    assert newest[1].endswith(f"<br>new here: known upstream bug {link(3)}") and "new here" not in newest[2]
    assert older[0] == "**0.12.8**" and "new here" not in older[1]
    assert older[2].endswith(f"<br>new here: known upstream bug {link(2)}")
    assert "works except known bugs" in newest[2] and "0 documented · 3 known upstream · 0 unexplained" in newest[2]


def test_each_pair_is_judged_per_family_a_known_bug_in_one_family_an_unexplained_failure_in_another() -> None:
    matrix = matrix_of(record("0.4.38", case_id="gathers::a", family="gathers"),
                       factory.known_bug("0.4.38", "0.12.8", 1, family="gathers", device_kind="cpu"),
                       record("0.4.38", case_id="merge::a", family="merge", status="failed", error_type="KeyError"))
    text = render_markdown(matrix)
    families = text[text.index("### Per family") : text.index("## Causes")]
    assert table_rows(families)[0] == ["pair", "`gathers`", "`merge`"]
    (row,) = table_rows(families)[2:]
    assert row[-2:] == ["🐞 1 known upstream", "🔶 1 unexplained"]
    assert "### Per family" not in render_markdown(matrix_of(record("0.4.38", case_id="merge::a", family="merge")))
