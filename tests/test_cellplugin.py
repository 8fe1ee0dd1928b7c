"""harness.host.cellplugin: a cell gets the plugin and what it imports, staged apart, and nothing else of ours."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from test_layout import IN_CELL

from harness.host import cellplugin
from harness.host.renaming import StagingError
from harness.host.shipped import shipped
from harness.host.uv import uv_command

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "harness"


def test_what_is_staged_is_what_runs_in_a_cell() -> None:
    staged = {HARNESS / relative for relative in cellplugin.files() if relative.suffix == ".py"}
    assert set(IN_CELL) <= staged
    assert staged - set(IN_CELL) == {HARNESS / "__init__.py"}


def test_the_staged_distribution_holds_only_its_own_package_with_the_plugins_entry_point(tmp_path: Path) -> None:
    folder = cellplugin.staged(tmp_path)
    assert {p.name for p in folder.iterdir()} == {"shardmatrix_cell", "pyproject.toml"}
    package = folder / "shardmatrix_cell"
    assert not (package / "host").exists() and not (package / "tools").exists()
    # Data the in-cell modules find beside themselves travels with them.
    assert (package / "cell" / "shortage.toml").read_bytes() == (HARNESS / "cell" / "shortage.toml").read_bytes()
    text = (folder / "pyproject.toml").read_text()
    assert 'shardmatrix = "shardmatrix_cell.cell.plugin"' in text and f'name = "{cellplugin.NAME}"' in text
    assert 'packages = ["shardmatrix_cell"]' in text
    assert all(f'"{line}"' in text for line in cellplugin.dependencies())
    assert cellplugin.staged(tmp_path) == folder  # made once per content


def test_a_cell_gets_the_plugins_dependencies_and_none_of_what_only_the_command_needs(tmp_path: Path) -> None:
    # pyproject's dependencies are the command's: uv, pandas and jinja2 too, which a cell's venv never installs.
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert {"uv>=0.5", "pandas>=2.1", "jinja2>=3.1"} <= set(declared)
    names = [Requirement(line).name for line in cellplugin.dependencies()]
    assert sorted(names) == sorted(cellplugin.RUNS_WITH)
    text = (cellplugin.staged(tmp_path) / "pyproject.toml").read_text(encoding="utf-8")
    assert not re.search(r'"(uv|pandas|jinja2)\b', text), text


def test_a_pyproject_that_is_not_toml_stops_the_staging_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "pyproject.toml"
    broken.write_text("[project\n")
    with pytest.raises(StagingError, match=rf"^{broken}: malformed TOML \("):
        cellplugin.dependencies(broken)


def test_a_pyproject_that_declares_no_floor_for_what_the_plugin_runs_with_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["pytest>=8.2", "pytest-xdist>=3.5", '
                                             '"pytest-timeout>=2.4", "packaging>=23", "tomli>=2", "pandas>=2.1"]\n',
                                             encoding="utf-8")
    with pytest.raises(StagingError, match=r"declare no pytest-rerunfailures, which a cell's plugin runs with"):
        cellplugin.dependencies(tmp_path / "pyproject.toml")


#: A module name as an import, importlib or an entry point would be given it.
MODULE_NAME = re.compile(r"harness(\.\w+)*")


def test_the_staged_copy_names_no_module_of_harness(tmp_path: Path) -> None:
    package = cellplugin.staged(tmp_path) / cellplugin.PACKAGE
    named = []
    for module in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and MODULE_NAME.match(node.module):
                named.append(f"{module.name}: from {node.module}")
            elif isinstance(node, ast.Import):
                named += [f"{module.name}: import {a.name}" for a in node.names if MODULE_NAME.match(a.name)]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_NAME.fullmatch(node.value):
                named.append(f"{module.name}: {node.value!r}")
    # The one name left is the case API's, bound only when the runner asks (harness.cell.caseapi).
    assert named == ["caseapi.py: 'harness'"]


def test_the_staged_plugin_imports_and_leaves_the_name_harness_to_the_project(tmp_path: Path) -> None:
    # The project's own `harness` on the path, as its folder is in its cell: the plugin takes nothing of it.
    (tmp_path / "own" / "harness").mkdir(parents=True)
    (tmp_path / "own" / "harness" / "__init__.py").write_text('ORIGIN = "project"\n', encoding="utf-8")
    check = ("import sys, shardmatrix_cell.cell.plugin as plugin; before = 'harness' in sys.modules; import harness; "
             "print(plugin.MARKER, before, harness.ORIGIN)")
    done = subprocess.run([sys.executable, "-P", "-c", check], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": f"{tmp_path / 'own'}:{cellplugin.staged(tmp_path / 'staged')}"},
                          check=False)
    assert done.stdout.strip() == "shardmatrix False project", done.stderr


def test_a_changed_in_cell_module_makes_another_distribution(tmp_path: Path) -> None:
    copy = tmp_path / "harness"
    shutil.copytree(HARNESS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = cellplugin.staged(tmp_path / "staged", copy)
    (copy / "host" / "cellrun.py").write_text("# the host side is not in a cell\n")
    assert cellplugin.staged(tmp_path / "staged", copy) == before
    (copy / "cell" / "plugin.py").write_text((copy / "cell" / "plugin.py").read_text() + "\n# changed\n")
    assert cellplugin.staged(tmp_path / "staged", copy) != before


CHECK = """
import importlib.metadata, importlib.util, sys
plugin = [e.value for e in importlib.metadata.entry_points(group="pytest11") if e.name == "shardmatrix"]
print(plugin, [n for n in ("harness", "reports", "tests", "cases", "benchmarks", "noxfile")
               if importlib.util.find_spec(n) is not None], sys.argv[1] in sys.path)
