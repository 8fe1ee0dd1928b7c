"""No verdict better than its evidence, for the kinds of failure (issue 38): works_except_known_bugs is never given
while something unexplained fails, searched by Hypothesis over the trees that
tests/test_no_verdict_better_than_evidence.py writes.

A known upstream bug is a final `xfailed` whose record says a declared known breakage applied (`known_breakage`); a
test's own xfail mark, and anything else that neither passes nor is absent, is unexplained here (these trees declare
no documented change).
"""

from __future__ import annotations

import json
from pathlib import Path
from tempfile import TemporaryDirectory

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_no_verdict_better_than_evidence import (
    CASES,
    CELL,
    EXAMPLES,
    GOOD_TIERS,
    Cell,
    cells,
    compat_verdict,
    quietly,
    write_cell,
)

from harness import cellrecord, vocabulary
from reports.verdicts import compat

RUN = "20261102T000000Z-bbbb"


def only_known_bugs_fail(cell: Cell) -> bool:
    """Whether the cell is sound, every final status passes, is absent or is a known bug, and no retry disagreed."""
    return cell.sound and all(
        (vocabulary.status_class(statuses[-1]) in (vocabulary.PASSING, vocabulary.ABSENT)
         or statuses[-1] == vocabulary.XFAILED) and len(set(statuses)) == 1
        for statuses in cell.attempts.values())


def verdict_of(cell: Cell, own_xfails: bool = False) -> object:
    """The cell's compat verdict; with `own_xfails`, every xfailed record is a test's own xfail mark, not a declared
    known breakage (`known_breakage` false)."""
    with TemporaryDirectory() as folder:
        write_cell(Path(folder), RUN, cell)
        if own_xfails:
            _own_xfails(cellrecord.CellFiles(Path(folder), RUN, CELL).results)
        return quietly(lambda: compat_verdict(Path(folder), RUN))[0]


def _own_xfails(path: Path) -> None:
    """Rewrite each xfailed record of a results file as a test's own xfail; lines that are not records stay as they
    are (torn lines, bad bytes: the defects the tree was given)."""
    lines = []
    for line in path.read_bytes().split(b"\n"):
        try:
            found = json.loads(line)
        except ValueError:
            lines.append(line)
            continue
        if isinstance(found, dict) and found.get("status") == vocabulary.XFAILED:
            found["known_breakage"] = False
        lines.append(json.dumps(found).encode("utf-8"))
    path.write_bytes(b"\n".join(lines))


@settings(max_examples=max(EXAMPLES // 3, 50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cell=cells)
def test_works_except_known_bugs_is_never_given_while_something_unexplained_fails(cell: Cell) -> None:
    verdict = verdict_of(cell)
    if verdict == compat.KNOWN_BUGS:
        assert only_known_bugs_fail(cell), cell
        assert vocabulary.XFAILED in cell.finals().values(), cell


def test_a_sound_cell_of_passes_and_known_bugs_earns_it_and_one_unexplained_failure_loses_it() -> None:
    """The pair of the property: the token is given where it is due, so the property is not met by never giving it."""
    known = Cell({CASES[0]: ("passed",), CASES[1]: ("xfailed",), CASES[2]: ("not_applicable",)}, frozenset())
    assert verdict_of(known) == compat.KNOWN_BUGS
    assert verdict_of(Cell({**known.attempts, CASES[2]: ("failed",)}, frozenset())) == compat.PARTIAL
    assert verdict_of(Cell(known.attempts, frozenset({"missing_record"}))) not in (compat.KNOWN_BUGS, compat.WORKS)


@settings(max_examples=max(EXAMPLES // 3, 50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cell=cells, own_xfails=st.booleans())
def test_a_tests_own_xfail_never_earns_a_works_tier(cell: Cell, own_xfails: bool) -> None:
    """A test's own xfail mark is no declared known upstream bug: a cell with one never reads works_except_known_bugs
    or better (its range and link were never checked)."""
    verdict = verdict_of(cell, own_xfails)
    if own_xfails and vocabulary.XFAILED in cell.finals().values():
        assert verdict not in {compat.KNOWN_BUGS, *GOOD_TIERS}, cell


def test_the_same_xfail_declared_earns_works_except_known_bugs_and_as_its_own_mark_reads_partial() -> None:
    """The pair of the property above."""
    known = Cell({CASES[0]: ("passed",), CASES[1]: ("xfailed",), CASES[2]: ("passed",)}, frozenset())
    assert (verdict_of(known), verdict_of(known, own_xfails=True)) == (compat.KNOWN_BUGS, compat.PARTIAL)
