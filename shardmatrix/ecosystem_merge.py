"""The fan-in of `shardmatrix ecosystem` (`--merge`): one run's summary from the summaries of one job per project,
and which run a summary or a project's own report is of.

A run is named by its candidate, baseline, day and whether it ran whole suites
(harness.ecosystem_summary.ECOSYSTEM_RUN_FIELDS). Two jobs of one run may spell its pins in another order or case
(`flax==0.12.6 jax==0.9.0`), so runs are compared by `run_key`: the pins normalised and taken as sets. A project's own
report names its run on its first line (harness.ecosystem_summary.ecosystem_project_run); one of another run,
lingering in an output folder from an earlier run, is left out in one line, never merged or shown as this run's.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from harness import ecosystem_summary
from harness.formats import ShardmatrixError
from shardmatrix import ecosystem_list

INCONCLUSIVE = "INCONCLUSIVE"
#: Why a project selected for a fan-in has no outcome: its job wrote no summary (it died, hung or never started).
NO_REPORT = "its job left no report (it stopped, timed out or could not start): re-run it"
#: Why a SAFE part is not taken as one: a run writes, for every project it judged, the cells compared, their count of
#: tests and the revision it ran; a part without them (written by hand, or cut) proves nothing.
NO_EVIDENCE = ("its summary carries no evidence for its SAFE (no baseline and candidate cells, no tests compared or "
               "no revision): re-run it")
#: Why a SAFE part of summary schema 1 is not taken as one: its SAFE was judged before a SAFE had to say how many of
#: its tests could show a regression (harness.outputs' update_to_2 marks it).
OLDER_RULES = ("judged by an older shardmatrix (summary schema 1), whose SAFE did not count the tests skipped or "
               "failing on both sides: re-run it")
#: The fields of a project's outcome that name a file under the output folder.
PATHS = ("report", "changes_from")


class MergeError(ShardmatrixError, ValueError):
    """Parts that are not of one run, or hold no summary at all, in one line naming the folder."""


def normalised(pin: str) -> str:
    """A pin as one spelling: the package's canonical name, each version as packaging prints it (`JAX==0.10.0RC1` is
    `jax==0.10.0rc1`); a source (`jax @ git+...`) by its address; text no requirement parses, by its words."""
    try:
        required = Requirement(pin)
    except InvalidRequirement:
        return " ".join(pin.split())
    name = canonicalize_name(required.name)
    if required.url:
        return f"{name} @ {required.url}"
    return name + ",".join(sorted(f"{spec.operator}{_version(spec.version)}" for spec in required.specifier))


def _version(text: str) -> str:
    try:
        return str(Version(text))
    except InvalidVersion:  # a wildcard (==0.9.*) or a legacy spelling: as written
        return text


def run_of(document: Mapping[str, Any]) -> dict[str, Any]:
    """The fields that name a summary's run, as it wrote them."""
    return {key: document.get(key) for key in ecosystem_summary.ECOSYSTEM_RUN_FIELDS}


def run_key(run: Mapping[str, Any]) -> tuple[frozenset[str], frozenset[str], str, bool]:
    """What two runs must share to be one run: the candidate's pins and the baseline's as sets of normalised pins,
    the day, and whether whole suites ran."""
    candidate = run.get("candidate") or []
    baseline = str(run.get("baseline") or "")
    return (frozenset(normalised(pin) for pin in candidate),
            frozenset(normalised(pin) for pin in baseline.split(",") if pin.strip()),
            str(run.get("as_of") or ""), bool(run.get("whole_suite")))


def unlike(run: Mapping[str, Any], asked: Mapping[str, Any]) -> str:
    """How `run` differs from the fields of a run `asked` names ("its candidate X, not the asked Y"); "" when in
    none (a field `asked` leaves out is anyone's)."""
    mine, wanted = run_key(run), run_key({**run, **asked})
    for number, key in enumerate(ecosystem_summary.ECOSYSTEM_RUN_FIELDS):
        if key in asked and mine[number] != wanted[number]:
            return f"its {key} {_shown(run.get(key))}, not the {_shown(asked[key])} asked"
    return ""


