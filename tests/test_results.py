"""harness/results.py: a cell's results tree, the one writer, and a reading that accounts for everything, in pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from record_factory import RUN, cell_id, collected, record

from harness import celldocuments, cellrecord, results
from harness.cellrecord import SCHEMA_VERSION

CELL = cell_id()


def write(tmp_path: Path, *lines: str, cell: str = CELL, cases: list[str] | None = None, done: bool = True) -> Path:
    """A cell's results file of raw lines under tmp/results/RUN, its collection (the records' case ids, or `cases`),
    and its done marker."""
    path = cellrecord.CellFiles(tmp_path, RUN, cell).results
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    collected(path, cases)
    if done:
        done_file = cellrecord.CellFiles.of(path).done
        done_file.write_text(json.dumps({"schema_version": 1, "cell_id": cell}), encoding="utf-8")
    return path


def good(tmp_path: Path) -> Path:
    return write(tmp_path, json.dumps(record()), json.dumps(record(case_id="fam::test_b")))


# --- paths and the writer -------------------------------------------------------------------------------------------


def test_the_writer_flushes_each_line_and_the_reader_reads_what_it_wrote(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    writer = results.JsonlWriter(path)
    writer.write(cellrecord.make_record(case_id="m::a", status="passed", error_message="line\u2028break\x85next"))
    assert results.recorded_case_ids(path) == {"m::a"}  # before close: flushed
    writer.close()


# --- the reading accounts for everything ----------------------------------------------------------------------------


def test_a_cell_of_good_records_with_its_collection_is_accounted_for(tmp_path: Path) -> None:
    reading = results.read_cell(good(tmp_path))
    assert reading.accounted and reading.complete and reading.expected == ("fam::test_a", "fam::test_b")
    assert [r["case_id"] for r in reading.records] == ["fam::test_a", "fam::test_b"]


@pytest.mark.parametrize(("line", "why"), [
    ('{"schema_version": 3, "trunc', "not valid JSON"),
    ("[1, 2]", "a JSON list, not an object"),
    (json.dumps(record(schema_version=SCHEMA_VERSION + 1)),
     f"schema_version {SCHEMA_VERSION + 1} is newer than this reader knows ({SCHEMA_VERSION})"),
    (json.dumps(record(schema_version="3")), "schema_version is '3', not an integer"),
    (json.dumps(record(case_id=None)), "case_id is None, not a string"),
    (json.dumps(record(status="")), "status is '', not a string"),
    (json.dumps(record(jax=10)), "jax is 10, not a string"),
    (json.dumps(record(duration_s="fast")), "duration_s is 'fast', not a number"),
    (json.dumps(record(attempt=0)), "attempt is 0, not a positive integer"),
    (json.dumps(record(smoke="yes")), "smoke is 'yes', not true or false"),
    (json.dumps(record(change=["x"])), "change is ['x'], not an object"),
])
def test_each_line_it_cannot_use_is_named_by_file_and_line(tmp_path: Path, line: str, why: str) -> None:
    path = write(tmp_path, json.dumps(record(case_id="fam::test_b")), line, cases=["fam::test_b"])
    reading = results.read_cell(path)
    (problem,) = reading.problems
    assert not reading.accounted and problem.startswith(f"{path}:2: skipped line: {why}")


def test_a_line_that_is_not_utf8_is_named_not_replaced(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(record()))
    path.write_bytes(path.read_bytes() + b'{"case_id": "\xff"}\n')
    (problem,) = results.read_cell(path).problems
    assert problem.startswith(f"{path}:2: skipped line: not UTF-8")


def test_a_torn_last_line_is_named_torn(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(record()))
    path.write_text(path.read_text() + json.dumps(record(case_id="fam::test_b"))[:30])
    assert results.read_cell(path).problems == (
        f"{path}:2: skipped line: not valid JSON (torn: the file ends mid-record)",)


def test_an_expected_case_without_a_record_is_unaccounted(tmp_path: Path) -> None:
    cases = [f"fam::test_{n}" for n in range(103)]
    path = write(tmp_path, json.dumps(record(case_id="fam::test_0")), cases=cases)
    (problem,) = results.read_cell(path).problems
    assert problem == f"{path}: 102 of 103 expected case(s) have no record: fam::test_1, fam::test_2, fam::test_3 " \
                      "(+99 more)"


def test_a_module_that_did_not_import_answers_for_its_expected_cases(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(record(case_id="fam::<collection>", status="error")),
                 cases=["fam::test_a", "fam::test_b"])
    assert results.read_cell(path).accounted


def test_no_collection_recorded_is_unaccounted(tmp_path: Path) -> None:
    path = good(tmp_path)
    cellrecord.CellFiles.of(path).collection.unlink()
    (problem,) = results.read_cell(path).problems
    assert "no collection recorded" in problem


def test_a_retry_without_its_first_attempt_is_unaccounted_and_a_full_retry_is_not(tmp_path: Path) -> None:
    gap = write(tmp_path, json.dumps(record(attempt=2)))
    assert "fam::test_a has attempt 2 without attempt 1" in results.read_cell(gap).problems[0]
    full = write(tmp_path, json.dumps(record(status="failed", cell_id="other")),
                 json.dumps(record(attempt=2, cell_id="other")), cell="other")
    assert results.read_cell(full).accounted


def test_conflicting_records_of_one_attempt_are_unaccounted_and_a_timing_repeat_is_not(tmp_path: Path) -> None:
    repeat = write(tmp_path, json.dumps(record()), json.dumps(record(duration_s=0.6)))
    assert results.read_cell(repeat).accounted  # the harness writes a passing attempt's timing repeats so
    conflict = write(tmp_path, json.dumps(record()), json.dumps(record(status="failed")), cell="other")
    assert "attempt 1 is recorded as passed and failed" in results.read_cell(conflict).problems[0]


def test_an_unreadable_done_marker_is_unaccounted_and_the_cell_interrupted(tmp_path: Path) -> None:
    path = good(tmp_path)
    cellrecord.CellFiles.of(path).done.write_text('{"returnco')
    reading = results.read_cell(path)
    assert not reading.complete and "ignored done marker: not valid JSON" in reading.problems[0]


def test_a_folder_named_like_a_results_file_is_one_line(tmp_path: Path) -> None:
    path = cellrecord.CellFiles(tmp_path, RUN, CELL).results
    path.mkdir(parents=True)
    assert results.read_cell(path).problems[0] == f"{path}: a folder, not a results file"


# --- identity -------------------------------------------------------------------------------------------------------


def test_a_freeze_naming_the_cell_ids_versions_agrees(tmp_path: Path) -> None:
    path = good(tmp_path)
    cellrecord.CellFiles.of(path).freeze.write_text("flax==0.12.8\njax==0.10.2\njaxlib==0.10.2\n")
    assert not results.read_cell(path).unusable


def test_a_freeze_naming_another_jax_makes_the_cell_unusable(tmp_path: Path) -> None:
    path = good(tmp_path)
    cellrecord.CellFiles.of(path).freeze.write_text("flax==0.12.8\njax==0.9.2\njaxlib==0.9.2\n")
    mismatches = results.read_cell(path).mismatches
    assert mismatches[0].endswith("jax==0.9.2, but the cell id names jax 0.10.2")


def test_records_naming_another_jax_or_python_than_their_cell_make_it_unusable(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(record()), json.dumps(record(case_id="fam::test_b", jax="0.9.2", cell_id=CELL)))
    assert "the record names jax 0.9.2 (the cell is jax 0.10.2)" in results.read_cell(path).mismatches[0]
    other = write(tmp_path, json.dumps(record(python="3.12.1", cell_id=CELL)))
    assert "python 3.12.1 (the cell is python 3.11)" in results.read_cell(other).mismatches[0]


def test_a_done_marker_naming_another_cell_makes_it_unusable(tmp_path: Path) -> None:
    path = good(tmp_path)
    cellrecord.CellFiles.of(path).done.write_text(json.dumps({"cell_id": "jax0.9.2-flax0.12.8-py3.11"}))
    assert "names cell 'jax0.9.2-flax0.12.8-py3.11'" in results.read_cell(path).mismatches[0]


# --- the collection -------------------------------------------------------------------------------------------------


def test_another_cells_collection_is_refused_and_leaves_the_cell_unaccounted(tmp_path: Path) -> None:
    path = good(tmp_path)
    assert results.read_cell(path).accounted  # its own collection: every expected case recorded
    celldocuments.write_collection(path, "jax0.9.2-flax0.12.8-py3.11", [])  # another's, empty: nothing would be missing
    with pytest.raises(results.formats.FormatError, match=r"the collection of cell 'jax0\.9\.2-flax0\.12\.8-py3\.11'"):
        celldocuments.read_collection(path)
    reading = results.read_cell(path)
    assert not reading.accounted and reading.expected is None


def test_the_results_module_imports_nothing_but_the_standard_library_and_its_siblings() -> None:
    import ast

    tree = ast.parse(Path(results.__file__).read_text())
    found = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    found |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert {name for name in found if name.split(".")[0] not in {"__future__", "json", "os", "re", "collections",
                                                                 "dataclasses", "datetime", "pathlib", "typing"}} \
        == {"harness", "harness.celldocuments", "harness.cellidentity", "harness.cellrecord", "harness.vocabulary"}


def test_a_source_built_cell_agrees_with_its_freeze_s_build_and_not_with_another(tmp_path: Path) -> None:
    cell = "jax0.10.2-flax0.12.6+tree.5a0b5832-py3.11"
    path = write(tmp_path, json.dumps(record(flax="0.12.6", cell_id=cell)), cell=cell)
    freeze = "# flax 0.12.6 from file:///src/flax ({})\njax==0.10.2\nflax @ file:///src/flax\n"
    cellrecord.CellFiles.of(path).freeze.write_text(freeze.format("tree.5a0b5832"))
    assert not results.read_cell(path).unusable  # the record names the built version, the id its build
    cellrecord.CellFiles.of(path).freeze.write_text(freeze.format("tree.00000000"))
    assert results.read_cell(path).mismatches == (
        f"{cellrecord.CellFiles.of(path).freeze}: flax built as 0.12.6+tree.00000000, but the cell id names flax "
        "0.12.6+tree.5a0b5832",)


def test_a_newer_machine_file_is_refused_and_its_cell_reads_unaccounted(tmp_path: Path) -> None:
    path = tmp_path / "r" / "c.jsonl"
    celldocuments.write_machine(path, "c", {})
    cellrecord.CellFiles.of(path).machine.write_text('{"schema_version": 99}', encoding="utf-8")
    with pytest.raises(results.formats.FormatError, match="machine schema 99"):
        celldocuments.read_machine(path)
    assert any("machine schema 99" in line for line in results.read_cell(path).problems)


@pytest.mark.parametrize(("text", "said"), [
    ('{"schema_version": 2, "cases": {}}', "precision schema 2"),
    ('{"schema_version": 1, "cell_id": "c", "settings": {"JAX_DEFAULT_MATMUL_PRECISION": "highest"}, '
     '"cases": {"m::t": "passed"}}', "each with a status"),
    # Another cell's re-run, or one that does not say it ran at the highest precision, explains nothing here.
    ('{"schema_version": 1, "cell_id": "other", "settings": {"JAX_DEFAULT_MATMUL_PRECISION": "highest"}, '
     '"cases": {}}', "the re-run of cell 'other', not of 'c'"),
    ('{"schema_version": 1, "cell_id": "c", "settings": {}, "cases": {}}',
     "does not record a re-run at JAX_DEFAULT_MATMUL_PRECISION=highest"),
    ('{"schema_version": 1, "cell_id": "c", "settings": {"JAX_DEFAULT_MATMUL_PRECISION": "high"}, "cases": {}}',
     "it says 'high'"),
    ("[]", "not a precision file"),
])
def test_a_precision_file_that_does_not_read_leaves_its_cell_unaccounted(tmp_path: Path, text: str,
                                                                        said: str) -> None:
    path = tmp_path / "r" / "c.jsonl"
    cellrecord.CellFiles.of(path).precision.parent.mkdir(parents=True)
    cellrecord.CellFiles.of(path).precision.write_text(text, encoding="utf-8")
    with pytest.raises(results.formats.FormatError, match=said):
        celldocuments.read_precision(path)
    reading = results.read_cell(path)
    assert not reading.accounted and reading.precision is None


def machine_of(cell: str = CELL, **jax: object) -> dict[str, object]:
    """The machine file of a CPU cell of jax 0.10.2, as harness.cell.stack writes it, with `jax` overriding."""
    asked = {"backend": "cpu", "devices": [{"kind": "cpu"}], "distributions": {"jax": "0.10.2", "jaxlib": "0.10.2"},
             "mismatched": [], **jax}
    return {"schema_version": celldocuments.MACHINE_SCHEMA_VERSION, "cell_id": cell, "jax": asked, "nvidia_smi": None,
            "settings": {}, "x64": False, "matmul_precision": None}


def machined(tmp_path: Path, machine: dict[str, object]) -> Path:
    path = write(tmp_path, json.dumps(record(backend="cpu", device_kind="cpu")),
                 json.dumps(record(case_id="fam::test_b", backend="cpu", device_kind="cpu")))
    cellrecord.CellFiles.of(path).freeze.write_text("flax==0.12.8\njax==0.10.2\njaxlib==0.10.2\n")
    cellrecord.CellFiles.of(path).machine.write_text(json.dumps(machine))
    return path


def test_a_machine_file_that_agrees_with_the_cell_its_freeze_and_its_records_leaves_it_usable(tmp_path: Path) -> None:
    reading = results.read_cell(machined(tmp_path, machine_of()))
    assert reading.accounted and reading.machine is not None


@pytest.mark.parametrize(("machine", "said"), [
    (machine_of(cell="jax0.9.2-flax0.12.8-py3.11"), "the stack of cell 'jax0.9.2-flax0.12.8-py3.11'"),
    (machine_of(distributions={"jax": "0.9.2", "jaxlib": "0.10.2"}), "jax 0.9.2, but the cell is jax 0.10.2"),
    (machine_of(distributions={"jax": "0.10.2", "jaxlib": "0.9.2"}), "jaxlib 0.9.2, but the cell is jaxlib 0.10.2"),
    # The writer's own list says nothing is mismatched; the versions say the plugin is not jaxlib's.
    (machine_of(distributions={"jax": "0.10.2", "jaxlib": "0.10.2", "jax-cuda12-plugin": "0.9.2"}),
     "jax-cuda12-plugin 0.9.2 does not match jaxlib 0.10.2"),
    (machine_of(backend="gpu"), "backend gpu, but the records ran on cpu"),
    (machine_of(devices=[{"kind": "NVIDIA H200"}]), "devices NVIDIA H200, but the records ran on cpu"),
])
def test_a_machine_file_that_disagrees_makes_its_cell_unusable(tmp_path: Path, machine: dict[str, object],
                                                               said: str) -> None:
    reading = results.read_cell(machined(tmp_path, machine))
    assert reading.unusable and any(said in line for line in reading.mismatches), reading.mismatches


@pytest.mark.parametrize("jax", ['"cpu"', '{"distributions": {"jax": 1}}', '{"devices": ["cpu"]}'])
def test_a_machine_file_not_shaped_as_written_is_one_line_and_its_cell_unaccounted(tmp_path: Path, jax: str) -> None:
    path = good(tmp_path)
    cellrecord.CellFiles.of(path).machine.write_text(f'{{"schema_version": 1, "cell_id": "{CELL}", "jax": {jax}}}')
    with pytest.raises(results.formats.FormatError, match="not a machine file"):
        celldocuments.read_machine(path)
    assert not results.read_cell(path).accounted


def test_a_machine_file_naming_a_plugin_the_freeze_pins_otherwise_makes_the_cell_unusable(tmp_path: Path) -> None:
    stack = machine_of(distributions={"jax": "0.10.2", "jaxlib": "0.10.2", "jax-cuda12-plugin": "0.10.2"})
    path = machined(tmp_path, stack)
    assert results.read_cell(path).accounted  # the freeze pins no plugin: nothing to disagree with
    cellrecord.CellFiles.of(path).freeze.write_text("flax==0.12.8\njax==0.10.2\njaxlib==0.10.2\njax_cuda12_plugin==0.9.2\n")
    assert any("jax-cuda12-plugin 0.10.2, but the freeze pins jax-cuda12-plugin==0.9.2" in line
               for line in results.read_cell(path).mismatches)




def test_the_case_in_flight_is_the_last_one_named(tmp_path: Path) -> None:
    path = tmp_path / "cell.inflight"
    results.write_inflight(path, "cases/a.py::test_one")
    results.write_inflight(path, "cases/a.py::test_two[x\ny]")
    assert results.read_inflight(path) == "cases/a.py::test_two[x y]"
    assert path.read_text(encoding="utf-8").count("\n") == 2  # appended, never rewritten


def test_an_inflight_file_naming_no_case_reads_empty(tmp_path: Path) -> None:
    path = tmp_path / "cell.inflight"
    path.write_text("\n\n", encoding="utf-8")
    assert results.read_inflight(path) == ""
