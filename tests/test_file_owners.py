"""One owner per file: each file name we write is spelled (as a string constant, docstrings aside) by one module,
and only the format modules parse JSON or CSV (besides what a process or the network answered).

A second module that spells a name builds its own path, and sooner or later its own reader of it (two readers of
one file disagree); so it asks the owner instead. Views that name a file in their prose take the name from the
owner too, so a rename cannot leave a page pointing at a file that is no longer written.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Where our code lives: what the test reads.
SOURCES = [*(path for package in ("harness", "reports", "shardmatrix", "benchmarks")
             for path in sorted((ROOT / package).rglob("*.py"))), ROOT / "noxfile.py"]

OUTPUTS = "harness/outputs.py"
ECOSYSTEM = "harness/ecosystem_summary.py"
#: Every file besides a cell's own, and its owner (name, schema, reader and writer: harness.outputs, an ecosystem
#: run's harness.ecosystem_summary).
OWNERS: dict[str, str] = {
    "results.csv": OUTPUTS, "compat.csv": OUTPUTS, "compat.json": OUTPUTS, "changes.csv": OUTPUTS,
    "matrix.md": OUTPUTS, "matrix.html": OUTPUTS, "compare.md": OUTPUTS,
    "frontier.json": OUTPUTS, "frontier.csv": OUTPUTS, "frontier_cases.csv": OUTPUTS, "frontier.md": OUTPUTS,
    "flax-{flax}.json": OUTPUTS, ".shardmatrix-durations": OUTPUTS, "upgrade-changes-": OUTPUTS,
    "ecosystem.json": ECOSYSTEM, "ecosystem.md": ECOSYSTEM, "ecosystem.html": ECOSYSTEM,
    "ecosystem-comment.md": ECOSYSTEM,
}

RECORD = "harness/cellrecord.py"
#: A cell's own files: their paths are harness.cellrecord's (CellFiles), which harness.results reads and writes through.
CELL_FILES: dict[str, str] = {
    ".jsonl": RECORD, ".done.json": RECORD, ".inflight": RECORD, ".log": RECORD, ".freeze.txt": RECORD,
    ".install.log": RECORD, ".collected.json": RECORD,
}
#: Cell-file names spelled outside their owner, as data (a known exception with its reason, as array-api-tests keeps
#: them). An entry that no longer holds fails as stale.
KNOWN_ELSEWHERE: dict[tuple[str, str], str] = {
    (".jsonl", "harness/cell/plugin.py"): "an option's help text",
    (".jsonl", "harness/host/options.py"): "an option's help text",
    (".jsonl", "reports/data/load.py"): "an error message says what a run folder holds",
    (".freeze.txt", "reports/views/repro.py"): "a reproducer's comment names the freeze",
    (".log", "benchmarks/bench.py"): "the install log of the bench's own pip venv, not a cell's",
}

#: How each name is found inside a string: a whole name, not part of a longer one ('.log' is not '.install.log').
PATTERNS: dict[str, str] = {
    "flax-{flax}.json": r"flax-[^\s/'\"]*\.json\b",
    ".log": r"(?<!\.install)\.log\b",
}


def pattern(name: str) -> re.Pattern[str]:
    """The regular expression that finds `name` spelled inside a string constant."""
    if name in PATTERNS:
        return re.compile(PATTERNS[name])
    before = "" if name.startswith(".") else r"(?<![\w.-])"
    return re.compile(before + re.escape(name) + (r"\b" if name[-1].isalnum() else ""))


def constants(source: str) -> Iterator[str]:
    """Every string constant of Python source (f-string parts included), docstrings left out."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.value


def spellers(names: dict[str, str]) -> dict[tuple[str, str], int]:
    """{(name, module path): how many constants spell it} over our sources."""
    found: dict[tuple[str, str], int] = {}
    compiled = {name: pattern(name) for name in names}
    for path in SOURCES:
        module = path.relative_to(ROOT).as_posix()
        for text in constants(path.read_text(encoding="utf-8")):
            for name, regex in compiled.items():
                if regex.search(text):
                    found[(name, module)] = found.get((name, module), 0) + 1
    return found


def test_every_file_besides_a_cells_own_is_spelled_by_its_owner_alone() -> None:
    found = spellers(OWNERS)
    strays = sorted(f"{module} spells {name!r} (owner: {OWNERS[name]})" for name, module in found
                    if module != OWNERS[name])
    assert strays == []
    assert {name for name, _ in found} == set(OWNERS), "a name of the table that its owner no longer spells"