"""


@pytest.fixture(scope="module")
def cell_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a venv holding the staged distribution, as a cell's does."""
    if shutil.which("uv") is None and not (Path(sys.executable).parent / "uv").exists():
        pytest.skip("uv is not available")
    folder = tmp_path_factory.mktemp("cell")
    subprocess.run([*uv_command(), "venv", "-q", "-p", sys.executable, str(folder / "venv")], check=True)
    python = folder / "venv" / "bin" / "python"
    subprocess.run([*uv_command(), "pip", "install", "-q", "--python", str(python),
                    str(cellplugin.staged(folder / "staged"))], check=True, capture_output=True)
    return python


def test_in_a_cell_only_the_plugin_is_ours(cell_python: Path, tmp_path: Path) -> None:
    done = subprocess.run([str(cell_python), "-c", CHECK, str(ROOT)], cwd=tmp_path, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "['shardmatrix_cell.cell.plugin'] [] False"


def recorded(cell_python: Path, where: Path, *options: str) -> dict[str, str]:
    """Run pytest in the cell from `where`, recording; each case's status (and error, when it has one)."""
    out = where / "out"
    subprocess.run([str(cell_python), "-m", "pytest", "tests", "--shardmatrix-out", str(out), "--shardmatrix-run", "r",
                    "--shardmatrix-cell", "c", "--shardmatrix-devices", "0", "-p", "no:cacheprovider", *options],
                   cwd=where, capture_output=True, text=True, check=False)
    lines = (out / "results" / "r" / "c.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["case_id"]: " ".join(filter(None, (record["status"], record["error_message"])))
            for record in map(json.loads, lines)}


def test_a_projects_own_harness_answers_its_tests_in_a_cell(cell_python: Path, tmp_path: Path) -> None:
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "harness" / "loops.py").write_text("def steps() -> int:\n    return 3\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_loops.py").write_text(
        "from harness.loops import steps\n\n\ndef test_steps() -> None:\n    assert steps() == 3\n", encoding="utf-8")
    assert recorded(cell_python, tmp_path) == {"test_loops::test_steps": "passed"}


