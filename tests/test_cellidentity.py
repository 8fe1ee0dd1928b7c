"""Tests for harness/cellidentity.py: what a cell id and a freeze name (the disagreements between a cell's files are
tested through harness.results.read_cell, in tests/test_results.py)."""

from __future__ import annotations

from harness import cellidentity


def test_a_custom_cell_id_names_no_versions_to_check() -> None:
    assert cellidentity.cell_id_versions("mine") == {}
    assert cellidentity.cell_id_versions("jax0.9.2-flax0.12.6+tree.5a0b-py3.11-cuda12") == {
        "jax": "0.9.2", "flax": "0.12.6+tree.5a0b", "python": "3.11"}


def test_a_freeze_names_the_identity_packages_it_pins_and_nothing_else() -> None:
    text = "jax==0.9.2\nJaxlib==0.9.2\nnumpy==2.1.0\nflax @ git+https://example.invalid/flax\n"
    assert cellidentity.freeze_versions(text) == {"jax": "0.9.2", "jaxlib": "0.9.2"}


def test_an_installed_version_is_the_source_build_the_id_names_by_tag_but_not_another() -> None:
    assert cellidentity._same("0.12.6", "0.12.6+tree.5a0b")
    assert cellidentity._same("0.12.6", "0.12.6")
    assert not cellidentity._same("0.12.5", "0.12.6+tree.5a0b")


def test_the_identity_module_imports_nothing_but_the_standard_library_and_its_siblings() -> None:
    import ast
    from pathlib import Path

    tree = ast.parse(Path(cellidentity.__file__).read_text(encoding="utf-8"))
    found = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    found |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert {name for name in found if name.split(".")[0] not in {"__future__", "re", "collections", "pathlib",
                                                                 "typing"}} == {"harness", "harness.cellrecord"}
