"""Upgrade safety: a candidate cell against a baseline cell, from loaded records alone (pure pandas).

What counts as an answer. A case has an answer on a side when its final record there says what the code does in
that cell: passed or xpassed (harness.vocabulary's PASSING class), failed or xfailed (it ran, and broke), or
not_applicable (the API or devices it needs are absent: an answer about the cell). Everything else is no answer:
`error` (the case could not run: a module that does not import, a setup that failed, a cell whose jax does not
start), crashed, timeout and install_error (INFRASTRUCTURE: it never ran to an end), a status this reader does not
know (UNKNOWN), two records of one attempt that disagree (CONFLICTING), and no record at all on that side. A case
is judged when it has an answer on both sides.

Three verdicts, each an exit code of `python -m reports --compare` (harness.formats):

- UNSAFE (1): a regression is proven. A case passing on the baseline is broken on the candidate (failed, xfailed,
  or `error`: code that ran before no longer runs), or becomes not applicable (an API it uses is gone), and both
  cells finished, or the candidate's record is settled though its cell did not finish (a host killed it part way):
  not applicable, or failing on every attempt of a retried case; the cell's not finishing is then said beside it.
  A module that no longer imports (its `mod::<collection>` error) breaks each of that module's cases the baseline
  recorded (class-based suites name them `mod::Class::test_x`).
  A record of a test without parameters answers for that test's parameterized cases recorded only on the other
  side (`test_x` for `test_x[lm]`): the host writes such records for a cell whose pytest could not run (a conftest
  that stopped it, a process that died), reading the tests from source.
  A project's strict xfail that is xfailed on the baseline and fails `[XPASS(strict)]` on the candidate turned its CI
  red: a regression too.
- INCONCLUSIVE (2): nothing is proven, and something was not judged. The reason names the cases:
  - a case without an answer on either side (above): `error` on the baseline (whatever the candidate says), `error`
    on the candidate of a case the baseline did not pass, an infrastructure, unknown or conflicting status, or a
    case recorded on one side only; where a cell could not be built, that is its cases' one reason, said once;
  - a cell that did not finish (no done marker) or has no counterpart, or results lines that could not be read;
  - a pair of cells in which nothing was judged (a cell with no applicable case, an empty results file, every case
    filtered out), or whose baseline passes no case: no regression could show. The reason groups the baseline's
    cases by cause (reports.verdicts.causes' signatures), and a module that is missing in both cells says what to do
    (`--project DIR`, `--with REQ`);
  - a flaky candidate: a case passing on the baseline that passed on the candidate only after a failing attempt.
    Its attempts disagree, so a regression that shows some of the time cannot be ruled out. (A candidate case
    whose final attempt fails is a regression as usual.)
- SAFE (0): every case recorded on either side was judged (an answer on both sides), none regressed, and none
  passed only on retry. A test that can never run in a cell is left out of both on purpose (`nox -s upgrade --
  -m/-k/--deselect`, passed to pytest), so it is recorded nowhere and asks for no answer. `-k` still imports every
  module: a module that fails to import on one side only, of which the other side recorded no test, loses no test
  that side ran, and its collection error asks for no answer either.

A not_applicable case is an answer on either side: passing -> not applicable is a removal (UNSAFE above), not
applicable -> ran is an API that arrived (nothing the baseline's code did can be lost), and not applicable on both
sides agrees. But a case not applicable on one side that fails on the other was judged by neither side, and so is
a passing case the candidate's devices left out in a cell with fewer devices than the baseline's (not a removal: its API
is there; with as many devices, the candidate made it ask for more: a removal): each is listed (`left_out`, or
newly not applicable) and counted out of the coverage, so the verdict is never a plain SAFE ('SAFE: 6 of 7 tests
judged (1 could not run in the baseline: needs an API it lacks)'). Flaky cases on either side (attempts that
disagreed) are always listed, whether or not they decide.

UNSAFE wins over INCONCLUSIVE, and the reasons a verdict is also inconclusive are still given. Everything else is
listed but does not decide: newly deprecated (a clean pass now warns), newly not applicable from a non-pass, fixed
(a non-pass now passes), and timing changes beyond noise. Regressions are grouped by root cause
(reports/verdicts/causes.py), as the report groups its problems.

The join of two cells' cases is reports.verdicts.compare_join's; the finding tables, what each side shows in them
and the timing noise threshold are reports.verdicts.compare_tables'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from harness.formats import INCONCLUSIVE_EXIT, SAFE_EXIT, UNSAFE_EXIT, ShardmatrixError
from harness.vocabulary import (
    ABSENT,
    BROKEN,
    COLLECTION_CASE,
    ERROR,
    FAILED,
    INFRASTRUCTURE,
    PASSING,
    UNKNOWN,
    XFAILED,
    is_out_of_memory,
    is_strict_xpass,
)
from reports.data.tables import cell_table, collapse
from reports.verdicts.causes import causes
from reports.verdicts.compare_join import module_of, side_by_side
from reports.verdicts.compare_tables import (
    COLUMNS,
    answer_class,
    flaky_table,
    passed_clean,
    pick,
    timing,
    warned,
)
from reports.verdicts.unjudged import (
    CONFLICT,
    MISSING,
    NO_ANSWER,
    case_reasons,
    evidence_reasons,
    explained_by_build,
    incomplete_reason,
    retried_reason,
    unbuilt_reasons,
    unreadable_reason,
)

SAFE, UNSAFE, INCONCLUSIVE = "SAFE", "UNSAFE", "INCONCLUSIVE"
#: The exit code of each verdict.
EXIT_CODES: dict[str, int] = {SAFE: SAFE_EXIT, UNSAFE: UNSAFE_EXIT, INCONCLUSIVE: INCONCLUSIVE_EXIT}


class CompareError(ShardmatrixError, ValueError):
    """Two sides that cannot be compared, in one line."""


@dataclass(frozen=True)
class Comparison:
    """What changed from baseline to candidate, one table per kind of finding, and what could not be judged."""

    pairs: list[tuple[str, str]]
    regressions: pd.DataFrame
    removed: pd.DataFrame
    deprecated: pd.DataFrame
    not_applicable: pd.DataFrame
    fixed: pd.DataFrame
    timing: pd.DataFrame
    missing: pd.DataFrame
    #: Cases with an infrastructure, unknown or conflicting status on either side.
    unjudged: pd.DataFrame
    #: Cases that could not run (`error`) on a side and are not a proven regression: not judged.
    unrun: pd.DataFrame
    #: Cases whose attempts disagreed on either side, their attempts as before and after.
    flaky: pd.DataFrame
    #: The regressions grouped by root cause (reports.verdicts.causes.causes() rows), keys those of `cells`.
    causes: pd.DataFrame
    #: The candidate's cells as causes() keys them (c1.. in version order, with `cell_id`).
    cells: pd.DataFrame
    #: Regressions and removals of pairs whose cells both finished, or whose candidate record is settled though its
    #: cell did not finish (`_settled`): what proves UNSAFE.
    proven: int = 0
    #: One line each: what kept the comparison from judging every case.
    reasons: list[str] = field(default_factory=list)
    #: One line each: what the user can do about a reason (a module missing in both cells).
    hints: list[str] = field(default_factory=list)
    #: Every case compared, and of those the ones not applicable for their devices on both sides, by the devices
    #: they needed ({2: 3}): an answer (nothing to judge on these devices), the verdict judged on the rest.
    cases: int = 0
    short: dict[int, int] = field(default_factory=dict)
    #: Cases judged by neither side: not applicable on one side, failing on the other (or passing on the baseline
    #: and short of devices on the candidate), counted by (the side that could not run them, devices needed there or
    #: None for an API it lacks); listed in `left_out`.
    one_sided: dict[tuple[str, int | None], int] = field(default_factory=dict)
    left_out: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=COLUMNS))
    #: Cases passing on the baseline with an answer on the candidate: the only ones that could show a regression.
    able: int = 0
    #: Cases not applicable on both sides for an API or version (a skip that fires in both cells), and cases broken
    #: on both sides (failed or xfailed): answers, but none of them could show a regression.
    skipped_both: int = 0
    failing_both: int = 0

    @property
    def verdict(self) -> str:
        """UNSAFE when a regression is proven, else INCONCLUSIVE when any case or cell was not judged, else SAFE."""
        if self.proven:
            return UNSAFE
        return INCONCLUSIVE if self.reasons else SAFE

    @property
    def exit_code(self) -> int:
        """0 SAFE, 1 UNSAFE, 2 INCONCLUSIVE (harness.formats)."""
        return EXIT_CODES[self.verdict]

    @property
    def safe(self) -> bool:
        """Every case answered on both sides, none regressed, none passed only on retry."""
        return self.verdict == SAFE

    @property
    def reason(self) -> str:
        """The reasons in one line."""
        return "; ".join(self.reasons)

    @property
    def coverage(self) -> str:
        """'4 of 7 tests judged (3 need 2 devices, 1 could not run in the baseline: needs an API it lacks)' when
        devices left cases out on both sides or a case could not run on one side; empty otherwise."""
        if not self.short and not self.one_sided:
            return ""
        rest = [f"{count} {'needs' if count == 1 else 'need'} {needed} devices"
                for needed, count in sorted(self.short.items())]
        rest += [f"{count} could not run in the {side}: {'needs' if count == 1 else 'need'} "
                 f"{'an API it lacks' if needed is None else f'{needed} devices'}"
                 for (side, needed), count in self.one_sided.items()]
        left = sum(self.short.values()) + sum(self.one_sided.values())
        return f"{self.cases - left} of {self.cases} tests judged ({', '.join(rest)})"

    @property
    def evidence(self) -> str:
        """'1 of 10 tests could show a regression (9 skipped on both sides)' when some case compared could not (it
        was skipped, or failed, on both sides, or devices left it out); empty when every case passed on the baseline
        and was answered on the candidate. The `coverage` of a verdict that a red or skipping suite earns cheaply."""
        if self.able >= self.cases:
            return ""
        rest = [f"{count} {'needs' if count == 1 else 'need'} {needed} devices"
                for needed, count in sorted(self.short.items())]
        rest += [f"{count} {label}" for count, label in (
            (self.skipped_both, "skipped on both sides"), (self.failing_both, "failing on both sides"),
            (sum(self.one_sided.values()), "could not run on one side")) if count]
        said = f"{self.able} of {self.cases} tests could show a regression"
        return f"{said} ({', '.join(rest)})" if rest else said

    @property
    def slower(self) -> pd.DataFrame:
        """Timing rows beyond noise."""
        return self.timing[self.timing["slower"]]


def parse_ref(text: str) -> tuple[str, str | None]:
    """'RUN' -> (RUN, None); 'RUN:CELL' -> (RUN, CELL)."""
    run, _, cell = text.partition(":")
    if not run:
        raise CompareError(f"{text!r}: expected RUN or RUN:CELL")
    return run, cell or None


def pair_cells(
    known: pd.DataFrame, before: tuple[str, str | None], after: tuple[str, str | None], *, by_id: bool = False
) -> tuple[list[tuple[str, str]], list[str]]:
    """(baseline cell, candidate cell) pairs, and one line per cell left without a counterpart.

    `known` has run_id and cell_id columns. The named cells, else the cells of both runs matched by id (an outer
    join: a cell of one run only is unpaired), else, unless `by_id`, the only cell of each run."""
    def cells(run: str) -> list[str]:
        return sorted(known.loc[known["run_id"] == run, "cell_id"].unique())

    (run_a, cell_a), (run_b, cell_b) = before, after
    left, right = cells(run_a), cells(run_b)
    for run, cell, found in ((run_a, cell_a, left), (run_b, cell_b, right)):
        if not found:
            raise CompareError(f"run {run} has no results")
        if cell is not None and cell not in found:
            raise CompareError(f"run {run} has no cell {cell} (cells: {', '.join(found)})")
    if cell_a is not None or cell_b is not None:
        if (cell_a is None and len(left) > 1) or (cell_b is None and len(right) > 1):
            raise CompareError("name a cell on both sides (RUN:CELL) when a run holds several")
        return [(cell_a or left[0], cell_b or right[0])], []
    common = [cell for cell in left if cell in right]
    if not common and not by_id and len(left) == len(right) == 1:
        return [(left[0], right[0])], []
    if not common and not by_id:
        raise CompareError(f"runs {run_a} and {run_b} share no cell; name them as RUN:CELL")
    unpaired = [f"cell {cell} of run {run} has no counterpart in run {other}"
                for run, other, mine, theirs in ((run_a, run_b, left, right), (run_b, run_a, right, left))
                for cell in mine if cell not in theirs]
    return [(cell, cell) for cell in common], unpaired


def compare(records: pd.DataFrame, before: str, after: str, cells: pd.DataFrame, *, by_id: bool = False,
            unreadable: Sequence[str] = ()) -> Comparison:
    """Compare `before` (RUN or RUN:CELL) with `after` over loaded records (load_results of both runs) and their
    cells (load_cells: a cell without a done marker, or without a row there, did not finish). `unreadable` are the
    load's warnings about skipped lines; `by_id` pairs cells by id only (see pair_cells)."""
    side_a, side_b = parse_ref(before), parse_ref(after)
    known = pd.concat([records[["run_id", "cell_id"]], cells[["run_id", "cell_id"]]], ignore_index=True)
    pairs, unpaired = pair_cells(known, side_a, side_b, by_id=by_id)
    finished = _finished(cells)
    results = collapse(records)
    both = side_by_side(results, pairs, side_a[0], side_b[0], finished)
    a_class, b_class = both["status_a"].map(answer_class), both["status_b"].map(answer_class)
    was_passing = a_class == PASSING
    regressed = (was_passing & (b_class == BROKEN) | _strict_xpassed(both)) & ~_starved(both)
    # A case the candidate's devices left out says nothing of its code: never a removal, but left out (below).
    short_b = _short_of_fewer_devices(both, b_class)
    removed = was_passing & (b_class == ABSENT) & ~short_b
    unjudged = a_class.isin(NO_ANSWER) | b_class.isin(NO_ANSWER)
    missing = (a_class == MISSING) | (b_class == MISSING)
    # `error` is no answer (the case did not run), but code that ran before and no longer runs is a regression.
    baseline_error = both["status_a"].eq(ERROR)
    unrun = (baseline_error | both["status_b"].eq(ERROR)) & ~regressed & ~unjudged & ~missing
    # A recorded non-pass that did not just vanish: a change from it is listed, never decisive.
    other = a_class.isin([BROKEN, INFRASTRUCTURE, UNKNOWN, CONFLICT]) & ~baseline_error
    flaky_a, flaky_b = _flag(both, "flaky_a"), _flag(both, "flaky_b")
    # Passing on the candidate only after a failing attempt: a regression that shows some of the time.
    retried = was_passing & (b_class == PASSING) & flaky_b
    left_out = _left_out(both, a_class, b_class, short_b)
    candidate = results[(results["run_id"] == side_b[0]) & results["cell_id"].isin([b for _, b in pairs])]
    cause_rows, cause_cells = regression_causes(candidate, both[regressed])
    by_build = explained_by_build(both)
    evidence, hints = evidence_reasons(both, pairs, a_class, b_class, left_out, by_build)
    return Comparison(
        cases=len(both) if pairs else 0,
        **_could_regress(both, a_class, b_class, short_b),
        short=_short_on_both_sides(both, a_class, b_class),
        one_sided=_one_sided(both, left_out, a_class),
        # A failure that became not applicable is listed as newly not applicable already.
        left_out=pick(both, left_out & (a_class != BROKEN), side=None),
        pairs=pairs,
        regressions=pick(both, regressed),
        removed=pick(both, removed),
        deprecated=pick(both, passed_clean(both, "_a") & (b_class == PASSING)
                         & both["warnings_b"].map(warned).astype(bool)),
        not_applicable=pick(both, other & (b_class == ABSENT)),
        fixed=pick(both, other & (b_class == PASSING)),
        timing=timing(both),
        missing=pick(both, missing),
        unjudged=pick(both, unjudged, side=None),
        unrun=pick(both, unrun, side=None),
        flaky=flaky_table(both, flaky_a | flaky_b, flaky_a, flaky_b),
        causes=cause_rows,
        cells=cause_cells,
        proven=int(((regressed | removed) & (both["complete"] | _settled(both, b_class, flaky_b))).sum()),
        # A cell that could not be built is the cause of what follows (its cases recorded on one side only): said first.
        reasons=[*unbuilt_reasons(both), *unpaired, *_cell_reasons(cells, pairs, side_a[0], side_b[0], finished),
                 *case_reasons(both, a_class, b_class, unrun, by_build), *evidence,
                 *retried_reason(both[retried]), *unreadable_reason(unreadable)],
        hints=hints,
    )


