"""What may import what, read from the source (imports inside functions count): harness < reports < the commands
(shardmatrix/), each floor a folder, and no import from a floor below to one above.

- in-cell: code that runs inside a cell imports nothing of the host side, the tools, the commands or pandas;
- harness-below-reports: no module of harness/ imports reports/ or the commands (shardmatrix/), anywhere in it;
- reports-alone: reports/ imports nothing of the harness but its dependency-free modules (DEPENDENCY_FREE), and
  nothing of the commands;
- dependency-free: those modules import, as in-cell code does, nothing of the host side, the tools, the commands or
  pandas (most of them run in cells too; harness.ecosystem_summary is read by reports/ only);
- floors: reports/ is data < verdicts < views < the entry points (reports/*.py), each floor a folder: no module imports
  one on a floor above its own (so no data or verdicts module imports a view), but the edges in UPWARD, each with its
  reason and checked to be still needed;
- verdicts-draw-nothing: a verdicts module decides and leaves the drawing to views: no emoji, no HTML or CSS in its
  strings, and no file written.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CELL = sorted([*(ROOT / "harness" / "cell").glob("*.py"), ROOT / "harness" / "case.py",
                  ROOT / "harness" / "change.py", ROOT / "harness" / "vocabulary.py", ROOT / "harness" / "formats.py",
                  ROOT / "harness" / "cellrecord.py", ROOT / "harness" / "results.py", ROOT / "harness" / "outputs.py",
                  ROOT / "harness" / "celldocuments.py",
                  ROOT / "harness" / "cellidentity.py", ROOT / "harness" / "runs.py"])
HARNESS = sorted((ROOT / "harness").rglob("*.py"))
#: The commands: the top floor, above harness/ and reports/.
COMMANDS = "shardmatrix"
REPORTS = sorted((ROOT / "reports").rglob("*.py"))
#: What reports/ may import of the harness: the modules that import nothing but the standard library (statuses,
#: the cell record and its paths; how a file is read and written; the results files' reader).
DEPENDENCY_FREE = ("harness.vocabulary", "harness.cellrecord", "harness.formats", "harness.results", "harness.runs",
                   "harness.celldocuments", "harness.outputs", "harness.ecosystem_summary")


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (functions included); a `from a import b` counts as both `a` and
    `a.b`, as b may be a module."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(f"{package}.")


def forbidden_in_cell(path: Path) -> list[str]:
    """What an in-cell module imports that does not exist in a cell: the host side, the tools, the commands, pandas."""
    return sorted(name for name in imports_of(path) if any(_in(name, package) for package in (
        "pandas", "harness.host", "harness.tools", COMMANDS)))


def above_the_harness(path: Path) -> list[str]:
    """What a harness/ module imports, anywhere in it, of the floors above: reports/ and the commands."""
    return sorted(name for name in imports_of(path) if _in(name, "reports") or _in(name, COMMANDS))


def harness_beyond_dependency_free(path: Path) -> list[str]:
    """What a reports/ module imports, anywhere in it, of the harness beyond its dependency-free modules, and of the
    commands above it."""
    found = imports_of(path)
    allowed = {name for name in found if any(_in(name, free) for free in DEPENDENCY_FREE)}
    # `from harness import vocabulary` names the package and its module: the package alone is no import of more.
    return sorted(name for name in found - allowed if _in(name, COMMANDS) or (_in(name, "harness")
                  and not (name == "harness" and any(other.startswith("harness.") for other in allowed))))


#: reports' floors, lowest first; reports/*.py (cli, build, regressions, __main__) is the top, above them all.
FLOORS = ("data", "verdicts", "views")
#: Upward imports allowed, (importer, imported): why. Kept few and named, as known failures are.
UPWARD: dict[tuple[str, str], str] = {
    ("reports.data.tables", "reports.verdicts.documented"):
        "build_matrix marks each failure its declared change documents (documented.mark), a column every verdict reads",
}


def module_name(path: Path) -> str:
    """A reports/ file's module name, from its last `reports` folder on: reports/data/load.py -> reports.data.load."""
    parts = path.with_suffix("").parts
    name = parts[len(parts) - 1 - parts[::-1].index("reports"):]
    return ".".join(name[:-1] if name[-1] == "__init__" else name)


def floor_of(module: str) -> int | None:
    """0 data, 1 verdicts, 2 views, 3 the top (reports itself and its entry points); None outside reports/."""
    parts = module.split(".")
    if parts[0] != "reports":
        return None
    return FLOORS.index(parts[1]) if len(parts) > 1 and parts[1] in FLOORS else len(FLOORS)


