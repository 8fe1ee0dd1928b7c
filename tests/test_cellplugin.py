"""harness.host.cellplugin: a cell gets the plugin and what it imports, staged apart, and nothing else of ours."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_layout import IN_CELL

from harness.host import cellplugin
from harness.host.uv import uv_command

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "harness"


def test_what_is_staged_is_what_runs_in_a_cell() -> None:
    staged = {HARNESS / relative for relative in cellplugin.files() if relative.suffix == ".py"}
    assert set(IN_CELL) <= staged
    assert staged - set(IN_CELL) == {HARNESS / "__init__.py"}


def test_the_staged_distribution_holds_only_harness_with_the_plugins_entry_point(tmp_path: Path) -> None:
    folder = cellplugin.staged(tmp_path)
    assert {p.name for p in folder.iterdir()} == {"harness", "pyproject.toml"}
    assert not (folder / "harness" / "host").exists() and not (folder / "harness" / "tools").exists()
    text = (folder / "pyproject.toml").read_text()
    assert 'shardmatrix = "harness.cell.plugin"' in text and f'name = "{cellplugin.NAME}"' in text
    assert all(f'"{line}"' in text for line in cellplugin.dependencies())
    assert cellplugin.staged(tmp_path) == folder  # made once per content


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
print(plugin, [n for n in ("reports", "tests", "cases", "benchmarks", "harness.host", "noxfile")
               if importlib.util.find_spec(n) is not None], sys.argv[1] in sys.path)
"""


def test_in_a_cell_only_the_plugin_is_ours(tmp_path: Path) -> None:
    if shutil.which("uv") is None and not (Path(sys.executable).parent / "uv").exists():
        pytest.skip("uv is not available")
    venv = tmp_path / "venv"
    subprocess.run([*uv_command(), "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    subprocess.run([*uv_command(), "pip", "install", "-q", "--python", str(venv / "bin" / "python"),
                    str(cellplugin.staged(tmp_path / "staged"))], check=True, capture_output=True)
    done = subprocess.run([str(venv / "bin" / "python"), "-c", CHECK, str(ROOT)], cwd=tmp_path, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "['harness.cell.plugin'] [] False"


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
