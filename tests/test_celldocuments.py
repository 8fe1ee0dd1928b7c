"""A cell's JSON documents beside its records (harness.celldocuments): each reads back what was written, beside the
results file, and one of a newer schema is refused naming the file; how a cell's reading accounts for a bad one is
tests/test_results.py's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness import celldocuments, cellrecord, formats


def test_a_resumed_run_adds_to_the_collection_and_a_newer_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    celldocuments.write_collection(path, "c", ["m::a", "m::b"])
    celldocuments.write_collection(path, "c", ["m::c"])
    assert celldocuments.read_collection(path) == ("m::a", "m::b", "m::c")
    cellrecord.CellFiles.of(path).collection.write_text('{"schema_version": 2, "cases": []}')
    with pytest.raises(formats.FormatError, match="collection schema 2"):
        celldocuments.read_collection(path)


def test_the_machine_file_is_named_beside_the_results_and_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "r" / "c.jsonl"
    celldocuments.write_machine(path, "c", {"settings": {"JAX_ENABLE_X64": "1"}})
    assert cellrecord.CellFiles.of(path).machine == tmp_path / "r" / "c.machine.json"
    assert cellrecord.CellFiles.of(tmp_path / "results" / "r" / "c.jsonl").machine.name == "c.machine.json"
    assert celldocuments.read_machine(path) == {"schema_version": celldocuments.MACHINE_SCHEMA_VERSION,
                                                "cell_id": "c", "settings": {"JAX_ENABLE_X64": "1"}}
    assert celldocuments.read_machine(tmp_path / "r" / "other.jsonl") is None


def test_the_precision_re_run_reads_back_beside_the_results(tmp_path: Path) -> None:
    path = tmp_path / "r" / "c.jsonl"
    celldocuments.write_precision(path, "c", {"JAX_DEFAULT_MATMUL_PRECISION": "highest"},
                                  {"m::t": {"status": "passed", "error_type": None, "attempt": 1}})
    assert cellrecord.CellFiles.of(tmp_path / "results" / "r" / "c.jsonl").precision.name == "c.precision.json"
    assert celldocuments.read_precision(path) == {
        "m::t": {"status": "passed", "error_type": None, "error_message": None}}
    assert celldocuments.read_precision(tmp_path / "r" / "other.jsonl") is None


def test_the_module_imports_nothing_but_the_standard_library_and_its_siblings() -> None:
    tree = ast.parse(Path(celldocuments.__file__).read_text())
    found = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    found |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert {name for name in found if name.split(".")[0] not in {"__future__", "json", "collections", "pathlib",
                                                                 "typing"}} == {"harness", "harness.cellrecord"}
