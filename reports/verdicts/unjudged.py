"""Why an upgrade comparison could not judge a case or a pair of cells, one line per kind (reports/verdicts/compare.py).

Split from the verdict itself: compare.py decides; this module words what was left undecided (cases recorded on one
side only, cells that did not finish, pairs that judged nothing) and what to do about a missing module.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import pandas as pd

from harness.vocabulary import ABSENT, BROKEN, ERROR, INFRASTRUCTURE, INSTALL_ERROR, PASSING, UNKNOWN, is_passing
from reports.data.text import as_text, first_line
from reports.verdicts.causes import signature

#: The class of a side the outer join left empty: the case was not recorded there.
MISSING = "missing"
#: The class of a case whose records of one attempt disagree (harness.cellrecord.CONFLICTING), told apart from an
#: unknown status only to say why it was not judged.
CONFLICT = "conflicting"
#: Classes that leave a case without an answer on a side.
NO_ANSWER = (INFRASTRUCTURE, UNKNOWN, CONFLICT)

#: Top-level modules of the stack every cell pins or brings: one missing is the cell's fault, not the project's.
STACK_MODULES = frozenset({"jax", "jaxlib", "flax", "numpy", "ml_dtypes", "opt_einsum", "scipy", "pytest"})
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


def unbuilt(both: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(role, cell, why) of each cell whose every case is install_error: it could not be built, and why."""
    found = []
    for side, role in (("_a", "baseline"), ("_b", "candidate")):
        recorded = both[both[f"status{side}"].notna()]
        for cell, group in recorded.groupby(role, sort=False):
            if not group[f"status{side}"].eq(INSTALL_ERROR).all():
                continue  # a cell that ran any case was built
            said = [*group.get(f"error_message{side}", []), *group.get(f"reason{side}", [])]
            why = next((text for text in map(first_line, said) if text), "no reason recorded")
            found.append((role, str(cell), why))
    return list(dict.fromkeys(found))


def unbuilt_reasons(both: pd.DataFrame) -> list[str]:
    """'the candidate jax0.9.2-flax0.12.6-py3.12 could not be built: interpreter python3.12: ...', one line per cell
    that could not be built (`unbuilt`): the cause, said before anything that follows from it."""
    return [f"the {role} {cell} could not be built: {why}" for role, cell, why in unbuilt(both)]


def explained_by_build(both: pd.DataFrame) -> pd.Series:
    """The cases of a pair with a cell that could not be built: that cell's failure is their one reason, said once
    (its cases recorded on one side only, or without an answer there, are not counted again after it)."""
    cells = {(role, cell) for role, cell, _ in unbuilt(both)}
    return pd.Series([("baseline", a) in cells or ("candidate", b) in cells
                      for a, b in zip(both["baseline"], both["candidate"], strict=True)], index=both.index, dtype=bool)


def incomplete_reason(incomplete: list[str]) -> list[str]:
    if not incomplete:
        return []
    return [f"{'cell' if len(incomplete) == 1 else 'cells'} {', '.join(incomplete)} did not finish (no done marker: "
            "interrupted, or still running)"]


#: Kinds of case that cannot be judged: the class a side has, and what the reason says of them.
_UNJUDGED: tuple[tuple[str, str], ...] = (
    (MISSING, "recorded on one side only"),
    (INFRASTRUCTURE, "ended without an answer (crashed, timeout or install_error)"),
    (UNKNOWN, "have a status this reader does not know"),
    (CONFLICT, "have two records of one attempt with different statuses"),
)
#: What the reason says of cases that could not run (`error`) on a side and are no proven regression.
_UNRUN = "could not run (error), so they have no answer on that side"


def case_reasons(both: pd.DataFrame, a_class: pd.Series, b_class: pd.Series,
                 unrun: pd.Series | None = None, explained: pd.Series | None = None) -> list[str]:
    """One line per kind of case that could not be judged: how many, the first one with its side, and the others
    by id (the first few); the cases `explained` already (a cell not built, explained_by_build) are not counted."""
    kinds = [((a_class == kind) | (b_class == kind), kind, text) for kind, text in _UNJUDGED]
    if unrun is not None:
        kinds.append((unrun.astype(bool), ERROR, _UNRUN))
    said = explained.astype(bool) if explained is not None else pd.Series(False, index=both.index, dtype=bool)
    reasons = []
    for mask, kind, text in kinds:
        hits = both[mask & ~said]
        if hits.empty:
            continue
        first = hits.iloc[0]
        if kind == MISSING:
            side = "baseline" if pd.notna(first["status_a"]) else "candidate"
            example = f"{first['case_id']} only in the {side} {first[side]}"
        else:
            on_a = (first["status_a"] == ERROR) if kind == ERROR else a_class[hits.index[0]] == kind
            side, status = ("baseline", first["status_a"]) if on_a else ("candidate", first["status_b"])
            example = f"{first['case_id']} is {status!r} in the {side} {first[side]}"
        others = hits.iloc[1:]
        also = f"; also: {_ids(others)}" if len(others) else ""
        reasons.append(f"{len(hits)} case(s) {text} (first: {example}{also})")
    return reasons


