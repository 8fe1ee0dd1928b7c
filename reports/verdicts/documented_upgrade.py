"""The documented changes an upgrade crosses (`nox -s upgrade`): those whose range starts between a baseline's and a
candidate's versions, each with the compared tests that carry it, as the verdict's plain-text list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness import outputs
from harness.vocabulary import CHANGE_KINDS, CHANGE_PACKAGES
from reports.data.text import as_text
from reports.verdicts.documented import ANNOUNCES, in_range, label, release, version_order


def read_declarations(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(case id, change) of each entry of a declarations file (harness.outputs reads it, one line naming the file
    when it cannot)."""
    return outputs.read_declarations(path)


def between(declared: Sequence[tuple[str, Mapping[str, Any]]], baseline: Mapping[str, object],
            candidate: Mapping[str, object]) -> list[dict[str, Any]]:
    """The declared changes a move from `baseline` to `candidate` versions ({'jax': ..., 'flax': ...}) crosses: those
    whose range (a deprecation's `warned`) holds for the candidate and not for the baseline, so whose start lies
    in (baseline, candidate], and the changes whose warning starts there (where warnings are errors, that is the
    break). One entry per change (its label, kind, fix, cases), in release order."""
    found: dict[str, dict[str, Any]] = {}
    for case_id, change in declared:
        requirement = change.get("since") or change.get("warned")
        kind = CHANGE_KINDS.get(as_text(change.get("kind")), "?")
        if not in_range(requirement, candidate) or in_range(requirement, baseline):
            warned = change.get("warned")
            if not change.get("since") or not in_range(warned, candidate) or in_range(warned, baseline):
                continue
            package, version = release({"warned": warned})
            kind = f"{kind}; it warns from {package} {version}, an error where warnings are errors"
        entry = found.setdefault(label(change), {"label": label(change), "kind": kind,
                                                 "fix": as_text(change.get("fix")), "cases": [],
                                                 "order": (*release(change), as_text(change.get("what")))})
        entry["cases"].append(case_id)
    return sorted(found.values(), key=lambda entry: (entry["order"][0] != "jax", version_order(entry["order"][1]),
                                                     entry["order"][2]))


def crossed(records: pd.DataFrame, runs: Sequence[str], pairs: Sequence[tuple[str, str]],
            declared: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """between_text() for each (baseline cell, candidate cell) of an upgrade, their versions read from the records of
    the two runs (`runs`: baseline's, candidate's), each change's cases being the compared tests that carry it in
    the candidate (a case that declares it, or a project's test whose own error it is: `adopt`), never the cases of
    a corpus that did not run."""
    def rows_of(run: str, cell: str) -> pd.DataFrame:
        return records[(records["run_id"] == run) & (records["cell_id"] == cell)]

    def versions(rows: pd.DataFrame) -> dict[str, str]:
        return {name: next((as_text(v) for v in rows[name].tolist() if as_text(v)), "") for name in CHANGE_PACKAGES}

    texts = []
    for cell_a, cell_b in pairs:
        after = rows_of(runs[-1], cell_b)
        found = between(declared, versions(rows_of(runs[0], cell_a)), versions(after))
        carried = _carriers(after)
        for entry in found:
            entry["cases"] = carried.get(entry["label"], [])
        texts.append(between_text(found, cell_a, cell_b))
    return "\n\n".join(texts)


def _carriers(rows: pd.DataFrame) -> dict[str, list[str]]:
    """{change label: the case ids whose records carry that change}."""
    found: dict[str, list[str]] = {}
    if "change" not in rows.columns:
        return found
    for case, change in zip(rows["case_id"].tolist(), rows["change"].tolist(), strict=True):
        if not isinstance(change, dict):
            continue
        for name in change.get(ANNOUNCES) or [label(change)]:
            if case not in found.setdefault(name, []):
                found[name].append(str(case))
    return found


def between_text(crossed: Sequence[Mapping[str, Any]], baseline: str, candidate: str) -> str:
    """The upgrade's list of crossed changes, as plain text (Markdown reads it as a list too)."""
    head = f"Documented changes between baseline {baseline} and candidate {candidate}"
    if not crossed:
        return f"{head}: none declared."
    lines = [f"{head} ({len(crossed)}; your code may hit them even where your cases pass):"]
    for entry in crossed:
        cases = ", ".join(sorted(entry["cases"])) or "none of the compared tests fails with it"
        lines.append(f"- {entry['label']} ({entry['kind']}). Fix: {entry['fix']}. Cases: {cases}")
    return "\n".join(lines)