def _could_regress(both: pd.DataFrame, a_class: pd.Series, b_class: pd.Series, short_b: pd.Series
                   ) -> dict[str, int]:
    """Comparison's `able` (passing on the baseline, answered on the candidate), `skipped_both` (not applicable on both
    sides for an API: a skip that fires in both cells) and `failing_both` (broken, not `error`, on both sides)."""
    ran_a, ran_b = ~both["status_a"].eq(ERROR), ~both["status_b"].eq(ERROR)
    return {"able": int(((a_class == PASSING) & b_class.isin([PASSING, BROKEN, ABSENT]) & ~short_b).sum()),
            "skipped_both": int(((a_class == ABSENT) & (b_class == ABSENT) & _needed(both, "_a").isna()).sum()),
            "failing_both": int(((a_class == BROKEN) & ran_a & (b_class == BROKEN) & ran_b).sum())}


def _settled(both: pd.DataFrame, b_class: pd.Series, flaky_b: pd.Series) -> pd.Series:
    """A candidate record no later attempt could overturn, though its cell did not finish (killed part way by the
    host): a skip or not applicable (never retried), or a failure retried and failing on every attempt. A failure
    recorded before the kill shows the regression; one whose retry never came may have been flaky."""
    retried = pd.to_numeric(both["attempts_b"], errors="coerce").fillna(0) > 1 if "attempts_b" in both else False
    return (b_class == ABSENT) | (retried & ~flaky_b)