def upward(path: Path) -> list[str]:
    """What a reports/ module imports, anywhere in it, from a floor above its own, but the UPWARD edges."""
    module = module_name(path)
    mine = floor_of(module)
    assert mine is not None
    allowed = [imported for importer, imported in UPWARD if importer == module]
    return sorted(name for name in imports_of(path) if (floor_of(name) or 0) > mine
                  and not any(_in(imported, name) for imported in allowed))


VERDICTS = sorted((ROOT / "reports" / "verdicts").glob("*.py"))
#: Emoji: the pictographs and symbols a report shows (U+1F000 on, U+2600-U+27BF, the variation selector that makes a
#: symbol an emoji). Typography (an arrow, an en dash, a multiplication sign) is text, and allowed.
EMOJI = re.compile("[\U0001F000-\U0001FFFF\u2600-\u27BF\u2B50\u2B55\uFE0F]")
#: HTML and CSS in a string: a tag of an element a page draws with, or an attribute or property that styles it.
MARKUP = re.compile(r"</?(?:a|b|i|p|br|code|details|div|em|li|span|strong|summary|table|td|th|tr|ul)\b[^>]*>"
                    r"|\b(?:class|style)=|\b(?:background|color|font-weight|border)\s*:", re.I)
#: Calls that write a file.
WRITERS = re.compile(r"^(?:write\w*|to_(?:csv|html|json|excel|markdown)|open|mkdir|touch|copyfile|copy2|copytree)$")


