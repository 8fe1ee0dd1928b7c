"""harness/formats.py: one reader for every JSONL file, whatever characters a record holds."""

from __future__ import annotations

import json

import pytest

from harness import formats

# Characters str.splitlines() splits on but JSON leaves raw inside strings (ensure_ascii=False keeps them raw).
LINE_BREAKS_INSIDE_STRINGS = ["\u2028", "\u2029", "\x85", "\x0c", "\x1c"]


@pytest.mark.parametrize("char", LINE_BREAKS_INSIDE_STRINGS, ids=ascii)
def test_a_record_holding_a_unicode_line_break_is_one_record(char: str) -> None:
    text = formats.dump_jsonl_line({"error_message": f"before{char}after"}) + formats.dump_jsonl_line({"n": 2})
    assert [value for _, value in formats.parse_jsonl(text)] == [{"error_message": f"before{char}after"}, {"n": 2}]


def test_splitlines_would_have_cut_the_same_record() -> None:
    text = formats.dump_jsonl_line({"error_message": "a\u2028b"})
    assert len(text.splitlines()) == 2  # the bug the one reader exists for
    assert len(list(formats.jsonl_lines(text))) == 1


def test_blank_and_corrupt_lines_are_left_out_with_their_numbers_kept() -> None:
    text = '{"a": 1}\n\n{"torn": \n{"b": 2}\n'
    assert list(formats.parse_jsonl(text)) == [(1, {"a": 1}), (4, {"b": 2})]


def test_dumped_lines_round_trip_non_ascii_and_odd_values() -> None:
    line = formats.dump_jsonl_line({"text": "Ω", "path": object.__name__})
    assert line.endswith("\n") and "Ω" in line
    assert json.loads(line) == {"text": "Ω", "path": "object"}


def test_exit_codes_are_distinct_and_usage_is_sysexits() -> None:
    codes = [formats.SAFE_EXIT, formats.UNSAFE_EXIT, formats.INCONCLUSIVE_EXIT, formats.INTERNAL_ERROR_EXIT,
             formats.USAGE_EXIT]
    assert len(set(codes)) == len(codes)
    assert formats.USAGE_EXIT == 64
