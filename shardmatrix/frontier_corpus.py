"""The second half of the frontier's search for one flax release: the core range confirmed with the whole corpus, and a
range of its own for each case that fails inside it (a per-case frontier).

The core (smoke) cases steer the search; what the frontier reports is the whole corpus's word, by the one verdict of
a cell (reports.verdicts.compat.verdict, through reports.verdicts.frontier_judge), with documented changes and
declared known upstream bugs excepted: a pair that reads works_for_current_code or works_except_known_bugs works, and
the known bugs that fail inside the range are listed beside it. Every case runs at the last-good jax of each core
edge. A case that fails there, for a reason no documented change explains, gets its own edge, bisected inside the
core range with whole-corpus probes (each one answers for every case at once, and is an ordinary cell the results
cache keeps); the whole-corpus range is where every such case works, and its edges are confirmed the same way until
both read working (an edge where only cases with a known range fail, each at a release inside it, moves inward past
that release). A whole-corpus probe that fails inside that range is a hole, and its neighbours are probed outwards
until one works: a hole is as wide as the failing releases around it. The first-broken jax of an edge is a
whole-corpus probe too, except where its core probe already reads broken or not built: no further case can change
that verdict.
"""

from __future__ import annotations

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from shardmatrix import frontier_search
from shardmatrix.frontier_search import CaseRange, Frontier, Probe, ProbeFn, Probes, find_edge, interior_points

#: Verdicts that answer for no case: nothing installed, or the cell stopped before recording every case.
UNANSWERED = ("not_built", "interrupted")
#: Verdicts of a core probe that running every case cannot change.
FINAL = ("broken", "not_built")


def measure(flax: Version, declared: SpecifierSet, candidates: list[Version], probe: ProbeFn,
            contemporary: Version | None = None) -> Frontier:
    """The whole search for one flax release: the core range (frontier_search.measure), then confirm()."""
    return frontier_search.measure(flax, declared, candidates, probe, contemporary, confirm)


def case_works(probe: Probe, case: str) -> bool:
    """Whether one case works in a whole-corpus probe: it does not fail undocumented, and the probe answers."""
    return probe.verdict not in UNANSWERED and case not in probe.failing


def confirm(found: Frontier, probes: Probes, start: int, end: int) -> None:
    """Set the whole-corpus range, its edges and the narrower cases on `found`, inside the core range [start, end]."""
    candidates = probes.candidates
    ranges: dict[str, tuple[int, int] | None] = {}
    low, high = start, end
    while True:
        edges = probes.look(low, corpus=True), probes.look(high, corpus=True)
        if all(p.works for p in edges):
            break
        new = [case for p in edges if not p.works for case in p.failing if case not in ranges]
        if not new and all(p.works or p.failing for p in edges):
            # Cases whose range is known fail at an edge inside it: a release they fail at inside their range (not
            # one stretch), so that edge moves inward past it.
            low, high = low + (not edges[0].works), high - (not edges[1].works)
            if low > high:
                found.nowhere = "no jax release of the core range passes the whole corpus: the narrower cases " \
                                "each fail somewhere inside the others' ranges"
                break
            continue
        if not new:  # not working for a reason no case explains: not built, interrupted, the core broken
            unconfirmed = next(p for p in edges if not p.works)
            found.nowhere = f"the whole corpus does not confirm the core range: jax {unconfirmed.jax}: " \
                            f"{unconfirmed.cause}"
            break
        for case in new:
            ranges[case] = case_range(probes, case, start, end)
        known = [r for r in ranges.values() if r is not None]
        if len(known) < len(ranges) or not known:
            low, high = end + 1, start - 1
        else:
            low, high = max(r[0] for r in known), min(r[1] for r in known)
        if low > high:
            nowhere = sorted(case for case, r in ranges.items() if r is None)
            found.nowhere = "no jax release of the core range passes the whole corpus" + (
                f": {', '.join(nowhere)} work(s) with none probed" if nowhere else ": the narrower cases' ranges "
                "do not overlap")
            break
    found.cases = [_row(found, probes, case, r, start, end) for case, r in sorted(ranges.items())
                   if r is None or r != (start, end)]
    if found.nowhere:
        return
    found.works_from, found.works_to = candidates[low], candidates[high]
    found.known_bugs = known_bugs(probes, low, high)
    found.below = _first_broken(found, probes, low - 1, start - 1, found.core_below)
    found.above = _first_broken(found, probes, high + 1, end + 1, found.core_above)
    try:
        for i in [i for i, p in sorted(probes.corpus.items()) if low < i < high and not p.works]:
            _widen(probes, i, low, high)
    finally:  # the holes found so far are kept when the budget stops the widening
        inside = [p for i, p in sorted(probes.corpus.items()) if low < i < high and not p.works]
        found.holes = sorted({p.jax: p for p in [*found.holes, *inside]}.values(), key=lambda p: p.jax)


