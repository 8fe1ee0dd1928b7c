"""harness.cell.imports: which module a cell lacks, whose it is, and the hint a record gives."""

from __future__ import annotations

from pathlib import Path

from harness.cell import imports


def test_a_module_the_cell_lacks_entirely_is_named_by_its_top_level() -> None:
    assert imports.missing_module(ModuleNotFoundError("No module named 'x'", name="sklearn_xyz.metrics")) == (
        "sklearn_xyz")


def test_a_submodule_of_an_installed_package_or_another_error_is_not_a_missing_module() -> None:
    assert imports.missing_module(ModuleNotFoundError("No module named 'json.x'", name="json.x")) is None
    assert imports.missing_module(ImportError("cannot import name 'x' from 'json'", name="json")) is None
    assert imports.missing_module(ModuleNotFoundError("odd")) is None  # no name to go by
    assert imports.missing_module(ValueError("sklearn")) is None


def project(root: Path, package: str, layout: str) -> Path:
    """A project with its package under src/ or beside its tests, and one test module; returns the test module."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    folder = root / layout / package if layout else root / package
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (root / "tests" / "unit").mkdir(parents=True)
    test = root / "tests" / "unit" / "test_x.py"
    test.write_text("")
    return test


def test_a_package_of_the_cases_own_project_is_found_in_src_or_flat_layouts(tmp_path: Path) -> None:
    assert imports.is_own_module("mytrainer", project(tmp_path / "a", "mytrainer", "src"))
    assert imports.is_own_module("mytrainer", project(tmp_path / "b", "mytrainer", ""))
    helper = project(tmp_path / "c", "pkg", "")
    (helper.parent / "helpers_xyz.py").write_text("")
    assert imports.is_own_module("helpers_xyz", helper)


def test_a_module_outside_the_project_is_not_its_own(tmp_path: Path) -> None:
    test = project(tmp_path / "p", "mytrainer", "src")
    assert not imports.is_own_module("sklearn", test)
    # Beyond the project's root: a package above it belongs to something else.
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "__init__.py").write_text("")
    assert not imports.is_own_module("other", test)


def test_without_a_project_root_only_the_nearest_folders_are_looked_at(tmp_path: Path) -> None:
    (tmp_path / "far").mkdir()
    (tmp_path / "far" / "__init__.py").write_text("")
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert not imports.is_own_module("far", deep / "test_x.py")
    (tmp_path / "a" / "b" / "near.py").write_text("")
    assert imports.is_own_module("near", deep / "test_x.py")


def test_the_hint_names_the_distribution_only_where_it_is_beyond_doubt(tmp_path: Path) -> None:
    test = tmp_path / "tests" / "test_x.py"
    assert imports.hint(ModuleNotFoundError("x", name="sklearn"), test) == (
        "No module named 'sklearn': the cell lacks it; add it with --with scikit-learn")
    assert imports.hint(ModuleNotFoundError("x", name="somedep_xyz"), test) == (
        "No module named 'somedep_xyz': the cell lacks it; add it with --with <its distribution>")
    assert imports.hint(ImportError("cannot import name 'x' from 'json'"), test) is None


def test_the_hint_for_the_cases_own_project_asks_for_the_project(tmp_path: Path) -> None:
    test = project(tmp_path, "mytrainer_xyz", "src")
    assert imports.hint(ModuleNotFoundError("x", name="mytrainer_xyz.steps"), test) == (
        "No module named 'mytrainer_xyz': it belongs to the cases' own project, which this cell does not have; "
        "install the project with --project DIR")
