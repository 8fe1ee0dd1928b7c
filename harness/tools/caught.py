"""Which census reports the corpus catches: a report is caught at its own transition, when a case citing it declares
(now, in the corpus as it is) an edge at the release the report names for its start or its fix, and the range
checker confirmed that very edge (its probes found that same bound). A report fixed upstream is caught only through
the edge at its fix (`<fixed`, confirmed: the case passes from the fix on); a live report with a recorded first
release only through its edge there, with any live edge of the case confirmed too; a citation alone, or an edge of
the same case at some other release, earns nothing.

Pure: it joins the census (harness.census), the corpus's `cites=`, the edges the corpus declares now
(harness.tools.ranges.edges, as `(case, package, declared, source)`) and the rows of one stored range check
(harness.outputs.read_ranges). The docs' census tables and `nox -s ranges` both say it from here.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from harness.census import CELLS, LIVE, Report, is_deprecation, pins
from harness.tools.ranges import BOUNDED, CHANGED_SINCE, CONFIRMED, UNCHECKED, WRONG

CAUGHT, NOT_CAUGHT, OFF_CPU = "caught", "not caught", "off CPU"
#: How a warned edge's declaration reads (harness.tools.ranges.edges: "warned jax>=0.8.0").
WARNED_SOURCE = "warned "
#: Where a row read here keeps the whole declaration its source is one part of (a breakage on jax and flax).
DECLARATION = "declaration"
#: Confirmed at its bound, but nothing inside its range judged (a row of the bounds-only checker, or every release
#: inside unjudged): a hole inside is not ruled out, so it waits on a re-check instead of counting as caught.
BOUNDS_ONLY = "bounds only"

#: (case id, package, declared bound as ranges.Edge.text, the declaration it comes from as ranges.Edge.source): one
#: edge the corpus declares. The source holds the whole range, so a row of `>=A,<B` speaks not for `>=A,<C`.
Declared = tuple[str, str, str, str]


@dataclass(frozen=True)
class Catch:
    """One report's standing: caught, not caught (with why) or off CPU (no CPU cell can show it)."""

    report: Report
    status: str
    cases: tuple[str, ...] = ()
    why: str = ""
    #: The census says `checked = "cells"`, but the stored check confirms no edge of a citing case at some release
    #: the report names (or it names none): the claim is not backed by the check.
    unbacked: bool = False