def known_bugs(probes: Probes, low: int, high: int) -> list[str]:
    """The declared known upstream bugs that fail in a whole-corpus probe inside [low, high], each once, in order."""
    return sorted({bug for i, p in probes.corpus.items() if low <= i <= high for bug in p.known.values() if bug})


def _widen(probes: Probes, hole: int, low: int, high: int) -> None:
    """A whole-corpus probe failing inside the range [low, high]: its neighbours are probed outwards with every case,
    each way until one works, so the hole reported is every failing release around it, not one release by
    assumption (a case that fails in a stretch of releases fails in all of them)."""
    for step in (-1, +1):
        i = hole + step
        while low < i < high and _fails(probes, i):
            i += step


def _fails(probes: Probes, i: int) -> bool:
    """Whether the whole corpus fails at candidate i: a core probe there that is already final answers for it."""
    core = probes.core.get(i)
    if core is not None and core.verdict in FINAL:
        return True
    return not probes.look(i, corpus=True).works


def case_range(probes: Probes, case: str, start: int, end: int) -> tuple[int, int] | None:
    """Where one case works inside the core range [start, end], bisected with whole-corpus probes from a release it
    works with; None when it works with none probed (one more probe is spent looking, in the widest unprobed
    stretch)."""
    def works(i: int) -> bool:
        return case_works(probes.look(i, corpus=True), case)

    def known() -> dict[int, bool]:
        return {i: case_works(p, case) for i, p in probes.corpus.items() if start <= i <= end}

    passing = sorted(i for i, ok in known().items() if ok)
    if not passing:
        more = interior_points(start, end, set(probes.corpus), count=1)
        if not more or not works(more[0]):
            return None
        passing = more
    # From the passing release nearest the side that fails: the shorter bisection.
    good = passing[0] if not works(start) else passing[-1]
    low = start if works(start) else find_edge(works, known, good, start - 1, -1, set(), check=False)[0]
    high = end if works(end) else find_edge(works, known, good, end + 1, +1, set(), check=False)[0]
    return low, high


def _row(found: Frontier, probes: Probes, case: str, bounds: tuple[int, int] | None, start: int,
         end: int) -> CaseRange:
    """The per-case row: its range, and the probes that bound it (the core's where its edge is the core's)."""
    candidates = probes.candidates
    if bounds is None:
        return CaseRange(case, None, None, probes.corpus.get(start), probes.corpus.get(end))
    low, high = bounds
    below = probes.corpus.get(low - 1) if low > start else found.core_below
    above = probes.corpus.get(high + 1) if high < end else found.core_above
    return CaseRange(case, candidates[low], candidates[high], below, above)


def _first_broken(found: Frontier, probes: Probes, i: int, core_edge: int, core_probe: Probe | None) -> Probe | None:
    """The first-broken probe past a whole-corpus edge: the whole corpus's where the edge is inside the core range,
    else the core edge's, run with every case unless its verdict is already final (or it was never probed)."""
    if i != core_edge:
        return probes.corpus.get(i)
    if core_probe is None or not core_probe.cell_id or core_probe.verdict in FINAL:
        return core_probe
    return probes.look(i, corpus=True)