def _finished(cells: pd.DataFrame) -> set[tuple[str, str]]:
    """The (run, cell) pairs that finished: their done marker was read (load_cells' `complete`)."""
    return {(run, cell) for run, cell, done in zip(cells["run_id"], cells["cell_id"], cells["complete"], strict=True)
            if bool(done)}


def _compared(pairs: list[tuple[str, str]], run_a: str, run_b: str) -> list[tuple[str, str]]:
    """Every (run, cell) a comparison reads: each baseline cell of `run_a`, then each candidate cell of `run_b`."""
    return [(run, cell) for run, side in ((run_a, 0), (run_b, 1))
            for cell in dict.fromkeys(pair[side] for pair in pairs)]


def _starved(both: pd.DataFrame) -> pd.Series:
    """Out of device memory on either side (our own parallelism can cause it) says nothing of the case: like any
    error, it is not judged."""
    return _reasons(both, "reason_a").map(is_out_of_memory) | _reasons(both, "reason_b").map(is_out_of_memory)


def _left_out(both: pd.DataFrame, a_class: pd.Series, b_class: pd.Series, short_b: pd.Series) -> pd.Series:
    """Could not run on one side (not applicable) and ran to a failure on the other, or passed before and the
    candidate's devices left it out (`short_b`): judged by neither side, so listed and counted out of the coverage."""
    return ((a_class == ABSENT) & both["status_b"].isin([FAILED, XFAILED])
            | (a_class == BROKEN) & ~both["status_a"].eq(ERROR) & (b_class == ABSENT)
            | (a_class == PASSING) & short_b)


