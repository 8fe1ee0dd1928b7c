"""harness.outputs: each file besides a cell's own written whole, versioned, migrated when older, refused when newer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harness import outputs
from harness.outputs import OutputFileError

# --- the one writer -----------------------------------------------------------------------------------------------


def test_a_file_written_whole_replaces_the_old_one_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "report" / "matrix.md"
    outputs.write_atomically(path, "old")
    outputs.write_atomically(path, b"new")
    assert path.read_text(encoding="utf-8") == "new" and [p.name for p in path.parent.iterdir()] == ["matrix.md"]


def test_a_write_that_fails_midway_leaves_the_old_file_whole_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "frontier.csv"
    outputs.write_atomically(path, "old, whole\n")
    with pytest.raises(RuntimeError), outputs.replacing(path) as stream:
        stream.write("new, half")
        raise RuntimeError("the build broke here")
    assert path.read_text(encoding="utf-8") == "old, whole\n" and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_file_where_the_folder_should_be_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "report").write_text("not a folder")
    with pytest.raises(OutputFileError, match=r"report/matrix\.md: cannot be written \("):
        outputs.write_atomically(tmp_path / "report" / "matrix.md", "x")


def test_a_folder_where_the_file_should_be_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "compat.json").mkdir()
    with pytest.raises(OutputFileError, match=r"compat\.json: cannot be replaced"):
        outputs.write_atomically(tmp_path / "compat.json", "[]")
    assert [p.name for p in tmp_path.iterdir()] == ["compat.json"]


# --- versions and migrations ------------------------------------------------------------------------------------


def test_a_row_without_a_version_is_version_1_and_is_migrated() -> None:
    assert outputs.RESULTS_CSV.migrate({"key": "c1"}, "results.csv") == {"schema_version": 2, "key": "c1"}
    assert outputs.RESULTS_CSV.migrate({"schema_version": "2", "key": "c1"}, "x") == {"schema_version": 2, "key": "c1"}


def test_a_compat_row_of_version_2_knows_no_coverage_and_no_backend() -> None:
    row = outputs.COMPAT_JSON.migrate({"schema_version": 2, "key": "c1", "verdict": "works"}, "compat.json")
    assert row == {"schema_version": 4, "key": "c1", "verdict": "works", "backend": None, "coverage": None,
                   "short_of_devices": 0, "family_coverage": None, "known": None, "unexplained": None,
                   "known_bugs": None, "family_verdicts": None}


def test_a_compat_row_of_version_3_keeps_its_coverage_and_knows_no_kinds_of_failure() -> None:
    row = {"schema_version": 3, "key": "c1", "coverage": "19 of 103 (80 need 8 devices)", "short_of_devices": 80}
    assert outputs.COMPAT_JSON.migrate(dict(row), "compat.json") == {
        **row, "schema_version": 4, "known": None, "unexplained": None, "known_bugs": None, "family_verdicts": None}


def test_a_compat_row_of_version_4_keeps_its_kinds_of_failure() -> None:
    row = {"schema_version": 4, "key": "c1", "verdict": "works_except_known_bugs", "known": 9, "unexplained": 0}
    assert outputs.COMPAT_JSON.migrate(dict(row), "compat.json") == row


@pytest.mark.parametrize(("version", "why"), [
    (5, r"compat table schema 5 is newer than this reader knows \(4\); update shardmatrix to read it"),
    ("two", r"compat table schema_version 'two' is not a version"),
    (0, r"compat table schema_version 0 is not a version"),
])
def test_a_newer_or_nonsense_version_is_refused_in_one_line(version: object, why: str) -> None:
    with pytest.raises(OutputFileError, match=r"^out/compat\.csv: " + why) as refused:
        outputs.COMPAT_CSV.migrate({"schema_version": version}, "out/compat.csv")
    assert "\n" not in str(refused.value)


def test_a_gap_in_the_migrations_is_named() -> None:
    fmt = outputs.Format("x.csv", 3, "x table", {3: outputs.stamped(3)})
    with pytest.raises(OutputFileError, match="x table schema 1 has no migration to version 2"):
        fmt.migrate({}, "x.csv")


def test_a_csv_reads_back_what_was_written_and_keeps_plain_for_pandas(tmp_path: Path) -> None:
    path = outputs.write_frame(tmp_path / "changes.csv", outputs.CHANGES_CSV, pd.DataFrame({"release": ["0.9.0"]}))
    assert outputs.read_csv(path, outputs.CHANGES_CSV) == [{"schema_version": 2, "release": "0.9.0"}]
    assert pd.read_csv(path).to_dict("records") == [{"schema_version": 2, "release": "0.9.0"}]


def test_a_csv_written_before_versions_is_migrated_and_a_newer_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    path.write_text("run_id,case\nr1,m::t\n", encoding="utf-8")
    assert outputs.read_csv(path, outputs.RESULTS_CSV) == [{"schema_version": 2, "run_id": "r1", "case": "m::t"}]
    path.write_text("schema_version,run_id\n9,r1\n", encoding="utf-8")
    with pytest.raises(OutputFileError, match="results table schema 9 is newer"):
        outputs.read_csv(path, outputs.RESULTS_CSV)


def test_a_json_list_of_rows_is_versioned_row_by_row(tmp_path: Path) -> None:
    path = outputs.write_rows(tmp_path / "compat.json", outputs.COMPAT_JSON, [{"key": "c1"}])
    assert json.loads(path.read_text(encoding="utf-8")) == [{"schema_version": 4, "key": "c1"}]
    path.write_text('[{"key": "c1"}]', encoding="utf-8")  # as written before rows carried a version
    assert outputs.read_rows(path, outputs.COMPAT_JSON) == [{"schema_version": 4, "key": "c1", "backend": None,
                                                            "coverage": None, "short_of_devices": 0,
                                                            "family_coverage": None, "known": None,
                                                            "unexplained": None, "known_bugs": None,
                                                            "family_verdicts": None}]


@pytest.mark.parametrize(("content", "why"), [
    (b"\xff\xfe{", r"compat list is not UTF-8 text \(byte 0\)"),
    (b"[{", r"compat list is not valid JSON"),
    (b'{"key": 1}', r"compat list is a JSON dict, not a list of rows"),
    (b"[1]", r"compat list: row 1 is not an object"),
])
def test_a_json_list_that_is_not_one_is_refused_in_one_line(tmp_path: Path, content: bytes, why: str) -> None:
    path = tmp_path / "compat.json"
    path.write_bytes(content)
    with pytest.raises(OutputFileError, match=why):
        outputs.read_rows(path, outputs.COMPAT_JSON)


# --- the frontier -------------------------------------------------------------------------------------------------

V1_RELEASE = {"schema_version": 1, "flax": "0.10.2", "requirement": "jax>=0.7.0,<=0.7.1",
              "row": {"flax": "0.10.2", "declared_jax": ">=0.4.27", "works_from": "0.7.0", "works_to": "0.7.1",
                      "first_broken_below": "", "first_broken_above": "0.7.2", "cause_below": "", "cause_above": "x",
                      "probes": "1", "holes": ""},
              "evidence": ["flax 0.10.2: jax>=0.7.0,<=0.7.1"], "candidates": ["0.7.0", "0.7.1", "0.7.2"],
              "declared_ok": ["0.7.0"],
              "probes": [{"jax": "0.7.0", "works": True, "cause": "", "cell": "c", "seconds": 1.0, "reused": False}]}


def test_frontier_json_is_written_and_read_by_one_module(tmp_path: Path) -> None:
    path = outputs.write_document(tmp_path / outputs.FRONTIER_FILENAME, outputs.FRONTIER_JSON,
                                  outputs.frontier_document(["0.4.38"], []))
    assert outputs.read_frontier(path) == {"schema_version": 3, "jax": ["0.4.38"], "releases": []}


def test_a_schema_1_frontier_is_migrated_its_range_read_as_the_core_range(tmp_path: Path) -> None:
    path = tmp_path / "frontier.json"
    path.write_text(json.dumps({"schema_version": 1, "jax": V1_RELEASE["candidates"], "releases": [V1_RELEASE]}))
    release = outputs.read_frontier(path)["releases"][0]
    assert (release["row"]["core_from"], release["row"]["core_to"]) == ("0.7.0", "0.7.1")
    assert (release["row"]["works_from"], release["row"]["works_to"]) == ("", "")  # the whole corpus: unknown
    assert release["row"]["stopped"] and release["cases"] == [] and release["probes"][0]["corpus"] is False
    stored = outputs.frontier_release_path(tmp_path, "0.10.2")
    stored.parent.mkdir()
    stored.write_text(json.dumps(V1_RELEASE))
    assert outputs.read_frontier_release(stored)["row"]["core_from"] == "0.7.0"


@pytest.mark.parametrize("fault", [{"declared_ok": "0.7.0"}, {"budget": {"core": "7"}}, {"cases": [{"case": 1}]},
                                   {"probes": [{"jax": "0.7.0", "works": "yes", "cell": "c", "cause": ""}]}])
def test_a_release_whose_parts_are_of_another_shape_is_refused(tmp_path: Path, fault: dict[str, object]) -> None:
    path = tmp_path / "frontier.json"
    good = outputs.frontier_release_update_to_2(V1_RELEASE)
    path.write_text(json.dumps({"schema_version": 2, "jax": [], "releases": [good]}))
    assert outputs.read_frontier(path)["releases"][0]["flax"] == "0.10.2"
    path.write_text(json.dumps({"schema_version": 2, "jax": [], "releases": [{**good, **fault}]}))
    with pytest.raises(outputs.FrontierFileError, match="frontier release 1 is not a flax release's document"):
        outputs.read_frontier(path)


@pytest.mark.parametrize(("content", "why"), [
    ('{"schema_version": 4}', r"frontier schema 4 is newer than this reader knows \(3\)"),
    ("[]", "frontier is a JSON list, not an object"),
    ('{"schema_version": 3, "jax": [], "releases": {}}', "frontier without its `jax` and `releases` lists"),
    ('{"schema_version": 2, "jax": [], "releases": [{"flax": 1}]}', "frontier release 1 is not a flax release"),
    ("{", "frontier is not valid JSON"),
])
def test_a_frontier_that_is_not_one_is_refused_in_one_line(tmp_path: Path, content: str, why: str) -> None:
    path = tmp_path / "frontier.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(outputs.FrontierFileError, match=why):
        outputs.read_frontier(path)


# --- plans, durations, declarations -------------------------------------------------------------------------------


def test_a_plan_reads_back_its_entries_and_an_unversioned_one_is_migrated() -> None:
    text = outputs.plan_json(outputs.PLAN, [{"cell": "c1", "backend": "cpu"}])
    assert json.loads(text) == [{"schema_version": 2, "cell": "c1", "backend": "cpu"}]
    assert outputs.read_plan(text, outputs.PLAN, "cell", "p") == [{"schema_version": 2, "cell": "c1", "backend": "cpu"}]
    assert outputs.read_plan('[{"flax": "0.10.2"}]', outputs.FRONTIER_PLAN, "flax", "p")[0]["schema_version"] == 2


@pytest.mark.parametrize(("text", "why"), [
    ('[{"schema_version": 7, "cell": "c1"}]', r"plan schema 7 is newer than this reader knows \(2\)"),
    ('[{"session": "x"}]', "plan entry 1 has no 'cell'"),
    ("[", "plan is not valid JSON"),
])
def test_a_plan_that_is_not_one_is_refused_in_one_line(text: str, why: str) -> None:
    with pytest.raises(OutputFileError, match=why):
        outputs.read_plan(text, outputs.PLAN, "cell", "--plan p.json")


def test_durations_read_back_and_an_unreadable_one_is_left_out(tmp_path: Path) -> None:
    outputs.write_duration(tmp_path, "c1", 12.345)
    (tmp_path / "c0.json").write_text('{"cell_id": "c0", "seconds": 3}')  # before durations carried a version
    (tmp_path / "c2.json").write_text('{"schema_version": 9, "seconds": 1}')  # a newer writer: not guessed at
    (tmp_path / "c3.json").write_bytes(b"\xff")
    assert outputs.read_durations(tmp_path) == {"c0": 3.0, "c1": 12.35}


def test_declarations_read_back_and_an_unversioned_file_is_version_1(tmp_path: Path) -> None:
    path = outputs.write_declarations(outputs.declarations_path(tmp_path, "r1"), [{"case_id": "m::t", "change": {}}])
    assert path.name == "upgrade-changes-r1.json" and outputs.read_declarations(path) == [("m::t", {})]
    path.write_text('{"changes": [{"case_id": "m::t", "change": {"since": "jax>=0.9"}}]}')
    assert outputs.read_declarations(path) == [("m::t", {"since": "jax>=0.9"})]


def test_declarations_that_are_not_one_are_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text('{"schema_version": 1, "changes": [{"case_id": "m::t"}]}')
    with pytest.raises(OutputFileError, match=r"`changes` is not a list of \{case_id, change\} objects"):
        outputs.read_declarations(path)


def test_the_module_imports_nothing_but_the_standard_library_and_formats() -> None:
    code = ("import sys, harness.outputs; sys.exit(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('harness', 'reports', 'pandas', 'packaging')) != ['harness', 'harness.formats', 'harness.outputs'])")
    assert subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent).returncode == 0


def test_a_frontier_release_of_version_2_lists_no_known_bug_and_a_malformed_row_is_left_for_the_reader() -> None:
    release = {"schema_version": 2, "flax": "0.10.2", "row": {"works_from": "0.7.0"}}
    assert outputs.FRONTIER_RELEASE.migrate(dict(release), "flax-0.10.2.json")["row"] == {
        "works_from": "0.7.0", "known_bugs": ""}
    assert outputs.FRONTIER_RELEASE.migrate({"schema_version": 2, "row": 1}, "flax-x.json")["row"] == 1


def test_a_compare_json_of_version_1_counts_no_regression_by_kind() -> None:
    assert outputs.COMPARE_JSON.migrate({"schema_version": 1, "verdict": "SAFE"}, "compare.json") == {
        "schema_version": 2, "verdict": "SAFE", "regressions": None}
    kept = {"schema_version": 2, "verdict": "UNSAFE", "regressions": {"documented": 0, "known": 1, "unexplained": 0}}
    assert outputs.COMPARE_JSON.migrate(dict(kept), "compare.json") == kept


RANGE_EDGE = {"case": "m::t", "package": "jax", "declared": ">=0.9.0", "source": "changed since jax>=0.9.0",
              "status": "confirmed", "found": None, "why": "", "inside": "1 of 3 releases inside probed: 0.9.1",
              "inside_releases": 3, "inside_judged": 1}


def range_check(**changed: object) -> dict[str, object]:
    return {"probes": 3, "budget": 10, "wrong": 0, "unchecked": 0, "edges": [RANGE_EDGE], "needs_without_change": [],
            "options": {"timeout": 60.0}, "commit": "9a59988", "cases": {"m::t": {"digest": "ab12", "commit": None}},
            **changed}


def test_a_range_check_as_the_checker_writes_it_reads_back(tmp_path: Path) -> None:
    path = outputs.write_ranges(tmp_path, range_check())
    assert outputs.read_ranges(path)["edges"] == [RANGE_EDGE]


def test_a_range_check_that_probed_less_inside_says_how_far(tmp_path: Path) -> None:
    path = outputs.write_ranges(tmp_path, range_check(options={"inside": "middle", "timeout": 60.0}))
    assert outputs.read_ranges(path)["options"] == {"inside": "middle", "timeout": 60.0}


def test_a_wrong_edge_names_the_bound_releases_show_and_a_check_may_spend_its_whole_budget(tmp_path: Path) -> None:
    wrong = {**RANGE_EDGE, "status": "wrong", "found": ">=0.9.1", "why": "jax 0.9.0 passes"}
    path = outputs.write_ranges(tmp_path, range_check(edges=[wrong], wrong=1, probes=10))
    assert outputs.read_ranges(path)["edges"] == [wrong]


@pytest.mark.parametrize(("changed", "fault"), [
    ({"probes": "3"}, "probes is '3', not a count"), ({"budget": None}, "budget is None"),
    ({"edges": {"0": RANGE_EDGE}}, "edges is dict, not a list of rows"), ({"edges": ["confirmed"]}, "no text case"),
    ({"edges": [{**RANGE_EDGE, "declared": None}]}, "edges row 1 has no text declared"),
    ({"edges": [{**RANGE_EDGE, "status": "fine"}]}, "status 'fine'"),
    ({"edges": [{**RANGE_EDGE, "found": 1}]}, "found 1"),
    ({"needs_without_change": [{"case": "m::t"}]}, "needs_without_change row 1 has no text held"),
    ({"edges": [{**RANGE_EDGE, "inside_judged": "1"}]}, "inside_judged '1'"),
    ({"edges": [{k: v for k, v in RANGE_EDGE.items() if k != "inside_judged"}]}, "inside_judged None"),
    ({"edges": [{**RANGE_EDGE, "inside_judged": 4}]}, "inside_releases 3 and inside_judged 4"),
    # Its text and its counts disagree: a reader of either would be told another story.
    ({"edges": [{**RANGE_EDGE, "inside_judged": 0}]}, "which says 3 releases inside and 1 judged, but "
                                                      "inside_releases 3 and inside_judged 0"),
    ({"edges": [{**RANGE_EDGE, "inside": "no release inside"}]}, "which says 0 releases inside"),
    # More releases inside where the case cannot run than it owns beside those it judged: an unearned "judged inside".
    ({"edges": [{**RANGE_EDGE, "inside_unmet": 3}]}, "inside_unmet 3"),
    ({"edges": [{**RANGE_EDGE, "inside_unmet": True}]}, "inside_unmet True"),
    ({"edges": [{**RANGE_EDGE, "inside_unmet": -1}]}, "inside_unmet -1"),
    ({"edges": [{**RANGE_EDGE, "inside_unmet": 1.0}]}, "inside_unmet 1.0"),
    ({"edges": [{**RANGE_EDGE, "inside_unmet": None}]}, "inside_unmet None"),
    # A confirmed edge found its declared bound: a bound the releases show belongs to a wrong one.
    ({"edges": [{**RANGE_EDGE, "found": ">=0.9.1"}]}, "edges row 1 is confirmed, but found '>=0.9.1'"),
    # More probes than the budget they were built in: no check, merge or take adds up so.
    ({"probes": 11}, "probes 11 exceed its budget 10"), ({"probes": -1}, "probes is -1, not a count"),
    ({"budget": 10.0}, "budget is 10.0, not a count"),
    # A row flipped to confirmed by hand keeps the text of an edge whose inside was never counted.
    ({"edges": [{**RANGE_EDGE, "inside": "nothing inside probed: the edge is not confirmed", "inside_releases": 0,
                 "inside_judged": 0}]}, "edges row 1 is confirmed, but its inside says 'nothing inside probed"),
    # Two rows of one edge, one confirmed and one wrong: whichever a reader met first would stand.
    ({"edges": [RANGE_EDGE, {**RANGE_EDGE, "status": "wrong", "found": ">=0.9.1"}]},
     "edges row 2 repeats row 1's edge (m::t jax>=0.9.0 [changed since jax>=0.9.0]): one row per edge"),
    ({"options": {"override": 1}}, "options {'override': 1}"), ({"options": {"timeout": "5"}}, "options"),
    # Every release inside is the default, never recorded: a document that says so was not written by the checker.
    ({"options": {"inside": "every"}}, "inside as one of none, middle"),
    ({"options": {"inside": "halfway"}}, "options {'inside': 'halfway'}"), ({"options": {"inside": 1}}, "options"),
    ({"commit": 5}, "commit 5"), ({"cases": {"m::t": "ab12"}}, "cases is not"),
    ({"cases": {"m::t": {"commit": None}}}, "cases is not"),
    ({"cases": {"m::t": {"digest": "ab12", "commit": None, "date": 20261128}}}, "cases is not"),
    ({"cases": {"m::t": {"digest": "ab12", "commit": None, "run": None}}}, "cases is not"),
])
def test_a_range_check_that_is_not_whole_is_refused_in_one_line(tmp_path: Path, changed: dict[str, object],
                                                                 fault: str) -> None:
    path = outputs.write_ranges(tmp_path, range_check(**changed))
    with pytest.raises(outputs.OutputFileError, match=f"^{path}: range check: ") as caught:
        outputs.read_ranges(path)
    assert fault in str(caught.value) and "\n" not in str(caught.value)


def test_a_stored_range_check_is_written_under_its_own_name_and_a_stamp_may_carry_the_run_it_was_taken_from(
        tmp_path: Path) -> None:
    stamped = {"m::t": {"digest": "ab12", "commit": "9a59988", "run": "20261128T124000Z-ab12", "date": "2026-11-28"}}
    path = outputs.write_stored_ranges(tmp_path / "data" / "stored.json", range_check(cases=stamped))
    assert path.name == "stored.json" and outputs.read_ranges(path)["cases"] == stamped


def test_the_schema_a_range_check_was_written_with_is_read_before_any_migration(tmp_path: Path) -> None:
    path = outputs.write_ranges(tmp_path, range_check())
    assert outputs.ranges_version(path) == outputs.RANGES_JSON.version
    path.write_text(json.dumps({k: v for k, v in range_check().items() if k != "schema_version"}))
    assert outputs.ranges_version(path) == 1  # written before documents carried their version
    path.write_text(json.dumps({**range_check(), "schema_version": "2"}))
    assert outputs.ranges_version(path) == 2  # as the migration reads a version written as text
    path.write_text("[]")
    with pytest.raises(outputs.OutputFileError, match=f"^{path}: range check is a JSON list, not an object$"):
        outputs.ranges_version(path)


def test_a_range_check_of_version_1_is_read_with_the_counts_its_inside_text_says() -> None:
    def v1(*insides: str) -> dict[str, object]:
        edges = [{k: v for k, v in RANGE_EDGE.items() if not k.startswith("inside")}]
        edges += [{**edges[0], "inside": inside} for inside in insides]
        return {"schema_version": 1, "probes": 3, "budget": 10, "wrong": 0, "unchecked": 0, "edges": edges,
                "needs_without_change": []}

    document = outputs.RANGES_JSON.migrate(v1("no release inside", "nothing inside probed: the edge is not confirmed",
                                              "2 of 5 releases inside probed: 0.7.1, 0.8.0",
                                              "3 of 19 releases inside probed, 1 of them judged (the others not "
                                              "applicable or not installable): 0.10.7"), "ranges.json")
    # The bounds-only checker's row stays without: it says nothing of its inside.
    assert [(row.get("inside_releases"), row.get("inside_judged")) for row in document["edges"]] == [
        (None, None), (0, 0), (0, 0), (5, 2), (19, 1)]
    assert (document["options"], document["commit"], document["cases"]) == ({}, None, {})


def test_a_range_check_of_version_1_whose_inside_says_nothing_known_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ranges.json"
    path.write_text(json.dumps({"schema_version": 1, "probes": 3, "budget": 10, "wrong": 0, "unchecked": 0,
                                "edges": [{**RANGE_EDGE, "inside": "some releases"}], "needs_without_change": []}))
    path.write_text(path.read_text().replace('"inside_releases": 3, ', "").replace(', "inside_judged": 1', ""))
    with pytest.raises(outputs.OutputFileError, match="inside 'some releases', inside_releases None"):
        outputs.read_ranges(path)


def test_a_stored_range_check_of_the_right_shape_reads_and_its_statuses_are_the_checkers() -> None:
    from harness.tools import ranges

    assert set(outputs.RANGE_STATUSES) == set(ranges.STATUSES)
    stored = outputs.read_ranges(Path(__file__).resolve().parents[1] / "docs" / "data" / "ranges.json")
    assert stored["edges"] and all(row["status"] in outputs.RANGE_STATUSES for row in stored["edges"])


def test_a_range_check_of_version_1_keeps_no_digest_or_commit_it_holds_for_no_version_1_checker_wrote_one() -> None:
    v1 = {"schema_version": 1, "probes": 3, "budget": 10, "wrong": 0, "unchecked": 0, "needs_without_change": [],
          "edges": [{k: v for k, v in RANGE_EDGE.items() if not k.startswith("inside")}], "options": {"timeout": 5.0},
          "commit": "9a59988", "cases": {"m::t": {"digest": "ab12", "commit": "9a59988"}}}
    document = outputs.RANGES_JSON.migrate(v1, "ranges.json")
    assert (document["options"], document["commit"], document["cases"]) == ({}, None, {})
