"""Tests for reports/data/load.py: reading the results tree, in pass/fail pairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from record_factory import collected, record

from harness import cellrecord
from harness.cellrecord import SCHEMA_VERSION, CellFiles, update_to_2
from reports.data.load import (
    FIELDS,
    ResultsError,
    list_runs,
    load_cells,
    load_results,
    read_done,
    read_jsonl,
    records_frame,
)

RUN = "20261121T084500Z-ab12"
CELL = "jax0.10.2-flax0.12.8-py3.11"




def record_v1(**fields: Any) -> dict[str, Any]:
    """A schema-1 record, as a writer before retries wrote it: no `attempt` field."""
    old = {name: value for name, value in record().items() if name != "attempt"}
    return {**old, "schema_version": 1, **fields}


def write_lines(root: Path, run_id: str, cell_id: str, lines: list[str]) -> Path:
    """Write raw lines as OUT/results/<run_id>/<cell_id>.jsonl under `root`."""
    path = root / run_id / f"{cell_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return collected(path)


def write_records(root: Path, run_id: str, cell_id: str, *records: dict[str, Any]) -> Path:
    return write_lines(root, run_id, cell_id, [json.dumps(r) for r in records])


# --- list_runs -------------------------------------------------------------------------------------------------


def test_list_runs_sorts_runs_holding_results(tmp_path: Path) -> None:
    write_records(tmp_path, "20261122T000000Z-bbbb", CELL, record())
    write_records(tmp_path, "20261121T000000Z-aaaa", CELL, record())
    assert list_runs(tmp_path) == ["20261121T000000Z-aaaa", "20261122T000000Z-bbbb"]


def test_list_runs_ignores_files_hidden_and_empty_folders(tmp_path: Path) -> None:
    write_records(tmp_path, RUN, CELL, record())
    (tmp_path / "20300101T000000Z-empty").mkdir()
    write_records(tmp_path, ".hidden", CELL, record())
    (tmp_path / "notes.txt").write_text("x")
    assert list_runs(tmp_path) == [RUN]
    assert list_runs(tmp_path / "missing") == []


# --- lines: kept or skipped ------------------------------------------------------------------------------------


def test_valid_lines_are_kept_in_file_order(tmp_path: Path) -> None:
    path = write_records(tmp_path, RUN, CELL, record(case_id="fam::b"), record(case_id="fam::a"))
    rows = list(read_jsonl(path))
    assert [r["case_id"] for r in rows] == ["fam::b", "fam::a"]
    assert [r["line"] for r in rows] == [1, 2]


def test_corrupt_line_is_skipped_with_a_warning_naming_file_and_line(tmp_path: Path) -> None:
    good = json.dumps(record())
    path = write_lines(tmp_path, RUN, CELL, [good, good[: len(good) // 2], good])
    with pytest.warns(RuntimeWarning, match=rf"{CELL}\.jsonl:2: skipped line: not valid JSON"):
        rows = list(read_jsonl(path))
    assert [r["line"] for r in rows] == [1, 3]


def test_non_object_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = write_lines(tmp_path, RUN, CELL, ["[1, 2]", json.dumps(record())])
    with pytest.warns(RuntimeWarning, match=r":1: skipped line: a JSON list, not an object"):
        rows = list(read_jsonl(path))
    assert len(rows) == 1


def test_blank_lines_are_skipped_silently(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    path = write_lines(tmp_path, RUN, CELL, ["", json.dumps(record()), "   "])
    assert len(list(read_jsonl(path))) == 1
    assert len(recwarn) == 0


def test_record_without_identity_is_skipped(tmp_path: Path) -> None:
    path = write_records(tmp_path, RUN, CELL, record(case_id=None), record(status=7), record())
    with pytest.warns(RuntimeWarning) as caught:
        rows = list(read_jsonl(path))
    assert len(rows) == 1
    assert ["case_id is None" in str(w.message) for w in caught] == [True, False]


def test_record_without_schema_version_is_skipped(tmp_path: Path) -> None:
    path = write_records(tmp_path, RUN, CELL, {k: v for k, v in record().items() if k != "schema_version"})
    with pytest.warns(RuntimeWarning, match="schema_version is None"):
        assert list(read_jsonl(path)) == []


def test_positive_integer_attempt_is_kept_and_a_missing_one_is_the_first(tmp_path: Path) -> None:
    path = write_records(tmp_path, RUN, CELL, record(attempt=3), record(attempt=None))
    assert [r["attempt"] for r in read_jsonl(path)] == [3, 1]


@pytest.mark.parametrize("attempt", [0, -1, "2", 1.5, True])
def test_record_with_a_bad_attempt_is_skipped(tmp_path: Path, attempt: object) -> None:
    path = write_records(tmp_path, RUN, CELL, record(attempt=attempt))
    with pytest.warns(RuntimeWarning, match=r":1: skipped line: attempt is .*, not a positive integer"):
        assert list(read_jsonl(path)) == []


def test_path_fills_missing_run_cell_and_family(tmp_path: Path) -> None:
    path = write_records(tmp_path, RUN, CELL, record(run_id=None, cell_id=None, family=None, warnings=None))
    (row,) = read_jsonl(path, RUN)
    assert (row["run_id"], row["cell_id"], row["family"], row["warnings"]) == (RUN, CELL, "fam", [])


# --- schema versions ------------------------------------------------------------------------------------------


def test_schema_2_is_read_migrated_to_no_declared_change(tmp_path: Path) -> None:
    path = write_records(tmp_path, RUN, CELL, record(status="failed"), record(status="passed", attempt=2))
    assert [(r["schema_version"], r["attempt"], r["change"], r["smoke"]) for r in read_jsonl(path)] == [
        (SCHEMA_VERSION, 1, None, None), (SCHEMA_VERSION, 2, None, None)]


def test_schema_3_keeps_its_declared_change(tmp_path: Path) -> None:
    change = {"since": "jax>=0.9.0", "what": "x", "raises": ["E"], "warned": None, "fix": "f", "kind": "default"}
    path = write_records(tmp_path, RUN, CELL, record(schema_version=3, change=change))
    assert [r["change"] for r in read_jsonl(path)] == [change]


def test_schema_1_file_loads_migrated_to_first_attempts(tmp_path: Path) -> None:
    write_records(tmp_path, RUN, CELL, record_v1(case_id="fam::a"), record_v1(case_id="fam::b"))
    frame = load_results(tmp_path)
    assert frame["schema_version"].tolist() == [SCHEMA_VERSION, SCHEMA_VERSION]
    assert frame["attempt"].tolist() == [1, 1]


def test_mixed_file_of_schema_1_and_2_lines_loads(tmp_path: Path) -> None:
    write_records(tmp_path, RUN, CELL, record_v1(status="failed"), record(status="passed", attempt=2))
    frame = load_results(tmp_path)
    assert frame[["status", "attempt"]].values.tolist() == [["failed", 1], ["passed", 2]]


def test_a_newer_schema_line_is_unaccounted_for_and_its_cell_says_so(tmp_path: Path) -> None:
    # Before, it refused the whole load; now the one cell whose file holds it cannot vouch for itself.
    newer = SCHEMA_VERSION + 1
    write_records(tmp_path, RUN, CELL, record(), record(schema_version=newer))
    with pytest.warns(RuntimeWarning, match=rf"{CELL}\.jsonl:2: skipped line: schema_version {newer} is newer than"):
        (lost,) = load_cells(tmp_path)["unaccounted"]
    assert len(lost) == 1 and f"schema_version {newer} is newer than this reader knows ({SCHEMA_VERSION})" in lost[0]


def test_older_schema_is_migrated_step_by_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def update_to_3(old: dict[str, Any]) -> dict[str, Any]:
        return {**old, "reason": f"migrated attempt {old['attempt']}"}

    monkeypatch.setattr(cellrecord, "SCHEMA_VERSION", 3)
    monkeypatch.setattr(cellrecord, "MIGRATIONS", {2: update_to_2, 3: update_to_3})
    path = write_records(tmp_path, RUN, CELL, record_v1())
    (row,) = read_jsonl(path)
    assert (row["schema_version"], row["reason"]) == (3, "migrated attempt 1")


def test_older_schema_without_a_migration_is_unaccounted_for(tmp_path: Path) -> None:
    write_records(tmp_path, RUN, CELL, record(), record(schema_version=0))
    with pytest.warns(RuntimeWarning, match="schema_version 0 has no migration to version 1"):
        load_results(tmp_path)


# --- choosing runs --------------------------------------------------------------------------------------------


def test_default_is_the_newest_run(tmp_path: Path) -> None:
    write_records(tmp_path, "20261121T000000Z-aaaa", CELL, record(run_id="20261121T000000Z-aaaa"))
    write_records(tmp_path, "20261122T000000Z-bbbb", CELL, record(run_id="20261122T000000Z-bbbb"))
    assert set(load_results(tmp_path)["run_id"]) == {"20261122T000000Z-bbbb"}
    assert set(load_results(tmp_path, ["20261121T000000Z-aaaa"])["run_id"]) == {"20261121T000000Z-aaaa"}
    assert len(set(load_results(tmp_path, all_runs=True)["run_id"])) == 2


def test_unknown_run_is_refused(tmp_path: Path) -> None:
    write_records(tmp_path, RUN, CELL, record())
    with pytest.raises(ResultsError, match=r"no run 'nope' under .* \(newest runs: 20261121T084500Z-ab12\)"):
        load_results(tmp_path, ["nope"])


def test_missing_folder_and_empty_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="no results folder at"):
        load_results(tmp_path / "results")
    (tmp_path / "results").mkdir()
    with pytest.raises(ResultsError, match="no runs under"):
        load_results(tmp_path / "results")


def test_run_of_only_corrupt_lines_is_refused(tmp_path: Path) -> None:
    write_lines(tmp_path, RUN, CELL, ["{not json"])
    with pytest.warns(RuntimeWarning), pytest.raises(ResultsError, match="no readable records"):
        load_results(tmp_path)


def test_files_other_than_jsonl_are_ignored(tmp_path: Path) -> None:
    write_records(tmp_path, RUN, CELL, record())
    (tmp_path / RUN / "cell.log").write_text("{garbage")
    (tmp_path / RUN / "machine.json").write_text(json.dumps(record(schema_version=99)))
    (tmp_path / RUN / f"{CELL}.done.json").write_text(json.dumps(record(schema_version=99)))
    assert len(load_results(tmp_path)) == 1


# --- done markers: finished or interrupted cells --------------------------------------------------------------


def mark_done(results_file: Path, text: str | None = None) -> Path:
    """Write the harness's done marker beside `results_file` (or `text` in its place); return its path."""
    marker = {"schema_version": 1, "cell_id": results_file.stem, "finished": "2026-11-21T09:00:00+00:00",
              "returncode": 1}
    path = CellFiles.of(results_file).done
    path.write_text(json.dumps(marker) if text is None else text, encoding="utf-8")
    return path


