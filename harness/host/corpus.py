"""What a run's `--cases` entries resolve to: the files pytest is given, the cases in them, their known breakages.

Read from the shipped corpus (harness.host.shipped) and the case sources alone (nothing is imported), so the host
and the cells agree.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

from packaging.version import Version

from harness.cell import caseapi, known, source
from harness.cell.source import case_files, static_cases
from harness.formats import ShardmatrixError
from harness.host.matrix import Cell
from harness.host.options import BUILTIN
from harness.host.shipped import shipped
from harness.host.testclasses import class_tests
from harness.vocabulary import COLLECTION_CASE

#: The shipped corpus, from a checkout or an installed wheel alike.
BUILTIN_CASES = shipped("cases")


class CorpusError(ShardmatrixError, ValueError):
    """`--cases` entries that cannot make one corpus, phrased as one line; nothing runs."""


def case_roots(cases: list[str]) -> list[Path]:
    """The folders of the cases: the shipped corpus for 'builtin', else the folder given."""
    return [BUILTIN_CASES if entry == BUILTIN else Path(entry).expanduser().resolve() for entry in cases]


def case_paths(cases: list[str]) -> list[Path]:
    """The files and folders pytest is given: the shipped corpus's modules for 'builtin', else the folder.

    CorpusError for a folder that does not exist. Test files of one name are told apart by qualified_names."""
    paths: list[Path] = []
    for entry in dict.fromkeys(cases):
        if entry == BUILTIN:
            paths.extend(case_files(BUILTIN_CASES, builtin=True))
            continue
        folder = Path(entry).expanduser().resolve()
        if not folder.is_dir():
            raise CorpusError(f"--cases {entry}: no such folder")
        paths.append(folder)
    return paths


def qualified_names(paths: Sequence[Path]) -> dict[Path, str]:
    """{test file: the module part of its case ids} for each test file whose stem another test file of the corpus
    shares: the shortest end of its path, folders joined by '/' ('core/misc_util_test' beside 'v1/misc_util_test'),
    that none of the others ends with. Every other file is named by its stem (harness.cell.records.module_name)."""
    by_stem: dict[str, list[Path]] = {}
    for path in paths:
        file_part = Path(str(path).partition("::")[0])
        for file in ([file_part] if file_part.is_file() else case_files(file_part, False) if file_part.is_dir()
                     else []):
            same = by_stem.setdefault(file.stem, [])
            if file.resolve() not in same:
                same.append(file.resolve())
    names: dict[Path, str] = {}
    for files in (group for group in by_stem.values() if len(group) > 1):
        for file in files:
            parts = (*file.parent.parts, file.stem)
            others = [(*other.parent.parts, other.stem) for other in files if other != file]
            size = next(n for n in range(2, len(parts) + 1) if all(other[-n:] != parts[-n:] for other in others))
            names[file] = "/".join(parts[-size:])
    return names


def case_module(file: Path, names: dict[Path, str]) -> str:
    """The module part of the case ids of `file`: its qualified name (qualified_names), else its stem."""
    return names.get(Path(file).resolve(), Path(file).stem)


def expected_cases(paths: list[Path]) -> list[tuple[str, str]]:
    """(case id, family) of every case in the given files, folders and pytest node ids, read from source.

    Only where pytest cannot say: the cases of a cell that never ran, the families of a dead process's cases, the
    progress line. Class-based tests count (harness.host.testclasses), but a source scan does not see every test
    pytest collects (names generated at import), so nothing that is judged (upgrade, bisect) takes its case list from
    here: they read the records."""
    found: list[tuple[str, str]] = []
    names = qualified_names(paths)
    for path in paths:
        file_part, node, name = str(path).partition("::")
        if node:  # one case, as a bisect probe names it: <file>::<test>[params]
            file = Path(file_part)
            families = dict(static_cases(file)) if file.is_file() else {}
            found.append((f"{case_module(file, names)}::{name}", families.get(name.split("[")[0]) or file.stem))
            continue
        for file in _files(path):
            tests = dict(static_cases(file))
            tests.update({test: None for test in class_tests(file).found if test not in tests})
            found += [(f"{case_module(file, names)}::{test}", family or file.stem) for test, family in tests.items()]
    return found


def answered(case_id: str, recorded: set[str]) -> bool:
    """Whether an expected case has a record: its own (`recorded` holds ids without parameters), or its module's
    collection error, which stands for every case of a module that did not import."""
    return case_id.split("[")[0] in recorded or f"{case_id.partition('::')[0]}::{COLLECTION_CASE}" in recorded


def unknowable_classes(paths: list[Path]) -> list[str]:
    """'<file stem>::<class>' of each class whose tests a source scan cannot show (harness.host.testclasses)."""
    names = qualified_names(paths)
    return [f"{case_module(file, names)}::{name}" for path in paths if "::" not in str(path) for file in _files(path)
            for name in class_tests(file).unknown]


def _files(path: Path) -> list[Path]:
    return [path] if path.is_file() else case_files(path, builtin=False)


def case_api_wanted(paths: list[Path], project: Path | None = None) -> bool:
    """Whether the cases import shardmatrix's case API (`from harness.case import case`), which the cell's plugin then
    answers (harness.cell.caseapi): the shipped corpus does, a project's own tests need not.

    A project with its own top-level `harness` answers its tests' `import harness` itself, so its files never ask for
    ours; CorpusError names the collision when cases from elsewhere (the shipped corpus) would need ours beside it."""
    own = own_harness(project) if project is not None else None
    users = [file for file in _sources(paths) if _imports_case_api(file)]
    if own is None or project is None:
        return bool(users)
    elsewhere = [file for file in users if not file.resolve().is_relative_to(project.resolve())]
    if elsewhere:
        raise CorpusError(f"{project.name} has its own top-level package `harness` ({own}), and {elsewhere[0]} imports "
                          f"shardmatrix's case API as `harness.case`: one cell cannot answer both; run the project's "
                          "tests apart from those cases")
    return False


def own_harness(project: Path) -> Path | None:
    """The project's own top-level `harness` (a package or module, at its root or under src/), which `import harness`
    answers in its cells; None without one."""
    for folder in (project, project / "src"):
        for candidate in (folder / caseapi.PUBLIC, folder / f"{caseapi.PUBLIC}.py"):
            if candidate.is_file() or (candidate.is_dir() and any(candidate.glob("*.py"))):
                return candidate
    return None


def _sources(paths: list[Path]) -> list[Path]:
    """The modules a cell imports from its cases: each case file, and the modules beside it (helpers, conftest.py)."""
    found: set[Path] = set()
    for path in paths:
        file = Path(str(path).partition("::")[0])
        for case_file in _files(file) if file.exists() else []:
            found.update({case_file, *case_file.parent.glob("*.py")})
    return sorted(found)


def _imports_case_api(file: Path) -> bool:
    """Whether a module imports `harness.case` or `harness.change` (or those two from `harness`)."""
    try:
        tree = source.parse(file)
    except (SyntaxError, ValueError, OSError):  # pytest records its collection error, which stands for it
        return False
    api = {f"{caseapi.PUBLIC}.{name}" for name in caseapi.MODULES}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            named = {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            named = {alias.name for alias in node.names}
        else:
            continue
        if any(name == module or name.startswith(f"{module}.") for name in named for module in api):
            return True
    return False


def known_breakage_files(cases: list[str]) -> list[Path]:
    """The known-breakages files beside the case folders that have one."""
    return [root / known.FILENAME for root in case_roots(cases) if (root / known.FILENAME).is_file()]


def stale_known_breakages(cells: list[Cell], cases: list[str]) -> list[str]:
    """One line per known-breakage entry that names no existing case, or whose ranges match no selected cell. An entry
    under a class whose tests the source cannot show is neither: the scan cannot know."""
    paths = case_paths(cases)
    case_ids = {case_id for case_id, _ in expected_cases(paths)}
    unknowable = tuple(f"{name}::" for name in unknowable_classes(paths))
    pins: list[dict[str, str | None]] = [
        {"jax": c.jax, "jaxlib": c.jaxlib, "flax": c.flax, "python": c.python} for c in cells
    ]
    lines = []
    for path in known_breakage_files(cases):
        entries = [entry for entry in known.load(path) if not entry.case.startswith(unknowable)]
        for entry in known.stale(entries, case_ids):
            lines.append(f"{path.name}: {entry.case}: stale, no such case")
        for entry in entries:
            if entry.case in case_ids and not any(entry.applies(p) for p in pins) and not between_cells(entry, pins):
                lines.append(f"{path.name}: {entry.case}: no selected cell is in its version range")
    return lines


def between_cells(entry: known.Breakage, pins: list[dict[str, str | None]]) -> bool:
    """Whether the entry's one range is a window of releases the selected cells step over (a cell below its lower bound
    and one at or above its upper): not stale, the range checker and the frontier probe inside it; a range the cells
    have all moved past, or one of two packages, is not such a window."""
    if len(entry.ranges) != 1:
        return False
    (package, spec), = entry.ranges.items()
    lower = [Version(s.version) for s in spec if s.operator in (">=", ">")]
    upper = [Version(s.version) for s in spec if s.operator in ("<", "<=")]
    versions = [Version(str(p[package])) for p in pins if p.get(package)]
    return bool(lower and upper and any(v < max(lower) for v in versions) and any(v >= min(upper) for v in versions))
