"""An ecosystem run's regressions grouped by cause across projects: the same error in four projects is one group
naming the four, with the documented change and its fix when one is declared, and one reproducer per project.

The input is each project's outcome as shardmatrix.ecosystem records it (its verdict and its upgrade's causes,
whose signatures reports.verdicts.causes made alike across cells and cases, so they match across projects too). A
skipped project is no answer, so a run with one is never SAFE; an INCONCLUSIVE one never hides an UNSAFE one
(`worst`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reports.verdicts import documented
from reports.verdicts.causes import signature

SAFE, UNSAFE, INCONCLUSIVE, SKIPPED = "SAFE", "UNSAFE", "INCONCLUSIVE", "SKIPPED"
#: The order the grid lists projects in, worst first.
ORDER = (UNSAFE, INCONCLUSIVE, SAFE, SKIPPED)


@dataclass
class Reproducer:
    """What it takes to see a cause in one project: its revision, one test id, the reproducer script and the pins."""

    project: str
    revision: str
    case_id: str
    script: str
    pins: dict[str, str]


@dataclass
class CauseGroup:
    """One cause across projects: its signature, the change that documents it and its fix, and where it shows."""

    signature: str
    example: str
    change: str = ""
    fix: str = ""
    projects: list[str] = field(default_factory=list)
    cases: int = 0
    reproducers: list[Reproducer] = field(default_factory=list)
    #: The first release where it shows (`--bisect`), or why none was named; "" when not bisected.
    first_bad: str = ""
    bisect: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The group as plain data, for the JSON summary."""
        return {"signature": self.signature, "example": self.example, "change": self.change, "fix": self.fix,
                "projects": list(self.projects), "cases": self.cases,
                "reproducers": [vars(r) for r in self.reproducers], "first_bad": self.first_bad,
                "bisect": self.bisect}


def worst(verdicts: Sequence[str], pending: int = 0) -> str:
    """UNSAFE when any project is, else INCONCLUSIVE when any is (or says a verdict this reader does not know), any
    listed project was skipped (its tests never ran: SAFE would speak for a list of which part was not asked), none
    was judged, or some are still to run (`pending`: a run stopped part way), else SAFE."""
    if UNSAFE in verdicts:
        return UNSAFE
    return INCONCLUSIVE if not verdicts or pending or any(v != SAFE for v in verdicts) else SAFE


def fixes(declared: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, str]:
    """{change label: its fix} of the declared changes (reports.verdicts.documented.label names them in causes)."""
    return {documented.label(change): str(change.get("fix") or "") for _, change in declared}


#: Errors a test raises of its own (its asserts, numpy's assert_allclose, pytest's `Failed` of `pytest.fail` and of a
#: `pytest.raises` that saw nothing: "DID NOT RAISE"): two projects failing their own checks alike share a symptom,
#: not a cause, so each stays its project's.
OWN_CHECKS = ("AssertionError", "Failed")


def shared(signature: str) -> bool:
    """Whether a signature can name one cause across projects: an error with its words, not a test's own check or a
    bare exception type."""
    kind, _, text = signature.partition(": ")
    return bool(text.strip()) and kind not in OWN_CHECKS


def group(projects: Sequence[Mapping[str, Any]], declared: Sequence[tuple[str, Mapping[str, Any]]] = ()
          ) -> list[CauseGroup]:
    """The UNSAFE projects' causes grouped by signature, those in most projects first (then most cases); a signature
    that cannot name a cause across projects (`shared`) is grouped within its project only."""
    known = fixes(declared)
    found: dict[tuple[str, str], CauseGroup] = {}
    for project in projects:
        if project.get("verdict") != UNSAFE:
            continue
        for cause in project.get("causes", []):
            key = (cause["signature"], "" if shared(cause["signature"]) else str(project["name"]))
            made = found.setdefault(key, CauseGroup(
                cause["signature"], cause.get("example", ""), cause.get("change", ""),
                known.get(cause.get("change", ""), "")))
            if project["name"] not in made.projects:
                made.projects.append(project["name"])
                cases = list(cause.get("cases", []))
                made.reproducers.append(Reproducer(
                    project["name"], project.get("revision", ""), cases[0] if cases else "",
                    cause.get("reproducer", ""), dict(project.get("pins", {}).get("candidate", {}))))
            made.cases += len(cause.get("cases", []))
            made.first_bad = made.first_bad or cause.get("first_bad", "")
            made.bisect = made.bisect or cause.get("bisect", "")
    return sorted(found.values(), key=lambda g: (-len(g.projects), -g.cases, g.signature))


#: What a removal's signature starts with: a test that passed on the baseline and skips itself on the candidate.
SKIPPED_NOW = "skipped"


def removals(removed: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A comparison's removals (passing -> not applicable: reports.verdicts.compare's `removed` rows) as causes like
    its regressions': the skip's own words as the signature ('skipped: jax.sharding.OldThing is gone'), so the same
    removal groups across projects, is bisected and reproduced like any failure; one without words is named so."""
    found: dict[str, dict[str, Any]] = {}
    for row in removed:
        said = " ".join(str(row.get("detail") or "").split())
        made = found.setdefault(signature(SKIPPED_NOW, said or "(it gave no reason)"), {
            "change": "", "example": f"{SKIPPED_NOW}: {said or '(it gave no reason)'}", "cases": []})
        made["cases"].append(str(row["case_id"]))
    return [{"signature": key, **made, "cases": sorted(made["cases"])} for key, made in found.items()]


def grid(projects: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """One row per project, worst first: its revision, the baseline and candidate cells, the tests compared, its
    verdict and why."""
    rows = [{"project": str(p["name"]), "revision": str(p.get("revision") or ""),
             "baseline": str(p.get("baseline") or ""), "candidate": str(p.get("candidate") or ""),
             "verdict": str(p["verdict"]), "tests": str(p.get("tests") or ""),
             "coverage": str(p.get("coverage") or ""),
             "reason": str(p.get("reason") or "")} for p in projects]
    return sorted(rows, key=lambda r: (ORDER.index(r["verdict"]) if r["verdict"] in ORDER else 0, r["project"]))
