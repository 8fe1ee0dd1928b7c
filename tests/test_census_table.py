"""harness/tools/census_table.py: the census's table per family, generated from the census, `cites=` and a stored
range check."""

from __future__ import annotations

from pathlib import Path

from packaging.version import Version

from harness.tools.census_table import (
    census_problems,
    census_search,
    census_summary,
    census_table,
    standing_rows,
    stored_releases,
)

ENTRY = """
[[report]]
id = "{id}"
link = "https://github.com/{repo}/issues/{number}"
family = "fam"
date = "{date}"
appeared = "jax==0.8.1"
fixed = "jax==0.9.0"
summary = "a | b"
{extra}
"""

CONFIRMED = [{"case": "test_fam::test_x", "package": "jax", "declared": declared, "status": "confirmed",
              "source": "known breakage jax<0.9.0,>=0.8.1", "found": None, "why": "",
              "inside": "no release inside", "inside_releases": 0, "inside_judged": 0}
             for declared in (">=0.8.1", "<0.9.0")]
KNOWN = """[[breakage]]
case = "test_fam::test_x"
jax = ">=0.8.1,<0.9.0"
reason = "r"
link = "https://github.com/jax-ml/jax/issues/2"
"""


def _census(tmp_path: Path) -> Path:
    rows = [ENTRY.format(id="jax-ml/jax#2", repo="jax-ml/jax", number=2, date="2026-01-02", extra='checked = "cells"'),
            ENTRY.format(id="jax-ml/jax#1", repo="jax-ml/jax", number=1, date="2025-01-01",
                         extra='uncited = "needs a TPU"\ncpu = false\nchecked = "read"')]
    (tmp_path / "census.toml").write_text("schema_version = 2\n" + "".join(rows))
    (tmp_path / "test_fam.py").write_text("@case('fam', cites=('jax-ml/jax#2',))\ndef test_x():\n    pass\n")
    (tmp_path / "known_breakages.toml").write_text(KNOWN)
    return tmp_path


def test_a_confirmed_report_names_its_case_and_one_off_cpu_its_reason(tmp_path: Path) -> None:
    lines = census_table("fam", CONFIRMED, _census(tmp_path)).splitlines()
    assert lines[2].startswith("| [jax-ml/jax#1]") and lines[2].endswith("| read only | off CPU | needs a TPU |")
    assert lines[3].endswith("| in cells | caught | `test_fam::test_x` |") and "a \\| b" in lines[3]


def test_a_cited_report_whose_edge_is_unchecked_is_not_caught_and_says_why(tmp_path: Path) -> None:
    unchecked = [CONFIRMED[0], {**CONFIRMED[1], "status": "unchecked", "why": "jax 0.9.0 cannot be probed"}]
    row = census_table("fam", unchecked, _census(tmp_path)).splitlines()[3]
    assert "| not caught | `test_fam::test_x`; edge jax<0.9.0 of test_fam::test_x is unchecked: jax 0.9.0 cannot" in row


def test_a_stored_row_of_a_range_the_corpus_has_since_changed_does_not_catch(tmp_path: Path) -> None:
    folder = _census(tmp_path)
    (folder / "known_breakages.toml").write_text(KNOWN.replace("<0.9.0", "<0.9.1"))
    row = census_table("fam", CONFIRMED, folder).splitlines()[3]
    assert "| not caught |" in row and "declare no checked edge (its transition: jax<0.9.0)" in row


def test_the_summary_counts_only_what_a_cpu_can_show(tmp_path: Path) -> None:
    assert census_summary(CONFIRMED, _census(tmp_path)).startswith("1 of 1 reports a CPU cell can show are caught")


