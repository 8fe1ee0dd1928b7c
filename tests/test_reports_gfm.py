"""Tests for reports/views/gfm.py: a record's text stays inside one GFM table cell and reads back the same."""

from __future__ import annotations

import re

from reports.views.gfm import code, escape, table

HOSTILE = "<script>alert(1)</script> | pipe\nnew line `tick` ``two`` *star* _under_ [x](y) &amp; $x$ ~~s~~ \\"


def cells_of(row: str) -> list[str]:
    """Split a GFM table row the way GitHub does: on every pipe not escaped by a backslash."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def unescape(text: str) -> str:
    """What CommonMark shows for backslash-escaped plain text."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def test_plain_text_is_left_readable() -> None:
    assert escape("jax0.4.38-flax0.10.2-py3.12: ValueError (x)") == "jax0.4.38-flax0.10.2-py3.12: ValueError (x)"


def test_hostile_text_is_one_escaped_line_that_reads_back_the_same() -> None:
    escaped = escape(HOSTILE)
    assert "\n" not in escaped
    assert len(cells_of(f"| {escaped} |")) == 1
    assert re.search(r"(?<!\\)[<|`*_\[\]&$~]", escaped) is None
    assert unescape(escaped) == " ".join(HOSTILE.splitlines())


def test_code_span_of_plain_text_is_a_single_backtick_span() -> None:
    assert code("fam::test_a[x]") == "`fam::test_a[x]`"
    assert code("") == ""


def test_code_span_outlasts_the_backticks_and_pipes_inside_it() -> None:
    span = code("a ``b`` | c`")
    assert span == "``` a ``b`` \\| c` ```"
    assert len(cells_of(f"| {span} |")) == 1


def test_table_has_a_rule_row_with_alignments() -> None:
    assert table(["a", "b"], [["1", "2"]], ["l", "c"]).splitlines() == ["| a | b |", "|:--|:-:|", "| 1 | 2 |"]