def test_done_marker_sits_beside_the_results_file() -> None:
    results_file = Path("OUT/results") / RUN / f"{CELL}.jsonl"
    assert CellFiles.of(results_file).done == Path("OUT/results") / RUN / f"{CELL}.done.json"


@pytest.mark.parametrize("done", [True, False])
def test_cell_is_complete_when_it_has_a_done_marker(tmp_path: Path, done: bool) -> None:
    path = write_records(tmp_path, RUN, CELL, record())
    if done:
        mark_done(path)
    expected = [{"run_id": RUN, "cell_id": CELL, "complete": done, "reused_from": None, "sources": {},
                 "unaccounted": [], "collected": ["fam::test_a"], "machine": None,
                 "precision": None}]
    assert load_cells(tmp_path).to_dict("records") == expected


def test_cell_reused_from_an_earlier_run_names_it(tmp_path: Path) -> None:
    path = write_records(tmp_path, RUN, CELL, record())
    path.with_suffix(".done.json").write_text('{"returncode": 0, "reused_from": "20261120T000000Z-0000"}')
    assert load_cells(tmp_path).to_dict("records")[0]["reused_from"] == "20261120T000000Z-0000"


def test_done_marker_is_read_as_an_object(tmp_path: Path) -> None:
    path = write_records(tmp_path, RUN, CELL, record())
    mark_done(path)
    assert read_done(path) == {"schema_version": 1, "cell_id": CELL, "finished": "2026-11-21T09:00:00+00:00",
                               "returncode": 1}


