"""harness.cellrecord: the one owner of the cell record (schema, fields, migrations, final records, done marker,
every path of a cell)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness import cellrecord, formats, vocabulary


def test_the_record_module_imports_nothing_but_the_standard_library_and_its_siblings() -> None:
    tree = ast.parse(Path(cellrecord.__file__).read_text())
    found = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    found |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert {name for name in found if name.split(".")[0] not in {"__future__", "json", "collections", "dataclasses",
                                                                 "datetime", "pathlib", "typing"}} \
        == {"harness", "harness.vocabulary"}


def test_migrate_brings_an_old_record_up_and_refuses_a_newer_one() -> None:
    assert cellrecord.migrate({"schema_version": 1, "status": "passed"})["attempt"] == 1
    with pytest.raises(cellrecord.SchemaError, match="newer than this reader"):
        cellrecord.migrate({"schema_version": cellrecord.SCHEMA_VERSION + 1})


def test_update_to_2_leaves_its_input_alone() -> None:
    old = {"schema_version": 1}
    assert cellrecord.update_to_2(old) == {"schema_version": 2, "attempt": 1} and old == {"schema_version": 1}
    assert cellrecord.MIGRATIONS[2] is cellrecord.update_to_2


def test_update_to_3_declares_no_change_and_leaves_its_input_alone() -> None:
    old = {"schema_version": 2, "attempt": 1}
    assert cellrecord.update_to_3(old) == {"schema_version": 3, "attempt": 1, "change": None, "smoke": None}
    assert old == {"schema_version": 2, "attempt": 1}
    assert cellrecord.MIGRATIONS[3] is cellrecord.update_to_3


def test_a_version_1_record_reaches_the_current_schema_with_every_step() -> None:
    record = cellrecord.migrate({"schema_version": 1, "status": "failed"})
    assert record == {"schema_version": cellrecord.SCHEMA_VERSION, "status": "failed", "attempt": 1, "change": None,
                      "smoke": None, "devices_needed": None, "known_breakage": None}
    assert {"change", "smoke", "devices_needed", "known_breakage"} <= set(cellrecord.FIELDS)


def test_a_version_4_xfail_is_a_known_breakage_only_when_its_reason_is_a_declared_breakages() -> None:
    declared = vocabulary.breakage_reason("gather drops sharding", "jax>=0.8.1", "https://github.com/jax-ml/jax/issues/1")
    found = [cellrecord.migrate({"schema_version": 4, "status": "xfailed", "reason": reason})["known_breakage"]
             for reason in (declared, "flaky on CI", None)]
    assert found == [True, False, False]


def test_update_to_4_reads_the_devices_a_case_needed_from_its_reason() -> None:
    old = {"schema_version": 3, "status": "not_applicable", "reason": "needs 8 devices, cell has 1"}
    assert cellrecord.update_to_4(old)["devices_needed"] == 8 and "devices_needed" not in old
    assert cellrecord.MIGRATIONS[4] is cellrecord.update_to_4


@pytest.mark.parametrize(("status", "reason"), [
    ("not_applicable", "jax.sharding.use_mesh is absent"),
    ("failed", "needs 8 devices, cell has 1"),
    ("not_applicable", None),
])
def test_update_to_4_finds_no_devices_where_the_reason_names_none(status: str, reason: str | None) -> None:
    old = {"schema_version": 3, "status": status, "reason": reason}
    assert cellrecord.update_to_4(old)["devices_needed"] is None


def _record(case: str, status: str, attempt: int | None = 1, **fields: object) -> dict[str, object]:
    return {"case_id": case, "status": status, "attempt": attempt, **fields}


def test_the_final_record_is_the_last_line_of_the_highest_attempt() -> None:
    first, second = _record("m::t", "failed", 1), _record("m::t", "passed", 2)
    assert cellrecord.final_record([second, first]) is second  # attempt order, whatever the file order
    repeat = _record("m::t", "passed", 2, duration_s=2.0)
    assert cellrecord.final_record([first, second, repeat]) is repeat  # agreeing records are plain repeats
    # A record without an attempt (made in memory, schema 1) is a first attempt.
    assert cellrecord.final_record([_record("m::t", "passed", 2), {"status": "failed"}])["status"] == "passed"
    assert cellrecord.final_record([_record("m::t", "failed", None), {"status": "failed"}])["status"] == "failed"


def test_two_statuses_for_one_attempt_make_the_case_unknown() -> None:
    final = cellrecord.final_record([_record("m::t", "failed", 1, error_type="AssertionError"),
                                     _record("m::t", "passed", 1)])
    assert final["status"] == cellrecord.CONFLICTING
    assert final["reason"] == "conflicting records: attempt 1 was recorded as failed and passed"
    assert vocabulary.status_class(final["status"]) == vocabulary.UNKNOWN
    assert vocabulary.is_inconclusive(final["status"]) and not vocabulary.is_passing(final["status"])
    assert cellrecord.CONFLICTING not in vocabulary.ALL


def test_a_conflict_in_an_earlier_attempt_still_makes_the_case_unknown() -> None:
    records = [_record("m::t", "failed", 1), _record("m::t", "crashed", 1), _record("m::t", "passed", 2)]
    final = cellrecord.final_record(records)
    assert final["status"] == cellrecord.CONFLICTING and final["attempt"] == 2
    assert final["reason"] == "conflicting records: attempt 1 was recorded as failed and crashed"
    assert records[2]["status"] == "passed"  # the input is left alone


def test_final_records_groups_by_case_and_needs_a_record() -> None:
    records = [_record("m::a", "failed", 1), _record("m::b", "passed"), {"status": "passed"},
               _record("m::a", "passed", 2)]
    assert {case: r["status"] for case, r in cellrecord.final_records(records).items()} == {
        "m::a": "passed", "m::b": "passed"}
    with pytest.raises(ValueError, match="at least one record"):
        cellrecord.final_record([])


def test_one_module_decides_each_path_of_a_cell() -> None:
    files = cellrecord.CellFiles(Path("OUT"), "r", "c")
    assert files.results == cellrecord.CellFiles(Path("OUT"), "r", "c").results == Path("OUT/results/r/c.jsonl")
    assert (files.done, files.collection, files.log) == (Path("OUT/results/r/c.done.json"),
                                                          Path("OUT/results/r/c.collected.json"),
                                                          Path("OUT/results/r/c.log"))
    assert files.install_log == Path("OUT/results/r/c.install.log")
    assert files.freeze == Path("OUT/results/r/c.freeze.txt")
    assert files.sources == Path("OUT/results/r/c/cases")
    assert files.fault_log("gw0") == Path("OUT/results/r/c/faults/gw0.log")
    assert cellrecord.CellFiles.of(files.results) == files


def test_make_record_fills_every_field_in_order_and_refuses_unknown_ones() -> None:
    made = cellrecord.make_record(run_id="r", cell_id="c", case_id="m::t", status="passed")
    assert tuple(made) == cellrecord.FIELDS and made["schema_version"] == cellrecord.SCHEMA_VERSION
    with pytest.raises(ValueError, match="unknown record fields: \\['colour'\\]"):
        cellrecord.make_record(colour="red")


SUFFIXES = (cellrecord.RESULTS_SUFFIX, cellrecord.DONE_SUFFIX, cellrecord.COLLECTION_SUFFIX,
            cellrecord.INSTALL_LOG_SUFFIX, cellrecord.FREEZE_SUFFIX, cellrecord.INFLIGHT_SUFFIX)


def spelled_file_names(source: str) -> list[str]:
    """The string constants in Python source that name a cell's file by its suffix (not prose: no spaces)."""
    return [node.value for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and " " not in node.value and node.value.endswith(SUFFIXES)]


