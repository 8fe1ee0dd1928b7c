from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cell import known
from harness.cellrecord import CellFiles, final_records
from harness.host import corpus
from harness.results import read_records

GOOD = """
[[breakage]]
case = "fam::test_x"
jax = ">=0.6,<0.7"
reason = "upstream bug"
link = "https://example.invalid/1"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / known.FILENAME
    path.write_text(text)
    return path


def test_entry_applies_only_inside_its_ranges(tmp_path: Path) -> None:
    [entry] = known.load(write(tmp_path, GOOD))
    assert entry.applies({"jax": "0.6.2"})
    assert not entry.applies({"jax": "0.7.0"})
    assert not entry.applies({"jax": None})
    assert "upstream bug [jax<0.7,>=0.6] https://example.invalid/1" == entry.describe()


def test_matching_by_case_and_parametrized_case(tmp_path: Path) -> None:
    entries = known.load(write(tmp_path, GOOD))
    assert known.matching(entries, "fam::test_x[a]", {"jax": "0.6.1"}) is entries[0]
    assert known.matching(entries, "fam::test_y", {"jax": "0.6.1"}) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD.replace('reason = "upstream bug"\n', ""), "'reason' is required"),
        (GOOD + 'colour = "red"\n', "unknown key 'colour'"),
        (GOOD.replace(">=0.6,<0.7", "0.6 or so"), "jax range '0.6 or so' is not valid"),
        ("[[breakage]\n", "malformed TOML"),
        (GOOD + "raises = 3\n", "raises 3 is not an exception class name or a list of them"),
        (GOOD + 'raises = ["ValueError", "not a name"]\n', "raises ['ValueError', 'not a name'] is not an exception"),
        (GOOD.replace("https://example.invalid/1", "see the chat"), "link 'see the chat' is not an http(s)://"),
        (GOOD.replace("https://example.invalid/1", "https://"), "link 'https://' is not an http(s)://"),
        (GOOD.replace("https://example.invalid/1", "l"), "link 'l' is not an http(s)://"),
    ],
)
def test_malformed_file_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(known.KnownBreakageError) as info:
        known.load(write(tmp_path, text))
    assert str(info.value).startswith(str(tmp_path / known.FILENAME))
    assert message in str(info.value)


def test_stale_pair(tmp_path: Path) -> None:
    entries = known.load(write(tmp_path, GOOD))
    assert known.stale(entries, {"fam::test_x[p]"}) == []
    assert known.stale(entries, {"fam::test_renamed"}) == entries


def test_shipped_known_breakages_name_real_cases_and_matrix_cells() -> None:
    from harness.host import matrix
    from harness.host.options import Options

    cells = matrix.load(Path(__file__).parent.parent / "matrix.toml")
    assert corpus.stale_known_breakages(cells, Options().cases) == []
    assert known.load(corpus.BUILTIN_CASES / known.FILENAME)


def test_known_breakage_becomes_strict_xfail_and_a_fix_becomes_xpassed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(toy="def test_broken():\n    assert False\n\ndef test_fixed():\n    assert True\n")
    path = pytester.path / known.FILENAME
    path.write_text(
        '[[breakage]]\ncase = "toy::test_broken"\nreason = "r"\nlink = "https://example.invalid/1"\n'
        '[[breakage]]\ncase = "toy::test_fixed"\nreason = "r"\nlink = "https://example.invalid/1"\n'
    )
    result = pytester.runpytest("toy.py", "--shardmatrix-known", str(path), "--shardmatrix-devices", "0",
                                "--shardmatrix-out", str(pytester.path / "out"), "-p", "no:cacheprovider")
    result.assert_outcomes(xfailed=1, failed=1)  # strict: an unexpected pass fails the run
    result.stdout.fnmatch_lines(["*XPASS(strict)*"])
    # The record of a known breakage that passes says it is stale (xpassed), not failed like a test's own strict xfail.
    records = final_records(read_records(CellFiles(pytester.path / "out", "adhoc", "local").results))
    assert (records["toy::test_broken"]["status"], records["toy::test_fixed"]["status"]) == ("xfailed", "xpassed")
    # The record says a declared breakage applied: only such an xfail is a known upstream bug (tests/test_plugin.py has
    # a test's own xfail mark, which says False).
    assert records["toy::test_broken"]["known_breakage"] is records["toy::test_fixed"]["known_breakage"] is True


class ShardingTypeError(ValueError):
    """Stands in for jax's, which subclasses ValueError too."""


@pytest.mark.parametrize("raises", ['"ShardingTypeError"', '"ValueError"', '["KeyError", "ValueError"]'])
def test_declared_exception_matches_any_name_in_the_raised_class_hierarchy(tmp_path: Path, raises: str) -> None:
    [entry] = known.load(write(tmp_path, GOOD + f"raises = {raises}\n"))
    assert entry.unexpected(ShardingTypeError("x")) is None


def test_another_exception_than_declared_is_named_with_what_was_expected(tmp_path: Path) -> None:
    [entry] = known.load(write(tmp_path, GOOD + 'raises = ["ShardingTypeError", "KeyError"]\n'))
    assert entry.unexpected(TypeError("bad\nmore")) == "expected ShardingTypeError or KeyError, got TypeError: bad"
    [undeclared] = known.load(write(tmp_path, GOOD))
    assert undeclared.unexpected(TypeError("bad")) is None


def test_a_record_s_message_tells_another_exception_than_declared_from_any_other_failure(tmp_path: Path) -> None:
    [entry] = known.load(write(tmp_path, GOOD + 'raises = "KeyError"\n'))
    assert known.is_unexpected(entry.unexpected(TypeError("bad")))
    assert not known.is_unexpected("expected the values to match") and not known.is_unexpected(None)


KNOWN_CASES = """
import sys, time
from harness.case import case

@case("fam")
def test_declared():
    raise UnicodeError("the known one")

@case("fam")
def test_other_exception():
    raise TypeError("something else")

@case("fam", timeout=0.5)
def test_hangs():
    time.sleep(5)

@case("fam")
def test_exits():
    sys.exit(3)
"""


def test_known_breakages_keep_their_exception_and_mask_nothing_else(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(toy=KNOWN_CASES)
    path = pytester.path / known.FILENAME
    path.write_text("".join(f'[[breakage]]\ncase = "toy::{name}"\nreason = "r"\nlink = "https://example.invalid/1"\n'
                            'raises = "ValueError"\n'
                            for name in ("test_declared", "test_other_exception", "test_hangs", "test_exits")))
    out = pytester.path / "out"
    pytester.runpytest("toy.py", "--shardmatrix-known", str(path), "--shardmatrix-devices", "0",
                       "--shardmatrix-out", str(out), "--shardmatrix-run", "r", "--shardmatrix-cell", "c",
                       "-p", "no:cacheprovider")
    records = {r["case_id"]: r for r in map(json.loads, (out / "results" / "r" / "c.jsonl").read_text().splitlines())}
    declared = records["toy::test_declared"]
    assert (declared["status"], declared["error_type"], declared["error_message"]) == (
        "xfailed", "UnicodeError", "the known one")
    other = records["toy::test_other_exception"]
    assert (other["status"], other["error_type"]) == ("failed", "TypeError")
    assert other["error_message"] == "expected ValueError, got TypeError: something else"
    assert records["toy::test_hangs"]["status"] == "timeout"
    assert (records["toy::test_exits"]["status"], records["toy::test_exits"]["reason"]) == (
        "crashed", "the case called sys.exit(3)")