@pytest.mark.parametrize(("text", "why"), [('{"schema_version": 1, "cell', "not valid JSON"),
                                           ("[1]", "a JSON list, not an object")])
def test_corrupt_done_marker_counts_as_absent_with_a_warning_naming_it(tmp_path: Path, text: str, why: str) -> None:
    marker = mark_done(write_records(tmp_path, RUN, CELL, record()), text)
    with pytest.warns(RuntimeWarning, match=rf"{CELL}\.done\.json: ignored done marker: {why}") as caught:
        cells = load_cells(tmp_path)
    assert str(marker) in str(caught[0].message)
    assert cells["complete"].tolist() == [False]


def test_a_cell_interrupted_before_its_first_case_is_still_listed(tmp_path: Path) -> None:
    mark_done(write_records(tmp_path, RUN, CELL, record()))
    write_lines(tmp_path, RUN, "jax0.4.38-flax0.10.2-py3.12", [])
    cells = load_cells(tmp_path)
    assert cells[["cell_id", "complete"]].values.tolist() == [["jax0.10.2-flax0.12.8-py3.11", True],
                                                             ["jax0.4.38-flax0.10.2-py3.12", False]]


def test_load_cells_chooses_runs_like_load_results(tmp_path: Path) -> None:
    write_records(tmp_path, "20261121T000000Z-aaaa", CELL, record())
    write_records(tmp_path, "20261122T000000Z-bbbb", CELL, record())
    assert load_cells(tmp_path)["run_id"].tolist() == ["20261122T000000Z-bbbb"]
    assert len(load_cells(tmp_path, all_runs=True)) == 2
    with pytest.raises(ResultsError, match="no run 'nope'"):
        load_cells(tmp_path, ["nope"])