def _shown(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


def stale_report(path: Path, run: Mapping[str, Any]) -> str:
    """Why a project's own report is not of `run` ("" when it is): it names another run, or none."""
    named = ecosystem_summary.ecosystem_project_run(path)
    if named is None:
        return "it names no run"
    if run_key(named) != run_key(run):
        return (f"it is of another run ({' '.join(map(str, named.get('candidate') or []))} against "
                f"{named.get('baseline')}, as of {named.get('as_of')})")
    return ""


def stale_reports(out: Path, run: Mapping[str, Any], say: Callable[[str], object]) -> list[Path]:
    """The project reports under OUT/report/ecosystem/ that are not of `run` (an earlier run's), each named in one
    line as left out of this run's report."""
    folder = ecosystem_summary.ecosystem_project_report(Path(out) / "report", "x").parent
    found = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        why = stale_report(path, run)
        if why:
            say(f"{path}: left out of this run's report: {why}")
            found.append(path)
    return found


def merged(folders: Sequence[Path], planned: Sequence[ecosystem_list.Entry] = (),
           say: Callable[[str], object] = print, out: Path | None = None,
           asked: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One run's summary from the summaries of runs of one candidate, baseline and day (the fan-in of one job per
    project): their projects in the order given, then each `planned` project no folder judged, INCONCLUSIVE
    (NO_REPORT), none pending; each project's files named relative to its folder are named relative to `out`, where
    the merged report is written. A folder without a summary is named in one line and left out (a job that stopped
    uploads its results but no report), and so is a project's own report of another run (`stale_report`).
    MergeError naming the folder for a summary of another run (`run_key`) than the first's or than the fields of
    one `asked` names (the command line's candidate, baseline, day), that repeats a project (in two folders or
    twice in one), holds one the selection does not, or was stopped part way, and when no folder holds a summary."""
    head: dict[str, Any] = {}
    projects: list[dict[str, Any]] = []
    for folder in folders:
        path = Path(folder) / "report" / ecosystem_summary.ECOSYSTEM_JSON.name
        if not path.is_file():
            say(f"--merge {folder}: no {ecosystem_summary.ECOSYSTEM_JSON.name} under its report/: left out")
            continue
        document = ecosystem_summary.read_ecosystem(path)
        run = run_of(document)
        if head and run_key(run) != run_key(head):
            raise MergeError(f"--merge {folder}: another run ({run}) than the first's ({head})")
        differs = unlike(run, asked or {})
        if differs:
            raise MergeError(f"--merge {folder}: a part of another run: {differs}")
        if document.get("pending"):
            raise MergeError(f"--merge {folder}: its run stopped before {', '.join(document['pending'])}")
        # Which package the baseline held, and why, is the first part's to tell (every part chose it alike).
        head = head or {**run, **({"held": document["held"]} if isinstance(document.get("held"), str) else {})}
        for project in document["projects"]:
            refuse_project(project, folder, projects, planned)
            projects.append(rebased(current_only(evidenced(project), Path(folder), run, say), Path(folder), out))
    if not head:
        raise MergeError(f"--merge: none of the {len(folders)} folder(s) holds a report/"
                         f"{ecosystem_summary.ECOSYSTEM_JSON.name}: nothing to merge")
    judged = {project["name"] for project in projects}
    for entry in planned:
        if entry.name not in judged:
            say(f"{entry.name}: {NO_REPORT}")
            projects.append({"name": entry.name, "why": entry.why, "source": entry.source, "revision": "",
                             "verdict": INCONCLUSIVE, "reason": NO_REPORT, "coverage": "", "causes": []})
    return {**head, "projects": projects, "pending": []}


def evidenced(project: dict[str, Any]) -> dict[str, Any]:
    """The project's outcome; a SAFE one without the evidence a run writes for it (NO_EVIDENCE), or judged by the rules
    of summary schema 1 (OLDER_RULES), as INCONCLUSIVE."""
    if project["verdict"] != "SAFE":
        return project
    if "judged_by_schema" in project:
        return {**project, "verdict": INCONCLUSIVE, "reason": OLDER_RULES, "coverage": ""}
    if (project.get("baseline") and project.get("candidate") and project.get("tests", 0) > 0
            and project.get("revision")):
        return project
    return {**project, "verdict": INCONCLUSIVE, "reason": NO_EVIDENCE, "coverage": ""}


def refuse_project(project: Mapping[str, Any], folder: Path, taken: Sequence[Mapping[str, Any]],
                   planned: Sequence[ecosystem_list.Entry]) -> None:
    """MergeError for a project taken already (checked against this folder's too: one summary may name a project
    twice), one the selection does not hold, or one judged under another entry of that name (`Entry.selection`)."""
    if project["name"] in {one["name"] for one in taken}:
        raise MergeError(f"--merge {folder}: project {project['name']} is in an earlier folder too, or twice in "
                         "this one")
    if planned and project["name"] not in {entry.name for entry in planned}:
        raise MergeError(f"--merge {folder}: project {project['name']} is not in the list's selection "
                         f"({', '.join(entry.name for entry in planned)}): give the --list and --only its run had")
    listed = next((entry for entry in planned if entry.name == project["name"]), None)
    if listed is not None and project.get("selection") and project["selection"] != listed.selection():
        raise MergeError(f"--merge {folder}: project {project['name']} was judged under another entry than the "
                         "list's (its tests, keywords, markers, exclude, env, devices or source differ): give the "
                         "--list its run had")


def current_only(project: dict[str, Any], folder: Path, run: Mapping[str, Any],
                 say: Callable[[str], object]) -> dict[str, Any]:
    """The project's outcome, less its own report when that file is not of `run` (named in one line)."""
    report = project.get("report")
    if not report or Path(report).is_absolute():
        return project
    why = stale_report(folder / report, run)
    if not why:
        return project
    say(f"--merge {folder}: {project['name']}'s report {report} left out: {why}")
    return {key: value for key, value in project.items() if key != "report"}


def rebased(project: dict[str, Any], folder: Path, out: Path | None) -> dict[str, Any]:
    """A project's outcome with its files (PATHS) named relative to `out` instead of to the folder it came from."""
    if out is None:
        return project
    moved = {key: os.path.relpath(folder / project[key], out) for key in PATHS
             if project.get(key) and not Path(project[key]).is_absolute()}
    return {**project, **moved}
