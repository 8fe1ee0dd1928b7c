"""`shardmatrix ranges --take CHECK`: adopt the rows of a finished range check into the stored one, case by case.

A case is taken where the check confirmed, or found bounded by the case's needs, every edge the corpus declares for it
now: its rows replace the stored ones, and its digest stamp comes from the check, with the check's run and date.
Every other case keeps its stored rows (so a check that ran out of budget or found an edge wrong spoils nothing
stored), as does a case a later check took (older rows never replace newer ones) and one whose stored rows are the
check's already; where no case is taken, the stored document is not rewritten. The check must speak for the
corpus as it is (each of its cases' digests equal to the case's digest now), be run without --merge (its probes and
budget are its own, so they add up), not be taken already (its run in a stored stamp), not be the stored document
itself, and be run with the options the stored document was checked with.

Pure but for reading the check's folder: `adopt` takes both documents and what the corpus declares now as values
(harness.tools.range_check reads the corpus), so it is tested on small documents (tests/test_range_take.py).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness import outputs, runs
from harness.formats import ShardmatrixError
from harness.tools.caught import Declared, inside_judged
from harness.tools.ranges import BOUNDED, CONFIRMED, UNCHECKED, WRONG

#: The statuses that let a case's rows be taken: every edge of the case settled as declared.
SETTLED = (CONFIRMED, BOUNDED)


class TakeError(ShardmatrixError, ValueError):
    """A check that cannot be taken as given; one line naming it and why."""


@dataclass(frozen=True)
class Check:
    """A finished check: its document (read through harness.outputs), where it lies, its run (the newest under its
    results/) and the day that run started."""

    document: Mapping[str, Any]
    path: Path
    run: str
    date: str


@dataclass(frozen=True)
class Adopted:
    """The stored document with the check taken in, the cases taken, and why each other case of the check was not."""

    document: dict[str, Any]
    taken: tuple[str, ...]
    left: Mapping[str, str]


def read_check(folder: Path) -> Check:
    """The check under `folder` (an --out folder of `ranges`: its report/ranges.json, and its run under results/ for
    the date); TakeError, one line, for a folder that is missing, holds no range check or one of another schema, or
    whose report was written before its newest run started (that run's report is not written yet)."""
    folder = Path(folder)
    if folder.is_file():
        raise TakeError(f"--take {folder}: a file, not a folder: give the --out folder of a finished `ranges` run, "
                        f"whose report/{outputs.RANGES_JSON.name} it takes (the stored document is --ranges-from)")
    if not folder.is_dir():
        raise TakeError(f"--take {folder}: no such folder (give the --out folder of a finished `ranges` run)")
    path = folder / "report" / outputs.RANGES_JSON.name
    if not path.is_file():
        raise TakeError(f"--take {folder}: no report/{outputs.RANGES_JSON.name} in it: not the --out folder of a "
                        f"finished `ranges` run")
    try:
        written = outputs.ranges_version(path)
        document = outputs.read_ranges(path)
    except ShardmatrixError as exc:
        raise TakeError(f"--take {exc}") from None
    if written != outputs.RANGES_JSON.version:
        raise TakeError(f"--take {path}: a range check of schema {written}, not {outputs.RANGES_JSON.version}: it "
                        f"recorded no digest of its cases, so none is known to be the case as it is now (--stamp it)")
    ran = runs.list_runs(folder / "results").ids
    started = runs.run_start(ran[-1]) if ran else None
    if started is None:
        raise TakeError(f"--take {folder}: no run under results/, so the day the check ran is unknown (take the "
                        f"--out folder the check wrote, whole)")
    written_at = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
    if written_at < started:
        # The report is an earlier run's: the newest run is still going, or stopped before it wrote its own.
        raise TakeError(f"--take {folder}: its report/{path.name} was written at {written_at:%Y-%m-%d %H:%M:%S} UTC, "
                        f"before its newest run {ran[-1]} started: take the check once that run has finished")
    return Check(document, path, ran[-1], f"{started:%Y-%m-%d}")


def adopt(stored: Mapping[str, Any], check: Check, declared: Collection[Declared], digests: Mapping[str, str],
          asked: Collection[str] = ()) -> Adopted:
    """The stored document with each case of the check (of `asked`, where given) whose every edge declared now
    (`declared`) the check settled: its rows and stamp replace the stored ones; the counts recomputed, probes and
    budget added up, the check's commit recorded. TakeError where the check cannot be taken (_refused)."""
    document = check.document
    rows = _by_case(document["edges"])
    cases = [case for case in rows if not asked or case in asked]
    _refused(stored, check, cases, digests, asked)
    current = {case: _current(rows[case], declared) for case in cases}
    left = {case: why for case in cases
            if (why := unsettled(rows[case], _of(declared, case)) or standing(stored, case, current[case], check))}
    taken = tuple(case for case in cases if case not in left)
    if not taken:
        # The stored document stays as it was: the check's probes added with nothing taken would be added again by
        # the next take of it, since no stamp would name its run.
        return Adopted(dict(stored), taken, left)
    edges = replaced(stored["edges"], {case: current[case] for case in taken})
    taken_from = {"run": check.run, "date": check.date}
    stamps = {**stored["cases"], **{case: {**document["cases"][case], **taken_from} for case in taken}}
    needs = [row for row in stored["needs_without_change"] if row["case"] not in taken]
    needs += [row for row in document["needs_without_change"] if row["case"] in taken]
    merged = {**stored, "probes": stored["probes"] + document["probes"],
              "budget": stored["budget"] + document["budget"],
              "wrong": sum(row["status"] == WRONG for row in edges),
              "unchecked": sum(row["status"] == UNCHECKED for row in edges),
              "edges": edges, "needs_without_change": needs, "commit": document["commit"], "cases": stamps}
    return Adopted(merged, taken, left)


def _refused(stored: Mapping[str, Any], check: Check, cases: list[str], digests: Mapping[str, str],
             asked: Collection[str]) -> None:
    """TakeError for a check that speaks for another corpus than the one now (a case's digest differs, or it recorded
    none), that kept rows of an earlier check (--merge: a stamp of another commit than its own), that was taken
    already (a stored stamp names its run), that was run with other options than the stored one, or that holds no
    row of a case asked."""
    document, path = check.document, check.path
    missing = sorted(set(asked) - set(cases))
    if missing:
        raise TakeError(f"--case {missing[0]}: the check at {path} holds no row of it")
    stamps = document["cases"]
    stale = [case for case in cases if case not in stamps or stamps[case]["digest"] != digests.get(case)]
    if stale:
        more = f" (and {len(stale) - 1} more)" if len(stale) > 1 else ""
        raise TakeError(f"--take {path}: stale: case {stale[0]}{more} was checked as its source and declaration "
                        f"were then, not as they are now (changed since, gone, or no digest recorded): re-check it, "
                        f"or take the other cases with --case")
    kept = sorted({str(stamps[case]["commit"]) for case in cases} - {str(document["commit"])})
    if kept:
        raise TakeError(f"--take {path}: it holds rows checked at {kept[0]}, not at its own commit "
                        f"{document['commit']}: a check run with --merge, whose probes would count twice; take a "
                        f"check run without --merge")
    again = sorted(case for case, stamp in stored["cases"].items() if stamp.get("run") == check.run)
    if again:
        raise TakeError(f"--take {path}: its run {check.run} was taken already (the stored stamp of {again[0]} names "
                        f"it): its probes would count twice")
    if document["options"] != stored["options"]:
        raise TakeError(f"--take {path}: checked with options {document['options'] or 'none'}, the stored document "
                        f"with {stored['options'] or 'none'}: take only checks run alike")


def unsettled(rows: Iterable[Mapping[str, Any]], declared: Collection[Declared]) -> str:
    """Why a case's rows cannot be taken ('' where they can): an edge declared now that the check has no row of, or
    whose row is not settled (wrong, unchecked: its probes failed to say, or the budget never reached it)."""
    by_key = {_key(row): row for row in rows}
    for key in sorted(declared):
        _, package, bound, source = key
        row = by_key.get(key)
        if row is None:
            return f"{package}{bound} [{source}] is not in the check"
        if row["status"] not in SETTLED:
            return f"{package}{bound} [{source}] is {row['status']}: {row['why']}".rstrip(": ")
    return "" if declared else "it declares no range now"


def standing(stored: Mapping[str, Any], case: str, rows: list[Mapping[str, Any]], check: Check) -> str:
    """Why the stored rows of `case` stand over the check's `rows` ('' where they may be replaced), where both speak
    for the case's source as it is now (the same digest): a check that ran after this one took them (older rows never
    replace newer ones), they are the check's already (the same rows at the same commit: the check copied into the
    stored document, whose probes would count twice), or they settled every edge and judged inside every range and
    the check's did not (less evidence never replaces more)."""
    stamp, own = stored["cases"].get(case, {}), check.document["cases"][case]
    if stamp.get("digest") != own["digest"]:
        return ""
    if "run" in stamp and _later(str(stamp["run"]), check.run):
        return (f"its stored rows are of a later check (run {stamp['run']} of {stamp.get('date')}) than this one: a "
                f"take never replaces newer rows with older ones")
    held = sorted((dict(row) for row in stored["edges"] if row["case"] == case), key=_key)
    if stamp.get("commit") == own["commit"] and held == sorted((dict(row) for row in rows), key=_key):
        return "its stored rows are the check's already (the same rows, digest and commit): nothing new to take"
    if all(row["status"] in SETTLED for row in held) and _judged_inside(held) and not _judged_inside(rows):
        return ("its stored rows judged releases inside its ranges, and the check's did not (its budget spent at the "
                "bounds, say): a take never replaces evidence with less")
    return ""


def _judged_inside(rows: Iterable[Mapping[str, Any]]) -> bool:
    """Whether every declaration the rows are edges of carries evidence from inside its range (caught.inside_judged)."""
    declarations: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        declarations.setdefault(str(row.get("source")), []).append(row)
    return bool(declarations) and all(inside_judged(edges) for edges in declarations.values())


def _later(stored_run: str, run: str) -> bool:
    # A stamp whose run is no run id cannot be placed in time: it is kept, since unknown is never older.
    then, now = runs.run_start(stored_run), runs.run_start(run)
    return then is None or now is None or (then, stored_run) > (now, run)


def refuse_itself(check: Check, stored: Path) -> None:
    """TakeError where the check's document is the stored one (the same file, through a link too): a document is
    never taken into itself, its probes counted twice."""
    if Path(stored).exists() and check.path.samefile(stored):
        raise TakeError(f"--take {check.path.parent.parent}: its report/{check.path.name} is the stored document "
                        f"{stored} itself: take a check into another document")


def replaced(stored: list[Mapping[str, Any]], taken: Mapping[str, list[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The stored rows with each taken case's rows replaced where its first row stood (a case new to the document at
    the end), so the stored file changes only where a case was taken."""
    found: list[dict[str, Any]] = []
    placed: set[str] = set()
    for row in stored:
        case = str(row["case"])
        if case not in taken:
            found.append(dict(row))
        elif case not in placed:
            found += [dict(new) for new in taken[case]]
            placed.add(case)
    found += [dict(new) for case, rows in taken.items() if case not in placed for new in rows]
    return found


def describe(adopted: Adopted, check: Check, stored: Path) -> list[str]:
    """The lines `--take` prints: each case of the check left with its stored rows and why, then what was taken."""
    lines = [f"not taken: {case}: {why}" for case, why in sorted(adopted.left.items())]
    document = adopted.document
    holds = "now holds" if adopted.taken else "is left as it was, and holds"
    lines.append(f"ranges: took {len(adopted.taken)} case(s) of the check at {check.path} (commit "
                 f"{check.document['commit'] or 'unrecorded'}, run {check.run} of {check.date}); "
                 f"{len(adopted.left)} left with their stored rows; {stored} {holds} {len(document['edges'])} "
                 f"edge(s), {document['wrong']} wrong, {document['unchecked']} unchecked; {document['probes']} of "
                 f"{document['budget']} probes")
    return lines


def _by_case(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    found: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        found.setdefault(str(row["case"]), []).append(row)
    return found


def _key(row: Mapping[str, Any]) -> Declared:
    return str(row["case"]), str(row["package"]), str(row["declared"]), str(row.get("source"))


def _of(declared: Collection[Declared], case: str) -> set[Declared]:
    return {key for key in declared if key[0] == case}


def _current(rows: list[Mapping[str, Any]], declared: Collection[Declared]) -> list[Mapping[str, Any]]:
    # A row of a declaration the corpus no longer makes speaks for nothing (as --merge keeps rows).
    return [row for row in rows if _key(row) in declared]
