"""No import cycle among the harness's modules: helpers never call back into the module that tells a cell's run
(before, harness.host.runner and harness.host.unreported imported each other)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import harness
from harness import formats

ROOT = Path(harness.__file__).resolve().parent.parent


def module_name(path: Path, top: Path) -> str:
    parts = path.relative_to(top).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, known: set[str]) -> set[str]:
    """The harness modules a file imports, anywhere in it (a function-level import is a cycle too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from harness.host import runner` imports the module harness.host.runner.
            found |= {f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known else node.module
                      for alias in node.names}
    return {name for name in found if name in known}


def graph(root: Path) -> dict[str, set[str]]:
    files = {module_name(path, root.parent): path for path in root.rglob("*.py")}
    return {name: imports(path, set(files)) - {name} for name, path in files.items()}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as the modules along it, or None."""
    state: dict[str, int] = {}
    trail: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name], _ = 1, trail.append(name)
        for target in sorted(edges.get(name, ())):
            if state.get(target) == 1:
                return [*trail[trail.index(target):], target]
            if target not in state and (found := visit(target)):
                return found
        state[name], _ = 2, trail.pop()
        return None

    return next((found for name in sorted(edges) if name not in state and (found := visit(name))), None)


@pytest.mark.parametrize("package", ["harness", "shardmatrix"])
def test_the_harness_and_the_commands_have_no_import_cycle(package: str) -> None:
    assert cycle(graph(ROOT / package)) is None


def test_the_check_finds_a_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    package = tmp_path / "harness" / "host"
    package.mkdir(parents=True)
    (tmp_path / "harness" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "runner.py").write_text("from harness.host.unreported import record\n")
    (package / "unreported.py").write_text("def record_missing():\n    from harness.host import runner\n")
    assert cycle(graph(tmp_path / "harness")) == ["harness.host.runner", "harness.host.unreported",
                                                  "harness.host.runner"]


USER_FACING = [
    "harness.host.options.OptionsError", "harness.host.corpus.CorpusError", "harness.host.matrix.MatrixError",
    "harness.host.planned.PlanError", "harness.host.installed.InstalledError", "harness.tools.pins.PinError",
    "shardmatrix.smoke.SmokeError", "shardmatrix.frontier.FrontierError", "shardmatrix.releases.ReleaseError",
    "harness.tools.index.IndexError_", "harness.tools.bisect.BisectError", "shardmatrix.frontier_report."
    "IncompleteFrontier", "harness.cell.known.KnownBreakageError",
    "reports.data.load.ResultsError", "reports.verdicts.compare.CompareError",
    "reports.views.frontier_render.FrontierFileError",
]


# harness.cellrecord.SchemaError is not among them: the record module imports nothing but the standard library, and
# its one reader (reports.data.load) turns it into a ResultsError naming the file and line.


@pytest.mark.parametrize("name", USER_FACING)
def test_every_user_facing_error_is_a_shardmatrix_error(name: str) -> None:
    # One base, so every main() and the noxfile catch one class instead of lists that drift.
    module, _, attribute = name.rpartition(".")
    assert issubclass(getattr(__import__(module, fromlist=[attribute]), attribute), formats.ShardmatrixError)