def test_every_cell_file_is_spelled_by_its_owner_or_a_known_exception() -> None:
    found = spellers(CELL_FILES)
    strays = sorted(f"{module} spells {name!r} (owner: {CELL_FILES[name]})" for name, module in found
                    if module != CELL_FILES[name] and (name, module) not in KNOWN_ELSEWHERE)
    assert strays == []
    stale = sorted(f"{module} no longer spells {name!r}: drop it from KNOWN_ELSEWHERE" for name, module in
                   KNOWN_ELSEWHERE if (name, module) not in found)
    assert stale == []


#: The modules that parse JSON or CSV: the format modules, and those that parse what a process or the network
#: answered (never a file of ours). AT MERGE: the results reader's module joins, and load.py and bench.py leave.
PARSERS: dict[str, str] = {
    OUTPUTS: "every file besides a cell's own",
    ECOSYSTEM: "the run a project's own ecosystem report names on its first line",
    "harness/formats.py": "a cell's own files",
    "harness/tools/index.py": "PyPI's JSON answer",
    "harness/host/nightly.py": "the gh CLI's answers",
    "harness/host/installed.py": "a subprocess's answer on stdout",
    "harness/results.py": "a cell's own files: results",
    "harness/celldocuments.py": "a cell's own files: collection, machine, precision re-run",
    "shardmatrix/watch_files.py": "the watcher's state and summary",
}
#: The calls that parse JSON or CSV, as (module name, function).
PARSING = {("json", "loads"), ("json", "load"), ("csv", "DictReader"), ("csv", "reader"), ("pd", "read_csv"),
           ("pandas", "read_csv"), ("pd", "read_json"), ("pandas", "read_json")}


def parses(source: str) -> bool:
    """Whether Python source calls a JSON or CSV parser (PARSING)."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and isinstance(node.func.value, ast.Name) and (node.func.value.id, node.func.attr) in PARSING
               for node in ast.walk(ast.parse(source)))


def test_only_the_format_modules_parse_json_or_csv_besides_answers_of_processes() -> None:
    found = {path.relative_to(ROOT).as_posix() for path in SOURCES if parses(path.read_text(encoding="utf-8"))}
    assert sorted(found - set(PARSERS)) == []
    assert sorted(set(PARSERS) - found) == [], "a parser of the table that parses nothing any more: drop it"


def test_the_parse_check_sees_a_parser_and_not_a_writer() -> None:
    assert parses("import json\njson.loads(path.read_text())") and parses("pd.read_csv(path)")
    assert not parses("import json\njson.dumps(x)\nframe.to_csv(path)")


@pytest.mark.parametrize("source", [
    'open("out/report/compat.csv")',
    'path.with_suffix(".jsonl")',
    'f"{cell}.done.json"',
    'glob("flax-*.json")',
])
def test_a_name_spelled_in_code_is_found(source: str) -> None:
    names = [*OWNERS, *CELL_FILES]
    assert any(pattern(name).search(text) for text in constants(source) for name in names)


@pytest.mark.parametrize("source", [
    '"""Writes compat.csv."""\ndef f():\n    """Reads matrix.md."""',  # docstrings tell, they do not build paths
    'x = "results.csvx" + "my-compat.csv" + "frontier.json5" + "a.install.logs"',  # other names
])
def test_a_docstring_or_a_longer_name_is_not_a_spelling(source: str) -> None:
    names = [*OWNERS, *CELL_FILES]
    assert not [name for text in constants(source) for name in names if pattern(name).search(text)]


def test_the_owner_module_of_every_name_exists() -> None:
    assert all((ROOT / owner).is_file() for owner in (*OWNERS.values(), *CELL_FILES.values()))


def path_spellings(source: str) -> list[str]:
    """The functions and methods of a module, outside CellFiles, that spell a cell file's path: they build it from a
    cell-file suffix (`with_suffix(DONE_SUFFIX)`, `f"{cell}{RESULTS_SUFFIX}"`, a `cases` folder beside it)."""
    tree = ast.parse(source)
    inside = {id(node) for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef) and cls.name == "CellFiles"
              for node in ast.walk(cls)}
    return sorted(function.name for function in ast.walk(tree)
                  if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(function) not in inside
                  and any(_builds_a_path(node) for node in ast.walk(function)))


def _builds_a_path(node: ast.AST) -> bool:
    """`x.with_suffix(NAME_SUFFIX)`, or `folder / f"{cell}{NAME_SUFFIX}"`: a path made from a cell-file suffix."""
    def suffix(value: ast.AST) -> bool:
        return any(isinstance(name, ast.Name) and name.id.endswith("_SUFFIX") for name in ast.walk(value))

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "with_suffix":
        return any(suffix(arg) for arg in node.args)
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and suffix(node.right)


#: Functions that make a cell-file path outside CellFiles, with the reason; an entry that no longer holds is stale.
KNOWN_PATH_SPELLINGS: dict[tuple[str, str], str] = {
    ("benchmarks/bench.py", "build"): "the bench's own uv venv is no cell of a run: its freeze goes beside the venv",
    ("benchmarks/bench.py", "project_cost"): "the function holding `build`, above",
}


def test_every_path_of_a_cell_has_one_spelling_a_property_of_cell_files() -> None:
    # done_path(out, run, cell), CellFiles.done and done_marker(file) once spelled one file three ways.
    found = {(str(path.relative_to(ROOT)), name) for path in SOURCES
             for name in path_spellings(path.read_text(encoding="utf-8"))}
    assert sorted(found - set(KNOWN_PATH_SPELLINGS)) == []
    assert sorted(set(KNOWN_PATH_SPELLINGS) - found) == []  # stale: drop it


@pytest.mark.parametrize(("source", "expected"), [
    ("class CellFiles:\n    def done(self):\n        return self.results.with_suffix(DONE_SUFFIX)\n", []),
    ("def done_marker(f):\n    return f.with_suffix(DONE_SUFFIX)\n\ndef files(f):\n    return CellFiles.of(f).done\n",
     ["done_marker"]),
])
def test_a_path_spelled_outside_cell_files_is_found(source: str, expected: list[str]) -> None:
    assert path_spellings(source) == expected


def definitions(source: str) -> set[str]:
    """The names a module defines at its top level (functions, classes, assignments), its imports left out."""
    found: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {target.id for target in targets if isinstance(target, ast.Name)}
    return found


#: A record migration, wherever it is defined: the next schema's `update_to_N` belongs beside the others.
MIGRATION = re.compile(r"update_to_\d+")


def record_namesakes(source: str, owned: set[str]) -> list[str]:
    """The names a module defines that the record's module defines too (or that name a migration)."""
    return sorted(name for name in definitions(source) if name in owned or MIGRATION.fullmatch(name))