CASE = '''from harness.case import Change, case


@case("gathers", changed=Change("jax>=0.9.0", "gather needs out_sharding", raises="ValueError", kind="api", fix="f"))
def test_gather() -> None:
    assert Change.__module__ == "shardmatrix_cell.change"
'''


def test_cases_written_against_the_case_api_run_when_the_runner_says_so(cell_python: Path, tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_gather.py").write_text(CASE, encoding="utf-8")
    assert recorded(cell_python, tmp_path, "--shardmatrix-case-api") == {"test_gather::test_gather": "passed"}


def test_without_the_runners_word_the_case_api_is_not_there(cell_python: Path, tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_gather.py").write_text(CASE, encoding="utf-8")
    assert recorded(cell_python, tmp_path) == {"test_gather::test_gather": "error No module named 'harness'"}


def harness_imports(module: Path) -> set[str]:
    """The harness modules a source file imports, at any depth of its body."""
    found = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("harness"):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("harness"))
    return found


def test_everything_the_plugin_imports_is_staged_for_the_cell() -> None:
    root = Path(cellplugin.__file__).resolve().parent.parent
    staged = {root / relative for relative in cellplugin.files(root)}
    todo, seen = ["harness.cell.plugin"], set()
    while todo:
        name = todo.pop()
        path = next((p for p in (root.parent / f"{name.replace('.', '/')}.py",
                                 root.parent / name.replace(".", "/") / "__init__.py") if p.is_file()), None)
        if path is None or name in seen:
            continue
        seen.add(name)
        assert path in staged, f"{name} is imported by the plugin but not staged for the cell"
        todo += harness_imports(path)


def test_the_staging_check_sees_a_module_left_out(tmp_path: Path) -> None:
    root = Path(cellplugin.__file__).resolve().parent.parent
    assert root / "host" / "runner.py" not in {root / relative for relative in cellplugin.files(root)}


def test_the_plugin_wheel_is_built_once_per_content_and_holds_the_staged_package(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = cellplugin.staged(tmp_path)
    built = cellplugin.wheel(folder)
    assert built.name.startswith(f"shardmatrix_cell-0+{folder.name[:12]}-") and built.suffix == ".whl"
    with zipfile.ZipFile(built) as archive:
        assert f"{cellplugin.PACKAGE}/cell/plugin.py" in archive.namelist()

    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("built again")

    monkeypatch.setattr(subprocess, "run", no_build)
    assert cellplugin.wheel(folder) == built  # every later cell installs the same wheel, unbuilt


def test_a_plugin_that_does_not_build_names_its_folder_and_leaves_no_wheel(tmp_path: Path) -> None:
    folder = cellplugin.staged(tmp_path)
    (folder / "pyproject.toml").write_text("[project\n", encoding="utf-8")
    with pytest.raises(StagingError, match=f"{folder}: the cell's plugin does not build: "):
        cellplugin.wheel(folder)
    assert not folder.with_name(f"{folder.name}-wheel").exists()
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]  # no scratch build left behind


def test_pyprojects_dependencies_are_its_project_tables_list(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\ndependencies = ["pytest>=8.2", "packaging"]\n')
    assert cellplugin.project_dependencies(pyproject, ValueError) == ["pytest>=8.2", "packaging"]
    assert "pytest-timeout>=2.4" in cellplugin.project_dependencies(shipped("pyproject.toml"), ValueError)


@pytest.mark.parametrize("text", ['[tool.x]\na = 1\n', '[project]\nname = "x"\n',
                                  '[project]\ndependencies = "pytest"\n'])
def test_a_pyproject_without_a_list_of_dependencies_is_refused_in_one_line(tmp_path: Path, text: str) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(text)
    with pytest.raises(ValueError, match=rf"^{pyproject}: no \[project\] dependencies \(a list of requirements\)$"):
        cellplugin.project_dependencies(pyproject, ValueError)