def test_no_module_but_harness_cellrecord_spells_a_cell_s_file_names() -> None:
    root = Path(cellrecord.__file__).resolve().parents[1]
    modules = [*root.glob("harness/**/*.py"), *root.glob("reports/**/*.py"), *root.glob("benchmarks/*.py"),
               root / "noxfile.py"]
    offenders = {str(path.relative_to(root)): found for path in modules if path.name != "cellrecord.py"
                 and (found := spelled_file_names(path.read_text(encoding="utf-8")))}
    assert offenders == {}


def test_the_spelling_check_catches_a_hand_made_path() -> None:
    source = 'p = out / f"{cell}.jsonl"\nq = p.with_suffix(".install.log")\nhelp = "a .jsonl file"'
    assert sorted(spelled_file_names(source)) == [".install.log", ".jsonl"]


def test_a_done_marker_round_trips_with_its_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "c.done.json"
    cellrecord.write_done(path, cell_id="c", finished="2026-11-24T00:00:00+00:00", returncode=1, fingerprint="k",
                       reused_from=None, seconds=1.5)
    assert cellrecord.read_done(path) == {"schema_version": cellrecord.DONE_SCHEMA_VERSION, "cell_id": "c",
                                       "finished": "2026-11-24T00:00:00+00:00", "returncode": 1, "fingerprint": "k",
                                       "reused_from": None, "seconds": 1.5}
    assert cellrecord.read_done(tmp_path / "absent.done.json") is None


@pytest.mark.parametrize(("text", "why"), [("{torn", "not valid JSON"), ("[1]", "a JSON list, not an object"),
                                           ('{"schema_version": 9}', "done marker schema 9, this reader knows 1")])
def test_a_done_marker_that_is_not_one_is_refused_naming_it(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "c.done.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(formats.FormatError, match=why) as refused:
        cellrecord.read_done(path)
    assert refused.value.path == path and str(refused.value).startswith(str(path))


def test_a_marker_without_a_schema_version_reads_as_version_1(tmp_path: Path) -> None:
    path = tmp_path / "c.done.json"
    path.write_text('{"returncode": 0}', encoding="utf-8")
    assert cellrecord.read_done(path) == {"returncode": 0}


def test_normalise_fills_what_the_path_implies_and_names_a_field_of_the_wrong_type() -> None:
    loose = {"case_id": "fam::test_a", "status": "passed", "warnings": "DeprecationWarning: x"}
    assert cellrecord.normalise(loose, "r", "c") is None
    assert (loose["run_id"], loose["cell_id"], loose["family"], loose["warnings"], loose["attempt"]) == (
        "r", "c", "fam", ["DeprecationWarning: x"], 1)
    assert cellrecord.normalise({"case_id": "m::t", "status": "passed", "duration_s": "1.5"}, "r", "c") == (
        "duration_s is '1.5', not a number")