#: What the record is: its module defines all of these, and only it does.
RECORD_DEFINITION = {"SCHEMA_VERSION", "FIELDS", "TEXT_FIELDS", "NUMBER_FIELDS", "SchemaError", "MIGRATIONS",
                     "migrate", "final_record", "final_records", "make_record", "DONE_SCHEMA_VERSION", "write_done",
                     "read_done", "CellFiles", "RESULTS_SUFFIX", "DONE_SUFFIX"}
#: Names another module defines for something else of its own, as data with the reason; a stale entry fails.
KNOWN_NAMESAKES: dict[tuple[str, str], str] = {
    ("harness/census.py", "update_to_2"): "the census file's own migration",
    ("harness/census.py", "update_to_3"): "the census file's own migration",
    ("harness/host/celllog.py", "final_records"): "a results file's final records, through the record's",
    ("reports/data/load.py", "read_done"): "the done marker as read_cell holds it, with a warning",
    ("reports/views/hover.py", "FIELDS"): "the fields a hover shows",
    ("reports/views/frontier_render.py", "SCHEMA_VERSION"): "the frontier file's version",
    ("shardmatrix/frontier_report.py", "SCHEMA_VERSION"): "the frontier file's version",
    ("shardmatrix/ecosystem_list.py", "SCHEMA_VERSION"): "cases/ecosystem.toml's version",
}


def test_one_module_owns_the_cell_record() -> None:
    owned = definitions((ROOT / RECORD).read_text(encoding="utf-8"))
    assert sorted(RECORD_DEFINITION - owned) == []
    assert {"update_to_2", "update_to_5"} <= owned
    found = {(path.relative_to(ROOT).as_posix(), name) for path in SOURCES if path != ROOT / RECORD
             for name in record_namesakes(path.read_text(encoding="utf-8"), owned)}
    assert sorted(found - set(KNOWN_NAMESAKES)) == []
    assert sorted(set(KNOWN_NAMESAKES) - found) == []  # stale: drop it


@pytest.mark.parametrize(("source", "expected"), [
    ("from harness.cellrecord import SCHEMA_VERSION, CellFiles\n\ndef use():\n    return SCHEMA_VERSION\n", []),
    ("SCHEMA_VERSION = 6\n\ndef update_to_6(record):\n    return record\n\nclass CellFiles:\n    pass\n",
     ["CellFiles", "SCHEMA_VERSION", "update_to_6"]),
])
def test_a_second_definition_of_the_record_is_found(source: str, expected: list[str]) -> None:
    assert record_namesakes(source, {"SCHEMA_VERSION", "CellFiles"}) == expected