def _strict_xpassed(both: pd.DataFrame) -> pd.Series:
    """A project's strict xfail that passes now fails its CI: xfailed -> [XPASS(strict)] is a regression too."""
    return both["status_a"].eq(XFAILED) & pd.Series(
        [is_strict_xpass(status, kind, message) for status, kind, message in zip(
            both["status_b"], _reasons(both, "error_type_b"), _reasons(both, "error_message_b"), strict=True)],
        index=both.index, dtype=bool)


def _cell_reasons(cells: pd.DataFrame, pairs: list[tuple[str, str]], run_a: str, run_b: str,
                  finished: set[tuple[str, str]]) -> list[str]:
    """What the compared cells themselves say: those that did not finish, then what their reading left unaccounted."""
    sides = _compared(pairs, run_a, run_b)
    return [*incomplete_reason([f"{run}:{cell}" for run, cell in sides if (run, cell) not in finished]),
            *_unaccounted_reasons(cells, sides)]


def _unaccounted_reasons(cells: pd.DataFrame, sides: list[tuple[str, str]]) -> list[str]:
    """One reason for each compared (run, cell) whose reading left lines, attempts or cases unaccounted for."""
    lost = _unaccounted(cells)
    return [f"{run}:{cell}: {len(lost[run, cell])} thing(s) the reading could not account for (first: "
            f"{lost[run, cell][0]})" for run, cell in sides if lost.get((run, cell))]


