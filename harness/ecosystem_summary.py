"""An ecosystem run's files (shardmatrix.ecosystem writes them, reports/ecosystem_report.py renders them): its summary
for programs, `ecosystem.json`, with the reader that checks every field a verdict stands on; the names of its views;
and each project's own report, whose first line names the run it is of.

Written and read through harness.outputs (its formats, versions and one atomic writer); imports nothing else of the
project, so reports/ may read it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.outputs import VERSION_KEY, Format, Row, read_document, read_json, write_atomically, write_document

#: An ecosystem run's summary for programs: the candidate, baseline and day, each project's verdict, revision, pins
#: and causes, and the causes grouped across projects.
#: The schema version of a summary whose SAFE carries its evidence (its `coverage` says how many tests could show a
#: regression when not every one could: attack 39's F1/F2). Version 1 wrote SAFE by the rules before.
_OLDER_SAFE = 1


def _ecosystem_update_to_2(document: Row) -> Row:
    """Version 1 -> 2: each SAFE project marked `judged_by_schema` 1, its coverage silent on the tests skipped or
    failing on both sides, so a merge does not take it for a SAFE of today's rules (ecosystem_merge.evidenced)."""
    projects = document.get("projects")
    if isinstance(projects, list):
        document = {**document, "projects": [
            {**project, "judged_by_schema": _OLDER_SAFE}
            if isinstance(project, dict) and project.get("verdict") == "SAFE" else project for project in projects]}
    return document


ECOSYSTEM_JSON = Format("ecosystem.json", 2, "ecosystem summary", {2: _ecosystem_update_to_2})
#: Its views: the whole report (Markdown and HTML), and a body short enough for a pull-request comment.
ECOSYSTEM_MD, ECOSYSTEM_HTML, ECOSYSTEM_COMMENT_MD = "ecosystem.md", "ecosystem.html", "ecosystem-comment.md"


def ecosystem_project_report(report_dir: Path, project: str) -> Path:
    """REPORT/ecosystem/<project>.md: one project's compare report, kept (compare.md holds the latest only)."""
    return Path(report_dir) / "ecosystem" / f"{project}.md"


#: The first line of a project's own report: the run it is of (its candidate, baseline and day), as JSON in an HTML
#: comment, so one lingering in the folder from an earlier run is told apart from this run's.
ECOSYSTEM_RUN_MARK = "<!-- shardmatrix ecosystem run: "
#: What names an ecosystem run: two reports of one run agree on these.
ECOSYSTEM_RUN_FIELDS = ("candidate", "baseline", "as_of", "whole_suite")


def write_ecosystem_project_report(report_dir: Path, project: str, compare_md: str, run: Mapping[str, Any]) -> Path:
    """REPORT/ecosystem/<project>.md: the project's compare report under a first line naming its run (`run`'s
    ECOSYSTEM_RUN_FIELDS), then the same in words."""
    named = {key: run.get(key) for key in ECOSYSTEM_RUN_FIELDS}
    said = (f"Ecosystem run: {' '.join(map(str, named['candidate'] or []))} against {named['baseline']}, as of "
            f"{named['as_of']}.")
    path = ecosystem_project_report(report_dir, project)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(path, f"{ECOSYSTEM_RUN_MARK}{json.dumps(named, sort_keys=True)} -->\n{said}\n\n"
                                  f"{compare_md}")


def ecosystem_project_run(path: Path) -> Row | None:
    """The run a project's own report names on its first line; None for a file that names none (missing, cut, or
    written before reports named their run)."""
    try:
        with Path(path).open(encoding="utf-8", errors="replace") as opened:
            first = opened.readline()
    except OSError:
        return None
    if not first.startswith(ECOSYSTEM_RUN_MARK) or not first.rstrip().endswith("-->"):
        return None
    try:
        named = json.loads(first[len(ECOSYSTEM_RUN_MARK):].rstrip().removesuffix("-->"))
    except ValueError:
        return None
    return named if isinstance(named, dict) else None


def write_ecosystem(report_dir: Path, content: Mapping[str, Any]) -> Path:
    """Write an ecosystem run's summary (`ecosystem.json` under the report folder)."""
    return write_document(Path(report_dir) / ECOSYSTEM_JSON.name, ECOSYSTEM_JSON, content)


