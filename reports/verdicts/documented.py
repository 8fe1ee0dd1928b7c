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

What the judgments add up to lives beside this module: the Changes table (one row per declared change) in
reports.verdicts.documented_table, and the changes an upgrade crosses (`nox -s upgrade`) in
reports.verdicts.documented_upgrade.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import pandas as pd
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from harness.vocabulary import CHANGE_PACKAGES, FAILED, is_passing
from reports.data.text import as_text

DOCUMENTED, STALE, UNEXPECTED = "documented", "stale", "unexpected"

#: The result columns mark() adds (reports.verdicts.compat's verdict reads them): whether the failure is documented, and
#: the label of the change that documents it.
DOCUMENTED_COLUMN, CHANGE_NAME_COLUMN = "documented", "change_name"


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