def test_a_row_of_a_case_changed_since_its_check_or_never_stamped_catches_nothing(tmp_path: Path) -> None:
    from harness.tools.range_check import corpus_digests

    folder = _census(tmp_path)
    digest = corpus_digests([str(folder)])["test_fam::test_x"]
    stamped = {"edges": CONFIRMED, "cases": {"test_fam::test_x": {"digest": digest, "commit": "abc1234"}}}
    assert census_summary(standing_rows(stamped, folder), folder).startswith("1 of 1 reports a CPU cell can show are "
                                                                               "caught")
    # The check recorded no digest of it, or the case's body changed since: the row stands for another case.
    (folder / "test_fam.py").write_text("@case('fam', cites=('jax-ml/jax#2',))\ndef test_x():\n    assert True\n")
    for document in ({**stamped, "cases": {}}, stamped):
        rows = standing_rows(document, folder)
        assert [row["status"] for row in rows] == ["unchecked", "unchecked"] and rows[0]["why"].startswith("stale")
        assert census_summary(rows, folder).startswith("0 of 1 reports a CPU cell can show are caught")


def test_another_family_gets_only_the_header(tmp_path: Path) -> None:
    assert len(census_table("other", [], _census(tmp_path)).splitlines()) == 2


def test_the_search_line_says_how_the_census_was_searched_and_how_much_was_only_read(tmp_path: Path) -> None:
    folder = _census(tmp_path)
    text = (folder / "census.toml").read_text()
    (folder / "census.toml").write_text(text.replace("schema_version = 2\n", """schema_version = 2
[search]
date = "2026-11-27"
since = "2024-06-01"
until = "2026-11-27"
tools = "the issues corpus"
queries = ["a", "b"]
repositories = ["jax-ml/jax"]
"""))
    assert census_search(folder) == ("Searched on 2026-11-27 over reports from 2024-06-01 to 2026-11-27, with 2 "
                                     "queries over 1 repositories (the issues corpus). 1 of 2 reports had both sides "
                                     "of their releases measured in cells; 1 were read only.")


def test_a_census_that_records_no_search_says_so(tmp_path: Path) -> None:
    folder = _census(tmp_path)
    (folder / "census.toml").write_text((folder / "census.toml").read_text().replace(
        "schema_version = 2", "schema_version = 1").replace('checked = "cells"\n', "").replace('checked = "read"', ""))
    assert census_search(folder).startswith("The census records no search (schema 1)")


def test_census_text_reaches_the_page_as_text_not_markup(tmp_path: Path) -> None:
    folder = _census(tmp_path)
    census = folder / "census.toml"
    text = census.read_text().replace('uncited = "needs a TPU"', 'uncited = "needs <script>x</script> `a<b`"')
    census.write_text(text)
    row = census_table("fam", CONFIRMED, folder).splitlines()[2]
    assert "&lt;script>x&lt;/script>" in row and "<script>" not in row and "`a<b`" in row


def _deprecation(tmp_path: Path, warning: str) -> tuple[Path, list[dict[str, object]]]:
    """A deprecation report cited by a case whose change warns in jax 0.8.1 (with or without its warning's text)."""
    tmp_path.mkdir()
    (tmp_path / "census.toml").write_text("schema_version = 2\n" + ENTRY.format(
        id="jax-ml/jax#2", repo="jax-ml/jax", number=2, date="2026-01-02", extra='checked = "cells"').replace(
        '"a | b"', '"jax 0.8.1 deprecated x"').replace('fixed = "jax==0.9.0"', 'fixed = "live"'))
    (tmp_path / "test_fam.py").write_text(
        "from harness.case import Change, case\n\n"
        f"@case('fam', changed=Change(None, 'x goes', fix='use y', kind='deprecation', warned='jax>=0.8.1'{warning}),"
        " cites=('jax-ml/jax#2',))\ndef test_x():\n    pass\n")
    rows = [{**CONFIRMED[0], "source": "warned jax>=0.8.1"}]
    return tmp_path, rows


