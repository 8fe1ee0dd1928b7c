"""Two cells' cases side by side, the join every comparison judges (reports.verdicts.compare): one row per case of
each pair of cells, the baseline's columns suffixed `_a`, the candidate's `_b`.

Where one side recorded a case only in the other's terms, the join lets the record that stands for it answer: a
module that did not import answers for each of its cases the other side recorded (class-based suites name them
`mod::Class::test_x`), a test recorded without parameters for its parameterized cases, and a module none of whose
tests the other side selected asks for no answer at all.
"""

from __future__ import annotations

import pandas as pd

from harness.vocabulary import COLLECTION_CASE, is_passing


def side_by_side(results: pd.DataFrame, pairs: list[tuple[str, str]], run_a: str, run_b: str,
                  finished: set[tuple[str, str]]) -> pd.DataFrame:
    """One row per case of each pair of cells: the baseline's columns suffixed `_a`, the candidate's `_b`, the pair's
    cell ids (`baseline`, `candidate`) and whether both cells finished (`complete`)."""
    frames = []
    # No pair at all (two runs that share no cell, by id) still makes the tables, empty.
    for cell_a, cell_b in pairs or [("", "")]:
        a = results[(results["run_id"] == run_a) & (results["cell_id"] == cell_a)].set_index("case_id")
        b = results[(results["run_id"] == run_b) & (results["cell_id"] == cell_b)].set_index("case_id")
        a, b = by_module(a, b), by_module(b, a)
        a, b = by_test(a, b), by_test(b, a)
        a, b = without_unselected_modules(a, b), without_unselected_modules(b, a)
        joined = a.merge(b, how="outer", left_index=True, right_index=True, suffixes=("_a", "_b"))
        joined["baseline"], joined["candidate"] = cell_a, cell_b
        joined["complete"] = (run_a, cell_a) in finished and (run_b, cell_b) in finished
        frames.append(joined.rename_axis("case_id").reset_index())
    return pd.concat(frames, ignore_index=True)


def module_of(case_id: str) -> str:
    """The module part of a case id (`mod` of `mod::Class::test_x`)."""
    return case_id.partition("::")[0]


def by_module(mine: pd.DataFrame, theirs: pd.DataFrame) -> pd.DataFrame:
    """`mine` (case_id-indexed) where a module that did not import (its `mod::<collection>` record) answers for
    the cases of that module recorded only in `theirs` (a class-based module's `mod::Class::test_x`): each gets a
    copy of the collection record, which then stands for them and is dropped. So a candidate module that no longer
    imports is a regression of the baseline's passing cases, and a baseline's is `error` there (not judged)."""
    failed = [case for case in mine.index if case.endswith(f"::{COLLECTION_CASE}") and not is_passing(
        mine.at[case, "status"])]
    answered: dict[str, str] = {}
    for collection in failed:
        for case in theirs.index:
            if module_of(case) == module_of(collection) and case not in mine.index:
                answered[case] = collection
    if not answered:
        return mine
    copies = mine.loc[list(answered.values())].set_axis(pd.Index(list(answered), name=mine.index.name))
    return pd.concat([mine.drop(index=list(set(answered.values()))), copies])


def by_test(mine: pd.DataFrame, theirs: pd.DataFrame) -> pd.DataFrame:
    """`mine` where a record of a test without parameters (`mod::test_x`) answers for that test's parameterized cases
    recorded only in `theirs` (`mod::test_x[lm]`): each gets a copy, which then stands for them, and the plain one is
    dropped. pytest records a test one way or the other, never both; a plain id beside the other side's parameters is
    one the host wrote for a cell whose pytest could not run (harness/host/unreported.py reads tests from source,
    where parameters are unseen: a conftest that stopped pytest, a cell not built, a process that died)."""
    plain = {case for case in mine.index if "[" not in case}
    answered = {case: case.split("[")[0] for case in theirs.index
                if "[" in case and case.split("[")[0] in plain and case not in mine.index}
    if not answered:
        return mine
    copies = mine.loc[list(answered.values())].set_axis(pd.Index(list(answered), name=mine.index.name))
    return pd.concat([mine.drop(index=list(set(answered.values()))), copies])


def without_unselected_modules(mine: pd.DataFrame, theirs: pd.DataFrame) -> pd.DataFrame:
    """`mine` less the collection errors (`mod::<collection>`) of modules of which `theirs` recorded nothing: no test
    of such a module was selected there (`-k` imports every module and leaves all of one's tests out: optax's), so
    its failing to import here loses no test the other side ran, and asks for no answer. A module with a test
    recorded on the other side keeps its error (`by_module` made it that test's answer)."""
    modules = {module_of(case) for case in theirs.index}
    unselected = [case for case in mine.index
                  if case.endswith(f"::{COLLECTION_CASE}") and module_of(case) not in modules]
    return mine.drop(index=unselected) if len(theirs) and unselected else mine