def _short_on_both_sides(both: pd.DataFrame, a_class: pd.Series, b_class: pd.Series) -> dict[int, int]:
    """The cases not applicable for their devices on both sides, counted by the devices the candidate said they
    need."""
    if "devices_needed_a" not in both or "devices_needed_b" not in both:
        return {}
    needed_a = pd.to_numeric(both["devices_needed_a"], errors="coerce")
    needed_b = pd.to_numeric(both["devices_needed_b"], errors="coerce")
    short = (a_class == ABSENT) & (b_class == ABSENT) & needed_a.notna() & needed_b.notna()
    counted: dict[int, int] = {}
    for needed in needed_b[short].astype(int).tolist():
        counted[needed] = counted.get(needed, 0) + 1
    return dict(sorted(counted.items()))


def _short_of_fewer_devices(both: pd.DataFrame, b_class: pd.Series) -> pd.Series:
    """Short of devices on the candidate, in a cell with fewer devices than the baseline's. A shortage excuses a case
    only when the cells differ: with as many devices as the baseline ran it on (or a count unknown), the candidate
    itself made the case ask for more, so it is a removal like any other pass -> not applicable."""
    fewer = (pd.to_numeric(_reasons(both, "device_count_b"), errors="coerce")
             < pd.to_numeric(_reasons(both, "device_count_a"), errors="coerce"))
    return (b_class == ABSENT) & _needed(both, "_b").notna() & fewer


