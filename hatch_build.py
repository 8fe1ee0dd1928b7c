"""How the wheel holds shardmatrix: one top-level package, `shardmatrix`, and nothing else of ours.

The checkout keeps its layout (top-level harness/, reports/, cases/). Only the built wheel is mapped: harness/ and
reports/ become shardmatrix/harness and shardmatrix/reports, their imports renamed by harness/host/renaming.py (the
rewriter that stages a cell's `shardmatrix_cell` too), and the files the command reads at run time
(harness/host/shipped.py's SHIPPED) go to shardmatrix/_shipped. So an installed shardmatrix answers no user's
`import harness` or `import reports`. An editable install keeps the checkout on sys.path (pyproject's dev-mode-dirs)
and gets only the `shardmatrix` package that runs the console script.
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: The one top-level package the wheel installs.
PACKAGE = "shardmatrix"
#: The checkout's packages the wheel carries inside it.
MAPPED = ("harness", "reports")
#: The installed package's own modules, written as the checkout's code would import (renamed like the rest).
INIT = '''"""shardmatrix, installed: the `shardmatrix` command; its code is this package's harness and reports."""

from __future__ import annotations


def main() -> int:
    """Run the `shardmatrix` command (harness/tools/command.py) on the command line's arguments."""
    from harness.tools.command import main as command

    return command()
'''
MAIN = '''"""`python -m shardmatrix`: the `shardmatrix` command."""

import sys

from shardmatrix import main

sys.exit(main())
'''


def checkout_module(root: Path, relative: str) -> ModuleType:
    """A dependency-free module of the checkout, loaded by its path (the build imports no package of ours)."""
    spec = importlib.util.spec_from_file_location(f"_shardmatrix_build_{Path(relative).stem}", root / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _files(folder: Path) -> list[Path]:
    """The files of `folder` a build carries, relative to it: everything but bytecode, in a stable order."""
    return sorted(path.relative_to(folder) for path in folder.rglob("*")
                  if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc")


def stage(root: Path, into: Path) -> dict[str, str]:
    """Write the wheel's files under `into`: {each file's path: its path in the wheel}."""
    renaming = checkout_module(root, "harness/host/renaming.py")
    shipped = checkout_module(root, "harness/host/shipped.py")
    names = {name: f"{PACKAGE}.{name}" for name in MAPPED}
    staged: dict[str, str] = {}

    def put(target: str, text: str | None = None, source: Path | None = None) -> None:
        path = into / target
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is not None:
            path.write_text(text, encoding="utf-8")
        elif source is not None:
            shutil.copyfile(source, path)
        staged[str(path)] = target

    for name in MAPPED:
        for relative in _files(root / name):
            source = root / name / relative
            target = f"{PACKAGE}/{name}/{relative.as_posix()}"
            if relative.suffix == ".py":
                put(target, renaming.renamed(source, names))
            else:  # data a module finds beside itself (harness/cell/shortage.toml)
                put(target, source=source)
    for name in shipped.SHIPPED:
        source = root / name
        for relative in _files(source) if source.is_dir() else [Path()]:
            put(f"{PACKAGE}/{shipped.FOLDER}/{(Path(name) / relative).as_posix()}", source=source / relative)
    put(f"{PACKAGE}/__init__.py", renaming.renamed_source(INIT, names, "hatch_build.INIT"))
    put(f"{PACKAGE}/__main__.py", MAIN)
    return staged


def editable(into: Path) -> dict[str, str]:
    """Write the editable install's `shardmatrix` package under `into` (the checkout's harness runs as it is)."""
    staged = {}
    for target, text in ((f"{PACKAGE}/__init__.py", INIT), (f"{PACKAGE}/__main__.py", MAIN)):
        path = into / target
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        staged[str(path)] = target
    return staged


class ShardmatrixBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Stages the wheel's one package (or the editable install's) before hatchling writes the wheel."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Stage into a folder of the build's own, and force-include what was staged."""
        if self.target_name != "wheel":
            return
        self._folder = Path(tempfile.mkdtemp(prefix="shardmatrix-wheel-"))
        if version == "editable":
            build_data["force_include_editable"].update(editable(self._folder))
        else:
            build_data["force_include"].update(stage(Path(self.root), self._folder))

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the staging folder once the wheel is written."""
        folder = getattr(self, "_folder", None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
