"""harness/formats.py: one reader for every JSONL file, whatever characters a record holds."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

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


def test_a_done_marker_round_trips_with_its_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "c.done.json"
    formats.write_done(path, cell_id="c", finished="2026-11-24T00:00:00+00:00", returncode=1, fingerprint="k",
                       reused_from=None, seconds=1.5)
    assert formats.read_done(path) == {"schema_version": formats.DONE_SCHEMA_VERSION, "cell_id": "c",
                                       "finished": "2026-11-24T00:00:00+00:00", "returncode": 1, "fingerprint": "k",
                                       "reused_from": None, "seconds": 1.5}
    assert formats.read_done(tmp_path / "absent.done.json") is None


@pytest.mark.parametrize(("text", "why"), [("{torn", "not valid JSON"), ("[1]", "a JSON list, not an object"),
                                           ('{"schema_version": 9}', "done marker schema 9, this reader knows 1")])
def test_a_done_marker_that_is_not_one_is_refused_naming_it(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "c.done.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(formats.FormatError, match=why) as refused:
        formats.read_done(path)
    assert refused.value.path == path and str(refused.value).startswith(str(path))


def test_a_marker_without_a_schema_version_reads_as_version_1(tmp_path: Path) -> None:
    path = tmp_path / "c.done.json"
    path.write_text('{"returncode": 0}', encoding="utf-8")
    assert formats.read_done(path) == {"returncode": 0}


def test_frontier_json_is_written_and_read_by_one_module(tmp_path: Path) -> None:
    path = tmp_path / formats.FRONTIER_FILENAME
    path.write_text(json.dumps(formats.frontier_document(["0.4.38"], [])), encoding="utf-8")
    assert formats.read_frontier(path) == {"schema_version": 2, "jax": ["0.4.38"], "releases": []}
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(formats.FrontierFileError, match="frontier schema None, this reader knows 2"):
        formats.read_frontier(path)


def test_a_command_ends_on_a_shardmatrix_error_with_one_line_and_64(capsys: pytest.CaptureFixture[str]) -> None:
    @formats.command
    def main(argv: Sequence[str] | None = None) -> int:
        """A command."""
        raise formats.ShardmatrixError("--cases nope: no such folder")

    assert main([]) == formats.USAGE_EXIT
    assert capsys.readouterr().err == "shardmatrix: --cases nope: no such folder\n"
    assert main.__doc__ == "A command."


def test_a_usage_parser_exits_64_on_an_unknown_option(capsys: pytest.CaptureFixture[str]) -> None:
    parser = formats.UsageParser(prog="tool")
    with pytest.raises(SystemExit) as exited:
        parser.parse_args(["--nope"])
    assert exited.value.code == 64 and capsys.readouterr().err.endswith("tool: error: unrecognized arguments: --nope\n")


def test_a_command_that_breaks_exits_3_never_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    @formats.command
    def main(argv: Sequence[str] | None = None) -> int:
        """A command with a bug."""
        raise KeyError("oops")

    assert main([]) == formats.INTERNAL_ERROR_EXIT
    err = capsys.readouterr().err
    assert "Traceback" in err and err.endswith("shardmatrix: internal error (KeyError): please report it\n")