def _needed(both: pd.DataFrame, side: str) -> pd.Series:
    """A side's devices needed, as numbers (NaN where the record names none: a case not applicable for an API)."""
    return pd.to_numeric(_reasons(both, f"devices_needed{side}"), errors="coerce")


def _one_sided(both: pd.DataFrame, left_out: pd.Series, a_class: pd.Series) -> dict[tuple[str, int | None], int]:
    """The cases left out on one side only, counted by the side that could not run them and the devices they
    needed there (None: an API or version that side lacks)."""
    counted: dict[tuple[str, int | None], int] = {}
    needed_a, needed_b = _needed(both, "_a"), _needed(both, "_b")
    for index in both.index[left_out.to_numpy(dtype=bool)]:
        side, needed = ("baseline", needed_a[index]) if a_class[index] == ABSENT else ("candidate", needed_b[index])
        key = (side, None if pd.isna(needed) else int(needed))
        counted[key] = counted.get(key, 0) + 1
    return dict(sorted(counted.items(), key=lambda item: (item[0][0], item[0][1] or 0)))


def _reasons(both: pd.DataFrame, name: str) -> pd.Series:
    """A side's reasons (none where the column is absent: records made without one)."""
    return both[name] if name in both else pd.Series(None, index=both.index, dtype=object)


def _unaccounted(cells: pd.DataFrame) -> dict[tuple[str, str], list[str]]:
    """What the reading of each (run, cell) could not account for (load_cells' `unaccounted`; none where absent)."""
    if "unaccounted" not in cells:
        return {}
    return {(str(run), str(cell)): list(found) for run, cell, found in zip(
        cells["run_id"], cells["cell_id"], cells["unaccounted"], strict=True) if isinstance(found, list) and found}


def _flag(both: pd.DataFrame, name: str) -> pd.Series:
    """A boolean column of the join, False where the side was not recorded."""
    return both[name].eq(True).astype(bool)


def regression_causes(candidate: pd.DataFrame, regressed: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The regressions grouped by root cause over the candidate's cells (reports.verdicts.causes), and those cells."""
    cells = cell_table(candidate) if len(candidate) else pd.DataFrame(columns=["run_id", "cell_id", "jax", "flax"])
    key_of = {cell: key for key, cell in zip(cells.index, cells["cell_id"], strict=True)}
    # A module that did not import regressed each of its cases through its one collection record (by_module), and a
    # test's record without parameters each of its parameterized cases (by_test).
    at = {pair: number for number, pair in enumerate(zip(candidate["cell_id"], candidate["case_id"], strict=True))}
    picked = [(at.get((cell, case), at.get((cell, case.split("[")[0]),
                                           at.get((cell, f"{module_of(case)}::{COLLECTION_CASE}")))), case)
              for cell, case in zip(regressed["candidate"], regressed["case_id"], strict=True)]
    found = [(number, case) for number, case in picked if number is not None]
    rows = candidate.iloc[[number for number, _ in found]].assign(case_id=[case for _, case in found])
    rows = rows.assign(key=rows["cell_id"].map(key_of))
    return causes(rows, cells), cells


def refs_runs(refs: Sequence[str]) -> list[str]:
    """The run ids named by RUN or RUN:CELL refs."""
    return [parse_ref(ref)[0] for ref in refs]
