"""harness/census.py: the census file's reader, the `cites=` reader, and the one verdict on whether they agree."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from harness.census import (
    CELLS,
    CENSUS_VERSION,
    READ,
    CensusError,
    Report,
    census_path,
    cited,
    corpus_citations,
    is_deprecation,
    pins,
    problems,
    read_census,
    read_search,
)

CASES = Path(__file__).resolve().parents[1] / "cases"

ENTRY = """
[[report]]
id = "google/flax#5112"
link = "https://github.com/google/flax/issues/5112"
family = "nnx_sharded_merge"
date = "2025-11-24"
appeared = "flax==0.12.0"
fixed = "live"
summary = "optimizer state ignores the stacked axis"
"""


def _report(report_id: str = "google/flax#5112", uncited: str = "") -> Report:
    return Report(report_id, "https://github.com/google/flax/issues/5112", "fam", "2025-11-24", "x", "live", "s",
                  uncited)


SEARCH = """
[search]
date = "2026-11-27"
since = "2024-06-01"
until = "2026-11-27"
tools = "the issues corpus"
queries = ["nnx.scan sharding metadata"]
repositories = ["google/flax"]
"""


def test_a_census_reads_into_reports_by_id(tmp_path: Path) -> None:
    path = tmp_path / "census.toml"
    path.write_text(f"schema_version = {CENSUS_VERSION}\n{SEARCH}{ENTRY}checked = \"cells\"\n")
    assert read_census(path)["google/flax#5112"].fixed == "live"
    assert read_census(path)["google/flax#5112"].checked == CELLS


def test_a_fix_commit_is_a_report_named_by_its_commit(tmp_path: Path) -> None:
    path = tmp_path / "census.toml"
    path.write_text("schema_version = 1\n" + ENTRY.replace("google/flax#5112", "google/flax@1234abcd", 1).replace(
        "https://github.com/google/flax/issues/5112", "https://github.com/google/flax/commit/1234abcd99"))
    assert read_census(path)["google/flax@1234abcd"].link.endswith("/commit/1234abcd99")


def test_one_fix_commit_named_by_two_prefixes_of_its_hash_is_one_report_given_twice(tmp_path: Path) -> None:
    def commit(prefix: str) -> str:
        return ENTRY.replace("google/flax#5112", f"google/flax@{prefix}", 1).replace(
            "https://github.com/google/flax/issues/5112", "https://github.com/google/flax/commit/1234abcd99")

    path = tmp_path / "census.toml"
    path.write_text("schema_version = 1\n" + commit("1234abcd") + commit("1234abcd9"))
    with pytest.raises(CensusError, match=r"google/flax@1234abcd9 is given twice \(as google/flax@1234abcd\)"):
        read_census(path)


def test_a_schema_1_census_reads_as_only_read_and_records_no_search(tmp_path: Path) -> None:
    path = tmp_path / "census.toml"
    path.write_text(f"schema_version = 1\n{ENTRY}")
    assert read_census(path)["google/flax#5112"].checked == READ and read_search(path) is None


def test_the_search_is_read_so_it_can_be_repeated(tmp_path: Path) -> None:
    path = tmp_path / "census.toml"
    path.write_text(f"schema_version = 2\n{SEARCH}")
    search = read_search(path)
    assert search is not None and search.queries == ("nnx.scan sharding metadata",) and search.since == "2024-06-01"


@pytest.mark.parametrize(("text", "fault"), [
    (SEARCH.replace('since = "2024-06-01"\n', ""), r"\[search\]: needs since"),
    (SEARCH.replace("2024-06-01", "mid-2024"), "since 'mid-2024' is not a YYYY-MM-DD day"),
    (SEARCH.replace("2024-06-01", "2024-13-45"), "since '2024-13-45' is not a YYYY-MM-DD day"),
    (SEARCH.replace('since = "2024-06-01"', 'since = "2031-01-01"'), "since 2031-01-01 is after until"),
    (SEARCH.replace('["google/flax"]', '["flax"]'), "'flax': not owner/repo"),
    (SEARCH.replace('["nnx.scan sharding metadata"]', "[]"), "queries must be a non-empty list"),
    (SEARCH + 'seen = "x"\n', r"unknown key\(s\) seen"),
])
def test_a_search_record_that_does_not_hold_together_is_refused_in_one_line(tmp_path: Path, text: str,
                                                                           fault: str) -> None:
    path = tmp_path / "census.toml"
    path.write_text(f"schema_version = 2\n{text}")
    with pytest.raises(CensusError, match=fault):
        read_search(path)


def test_the_shipped_census_records_its_search_and_how_each_report_was_checked() -> None:
    search = read_search(census_path(CASES))
    assert search is not None and len(search.repositories) >= 10
    assert {report.checked for report in read_census(census_path(CASES)).values()} <= {CELLS, READ}


@pytest.mark.parametrize(("text", "fault"), [
    ("schema_version = 99\n" + ENTRY, "schema_version 99"),
    ("schema_version = 1\n" + ENTRY + ENTRY, "given twice"),
    ("schema_version = 1\n" + ENTRY.replace("google/flax#5112", "flax 5112", 1), "not owner/repo#N"),
    ("schema_version = 1\n" + ENTRY.replace("issues/5112", "issues/5113"), "is not that issue"),
    ("schema_version = 1\n" + ENTRY.replace("google/flax#5112", "google/flax@12ab", 1), "not owner/repo#N or"),
    ("schema_version = 1\n" + ENTRY.replace("google/flax#5112", "google/flax@1234abcd", 1), "is not that issue"),
    ("schema_version = 1\n" + ENTRY.replace("2025-11-24", "Nov 2025"), "not a YYYY-MM-DD day"),
    ("schema_version = 1\n" + ENTRY.replace('"optimizer state ignores the stacked axis"', '"a\\n## b"'),
     "summary spans lines"),
    ("schema_version = 1\n" + ENTRY.replace("2025-11-24", "2031-02-30"), "'2031-02-30' is not a YYYY-MM-DD day"),
    ("schema_version = 1\n" + ENTRY.replace('fixed = "live"', 'fixed = "flax==0.11.0"'),
     r"fixed 'flax==0.11.0' is not after appeared 'flax==0.12.0' \(flax 0.11.0 <= 0.12.0\)"),
    ("schema_version = 1\n" + ENTRY.replace('fixed = "live"', 'fixed = "flax==0.12.0.dev20251101"'),
     r"\(flax 0.12.0.dev20251101 <= 0.12.0\)"),
    ("schema_version = 1\n" + ENTRY + ENTRY.replace("google/flax#5112", "Google/Flax#5112", 1).replace(
        "google/flax/issues", "Google/Flax/issues"), r"Google/Flax#5112 is given twice \(as google/flax#5112\)"),
    ("schema_version = 1\n" + ENTRY.replace('fixed = "live"\n', ""), "needs fixed"),
    ("schema_version = 1\n" + ENTRY + 'seen = "x"\n', r"unknown field\(s\) seen"),
    ("schema_version = 1\n" + ENTRY + 'cpu = "no"\n', "cpu must be true or false"),
    ("schema_version = 1\n" + ENTRY + "cpu = false\n", "cpu = false needs `uncited`"),
    ("schema_version = 2\n" + ENTRY, "needs checked"),
    ("schema_version = 2\n" + ENTRY + 'checked = "maybe"\n', "checked 'maybe' is not cells or read"),
    ("schema_version = true\n" + ENTRY, "schema_version True is not one"),
    ("schema_version = 2\nreport = 3\n", r"report is int, not an array of tables \(\[\[report\]\]\)$"),
])
def test_a_census_that_does_not_hold_together_is_refused_in_one_line(tmp_path: Path, text: str, fault: str) -> None:
    path = tmp_path / "census.toml"
    path.write_text(text)
    with pytest.raises(CensusError, match=fault):
        read_census(path)


def test_a_census_field_s_pins_are_read_once_with_their_development_releases_kept() -> None:
    both = [("flax", Version("0.12.1")), ("jax", Version("0.8.2"))]
    assert pins("flax==0.12.1 with jax==0.8.2 (jaxlib==0.8.2)") == both
    assert pins("jax==0.6.1.dev20250505") == [("jax", Version("0.6.1.dev20250505"))]
    assert pins("jax==0.9.0.") == [("jax", Version("0.9.0"))] and pins("jax==0.x, unrecorded, live") == []


def test_a_report_whose_summary_names_a_deprecation_is_one_and_any_other_is_of_a_breakage() -> None:
    assert is_deprecation(Report("a/b#1", "https://x", "fam", "2025-01-01", "x", "live", "jax 0.8.0 Deprecated it"))
    assert not is_deprecation(Report("a/b#1", "https://x", "fam", "2025-01-01", "x", "live", "grad raises TypeError"))


def test_a_report_filed_on_a_development_release_and_fixed_in_that_release_is_in_order(tmp_path: Path) -> None:
    path = tmp_path / "census.toml"
    path.write_text("schema_version = 1\n" + ENTRY.replace("flax==0.12.0", "flax==0.12.1.dev20251101").replace(
        'fixed = "live"', 'fixed = "flax==0.12.1"'))
    assert read_census(path)["google/flax#5112"].fixed == "flax==0.12.1"


def test_a_census_that_is_not_text_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "census.toml"
    path.write_bytes(b"\xff\xfeschema_version = 2\n")
    with pytest.raises(CensusError, match=r"census\.toml: not UTF-8 text \(byte 0\)"):
        read_census(path)


def test_a_census_that_is_not_toml_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "census.toml"
    path.write_text("[[report]\n", encoding="utf-8")
    with pytest.raises(CensusError, match=r"census\.toml: malformed TOML \("):
        read_census(path)


def test_a_case_module_that_does_not_parse_is_named_instead_of_its_citations(tmp_path: Path) -> None:
    path = tmp_path / "fam.py"
    path.write_text("@case('fam', cites=('google/flax#5112',))\ndef test_x(:\n    pass\n")
    with pytest.raises(CensusError, match=r"fam\.py: cannot be read as Python \(invalid syntax"):
        cited(path)


def test_citations_are_read_from_source_literals(tmp_path: Path) -> None:
    path = tmp_path / "fam.py"
    path.write_text("@case('fam', cites=('google/flax#5112', 'jax-ml/jax#1'))\ndef test_x():\n    pass\n\n"
                    "@case('fam')\ndef test_y():\n    pass\n")
    assert cited(path) == {"test_x": ("google/flax#5112", "jax-ml/jax#1")}


@pytest.mark.parametrize(("argument", "fault"), [("CITES", "string literals"), ("('flax 5112',)", "owner/repo#N"),
                                                 ("()", "string literals"),
                                                 # `$` matches before a last line break: the id would carry it.
                                                 ("('google/flax#5112\\n',)", "not owner/repo#N")])
def test_a_citation_the_host_cannot_read_is_named(tmp_path: Path, argument: str, fault: str) -> None:
    path = tmp_path / "fam.py"
    path.write_text(f"@case('fam', cites={argument})\ndef test_x():\n    pass\n")
    with pytest.raises(CensusError, match=f"fam.py::test_x: .*{fault}"):
        cited(path)


def test_a_cited_report_with_no_reason_left_agrees() -> None:
    assert problems({"google/flax#5112": _report()}, {"m::test_x": ("google/flax#5112",)}) == []


def test_a_citation_missing_from_the_census_is_named() -> None:
    assert problems({}, {"m::test_x": ("google/flax#5112",)}) == [
        "m::test_x cites google/flax#5112, which the census does not list"]


def test_an_uncited_report_without_a_reason_is_named_and_one_with_a_reason_is_not() -> None:
    assert problems({"google/flax#5112": _report()}, {}) == [
        "google/flax#5112: no case cites it and the census gives no `uncited` reason"]
    assert problems({"google/flax#5112": _report(uncited="needs a TPU")}, {}) == []


def test_a_cited_report_that_still_gives_a_reason_is_named() -> None:
    found = problems({"google/flax#5112": _report(uncited="needs a TPU")}, {"m::test_x": ("google/flax#5112",)})
    assert found and "drop `uncited`" in found[0]


def test_the_shipped_census_and_the_corpus_agree() -> None:
    census = read_census(census_path(CASES))
    assert problems(census, corpus_citations(CASES)) == []
    assert len(census) >= 45


def test_a_pin_that_is_no_known_release_is_named_and_a_development_pin_by_the_release_it_leads_to() -> None:
    releases = {"jax": [Version("0.6.1"), Version("0.8.2")], "flax": [Version("0.12.0")]}
    fine = Report("a/b#1", "https://x", "fam", "2025-01-01", "jax==0.6.1.dev20250505", "jax==0.8.2", "s", "why")
    assert problems({"a/b#1": fine}, {}, releases) == []
    off = Report("a/b#1", "https://x", "fam", "2025-01-01", "flax==0.12.0", "jax==0.8.15", "s", "why")
    assert problems({"a/b#1": off}, {}, releases) == [
        "a/b#1: fixed jax==0.8.15 is not a jax release (of 2 known, 0.6.1 to 0.8.2)"]
    assert problems({"a/b#1": off}, {}) == []  # with no releases known, pins are not judged


def test_a_report_may_name_the_report_its_failure_sits_behind_and_only_another_s_id(tmp_path: Path) -> None:
    path = tmp_path / "census.toml"
    path.write_text(f"schema_version = 3\n{SEARCH}{ENTRY}checked = \"cells\"\nbehind = \"google/flax@437bb82b39\"\n")
    assert read_census(path)["google/flax#5112"].behind == "google/flax@437bb82b39"
    path.write_text(f"schema_version = 3\n{SEARCH}{ENTRY}checked = \"cells\"\nbehind = \"Google/Flax#5112\"\n")
    with pytest.raises(CensusError, match=r"behind 'Google/Flax#5112' is not another report's id"):
        read_census(path)
    path.write_text(f"schema_version = 2\n{SEARCH}{ENTRY}checked = \"cells\"\n")
    assert read_census(path)["google/flax#5112"].behind == ""  # a schema 2 census names none


def test_a_report_behind_one_the_census_lacks_is_named() -> None:
    behind = Report("a/b#1", "https://x", "fam", "2025-01-01", "x", "live", "s", "why", behind="a/b#9")
    assert problems({"a/b#1": behind}, {}) == ["a/b#1: behind a/b#9, which the census does not list"]
    other = Report("a/b#9", "https://x", "fam", "2025-01-01", "x", "live", "s", "why")
    assert problems({"a/b#1": behind, "a/b#9": other}, {}) == []


@pytest.mark.parametrize(("version", "field"), [(1, 'checked = "cells"'), (2, 'behind = "google/flax#1"'),
                                                 (1, 'behind = "google/flax#1"')])
def test_a_field_of_a_newer_schema_in_a_census_that_says_an_older_one_is_refused(tmp_path: Path, version: int,
                                                                                 field: str) -> None:
    # A schema 1 `checked = "cells"` would be overwritten "read" by the migration; a `behind` read under rules its file
    # does not say it was written for.
    path = tmp_path / "census.toml"
    path.write_text(f"schema_version = {version}\n{SEARCH if version > 1 else ''}{ENTRY}"
                    + ('checked = "read"\n' if version > 1 else "") + field + "\n")
    name = field.split(" ")[0]
    since = {"checked": 2, "behind": 3}[name]
    with pytest.raises(CensusError, match=rf"^census.toml report 1 \(google/flax#5112\): {name} needs schema_version "
                                          rf"{since} \(the file says {version}\)$"):
        read_census(path)


def _behind(report_id: str, behind: str = "", appeared: str = "flax==0.12.3", fixed: str = "flax==0.12.5") -> Report:
    return Report(report_id, "https://x", "fam", "2025-01-01", appeared, fixed, "s", "why", behind=behind)


def test_a_report_behind_one_that_fails_over_every_release_it_fails_is_no_problem() -> None:
    census = {"a/b#1": _behind("a/b#1", "a/b#2"), "a/b#2": _behind("a/b#2", appeared="flax==0.12.0")}
    assert problems(census, {}) == []
    live = {"a/b#1": _behind("a/b#1", "a/b#2", fixed="live"), "a/b#2": _behind("a/b#2", fixed="live")}
    assert problems(live, {}) == []


def test_a_report_behind_one_that_sits_behind_it_in_turn_is_named() -> None:
    census = {"a/b#1": _behind("a/b#1", "a/b#2"), "a/b#2": _behind("a/b#2", "A/B#3"),
              "a/b#3": _behind("a/b#3", "a/b#1")}
    assert problems(census, {}) == [
        f"a/b#{n}: behind {behind}, which sits behind it in turn ({chain}): one of them fails first"
        for n, behind, chain in ((1, "a/b#2", "a/b#1 -> a/b#2 -> a/b#3 -> a/b#1"),
                                 (2, "A/B#3", "a/b#2 -> a/b#3 -> a/b#1 -> a/b#2"),
                                 (3, "a/b#1", "a/b#3 -> a/b#1 -> a/b#2 -> a/b#3"))]


@pytest.mark.parametrize(("other", "said"), [
    (_behind("a/b#2", appeared="flax==0.12.4"), "appeared at flax==0.12.4, after this one"),
    (_behind("a/b#2", fixed="flax==0.12.4"), "was fixed at flax==0.12.4, before this one"),
])
def test_a_report_behind_one_that_fails_over_fewer_releases_is_named(other: Report, said: str) -> None:
    # Where this one fails and the other does not, a probe sees this one apart: it is not behind the other there.
    census = {"a/b#1": _behind("a/b#1", "a/b#2"), "a/b#2": other}
    assert problems(census, {}) == [f"a/b#1: behind a/b#2, which {said}: where this one fails alone, a probe sees it "
                                    "apart"]
    live = {"a/b#1": _behind("a/b#1", "a/b#2", fixed="live"), "a/b#2": _behind("a/b#2")}
    assert problems(live, {}) == ["a/b#1: behind a/b#2, which was fixed (flax==0.12.5) while this one is live: where "
                                  "this one fails alone, a probe sees it apart"]


def test_a_report_a_cpu_can_show_behind_one_no_cpu_can_show_is_named() -> None:
    off = Report("a/b#2", "https://x", "fam", "2025-01-01", "flax==0.12.3", "flax==0.12.5", "s", "needs a TPU",
                 cpu=False)
    assert problems({"a/b#1": _behind("a/b#1", "a/b#2"), "a/b#2": off}, {}) == [
        "a/b#1: behind a/b#2, which no CPU cell can show: on a CPU this one fails alone, and a probe sees it apart"]
    both_off = Report("a/b#1", "https://x", "fam", "2025-01-01", "flax==0.12.3", "flax==0.12.5", "s", "needs a TPU",
                      cpu=False, behind="a/b#2")
    assert problems({"a/b#1": both_off, "a/b#2": off}, {}) == []