def evidence_reasons(both: pd.DataFrame, pairs: list[tuple[str, str]], a_class: pd.Series,
                      b_class: pd.Series, left_out: pd.Series | None = None,
                      explained: pd.Series | None = None) -> tuple[list[str], list[str]]:
    """Per pair of cells, a reason when nothing was judged there or its baseline passes no case (the baseline's
    cases grouped by cause), and the hints for a module missing in both cells. `left_out`: the cases judged by
    neither side (reports.verdicts.compare), which judge nothing here either; a pair whose cases are `explained`
    (a cell not built) has its reason said already."""
    # Judged: an answer on both sides, the baseline's not `error` (that case could not run there).
    answered = (a_class.isin([PASSING, BROKEN]) & both["status_a"].ne(ERROR)
                & b_class.isin([PASSING, BROKEN, ABSENT]))
    if left_out is not None:
        answered &= ~left_out.astype(bool)
    reasons: list[str] = []
    hints: list[str] = []
    for cell_a, cell_b in pairs:
        mine = ((both["baseline"] == cell_a) & (both["candidate"] == cell_b)).to_numpy(dtype=bool)
        rows = both[mine]
        pair = cell_a if cell_a == cell_b else f"{cell_a} \N{RIGHTWARDS ARROW} {cell_b}"
        said = explained is not None and len(rows) > 0 and bool(explained[mine].all())
        if said:
            hints += _module_hints(rows)
            continue
        if not answered[mine].any():
            reasons.append(f"nothing was judged in {pair}: no case ran to an answer on both sides{_by_cause(rows)}")
        elif not (a_class[mine] == PASSING).any():
            reasons.append(f"the baseline {cell_a} passes no case, so no regression can show{_by_cause(rows)}")
        hints += _module_hints(rows)
    return reasons, list(dict.fromkeys(hints))


def _by_cause(rows: pd.DataFrame, shown: int = 3) -> str:
    """' (baseline: 12 error: ModuleNotFoundError: No module named 'x'; 2 failed: ...)': the baseline's recorded
    cases counted by status and cause (reports.verdicts.causes' signature), most first."""
    recorded = rows[rows["status_a"].notna()]
    if recorded.empty:
        return " (no case recorded on either side)" if rows.empty else " (no case recorded in the baseline)"
    counted = Counter(
        (as_text(status), "" if is_passing(status) else signature(kind, message, reason or status))
        for status, kind, message, reason in zip(recorded["status_a"], recorded["error_type_a"],
                                                 recorded["error_message_a"], recorded["reason_a"], strict=True))
    groups = [f"{count} {status}: {cause}" if cause and cause != status else f"{count} {status}"
              for (status, cause), count in counted.most_common(shown)]
    more = len(counted) - shown
    return f" (baseline: {'; '.join(groups)}{f'; and {more} more cause(s)' if more > 0 else ''})"


def _module_hints(rows: pd.DataFrame) -> list[str]:
    """What to do about a module that is missing on both sides: the project itself when every case of both cells
    misses it, else a dependency the cells lack. Modules of the pinned stack are the cell's business, not hinted."""
    before, after = _missing_module(rows, "_a"), _missing_module(rows, "_b")
    hints = []
    for module in dict.fromkeys(name for name in before if name):
        both_sides = (before == module) & (after == module)
        if not both_sides.any() or module.split(".")[0] in STACK_MODULES:
            continue
        if both_sides.all():
            hints.append(f"No module named '{module}' in both cells: is the project installed? (--project DIR)")
        else:
            hints.append(f"No module named '{module}' in both cells ({int(both_sides.sum())} of {len(rows)} cases): "
                         "a dependency the cells lack? (--with REQ)")
    return hints


def _missing_module(rows: pd.DataFrame, side: str) -> pd.Series:
    """Per case, the module a side's ModuleNotFoundError names ('' for anything else)."""
    def name(message: object, reason: object) -> str:
        found = _NO_MODULE.search(as_text(message)) or _NO_MODULE.search(as_text(reason))
        return found.group(1) if found else ""

    return pd.Series([name(message, reason) for message, reason in zip(rows[f"error_message{side}"],
                                                                       rows[f"reason{side}"], strict=True)],
                     index=rows.index, dtype=object)


def retried_reason(rows: pd.DataFrame) -> list[str]:
    if rows.empty:
        return []
    return [f"{len(rows)} case(s) passed on the candidate only after a failing attempt (flaky: {_ids(rows)}): a "
            "regression that shows some of the time is not ruled out"]


def _ids(rows: pd.DataFrame, shown: int = 5) -> str:
    ids = list(dict.fromkeys(rows["case_id"].tolist()))
    return ", ".join(ids[:shown]) + (f" (+{len(ids) - shown} more)" if len(ids) > shown else "")


def unreadable_reason(unreadable: Sequence[str]) -> list[str]:
    if not unreadable:
        return []
    return [f"{len(unreadable)} results line(s) could not be read (first: {first_line(unreadable[0])})"]
