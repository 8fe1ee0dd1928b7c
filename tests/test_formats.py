"""harness/formats.py: one reader for every JSONL file, whatever characters a record holds."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness import cellrecord, formats, results

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


# --- the freeze's source lines: written by the harness (envbuild.provenance), read by reports/ through formats ---

def sourced_cell(where: str = "file:///src/flax", label: str = "tree.5a0b5832") -> Any:
    """A cell whose flax came from `where`, as harness.host builds it (its Origin)."""
    from harness.host.matrix import Cell, Origin
    origin = Origin(package="flax", version="0.12.6", label=label, where=where,
                    requirement="flax @ file:///built/flax-0.12.6-py3-none-any.whl")
    return Cell(id=f"jax0.9.2-flax{origin.tag}-py3.11", jax="0.9.2", jaxlib="0.9.2", flax="0.12.6", python="3.11",
                sources=(origin,))


@pytest.mark.parametrize(("where", "label"), [("file:///src/flax", "tree.5a0b5832"),
                                              ("file:///tmp/w/flax-0.12.6-py3-none-any.whl", "wheel.0badc0de"),
                                              ("git+https://github.com/google/flax@main", "git.1a2b3c4d")])
def test_the_harness_freeze_names_a_source_that_formats_reads_back(tmp_path: Path, where: str, label: str) -> None:
    from harness.host import envbuild
    results_file = tmp_path / "cell.jsonl"
    freeze = cellrecord.CellFiles.of(results_file).freeze
    freeze.write_text(envbuild.provenance(sourced_cell(where, label)) + "flax==0.12.6\n")
    assert results.read_sources(results_file) == {"flax": formats.Source("flax", "0.12.6", where, label)}
    assert results.read_sources(results_file)["flax"].tag == f"0.12.6+{label}"


def test_a_freeze_of_releases_names_no_source(tmp_path: Path) -> None:
    results_file = tmp_path / "cell.jsonl"
    assert results.read_sources(results_file) == {}  # no freeze at all (an old run)
    # A project line is no source; a `# ... from ... (...)` text after the comments is not read.
    cellrecord.CellFiles.of(results_file).freeze.write_text("# project tiny @ /p (tree.0123456789ab)\nflax==0.12.6\n"
                                                 "# flax 0.1 from file:///x (tree.1)\n")
    assert results.read_sources(results_file) == {}


def test_a_source_shows_a_file_url_as_its_path_and_a_vcs_url_as_given() -> None:
    assert formats.Source("flax", "0.12.6", "file:///src/my%20flax", "tree.1").shown == "/src/my flax"
    assert formats.Source("flax", "0.12.6", "git+https://h/f@main", "git.1").shown == "git+https://h/f@main"


def test_a_command_ends_on_an_os_error_with_one_line_naming_the_path(capsys: pytest.CaptureFixture[str]) -> None:
    @formats.command
    def main(argv: Sequence[str] | None = None) -> int:
        """A command reading a folder named like a file."""
        raise IsADirectoryError(21, "Is a directory", "out/results/r/X.jsonl")

    assert main([]) == formats.USAGE_EXIT
    assert capsys.readouterr().err == "shardmatrix: out/results/r/X.jsonl: Is a directory\n"


def test_a_command_ends_on_any_other_exception_as_a_bug_of_ours(capsys: pytest.CaptureFixture[str]) -> None:
    @formats.command
    def main(argv: Sequence[str] | None = None) -> int:
        """A command with a bug."""
        raise KeyError("jax")

    assert main([]) == formats.INTERNAL_ERROR_EXIT
    assert "Traceback" in capsys.readouterr().err


# --- JSON and TOML documents: parsed once, refused in one line by the caller's own error ------------------------

class Refused(formats.ShardmatrixError):
    """The error a caller of the readers raises (the readers build it from their one line)."""


@pytest.mark.parametrize(("text", "expected", "value"), [('{"a": 1}', dict, {"a": 1}), ("[1, 2]", list, [1, 2])])
def test_a_json_document_of_the_expected_kind_is_parsed(text: str, expected: type, value: object) -> None:
    assert formats.parse_json(text, expected, Refused) == value


@pytest.mark.parametrize(("text", "expected", "why"), [
    ('{"a": ', dict, r"^not valid JSON \(Expecting value, line 1\)$"),
    ("[1]", dict, r"^a JSON list, not an object$"),
    ('{"a": 1}', list, r"^a JSON dict, not a list$"),
])
def test_a_json_document_that_is_not_one_is_refused_by_the_callers_error(text: str, expected: type, why: str) -> None:
    with pytest.raises(Refused, match=why):
        formats.parse_json(text, expected, Refused)


def test_a_toml_file_is_read_into_its_tables(tmp_path: Path) -> None:
    (tmp_path / "list.toml").write_text('schema_version = 1\n[[project]]\nname = "a"\n')
    assert formats.read_toml(tmp_path / "list.toml", Refused) == {"schema_version": 1, "project": [{"name": "a"}]}


@pytest.mark.parametrize(("content", "why"), [
    (None, r"list\.toml: cannot read \("),
    (b"\xff = 1\n", r"list\.toml: not UTF-8 text \(byte 0\)$"),
    (b"[[project]\n", r"list\.toml: malformed TOML \("),
])
def test_a_toml_file_that_cannot_be_used_is_refused_naming_it(tmp_path: Path, content: bytes | None, why: str) -> None:
    if content is not None:
        (tmp_path / "list.toml").write_bytes(content)
    with pytest.raises(Refused, match=why):
        formats.read_toml(tmp_path / "list.toml", Refused)
