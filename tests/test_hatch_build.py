"""hatch_build.py: the wheel holds one top-level package, `shardmatrix`, with harness and reports renamed inside it."""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

import pytest
from test_layout import imports_of as imports_of_file

from harness.host.renaming import StagingError, imports_of
from hatch_build import MAPPED, PACKAGE, stage

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The checkout staged as the wheel holds it: {staged file: its path in the wheel}."""
    return stage(ROOT, tmp_path_factory.mktemp("wheel"))


def test_every_file_of_the_wheel_is_under_the_one_package(staged: dict[str, str]) -> None:
    assert {target.split("/")[0] for target in staged.values()} == {PACKAGE}
    own = {path.name for path in (ROOT / PACKAGE).glob("*.py")}
    assert {target.split("/")[1] for target in staged.values()} == {*MAPPED, "_shipped", *own}
    assert not any("__pycache__" in target for target in staged.values())


def test_each_module_of_the_commands_harness_and_reports_is_carried_with_its_data(staged: dict[str, str]) -> None:
    targets = set(staged.values())
    assert {f"{PACKAGE}/{path.name}" for path in (ROOT / PACKAGE).glob("*.py")} <= targets
    for name in MAPPED:
        assert {f"{PACKAGE}/{name}/{p.relative_to(ROOT / name).as_posix()}" for p in (ROOT / name).rglob("*.py")
                if "__pycache__" not in p.parts} <= targets
    assert f"{PACKAGE}/harness/cell/shortage.toml" in targets


def test_no_staged_module_imports_a_top_level_harness_or_reports(staged: dict[str, str]) -> None:
    left = [f"{target}:{node.lineno}" for path, target in staged.items() if target.endswith(".py")
            and "/_shipped/" not in target
            for name in MAPPED for node in imports_of(ast.parse(Path(path).read_text(encoding="utf-8")), name)]
    assert left == []
    command = next(path for path, target in staged.items() if target == f"{PACKAGE}/command.py")
    text = Path(command).read_text(encoding="utf-8")
    assert "from shardmatrix.harness.formats import" in text
    assert "from shardmatrix import ecosystem, frontier, watch" in text


def test_the_package_is_the_checkouts_folder_of_the_commands(staged: dict[str, str]) -> None:
    # The commands' own imports of each other are already the installed names: staging leaves them as they are.
    init = next(path for path, target in staged.items() if target == f"{PACKAGE}/__init__.py")
    assert Path(init).read_text(encoding="utf-8") == (ROOT / PACKAGE / "__init__.py").read_text(encoding="utf-8")


def test_a_module_staging_cannot_rename_stops_the_build(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    for name in (*MAPPED, PACKAGE, "cases"):
        (root / name).mkdir(parents=True)
    (root / "harness" / "host").mkdir()
    for module in ("renaming.py", "shipped.py"):
        shutil.copyfile(ROOT / "harness" / "host" / module, root / "harness" / "host" / module)
    (root / "matrix.toml").write_text("", encoding="utf-8")
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    assert f"{PACKAGE}/harness/host/shipped.py" in stage(root, tmp_path / "ok").values()
    (root / "reports" / "bad.py").write_text("import os, \\\n    harness\n", encoding="utf-8")
    # The build loads renaming.py by its path: its StagingError is that module's own class.
    with pytest.raises(RuntimeError, match=r"bad\.py:1: an import of harness that staging could not rename") as raised:
        stage(root, tmp_path / "bad")
    assert type(raised.value).__name__ == StagingError.__name__


def test_the_modules_the_build_loads_by_path_import_only_the_standard_library() -> None:
    # The build environment holds hatchling alone, and no package of ours is importable there.
    for module in ("renaming.py", "shipped.py"):
        found = {name.split(".")[0] for name in imports_of_file(ROOT / "harness" / "host" / module)}
        assert found <= set(sys.stdlib_module_names) | {"__future__"}, (module, found)
