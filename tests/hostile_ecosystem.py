"""Hostile inputs for the property test (tests/test_no_verdict_better_than_evidence.py): the parts an ecosystem fan-in
merges (`shardmatrix ecosystem --merge`, each DIR/report/ecosystem.json written by harness.ecosystem_summary), with
the defects real parts have: a job that died and left none, a cut or non-JSON file, another file's document, a newer
schema, a project that is not an object, a verdict no reader knows, a run stopped part way, another candidate's run,
the same run's candidate spelt otherwise (sound: one run), a project the list does not hold, or one in two parts.

A generated part knows its own evidence (`sound`): whether a merge may stand on it at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from harness import ecosystem_summary
from reports.verdicts.ecosystem_judge import worst

#: The list the merge is given, and a project it does not hold.
LISTED = ("alpha", "beta", "gamma")
UNLISTED = "zeta"
VERDICTS = ("SAFE", "UNSAFE", "INCONCLUSIVE", "SKIPPED", "MAYBE")
HEAD = {"candidate": ["jax==0.9.0"], "baseline": "jax==0.8.3,flax==0.12.3", "as_of": "2026-01-20",
        "whole_suite": False}
#: What can be wrong with a part as a whole ("none": nothing).
PART_DEFECTS = ("none", "none", "none", "missing", "not_json", "cut", "foreign", "newer_schema", "not_object",
                "pending", "other_candidate", "respelt")
#: Defects a merge must refuse in one line (another candidate's run only beside a part of the first's; a missing
#: summary is left out in one line, as a job that stopped uploads results but no report, unless every part lacks one).
REFUSED = frozenset(PART_DEFECTS) - {"none", "other_candidate", "missing", "respelt"}
#: The first run's candidate and baseline as another job may spell them (its pins' order and case).
RESPELT = {"candidate": ["JAX==0.9.0"], "baseline": "flax==0.12.3,jax==0.8.3"}

LIST = "schema_version = 1\n" + "".join(
    f'\n[[project]]\nname = "{name}"\nwhy = "shards"\nsource = "sdist"\ntests = ["tests"]\n' for name in LISTED)


@dataclass(frozen=True)
class Part:
    """One job's summary as generated: its projects' verdicts, and what is wrong with the file."""

    projects: tuple[tuple[str, str], ...]
    defect: str

    def document(self) -> dict[str, Any]:
        """The summary as the job would have written it, less the defect."""
        projects = [{"name": name, "verdict": verdict, "reason": "", "causes": (
            [{"signature": f"E in {name}", "example": "E", "cases": ["t::a"]}] if verdict == "UNSAFE" else [])}
            for name, verdict in self.projects]
        head = {**HEAD, "candidate": ["jax==0.9.1"]} if self.defect == "other_candidate" else HEAD
        head = {**head, **RESPELT} if self.defect == "respelt" else head
        pending = ["gamma"] if self.defect == "pending" else []
        # A run states the worst of its projects (reports.verdicts.ecosystem_judge.worst), as its report writes it.
        verdict = worst([verdict for _, verdict in self.projects], len(pending))
        return {**head, "verdict": verdict, "projects": projects, "pending": pending}


parts = st.builds(Part, projects=st.lists(st.tuples(st.sampled_from((*LISTED, UNLISTED)), st.sampled_from(VERDICTS)),
                                          max_size=3).map(tuple),
                  defect=st.sampled_from(PART_DEFECTS))


def write_part(folder: Path, part: Part) -> None:
    """The part under `folder` (FOLDER/report/ecosystem.json) as its defect left it."""
    report = folder / "report"
    if part.defect == "missing":
        return
    report.mkdir(parents=True)
    path = report / ecosystem_summary.ECOSYSTEM_JSON.name
    text = json.dumps({"schema_version": ecosystem_summary.ECOSYSTEM_JSON.version, **part.document()})
    if part.defect == "not_json":
        text = "not json at all"
    elif part.defect == "cut":
        text = text[: len(text) // 2]
    elif part.defect == "foreign":
        text = json.dumps({"schema_version": 1, "cells": [], "verdict": "SAFE"})
    elif part.defect == "newer_schema":
        text = json.dumps({**json.loads(text), "schema_version": ecosystem_summary.ECOSYSTEM_JSON.version + 1})
    elif part.defect == "not_object":
        text = json.dumps({**json.loads(text), "projects": ["alpha"]})
    path.write_text(text, encoding="utf-8")


def merged_evidence(given: list[Part]) -> tuple[bool, bool, bool]:
    """(whether a SAFE could stand on the parts, whether an UNSAFE must show, whether the merge must be refused):
    SAFE needs every listed project judged SAFE or SKIPPED exactly once, one SAFE, and sound parts."""
    written = [part for part in given if part.defect != "missing"]
    refused = not written or any(part.defect in REFUSED for part in written)
    refused = refused or len({part.defect == "other_candidate" for part in written}) > 1
    present = [project for part in written for project in part.projects]
    names = [name for name, _ in present]
    refused = refused or UNLISTED in names or len(names) != len(set(names))
    verdicts = dict(present)
    safe = (not refused and set(names) == set(LISTED) and all(v in ("SAFE", "SKIPPED") for v in verdicts.values())
            and "SAFE" in verdicts.values())
    return safe, not refused and "UNSAFE" in verdicts.values(), refused