def test_a_warned_edge_catches_a_deprecation_only_where_its_change_names_the_warning_s_text(tmp_path: Path) -> None:
    folder, rows = _deprecation(tmp_path / "named", ", warning='x is deprecated'")
    assert census_summary(rows, folder).startswith("1 of 1 reports a CPU cell can show are caught")
    folder, rows = _deprecation(tmp_path / "silent", "")
    row = census_table("fam", rows, folder).splitlines()[2]
    assert "| not caught |" in row and "its change names no warning text" in row


def test_the_releases_a_stored_check_names_are_its_bounds_inside_probes_and_the_pairs_its_reasons_name() -> None:
    rows = [{**CONFIRMED[0], "inside": "2 of 5 releases inside probed: 0.8.2, 0.9.0.1",
             "inside_releases": 5, "inside_judged": 2},
            {**CONFIRMED[1], "status": "unchecked", "why": "jax 0.9.1 with flax 0.12.10 cannot be probed"}]
    assert stored_releases(rows) == {"jax": {Version(v) for v in ("0.8.1", "0.8.2", "0.9.0.1", "0.9.0", "0.9.1")},
                                     "flax": {Version("0.12.10")}}


def test_a_census_pin_no_stored_check_or_matrix_cell_names_is_a_problem(tmp_path: Path) -> None:
    folder = _census(tmp_path)
    assert census_problems(CONFIRMED, folder) == []
    (folder / "census.toml").write_text((folder / "census.toml").read_text().replace("jax==0.9.0", "jax==0.9.15"))
    found = census_problems(CONFIRMED, folder)
    # Known: the rows' 0.8.1 and 0.9.0 and the shipped matrix's cells, whatever they are by then.
    assert [line.split(" (of ")[0] for line in found] == [
        f"jax-ml/jax#{number}: fixed jax==0.9.15 is not a jax release" for number in (1, 2)]


def test_a_row_that_says_checked_in_cells_without_a_confirmed_edge_at_each_side_says_so(tmp_path: Path) -> None:
    folder = _census(tmp_path)
    assert "| in cells | caught |" in census_table("fam", CONFIRMED, folder).splitlines()[3]
    unchecked = [CONFIRMED[0], {**CONFIRMED[1], "status": "unchecked", "why": "w"}]
    row = census_table("fam", unchecked, folder).splitlines()[3]
    assert "| in cells (the range check confirms no edge at each release it names) | not caught |" in row


def test_a_live_report_of_a_documented_change_is_backed_by_the_change_s_edge_and_no_other_case_s(
        tmp_path: Path) -> None:
    # blackjax#932's shape: a live report from jax 0.9.0, measured in cells, cited by a case whose change starts there
    # (the corpus declares it, so the stored row's source is the one ranges.edges spells); no live edge exists.
    (tmp_path / "census.toml").write_text("schema_version = 2\n" + ENTRY.format(
        id="jax-ml/jax#2", repo="jax-ml/jax", number=2, date="2026-01-02", extra='checked = "cells"').replace(
        'appeared = "jax==0.8.1"', 'appeared = "jax==0.9.0"').replace('fixed = "jax==0.9.0"', 'fixed = "live"'))
    declaration = "changed=Change('jax>=0.9.0', 'x changed', raises='ValueError', fix='use y', kind='default')"
    (tmp_path / "test_fam.py").write_text(
        "from harness.case import Change, case\n\n"
        f"@case('fam', {declaration}, cites=('jax-ml/jax#2',))\ndef test_x():\n    pass\n\n"
        f"@case('fam', {declaration})\ndef test_y():\n    pass\n")
    since = {**CONFIRMED[0], "declared": ">=0.9.0", "source": "changed since jax>=0.9.0",
             "inside": "11 of 11 releases inside probed", "inside_releases": 11, "inside_judged": 11}
    assert "| in cells | caught | `test_fam::test_x` |" in census_table("fam", [since], tmp_path)
    unbacked = "| in cells (the range check confirms no edge at each release it names) | not caught |"
    assert unbacked in census_table("fam", [{**since, "case": "test_fam::test_y"}], tmp_path)