def drawing(path: Path) -> list[str]:
    """What a verdicts module draws or writes: `emoji: ...`, `markup: ...` for a string, `writes: name()` for a call."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"emoji: {node.value!r}"] if EMOJI.search(node.value) else []
            found += [f"markup: {node.value!r}"] if MARKUP.search(node.value) else []
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            found += [f"writes: {name}()"] if WRITERS.match(name) else []
    return sorted(found)


#: rule: the files it covers, and what it finds wrong in one file.
RULES: dict[str, tuple[list[Path], Callable[[Path], list[str]]]] = {
    "in-cell": (IN_CELL, forbidden_in_cell),
    "dependency-free": ([ROOT / f"{name.replace('.', '/')}.py" for name in DEPENDENCY_FREE], forbidden_in_cell),
    "harness-below-reports": (HARNESS, above_the_harness),
    "reports-alone": (REPORTS, harness_beyond_dependency_free),
    "floors": (REPORTS, upward),
    "verdicts-draw-nothing": (VERDICTS, drawing),
}


@pytest.mark.parametrize(("rule", "path"), [(rule, path) for rule, (paths, _) in RULES.items() for path in paths],
                         ids=lambda value: str(value.relative_to(ROOT)) if isinstance(value, Path) else value)
def test_every_module_keeps_to_the_layout(rule: str, path: Path) -> None:
    assert RULES[rule][1](path) == []


#: rule, a module's source, and what the rule finds wrong in it: each rule with a passing and a failing input.
SAMPLES = [
    ("in-cell", "import json\nfrom harness import vocabulary\n", []),
    ("in-cell", "import pandas\n\ndef f():\n    from harness.host import runner\n    import shardmatrix.watch\n",
     ["harness.host", "harness.host.runner", "pandas", "shardmatrix.watch"]),
    ("harness-below-reports", "import reportlab\nimport shardmatrixes\n\ndef f():\n    from harness import formats\n",
     []),
    ("harness-below-reports", "from reports import thing\nimport reports.stuff\n\ndef f():\n    import reports.x\n"
     "    from shardmatrix import command\n",
     ["reports", "reports.stuff", "reports.thing", "reports.x", "shardmatrix", "shardmatrix.command"]),
    ("reports-alone", "from harness import vocabulary, formats\nfrom harness.results import read\nimport harnessed\n",
     []),
    ("verdicts-draw-nothing", "SEP = ' \u2192 '\nERR = re.compile('<address>')\n\ndef f(t):\n    return t.read()\n",
     []),
    ("verdicts-draw-nothing", "MARK = '\u2705'\nCELL = '<td class=\"ok\">'\n\ndef f(p, t):\n"
     "    outputs.write_frame(p, t)\n    p.write_text('x')\n",
     ["emoji: '\u2705'", "markup: '<td class=\"ok\">'", "writes: write_frame()", "writes: write_text()"]),
    ("reports-alone", "from harness import vocabulary, runner\n\ndef f():\n    import harness.tools.ranges\n"
     "    import shardmatrix.watch\n",
     ["harness.runner", "harness.tools.ranges", "shardmatrix.watch"]),
]


@pytest.mark.parametrize(("rule", "source", "expected"), SAMPLES)
def test_each_rule_finds_exactly_what_breaks_it(rule: str, source: str, expected: list[str], tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text(source)
    assert RULES[rule][1](module) == expected


#: A reports/ module (its path under reports/), its source, and the upward imports the floors rule finds in it.
FLOOR_SAMPLES = [
    ("data/shaping.py", "from reports.data import load\nfrom harness import vocabulary\n", []),
    ("data/shaping.py", "from reports.data.load import x\n\ndef f():\n    from reports.views.present import legend\n",
     ["reports.views.present", "reports.views.present.legend"]),
    ("verdicts/judge.py", "from reports.data import matrix\nfrom reports.verdicts.causes import causes\n", []),
    ("verdicts/judge.py", "from reports.views import present\nfrom reports import build_report\n",
     ["reports", "reports.build_report", "reports.views", "reports.views.present"]),
    ("views/page.py", "from reports.verdicts import compat\nfrom reports.data.tables import Matrix\n", []),
    ("views/page.py", "import reports.cli\n", ["reports.cli"]),
    ("cli.py", "from reports.views import html\nfrom reports.data import load\n", []),
    ("data/tables.py", "from reports.verdicts import documented\n", []),
    ("data/tables.py", "from reports.verdicts import compat\n", ["reports.verdicts.compat"]),
]


@pytest.mark.parametrize(("where", "source", "expected"), FLOOR_SAMPLES)
def test_the_floors_rule_finds_exactly_the_upward_imports(where: str, source: str, expected: list[str],
                                                          tmp_path: Path) -> None:
    module = tmp_path / "reports" / where
    module.parent.mkdir(parents=True, exist_ok=True)
    module.write_text(source)
    assert upward(module) == expected


def test_every_allowed_upward_import_is_still_made() -> None:
    # An allowance nothing uses any more is stale: remove it, so the next upward import is caught.
    made = {(module_name(path), name) for path in REPORTS for name in imports_of(path)}
    assert [edge for edge in UPWARD if edge not in made] == []


#: The house's floors, lowest first: each a top-level folder, importing only its own floor and those below.
HOUSE = ("harness", "reports", COMMANDS)


def test_the_architecture_page_draws_the_house_from_the_top_down() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = page.split("```\n", 2)[1]
    assert re.findall(r"^(\w+)/ ", drawing, re.M) == list(reversed(HOUSE))
    assert all((ROOT / floor / "__init__.py").is_file() for floor in HOUSE)


def test_the_floors_are_the_folders_of_reports() -> None:
    assert sorted(path.name for path in (ROOT / "reports").iterdir() if (path / "__init__.py").exists()) == sorted(
        FLOORS)


def floors_said(docstring: str) -> dict[str, set[str]]:
    """The modules reports/__init__.py's docstring names on each floor ('- data: load (...), matrix (...); ...')."""
    said: dict[str, set[str]] = {}
    for block in re.findall(r"^- (data|verdicts|views|on top): (.*?)(?=^- |^$)", docstring, re.M | re.S):
        names = re.sub(r"\([^()]*\)", "", block[1]).replace(" and ", ",")
        said[block[0]] = {name.strip(" .;\n") for name in re.split(r"[,;]", names) if name.strip(" .;\n")}
    return said


def test_the_package_docstring_names_every_module_on_its_floor() -> None:
    docstring = ast.get_docstring(ast.parse((ROOT / "reports" / "__init__.py").read_text(encoding="utf-8"))) or ""
    found = {floor: {path.stem for path in (ROOT / "reports" / floor).glob("*.py")} - {"__init__"} for floor in FLOORS}
    found["on top"] = {path.stem for path in (ROOT / "reports").glob("*.py")} - {"__init__"}
    assert floors_said(docstring + "\n") == found


#: What nox's interpreter and a bare `pip install shardmatrix` lack: the host must import without any of them.
CELL_ONLY = ("pytest", "jax", "flax", "pandas", "jinja2")
BLOCKED = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {blocked!r}:
            raise ImportError(f"blocked in this test: {{name}}")
sys.meta_path.insert(0, Block())
import {module}
"""


@pytest.mark.parametrize("module", ["shardmatrix.command", "harness.host.cellenv", "harness.host.corpus",
                                    "harness.host.installed", "harness.tools.upgrade"])
def test_the_host_imports_without_what_only_cells_and_reports_have(module: str) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", BLOCKED.format(blocked=set(CELL_ONLY), module=module)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr.strip().splitlines()[-1]


def test_the_import_blocker_does_block() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", BLOCKED.format(blocked={"pytest"}, module="harness.case")],
                          capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "blocked in this test: pytest" in done.stderr