def transitions(report: Report) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(edges at the report's first bad release, edges at its first good one), each as (package, declared bound):
    'jax==0.8.1' appeared reads ('jax', '>=0.8.1'), 'jax==0.9.0' fixed ('jax', '<0.9.0'), a live report ('jax',
    'live') and ('flax', 'live'). A development release stands for the release it leads to (0.6.1.dev2025 -> 0.6.1)."""
    bad = {(package, f">={release}") for package, release in _pins(report.appeared)}
    good = ({("jax", LIVE), ("flax", LIVE)} if report.fixed == LIVE
            else {(package, f"<{release}") for package, release in _pins(report.fixed)})
    return bad, good


def _pins(text: str) -> list[tuple[str, str]]:
    # A development or candidate release leads to its release: the bound a range can name.
    return [(package, release.base_version) for package, release in pins(text)]


def catches(census: Mapping[str, Report], citations: Mapping[str, tuple[str, ...]],
            edges: Iterable[Mapping[str, Any]], declared: Collection[Declared],
            unvouched: Collection[str] = (), joined: Mapping[tuple[str, str], str] | None = None) -> list[Catch]:
    """Each report's Catch, in census order. `edges` are a stored range check's rows (case, status, declared,
    package, found, why); `declared` the edges the corpus declares now: a stored row of a declaration the corpus no
    longer makes vouches for nothing. `unvouched`: the cases whose change is `warned` without naming its warning's
    text, whose warned edges any warning would have confirmed: those rows judge nothing. `joined`: {(case, source):
    the whole declaration} of each edge whose source is one part of it (a known breakage on jax and flax:
    ranges.Edge.entry), so that its bounds on both packages are read as one range."""
    current, silent, whole = set(declared), set(unvouched), joined or {}
    by_case: dict[str, list[Mapping[str, Any]]] = {}
    for row in edges:
        if (str(row["case"]), str(row["package"]), str(row["declared"]), str(row.get("source"))) in current:
            if str(row["case"]) in silent and _warned(row) and row["status"] == CONFIRMED:
                row = {**row, "status": UNCHECKED, "why": "its change names no warning text, so any warning of the "
                                                          "case would have read as its own"}
            key = (str(row["case"]), str(row.get("source")))
            if key in whole:
                row = {**row, DECLARATION: whole[key]}
            by_case.setdefault(str(row["case"]), []).append(row)
    citing: dict[str, list[str]] = {}
    for case_id, ids in sorted(citations.items()):
        for report_id in ids:
            citing.setdefault(report_id, []).append(case_id)
    found = []
    for report_id, report in census.items():
        cases = tuple(citing.get(report_id, ()))
        if not report.cpu:
            found.append(Catch(report, OFF_CPU, cases, report.uncited))
        elif not cases:
            found.append(Catch(report, NOT_CAUGHT, cases, f"no case cites it: {report.uncited}"))
        else:
            counting = _counting(report, cases, by_case)
            catch = _judged(report, cases, counting)
            found.append(replace(catch, unbacked=report.checked == CELLS and not _measured(report, cases, counting)))
    return found


def _measured(report: Report, cases: tuple[str, ...], by_case: Mapping[str, list[Mapping[str, Any]]]) -> bool:
    """Whether the stored check backs `checked = "cells"`: a confirmed edge of a citing case at each release the
    report names (where it appeared; where it was fixed, or the newest release for a live one), and at least one. A
    live report whose transition is a documented change is backed by the change's edge at its first release alone."""
    bad, good = transitions(report)
    sides = [side for side in (bad, good) if side]
    rows = [row for case in cases for row in by_case.get(case, [])
            if row["status"] == CONFIRMED and not row.get("found")]
    if report.fixed == LIVE and any(_standing_change(row, bad, by_case[str(row["case"])]) for row in rows):
        return True
    confirmed = {(row["package"], row["declared"]) for row in rows}
    return bool(sides) and all(side & confirmed for side in sides)


def _standing_change(row: Mapping[str, Any], bad: set[tuple[str, str]], rows: list[Mapping[str, Any]]) -> bool:
    """A change's `since` at the report's first release, its range probed inside: a change has no fix, and the probes
    inside its range run up to the newest release, so no live edge is declared, or needed, to say the newest fails.
    A breakage's `>=` edge is not one: a bug may be fixed, so its live edge must say so."""
    return (str(row.get("source", "")).startswith(CHANGED_SINCE) and (row["package"], row["declared"]) in bad
            and inside_judged(_declaration(rows, row)))


def _warned(row: Mapping[str, Any]) -> bool:
    return str(row.get("source", "")).startswith(WARNED_SOURCE)


def _counting(report: Report, cases: tuple[str, ...],
              by_case: Mapping[str, list[Mapping[str, Any]]]) -> dict[str, list[Mapping[str, Any]]]:
    """The rows of each citing case that may speak for the report: a warning shows a deprecation, so a report of a
    breakage (an error, a wrong value) is caught only by a case that fails there, never by one that warns; a wrong
    row spoils its case whatever it is."""
    if is_deprecation(report):
        return {case: by_case.get(case, []) for case in cases}
    return {case: [row for row in by_case.get(case, []) if not _warned(row) or row["status"] == WRONG]
            for case in cases}


def _judged(report: Report, cases: tuple[str, ...], by_case: Mapping[str, list[Mapping[str, Any]]]) -> Catch:
    if report.behind:
        # One failure counts one report: the case fails on the other's bug first, wherever this one is in a release.
        return Catch(report, NOT_CAUGHT, cases, f"its failure sits behind {report.behind}'s in every release, so no "
                                                f"probe sees it apart; a case that reaches it alone would catch it")
    bad, good = transitions(report)
    # A report fixed in a release is caught only where its case passes from that release on: the edge at the fix,
    # in a range that starts where the report appeared (where the census names it), so the case did not fail before.
    fixed = bool(good) and report.fixed != LIVE
    wanted = good if fixed else bad | good
    if not wanted:
        return Catch(report, NOT_CAUGHT, cases, "the census names no release where it appeared or was fixed")
    first, start = (set(), bad) if fixed else (bad if report.fixed == LIVE else set(), set())
    confirming = [case for case in cases if _confirms(by_case.get(case, []), wanted, first, True, start)]
    if confirming:
        return Catch(report, CAUGHT, tuple(confirming))
    at_bounds = [case for case in cases if _confirms(by_case.get(case, []), wanted, first, start=start)]
    if at_bounds:
        return Catch(report, BOUNDS_ONLY, tuple(at_bounds), "confirmed at its bound, but no release inside its range "
                                                            "judged yet: re-check with `nox -s ranges`")
    return Catch(report, NOT_CAUGHT, cases, _why_not(report, cases, by_case, wanted, start))


def _why_not(report: Report, cases: tuple[str, ...], by_case: Mapping[str, list[Mapping[str, Any]]],
             wanted: set[tuple[str, str]], start: set[tuple[str, str]]) -> str:
    bad, _ = transitions(report)
    said = " or ".join(f"{package}{bound}" if bound != LIVE else f"{package} live" for package, bound in sorted(wanted))
    rows = [row for case in cases for row in by_case.get(case, [])]
    wrong = [row for row in rows if row["status"] == WRONG]
    at = [row for row in rows if (row["package"], row["declared"]) in wanted and row["status"] != CONFIRMED]
    at += [row for row in rows if (row["package"], row["declared"]) in wanted]
    if wrong:
        return _said(wrong[0])
    if not rows:
        return f"its cases declare no checked edge (its transition: {said})"
    if report.fixed == LIVE and bad and not any((row["package"], row["declared"]) in bad for row in rows):
        at_first = " or ".join(f"{package}{bound}" for package, bound in sorted(bad))
        return f"no edge of its cases at its first release ({at_first}): a live edge says only that the newest " \
               f"release fails"
    fix = [row for row in at if row["status"] == CONFIRMED and not row.get("found")]
    if start and fix:
        from_ = " or ".join(f"{package}{bound}" for package, bound in sorted(start))
        return f"{fix[0]['source']} of {fix[0]['case']} does not start where the report appeared ({from_}): its " \
               f"case may fail before the report for another reason; declare the range from there"
    if at:
        return _said(at[0])
    return f"no edge of its cases at its transition ({said})"


def _said(row: Mapping[str, Any]) -> str:
    found = f"releases show {row['found']}" if row.get("found") else str(row.get("why") or "")
    return f"edge {row['package']}{row['declared']} of {row['case']} is {row['status']}: {found}".rstrip(": ")


def _confirms(rows: list[Mapping[str, Any]], wanted: set[tuple[str, str]],
              first: Collection[tuple[str, str]] = (), inside: bool = False,
              start: Collection[tuple[str, str]] = ()) -> bool:
    """A confirmed edge at the transition, found at its declared bound, and no edge of the case wrong; with `inside`,
    its range probed inside too (inside_judged). For a live report with a recorded first release (`first`): the edge
    there, and every live edge the case declares confirmed (a live edge alone says only that the newest release
    fails, not where the report started). With `start` (a fixed report's first bad release): the confirmed edge's
    range starts there too, confirmed or bounded by the case's needs (the case did not fail before the report)."""
    if first:
        live = [row for row in rows if row["declared"] == LIVE]
        return _confirms(rows, set(first), inside=inside) and all(row["status"] == CONFIRMED for row in live)
    at = [row for row in rows if (row["package"], row["declared"]) in wanted]
    return (any(row["status"] == CONFIRMED and not row.get("found")
                and (not inside or inside_judged(_declaration(rows, row)))
                and (not start or _starts(_declaration(rows, row), start))
                for row in at)
            and not any(row["status"] == WRONG for row in rows))


def _declaration(rows: list[Mapping[str, Any]], row: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The rows of the declaration `row` is an edge of (`>=A,<B`: both; a breakage on jax and flax: its bounds on
    both, so a flax fix's range starts where its jax range does)."""
    return [other for other in rows if _whole(other) == _whole(row)]


def _whole(row: Mapping[str, Any]) -> object:
    return row.get(DECLARATION, row.get("source"))


def _starts(declaration: list[Mapping[str, Any]], start: Collection[tuple[str, str]]) -> bool:
    return any((row["package"], row["declared"]) in start and row["status"] in (CONFIRMED, BOUNDED)
               and not row.get("found") for row in declaration)


def inside_judged(declaration: list[Mapping[str, Any]]) -> bool:
    """Whether the rows of one declaration (its edges) carry evidence from inside its range: every row counts the
    releases inside it owns and those judged (`inside_releases`, `inside_judged`: a row without them is the
    bounds-only checker's), and either no row owns a release inside the range where the case can run (its needs met:
    `inside_unmet` counts those where they are not) or a row that owns some judged at least one of them (asked
    releases that were all not applicable or not installable say nothing of holes)."""
    counts = [(_count(row, "inside_releases"), _count(row, "inside_judged")) for row in declaration]
    if not counts or any(releases is None or judged is None for releases, judged in counts):
        return False
    # Releases inside where the case's own needs are unmet (`inside_unmet`) hold no hole: it runs at none of them.
    owned = [judged for (releases, judged), row in zip(counts, declaration, strict=True)
             if releases and releases != _count(row, "inside_unmet")]
    return not owned or any(owned)


def _count(row: Mapping[str, Any], key: str) -> int | None:
    # harness.outputs.read_ranges checks a stored row's counts; a row built in memory is held to the same.
    value = row.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def summary(found: list[Catch]) -> str:
    """One line: how many reports a CPU can show, how many of those are caught at their own transition, the share."""
    on_cpu = [catch for catch in found if catch.status != OFF_CPU]
    caught = sum(catch.status == CAUGHT for catch in on_cpu)
    bounds = sum(catch.status == BOUNDS_ONLY for catch in on_cpu)
    # Floor, not round: 79.7 % is not 80 %.
    share = f" ({100 * caught // len(on_cpu)} %)" if on_cpu else ""
    waiting = (f"; {bounds} more confirmed at their bounds only, waiting on a probe inside their range"
               if bounds else "")
    unbacked = sum(catch.unbacked for catch in found)
    claims = (f"; {unbacked} of {sum(catch.report.checked == CELLS for catch in found)} that say their releases were "
              f"checked in cells have no confirmed edge at each release they name" if unbacked else "")
    return (f"{caught} of {len(on_cpu)} reports a CPU cell can show are caught at their own transition{share}"
            f"{waiting}; {len(found) - len(on_cpu)} of {len(found)} need more than a CPU{claims}")