def read_ecosystem(path: Path) -> Row:
    """An ecosystem summary, migrated to the version this reader knows; one line naming the file (and the project)
    for a document that does not name its run (a candidate, a baseline, a YYYY-MM-DD day, its schema as a number) or
    whose projects are not objects of the fields and types a run writes (another file's, a cut one, one by hand)."""
    raw = read_json(path, ECOSYSTEM_JSON)
    # A run writes its schema as a number: a missing or quoted one is a summary no run wrote (migrate would take it).
    if isinstance(raw, dict) and type(raw.get(VERSION_KEY)) is not int:
        raise ECOSYSTEM_JSON.error(path, f"{ECOSYSTEM_JSON.what}: its schema_version is not a number")
    document = read_document(path, ECOSYSTEM_JSON)
    candidate = document.get("candidate")
    if not (isinstance(candidate, list) and candidate and all(isinstance(pin, str) and pin for pin in candidate)
            and isinstance(document.get("baseline"), str) and document["baseline"]
            and isinstance(document.get("as_of"), str) and _DAY.fullmatch(document["as_of"])
            and isinstance(document.get("whole_suite", False), bool)):
        raise ECOSYSTEM_JSON.error(path, f"{ECOSYSTEM_JSON.what} does not say its candidate, baseline, day "
                                         "(YYYY-MM-DD) and whole_suite (true or false)")
    projects = document.get("projects")
    if not isinstance(projects, list):
        raise ECOSYSTEM_JSON.error(path, f"{ECOSYSTEM_JSON.what} has no list of projects")
    for number, project in enumerate(projects, 1):
        wrong = _ecosystem_project_problem(project)
        if wrong:
            named = project["name"] if isinstance(project, dict) and isinstance(project.get("name"), str) else number
            raise ECOSYSTEM_JSON.error(path, f"{ECOSYSTEM_JSON.what}: project {named}: {wrong}")
    pending = document.get("pending", [])
    if not (isinstance(pending, list) and all(isinstance(name, str) for name in pending)):
        raise ECOSYSTEM_JSON.error(path, f"{ECOSYSTEM_JSON.what}: pending is not a list of project names")
    names = [project["name"] for project in projects]
    twice = next((name for name in names if names.count(name) > 1), None)
    if twice is not None:
        raise ECOSYSTEM_JSON.error(path, f"{ECOSYSTEM_JSON.what}: project {twice} is listed twice (a run judges each "
                                         "project once)")
    wrong = _verdict_problem(document.get("verdict"), projects, pending)
    if wrong:
        raise ECOSYSTEM_JSON.error(path, f"{ECOSYSTEM_JSON.what}: {wrong}")
    return document


def _verdict_problem(stated: object, projects: list[Row], pending: list[str]) -> str:
    """Why a summary's own verdict is not the one its projects allow ("" when it is): a run states the worst of them
    (reports.verdicts.ecosystem_judge.worst), so SAFE only where every project is SAFE and none is still to run, and
    UNSAFE wherever one is UNSAFE."""
    if stated is None:
        return "it states no verdict (a run states the worst of its projects')"
    if not isinstance(stated, str):
        return f"its verdict {stated!r} is not text"
    unsafe = next((project["name"] for project in projects if project["verdict"] == "UNSAFE"), None)
    if unsafe is not None and stated != "UNSAFE":
        return f"it says {stated}, but project {unsafe} is UNSAFE"
    short = next((project for project in projects if project["verdict"] != "SAFE"), None)
    if stated == "SAFE" and (short is not None or pending or not projects):
        why = (f"project {short['name']} is {short['verdict']}" if short is not None
               else f"{', '.join(pending)} did not run" if pending else "it judged no project")
        return f"it says SAFE, but {why}"
    return ""


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
#: A project's fields of text, and its causes', when present (a run writes them all; a skipped project few).
_PROJECT_TEXT = ("why", "source", "revision", "reason", "coverage", "baseline", "candidate", "report", "changes_from",
                 "selection")
_CAUSE_TEXT = ("change", "example", "reproducer", "first_bad", "bisect")


def _ecosystem_project_problem(project: object) -> str:
    """What is wrong with one project of an ecosystem summary, naming the field; "" when nothing is."""
    if not (isinstance(project, dict) and isinstance(project.get("name"), str)
            and isinstance(project.get("verdict"), str)):
        return "does not name its project and its verdict"
    wrong = [key for key in _PROJECT_TEXT if not isinstance(project.get(key, ""), str)]
    tests = project.get("tests", 0)
    if not isinstance(tests, int) or isinstance(tests, bool):
        wrong.append("tests")
    pins = project.get("pins", {})
    if not (isinstance(pins, dict) and all(isinstance(side, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in side.items()) for side in pins.values())):
        wrong.append("pins")
    if wrong:
        return f"{', '.join(wrong)} not of the type a run writes (text; tests a number; pins tables of text)"
    env = project.get("env", {})
    if not (isinstance(env, dict) and all(isinstance(value, str) for value in env.values())):
        return "its env is not a table of variables set to text"
    excluded = project.get("excluded", [])
    if not (isinstance(excluded, list) and all(
            isinstance(e, dict) and isinstance(e.get("what"), str) and isinstance(e.get("reason"), str)
            for e in excluded)):
        return "its excluded is not a list of tests left out, each with its what and reason as text"
    causes = project.get("causes", [])
    if not (isinstance(causes, list) and all(
            isinstance(c, dict) and isinstance(c.get("signature"), str)
            and all(isinstance(c.get(key, ""), str) for key in _CAUSE_TEXT)
            and isinstance(c.get("cases", []), list) and all(isinstance(case, str) for case in c.get("cases", []))
            for c in causes)):
        return "its causes are not each a signature with text fields and a list of test ids"
    return ""
