"""Documented changes: what a case's declared upstream change (the record's `change`) means for its results.

The one place that decides, from records alone (packaging's specifiers against the record's own jax and flax):

- documented: the case failed inside its change's `since` range with one of the exceptions it declares. The status
  stays `failed` (that is the answer for code written that way); the report knows the failure was documented.
  "One of the exceptions it declares" is exact (`same_type`): the record's `error_type` is the class name of the
  exception the case raised (`type(exc).__name__`), and it must equal a declared name, never contain it, so
  `TypeError` does not match `ShardingTypeError` and an absent or empty error type matches nothing. A `raises`
  given as a string (a declaration written by hand, or by another writer) is one class name, never a set of
  substrings. A qualified name on one side is compared by its class name (`jax.errors.ShardingTypeError` and
  `ShardingTypeError` are the same class: the record keeps no module), and two qualified names must be equal.
- stale: the case passed inside that range: the declaration no longer describes the release.
- unexpected: the case failed outside the range, or with another exception.

A failure that is the change's declared `warning` made an error (a project whose settings turn warnings into errors,
-Werror), inside its `warned` range, is documented too: for such a project the deprecation is the break, a release
before the removal. A project's tests declare no change; `adopt` gives each of their failures the declared change
whose warning it is, so an upgrade names it.

Then the Changes table (one row per declared change: its release, kind, the cells that warned, the last passing and
first failing cells, the cases and the fix; reports/views/changes_csv.py writes it as changes.csv), and for
`nox -s upgrade` the changes whose range starts between a baseline and a candidate.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from harness import outputs
from harness.vocabulary import CHANGE_KINDS, CHANGE_PACKAGES, FAILED, is_passing
from reports.data.text import as_text

DOCUMENTED, STALE, UNEXPECTED = "documented", "stale", "unexpected"

#: The result columns mark() adds (reports.verdicts.compat's verdict reads them): whether the failure is documented, and
#: the label of the change that documents it.
DOCUMENTED_COLUMN, CHANGE_NAME_COLUMN = "documented", "change_name"

#: The columns of table(), and of changes.csv.
COLUMNS: list[str] = ["package", "release", "kind", "what", "since", "warned", "cells_warned", "last_passing",
                      "first_failing", "cases", "fix", "documented", "stale", "unexpected"]


# --- a declaration and a result ---------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _requirement(text: str) -> tuple[str, SpecifierSet] | None:
    """'jax>=0.9.0' -> ('jax', >=0.9.0); None for text that is not one (a report never fails on a declaration)."""
    for package in CHANGE_PACKAGES:
        if text.startswith(package) and not text[len(package):len(package) + 1].isalnum():
            try:
                return package, SpecifierSet(text[len(package):].strip())
            except InvalidSpecifier:
                return None
    return None


@lru_cache(maxsize=4096)
def _contains(text: str, version: str) -> bool:
    found = _requirement(text)
    if found is None:
        return False
    try:
        return found[1].contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def in_range(requirement: object, versions: Mapping[Any, object]) -> bool:
    """Whether a change's requirement ('jax>=0.9.0') holds for a record's versions ({'jax': '0.9.2', ...})."""
    if not isinstance(requirement, str):
        return False
    found = _requirement(requirement)
    return found is not None and _contains(requirement, as_text(versions.get(found[0])))


def judge(change: object, status: object, error_type: object, versions: Mapping[str, object],
          message: object = "") -> str:
    """DOCUMENTED, STALE, UNEXPECTED or '' for one result of a case that declares `change` (a record's object)."""
    if not isinstance(change, dict):
        return ""
    if status == FAILED and is_its_warning(change, error_type, message, versions):
        return DOCUMENTED
    if not change.get("since"):
        return ""
    inside = in_range(change["since"], versions)
    if status == FAILED:
        declared = declared_types(change.get("raises"))
        return DOCUMENTED if inside and any(same_type(name, error_type) for name in declared) else UNEXPECTED
    return STALE if inside and is_passing(status) else ""


def is_its_warning(change: Mapping[str, Any], error_type: object, message: object,
                   versions: Mapping[str, object]) -> bool:
    """Whether an error is the change's declared `warning` made an error, inside its `warned` range."""
    text = as_text(change.get("warning"))
    return (bool(text) and as_text(error_type).endswith("Warning") and text in as_text(message)
            and in_range(change.get("warned"), versions))


def explains(change: Mapping[str, Any], error_type: object, message: object, versions: Mapping[str, object]) -> bool:
    """Whether a failure of a test that declares no change (a project's) is this change, by its own error: the
    change's warning made an error inside `warned`, or inside `since` the class it raises with the part of its
    message it declares (`error`). The class alone is a symptom many changes share, so it names none."""
    if is_its_warning(change, error_type, message, versions):
        return True
    text = as_text(change.get("error"))
    return (bool(text) and text in as_text(message) and in_range(change.get("since"), versions)
            and any(same_type(name, error_type) for name in declared_types(change.get("raises"))))


def declared_types(raises: object) -> tuple[str, ...]:
    """The exception class names a change's `raises` declares: a string is one name (a substring of it is not
    another), a list its non-empty strings; anything else declares none (a report never fails on a declaration)."""
    names = [raises] if isinstance(raises, str) else raises if isinstance(raises, (list, tuple)) else []
    return tuple(name.strip() for name in names if isinstance(name, str) and name.strip())


def same_type(declared: str, recorded: object) -> bool:
    """Whether a recorded `error_type` is the declared exception class exactly: equal names, or, where only one side
    is qualified ('jax.errors.ShardingTypeError'), equal class names (its last part). Never a substring; an
    absent or empty error type is no class."""
    if not isinstance(recorded, str) or not recorded.strip() or not declared:
        return False
    recorded = recorded.strip()
    if "." in declared and "." in recorded:
        return declared == recorded
    return declared.rpartition(".")[2] == recorded.rpartition(".")[2]


def classify(results: pd.DataFrame) -> pd.Series:
    """judge() of every result (records or collapsed results with `change`, `status`, `error_type`, jax, flax, and
    `error_message` where they have it)."""
    if "change" not in results.columns:
        return pd.Series("", index=results.index, dtype=object)
    messages = results["error_message"].tolist() if "error_message" in results.columns else [""] * len(results)
    columns = ["change", "status", "error_type", *CHANGE_PACKAGES]
    found = [judge(change, status, error, dict(zip(CHANGE_PACKAGES, versions, strict=True)), message)
             for (change, status, error, *versions), message
             in zip(zip(*(results[name].tolist() for name in columns), strict=True), messages, strict=True)]
    return pd.Series(found, index=results.index, dtype=object)


def adopt(records: pd.DataFrame, declared: Sequence[tuple[str, Mapping[str, Any]]]) -> pd.DataFrame:
    """`records` where a failure of a test that declares no change (a project's) is a declared change by its own
    error (`explains`): that failure carries the change, so its cause is named after it. Records are not rewritten;
    only this frame is."""
    known = [dict(change) for _, change in declared if change.get("warning") or change.get("error")]
    if not known or records.empty:
        return records
    own = records["change"].tolist() if "change" in records.columns else [None] * len(records)
    columns = ["status", "error_type", "error_message", *CHANGE_PACKAGES]
    found: list[object] = []
    for change, (status, error, message, *versions) in zip(own, zip(*(records[name].tolist() for name in columns),
                                                                    strict=True), strict=True):
        if isinstance(change, dict) or status != FAILED:
            found.append(change)
            continue
        at = dict(zip(CHANGE_PACKAGES, versions, strict=True))
        matching = [c for c in known if explains(c, error, message, at)]
        # Two cases may declare one warning (make_mesh's, before jax 0.9.0 and a later shard_map change): it
        # announces the earliest change it precedes; several changes of that release, the part they share.
        found.append(_announced(matching) if matching else change)
    return records.assign(change=pd.Series(found, index=records.index, dtype=object))


#: The key of an adopted change that stands for several declared ones (their labels): `crossed` lists the test
#: under each. Only in adopt()'s frame, never in a record.
ANNOUNCES = "announces"


def _announced(matching: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The change a failure is, of the declared changes its own error matches: the earliest; where several changes of
    that release match (a warning they all declare: the failure cannot tell them apart), one named by the words
    their `what` and `fix` share, which stands for each of them (ANNOUNCES)."""
    start = min(map(_since_start, matching))
    first = [dict(change) for change in matching if _since_start(change) == start]
    labels = list(dict.fromkeys(map(label, first)))
    if len(labels) == 1:
        return first[0]
    what = _shared([as_text(change.get("what")) for change in first], ": ")
    fix = _shared([as_text(change.get("fix")) for change in first], ", or ")
    return {**first[0], "what": what or as_text(first[0].get("what")), "fix": fix or as_text(first[0].get("fix")),
            ANNOUNCES: labels}


def _shared(texts: Sequence[str], boundary: str) -> str:
    """The words every text begins with, up to the last `boundary` inside them ('' when they share none)."""
    common = texts[0]
    for text in texts[1:]:
        while not text.startswith(common):
            common = common[:-1]
    cut = common.rfind(boundary)
    return common[:cut].strip() if cut > 0 else ""


def _since_start(change: Mapping[str, Any]) -> Version:
    """Where a change's `since` starts ('jax>=0.9.0' -> 0.9.0); a change without one sorts last."""
    found = _requirement(as_text(change.get("since")))
    starts = [Version(spec.version) for spec in found[1] if spec.operator in (">=", ">")] if found else []
    return min(starts, default=Version("9999"))


def documented(results: pd.DataFrame) -> pd.Series:
    """Per result: whether it is a documented failure (the `documented` column a verdict takes)."""
    return classify(results).eq(DOCUMENTED)


def mark(results: pd.DataFrame) -> pd.DataFrame:
    """`results` with the `documented` and `change_name` columns every verdict reads (reports.data.tables.build_matrix
    adds them to each matrix): a documented failure is named by its change's label()."""
    judged = classify(results)
    declared = results["change"].tolist() if "change" in results.columns else [None] * len(results)
    names = [label(change) if verdict == DOCUMENTED else None
             for change, verdict in zip(declared, judged.tolist(), strict=True)]
    return results.assign(**{DOCUMENTED_COLUMN: judged.eq(DOCUMENTED).astype(bool),
                             CHANGE_NAME_COLUMN: pd.Series(names, index=results.index, dtype=object)})


def version_order(text: object) -> tuple[int, Version, str]:
    """Sort key of a release: releases in release order, then text that is not one."""
    try:
        return (0, Version(as_text(text)), "")
    except InvalidVersion:
        return (1, Version("0"), as_text(text))


def release(change: Mapping[str, Any]) -> tuple[str, str]:
    """(package, release) a change dates from: 'jax', '0.9.0' for since 'jax>=0.9.0' (a deprecation: its `warned`);
    the whole range when it has no lower bound."""
    text = as_text(change.get("since") or change.get("warned"))
    found = _requirement(text)
    if found is None:
        return "", text
    lower = [spec.version for spec in found[1] if spec.operator in (">=", "==", "===")]
    return found[0], lower[0] if len(lower) == 1 else str(found[1])


def label(change: Mapping[str, Any]) -> str:
    """'jax 0.9.0: what changed', how causes and verdicts name a change."""
    package, version = release(change)
    return f"{package} {version}: {as_text(change.get('what'))}".strip()


# --- the Changes view -------------------------------------------------------------------------------------------


def table(results: pd.DataFrame, cells: pd.DataFrame, broken: Collection[str] = ()) -> pd.DataFrame:
    """One row per declared change (its release and `what`), oldest jax first then flax: the kind, the declared
    ranges, the column keys that warned inside the declared `warned` range, the last passing and first failing keys
    (in the change's package's order), the cases, the fix, and the keys where it was documented, stale or
    unexpected. `results` are a matrix's (with `key`); `cells` its cell table (keys as index, jax, flax); `broken`
    the keys whose compatibility verdict is broken, where a failure says nothing of one change (nothing works
    there), so none is called unexpected."""
    if "change" not in results.columns:
        return pd.DataFrame(columns=COLUMNS)
    declared = results[results["change"].map(lambda value: isinstance(value, dict))]
    verdict = classify(declared)
    groups: dict[tuple[str, str], list[int]] = {}
    for index, change in zip(declared.index, declared["change"], strict=True):
        groups.setdefault((as_text(change.get("since") or change.get("warned")), as_text(change.get("what"))),
                          []).append(index)
    rows = []
    for indexes in groups.values():
        mine = declared.loc[indexes]
        change = mine["change"].iloc[0]
        package, version = release(change)
        judged = verdict.loc[indexes]
        order = _order(cells, package)
        passing = mine[mine["status"].map(is_passing).astype(bool)]
        earlier = [bool(change.get("since")) and not in_range(change.get("since"), row)
                   for row in passing[list(CHANGE_PACKAGES)].to_dict("records")]
        before = passing[pd.Series(earlier, index=passing.index, dtype=bool)]
        failing = mine[judged.eq(DOCUMENTED)]
        rows.append({
            "package": package, "release": version, "kind": CHANGE_KINDS.get(as_text(change.get("kind")), "?"),
            "what": as_text(change.get("what")), "since": as_text(change.get("since")),
            "warned": as_text(change.get("warned")),
            "cells_warned": _keys(_warned(passing, change.get("warned")), order),
            "last_passing": (_keys(before, order)[-1:] or [""])[0],
            "first_failing": (_keys(failing, order)[:1] or [""])[0],
            "cases": sorted(dict.fromkeys(mine["case_id"])), "fix": as_text(change.get("fix")),
            "documented": _keys(failing, order), "stale": _keys(mine[judged.eq(STALE)], order),
            "unexpected": [key for key in _keys(mine[judged.eq(UNEXPECTED)], order) if key not in broken],
        })
    rows.sort(key=lambda row: (CHANGE_PACKAGES.index(row["package"]) if row["package"] in CHANGE_PACKAGES else 9,
                               version_order(row["release"]), row["what"]))
    return pd.DataFrame(rows, columns=COLUMNS)


def _warned(passing: pd.DataFrame, warned: object) -> pd.DataFrame:
    """The passing results that warned inside the declared `warned` range (a case also carries the warnings of its
    module's imports, so a warning elsewhere says nothing of this change)."""
    inside = [bool(found) and in_range(warned, row) for found, row in
              zip(passing["warnings"], passing[list(CHANGE_PACKAGES)].to_dict("records"), strict=True)]
    return passing[pd.Series(inside, index=passing.index, dtype=bool)]


def _order(cells: pd.DataFrame, package: str) -> dict[str, tuple[Any, ...]]:
    """Each column key's place in `package`'s release order (then the other package's, then the key's own)."""
    other = next((name for name in CHANGE_PACKAGES if name != package), package)
    position = {key: number for number, key in enumerate(cells.index)}
    if package not in cells.columns:
        return {str(key): (position[key],) for key in cells.index}
    return {str(key): (version_order(cells.at[key, package]), version_order(cells.at[key, other]), position[key])
            for key in cells.index}


def _keys(rows: pd.DataFrame, order: Mapping[str, tuple[Any, ...]]) -> list[str]:
    return sorted(dict.fromkeys(str(key) for key in rows["key"]), key=lambda key: order.get(key, (key,)))


# --- between two releases (nox -s upgrade) ----------------------------------------------------------------------


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