# --- the frame ------------------------------------------------------------------------------------------------


def test_frame_has_every_field_and_typed_numbers() -> None:
    frame = records_frame([record(device_count=8), record(device_count=None, duration_s=None, attempt=None)])
    assert list(frame.columns) == [*FIELDS, "source", "line"]
    assert FIELDS[FIELDS.index("status") + 1] == "attempt"
    assert str(frame["device_count"].dtype) == str(frame["attempt"].dtype) == "Int64"
    assert frame["attempt"].tolist() == [1, 1]
    assert frame["duration_s"].isna().tolist() == [False, True]
    assert frame["line"].tolist() == [1, 2]


def test_frame_keeps_a_non_integral_device_count_as_float() -> None:
    frame = records_frame([record(device_count=1.5)])
    assert frame["device_count"].tolist() == [1.5]


def test_a_venv_path_in_an_error_is_read_package_relative(tmp_path: Path) -> None:
    venv = "/home/me/.nox/cell-x/lib/python3.11/site-packages"
    write_records(tmp_path, RUN, CELL, record(status="failed", error_message=f"bad ({venv}/jax/_src/core.py)",
                                              reason=f"see {venv}/flax/nnx/x.py", warnings=[f"W: {venv}/jax/a.py"]))
    (row,) = load_results(tmp_path).to_dict("records")
    assert (row["error_message"], row["reason"], row["warnings"]) == (
        "bad (jax/_src/core.py)", "see flax/nnx/x.py", ["W: jax/a.py"])
