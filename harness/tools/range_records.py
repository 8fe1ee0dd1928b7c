"""What the cell records already on disk say against the ranges the corpus declares (`nox -s ranges -- --records
DIR`): a case that passed at a pair inside a range where it is declared to fail (a hole no probe of the checker
asked), and a pair at which one case gave different answers in different runs (flaky there, or its code changed:
one answer of the results cache would stand for it). The records are read, never run; each line names the run and
cell that said it.

Pure but for the reading: `contradictions` takes the records and how each is read (range_check.record_answer), so it
is tested on plain records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

from harness import results, runs
from harness.cell.known import Breakage
from harness.change import Change
from harness.tools import ranges

#: A record -> what a probe of its pair would answer for its case (ranges.PASS, WARNED, FAIL, `failed_as`, ...).
Answer = Callable[[Mapping[str, Any]], str]


class Finals(NamedTuple):
    """The final records read, and one line per folder or cell left out (not a run; a cell whose identity is in
    doubt): what the records say is only as wide as what was read."""

    records: list[dict[str, Any]]
    left: list[str]


def read_finals(folders: Iterable[Path]) -> Finals:
    """Each case's final record in every cell of every run under each folder's results/ (harness.results' reader),
    with the run and cell it came from, and what was left out."""
    found: list[dict[str, Any]] = []
    left: list[str] = []
    for folder in folders:
        root = Path(folder) / "results"
        listed = runs.list_runs(root)
        left += [f"{root / note}" for note in listed.notes]
        for run_id in listed.ids:
            for path in runs.results_files(root / run_id):
                reading = results.read_cell(path, run_id)
                if reading.unusable:  # a cell whose identity is in doubt says nothing of its pair
                    left.append(f"{path}: left out, its identity is in doubt ({reading.mismatches[0]})")
                    continue
                if not reading.records and reading.problems:  # a folder named as a results file, an unreadable one
                    left.append(f"{path}: left out, nothing in it could be read ({reading.problems[0]})")
                    continue
                found += [{**record, "run_id": run_id, "cell_id": reading.cell_id}
                          for record in reading.finals().values()]
    return Finals(found, left)


def contradictions(records: Iterable[Mapping[str, Any]], changes: Mapping[str, Change],
                   breakages: Iterable[Breakage], answer: Answer) -> list[str]:
    """One line per record that passed inside a range its case is declared to fail in (a known breakage whose every
    range holds the record's versions, or a change's `since`), and per (case, jax, flax) whose records answered both
    pass and the declared failure."""
    entries: dict[str, list[Breakage]] = {}
    for entry in breakages:
        entries.setdefault(entry.case, []).append(entry)
    lines: list[str] = []
    answers: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    for record in records:
        case = str(record.get("case_id") or "").partition("[")[0]
        if case not in entries and case not in changes:
            continue
        said = answer(record)
        where = f"{record.get('run_id')}/{record.get('cell_id')}"
        if said in (ranges.PASS, ranges.WARNED):
            lines += [f"hole: {case} passed at {where}, inside {declared}"
                      for declared in _declared_failing(record, entries.get(case, []), changes.get(case))]
        kind = "pass" if said in (ranges.PASS, ranges.WARNED) else "fail" if said == ranges.FAIL else None
        if kind is not None:
            pair = (case, str(record.get("jax")), str(record.get("flax")))
            answers.setdefault(pair, {}).setdefault(kind, []).append(where)
    for (case, jax, flax), kinds in sorted(answers.items()):
        if len(kinds) == 2:
            lines.append(f"flaky: {case} at jax {jax}, flax {flax} passed at {', '.join(sorted(kinds['pass']))} and "
                         f"failed as declared at {', '.join(sorted(kinds['fail']))}")
    return lines


def _declared_failing(record: Mapping[str, Any], entries: list[Breakage], change: Change | None) -> list[str]:
    """The declarations under which the record's case is declared to fail at the record's versions."""
    installed = {name: str(record.get(name)) if record.get(name) is not None else None
                 for name in ("jax", "jaxlib", "flax", "python")}
    found = [f"its known breakage {_said(entry)}" for entry in entries if entry.applies(installed)]
    if change is not None and change.since is not None:
        requirement = Requirement(change.since)
        try:
            version = Version(str(record.get(requirement.name)))
        except InvalidVersion:
            return found
        if requirement.specifier.contains(version, prereleases=True):
            found.append(f"its change since {change.since}")
    return found


def _said(entry: Breakage) -> str:
    """A breakage's ranges as declared, or that it declares none (every release)."""
    return ", ".join(f"{name}{spec}" for name, spec in entry.ranges.items()) or "of every release"
