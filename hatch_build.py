"""How the wheel holds shardmatrix: one top-level package, `shardmatrix`, and nothing else of ours.

The checkout keeps its layout: harness/, reports/ and the commands above them in shardmatrix/. Only the built wheel is
mapped: shardmatrix/ is the package, and harness/ and reports/ go inside it as shardmatrix/harness and
shardmatrix/reports, every import of them renamed by harness/host/renaming.py (the rewriter that stages a cell's
`shardmatrix_cell` too); the files the command reads at run time (harness/host/shipped.py's SHIPPED) go to
shardmatrix/_shipped. So an installed shardmatrix answers no user's `import harness` or `import reports`. An editable
install only puts the checkout on sys.path (pyproject's dev-mode-dirs): its shardmatrix/ is the package.
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: The one top-level package the wheel installs: the checkout's folder of the commands.
PACKAGE = "shardmatrix"
#: The checkout's packages the wheel carries inside it.
MAPPED = ("harness", "reports")


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

    for folder, inside in ((PACKAGE, PACKAGE), *((name, f"{PACKAGE}/{name}") for name in MAPPED)):
        for relative in _files(root / folder):
            source = root / folder / relative
            target = f"{inside}/{relative.as_posix()}"
            if relative.suffix == ".py":
                put(target, renaming.renamed(source, names))
            else:  # data a module finds beside itself (harness/cell/shortage.toml)
                put(target, source=source)
    for name in shipped.SHIPPED:
        source = root / name
        for relative in _files(source) if source.is_dir() else [Path()]:
            put(f"{PACKAGE}/{shipped.FOLDER}/{(Path(name) / relative).as_posix()}", source=source / relative)
    return staged


class ShardmatrixBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Stages the wheel's one package before hatchling writes the wheel."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Stage into a folder of the build's own, and force-include what was staged (an editable install stages
        nothing: the checkout on sys.path holds the package)."""
        if self.target_name != "wheel" or version == "editable":
            return
        self._folder = Path(tempfile.mkdtemp(prefix="shardmatrix-wheel-"))
        build_data["force_include"].update(stage(Path(self.root), self._folder))

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the staging folder once the wheel is written."""
        folder = getattr(self, "_folder", None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
