"""The search of `nox -s frontier` for one flax release: the core range (steered by the smoke cases), holes told from
edges, then the whole-corpus range and a range per case that narrows it (shardmatrix.frontier_corpus), all within
the probe budget, which the search itself enforces.

Pure: a probe is a function from a jax release to its verdict (shardmatrix.frontier makes them cells), so the
search, its budget and its chance of finding a hole are tested with synthetic works-sets.

The core search: a known-good jax is looked for where it most likely is (the jax released with that flax, then the
middle of its declared range), then in the middle of the widest stretch not yet probed, for as long as the budget
still pays for both bisections from a point found there. Each edge is bisected from it; the release just past each
first-broken release is probed too, so a one-release hole the bisection landed on is reported as a hole (and the
edge searched on past it) instead of being taken for the edge. Then INTERIOR probes go to the middles of the widest
unprobed stretches inside the range: a failing one is a hole.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness.tools.budget import BudgetSpent
from harness.vocabulary import INSTALL_CAUSE

#: Where a known-good jax is looked for first (the contemporary jax, then the middle of the declared range).
SEEDS = 2
#: Probes just past each edge's first-broken release, which tell a one-release hole from the edge.
CHECKS = 2
#: Probes inside every core range found, beyond its edges and bisections: a failing one is a hole.
INTERIOR = 2
#: Whole-corpus probes next to a hole the whole corpus finds, one each way, which tell how wide it is.
HOLE_NEIGHBOURS = 2
EXCLUDED_CAUSE = "excluded by the flax release's declared requirement"
CORE, CORPUS = "core", "corpus"


@dataclass(frozen=True)
class Probe:
    """One (jax, flax) pair's verdict: works or not, why not in one line, the reports.verdicts.compat token, its cell,
    seconds, whether reused, whether it ran every case (`corpus`) or the core (smoke) cases, the cases that fail
    for a reason nothing explains (neither a documented change nor a declared known upstream bug), each with its
    cause, and the cases a declared known upstream bug fails, each with the bug's link."""

    jax: Version
    works: bool
    cause: str = ""
    cell_id: str = ""
    seconds: float = 0.0
    reused: bool = False
    verdict: str = ""
    corpus: bool = False
    failing: Mapping[str, str] = field(default_factory=dict)
    known: Mapping[str, str] = field(default_factory=dict)


#: A probe function: the jax release and whether every case runs (else the core cases only).
ProbeFn = Callable[[Version, bool], Probe]


@dataclass(frozen=True)
class Budget:
    """The most probes one flax release may cost over n jax releases, of each kind; `measure` stops at it."""

    core: int
    corpus: int

    @property
    def total(self) -> int:
        """Both kinds together."""
        return self.core + self.corpus


def log2_ceil(n: int) -> int:
    """Probes a bisection needs among n releases: ceil(log2 n), 0 for one."""
    return math.ceil(math.log2(n)) if n > 1 else 0


def budget(n: int) -> Budget:
    """The probe budget over n jax releases, with L = ceil(log2 n): core 3L + SEEDS + CHECKS + 1 + INTERIOR (both
    edges bisected and checked, and one hole found at an edge paid for: its edge is bisected again), corpus 2L + 6
    (both core edges confirmed at their last-good and first-broken release, each bisected once more for the cases
    that narrow it, and a hole the whole corpus finds widened by a release each way)."""
    bits = log2_ceil(n)
    return Budget(core=3 * bits + SEEDS + CHECKS + 1 + INTERIOR, corpus=2 * bits + 4 + HOLE_NEIGHBOURS)


@dataclass(frozen=True)
class CaseRange:
    """One case whose range is narrower than the core range: where it works within the core range (None: at no jax
    probed there), and the probes that bound it (a core edge's probe where the case's edge is the core's)."""

    case: str
    works_from: Version | None
    works_to: Version | None
    below: Probe | None
    above: Probe | None

    def cause(self, probe: Probe | None) -> str:
        """Why the case does not work at a bounding probe: its own failure there, else the probe's cause."""
        if probe is None:
            return ""
        return probe.failing.get(self.case) or probe.cause


@dataclass
class Frontier:
    """What was measured for one flax release: the core range (smoke cases) with its edges and holes, the
    whole-corpus range (documented changes excepted) with its edges, the cases that narrow it, every probe made,
    and why the search stopped early (`stopped`) or found nothing (`nowhere`)."""

    flax: Version
    declared: str
    candidates: list[Version]
    budget: Budget
    probes: list[Probe] = field(default_factory=list)
    core_from: Version | None = None
    core_to: Version | None = None
    core_below: Probe | None = None
    core_above: Probe | None = None
    holes: list[Probe] = field(default_factory=list)
    works_from: Version | None = None
    works_to: Version | None = None
    below: Probe | None = None
    above: Probe | None = None
    cases: list[CaseRange] = field(default_factory=list)
    #: The declared known upstream bugs that fail inside the whole-corpus range (by link), listed beside it.
    known_bugs: list[str] = field(default_factory=list)
    nowhere: str = ""
    stopped: str = ""

    def spent(self, corpus: bool) -> int:
        """Probes made of one kind."""
        return sum(1 for p in self.probes if p.corpus == corpus)


class Probes:
    """The probes of one search: each (release, kind) asked once, counted against the budget, which it enforces."""

    def __init__(self, found: Frontier, candidates: list[Version], probe: ProbeFn) -> None:
        self.found, self.candidates, self.probe = found, candidates, probe
        self.core: dict[int, Probe] = {}
        self.corpus: dict[int, Probe] = {}

    def look(self, i: int, corpus: bool = False) -> Probe:
        """The verdict at candidate i, probed once; BudgetSpent instead of a probe over the budget."""
        known = self.corpus if corpus else self.core
        if i not in known:
            limit = self.found.budget.corpus if corpus else self.found.budget.core
            if self.found.spent(corpus) >= limit:
                kind = "whole-corpus" if corpus else "core"
                raise BudgetSpent(f"stopped: its budget of {limit} {kind} probes is spent (jax {self.candidates[i]} "
                                  "would be one more)")
            known[i] = self.probe(self.candidates[i], corpus)
            self.found.probes.append(known[i])
        return known[i]

    def works(self, i: int) -> bool:
        """Whether the core works at candidate i; a whole-corpus probe there answers too (it runs the core cases)."""
        if i in self.corpus and i not in self.core:
            return core_works(self.corpus[i])
        return self.look(i).works

    def known(self) -> dict[int, bool]:
        """Every candidate probed so far, and whether the core works there."""
        return {**{i: core_works(p) for i, p in self.corpus.items()}, **{i: p.works for i, p in self.core.items()}}


def core_works(probe: Probe) -> bool:
    """Whether the core cases work in a probe: any probe that works, or a whole-corpus one whose only failures are
    outside the core (its verdict is partial, not broken)."""
    return probe.works or (probe.corpus and probe.verdict == "partial")


def seeds(candidates: list[Version], declared: SpecifierSet, contemporary: Version | None) -> list[Version]:
    """Where to look for a known-good jax first: the one released with the flax release, then the middle of its
    declared range (of all candidates when none is declared-compatible)."""
    allowed = [v for v in candidates if v in declared] or candidates
    order = ([contemporary] if contemporary in allowed else []) + [allowed[len(allowed) // 2], allowed[-1]]
    return list(dict.fromkeys(order))[:SEEDS]


def next_seed(n: int, probed: set[int], spent: int, limit: int) -> int | None:
    """The middle of the widest stretch of unprobed candidates, if the budget still pays for it, both bisections
    from it, their checks and the interior probes; None when it does not (every probed point so far failed)."""
    bounds = [-1, *sorted(probed), n]
    gaps = [(b - a - 1, a, b) for a, b in itertools.pairwise(bounds) if b - a > 1]
    if not gaps:
        return None
    _, a, b = max(gaps, key=lambda gap: (gap[0], gap[1]))
    mid = (a + b) // 2
    cost = 1 + log2_ceil(mid - a) + log2_ceil(b - mid) + CHECKS + INTERIOR
    return mid if spent + cost <= limit else None


def find_edge(works: Callable[[int], bool], known: Callable[[], dict[int, bool]], good: int, beyond: int, step: int,
              holes: set[int], check: bool = True) -> tuple[int, int]:
    """From a working index `good`, towards `beyond` (-1 or n, exclusive) in direction `step` (-1 or +1): the last
    index that works before the first that does not, and that first one (`beyond` when none fails). With `check`,
    the index just past the first broken one is probed: if it works, the first broken one is a hole (added to
    `holes`) and the edge is searched for on past it."""
    inner = good
    while True:
        failing = [i for i, ok in known().items() if not ok and i not in holes and (i - inner) * step > 0]
        bad = min(failing, key=lambda i: abs(i - inner), default=beyond)
        while abs(bad - inner) > 1:
            mid = (inner + bad) // 2
            if works(mid):
                inner = mid
            else:
                bad = mid
        past = bad + step
        if not check or bad == beyond or past == beyond or not works(past):
            return inner, bad
        holes.add(bad)
        inner = past


def interior_points(start: int, end: int, probed: set[int], count: int = INTERIOR) -> list[int]:
    """Up to `count` unprobed indices strictly inside (start, end), each the middle of the widest unprobed stretch
    left (for a one-release hole any unprobed release is as good; for a longer one this is where a probe can find it
    at all)."""
    taken = {i for i in probed if start <= i <= end} | {start, end}
    chosen: list[int] = []
    for _ in range(count):
        bounds = sorted(taken)
        gaps = [(b - a - 1, a, b) for a, b in itertools.pairwise(bounds) if b - a > 1]
        if not gaps:
            break
        _, a, b = max(gaps, key=lambda gap: (gap[0], -gap[1]))
        chosen.append((a + b) // 2)
        taken.add(chosen[-1])
    return sorted(chosen)


#: The second half of a search (shardmatrix.frontier_corpus.confirm): given the core range's indices.
Confirm = Callable[[Frontier, Probes, int, int], None]


def measure(flax: Version, declared: SpecifierSet, candidates: list[Version], probe: ProbeFn,
            contemporary: Version | None = None, confirm: Confirm | None = None) -> Frontier:
    """Measure one flax release: the core range, then (`confirm`, shardmatrix.frontier_corpus.measure passes it)
    the whole-corpus range and the cases that narrow it. A jax outside the declaration is never probed (no installer
    pairs them): where the range ends at the declaration, the next jax beyond it is the edge, its cause the
    declaration. Over the budget, the search stops and says so in `stopped`; what it found until then stays."""
    found = Frontier(flax, str(declared), list(candidates), budget(len(candidates)))
    everything = candidates
    candidates = [v for v in candidates if v in declared] or candidates
    probes = Probes(found, candidates, probe)
    try:
        core = _core(found, probes, declared, contemporary)
        if core is not None:
            _excluded_edges(found, everything, candidates, declared, *core)
            if confirm is not None:
                confirm(found, probes, *core)
    except BudgetSpent as spent:
        found.stopped = str(spent)
    return found


def _core(found: Frontier, probes: Probes, declared: SpecifierSet,
          contemporary: Version | None) -> tuple[int, int] | None:
    """The core range as candidate indices (start, end), its edges' probes and its holes set on `found`; None when
    no jax probed works."""
    candidates, n = probes.candidates, len(probes.candidates)
    # The hole found at an edge is paid for by the budget; a seed is looked for only where the rest still fits.
    reserve = log2_ceil(n) + 1
    good = next((candidates.index(v) for v in seeds(candidates, declared, contemporary)
                 if probes.look(candidates.index(v)).works), None)
    while good is None and not _uninstallable_everywhere(found.probes):
        more = next_seed(n, set(probes.core), found.spent(False), found.budget.core - reserve)
        if more is None:
            break
        good = more if probes.look(more).works else None
    if good is None:
        found.nowhere = _nowhere(found.probes)
        return None
    holes: set[int] = set()
    start, below = find_edge(probes.works, probes.known, good, -1, -1, holes)
    end, above = find_edge(probes.works, probes.known, good, n, +1, holes)
    found.core_from, found.core_to = candidates[start], candidates[end]
    found.core_below = _at(probes, below)
    found.core_above = _at(probes, above)
    _holes(found, probes, start, end, holes)
    for i in interior_points(start, end, set(probes.known())):
        probes.look(i)
    _holes(found, probes, start, end, holes)
    return start, end


def _at(probes: Probes, i: int) -> Probe | None:
    """The probe at candidate i (the core's, else the whole corpus's); None outside the candidates."""
    if not 0 <= i < len(probes.candidates):
        return None
    return probes.core.get(i) or probes.corpus.get(i)


def _holes(found: Frontier, probes: Probes, start: int, end: int, holes: set[int]) -> None:
    """Every failing probe strictly inside the core range is a hole."""
    inside = {i for i, ok in probes.known().items() if start < i < end and not ok} | holes
    found.holes = [p for p in (_at(probes, i) for i in sorted(inside)) if p is not None]


def _excluded_edges(found: Frontier, everything: list[Version], candidates: list[Version], declared: SpecifierSet,
                    start: int, end: int) -> None:
    """Where the core range ends at the declaration, the next jax beyond it is the edge: excluded, never probed."""
    excluded = f"{EXCLUDED_CAUSE} jax{declared} (an installer refuses the pair; not probed)"
    below = [v for v in everything if v < candidates[0]] if found.core_below is None and start == 0 else []
    above = [v for v in everything if v > candidates[-1]] if found.core_above is None and end == len(
        candidates) - 1 else []
    found.core_below = Probe(below[-1], False, excluded, verdict="not_built") if below else found.core_below
    found.core_above = Probe(above[0], False, excluded, verdict="not_built") if above else found.core_above


def _uninstallable_everywhere(probes: list[Probe]) -> bool:
    """Every probe so far failed to install: the flax release itself is the problem, looking further costs."""
    return len(probes) >= SEEDS and all(p.cause.startswith(INSTALL_CAUSE) for p in probes)


def _nowhere(probes: list[Probe]) -> str:
    causes = [p.cause for p in probes]
    installs = [c for c in causes if c.startswith(INSTALL_CAUSE)]
    if installs and len(installs) == len(causes):
        return installs[0]
    tried = ", ".join(str(p.jax) for p in sorted(probes, key=lambda p: p.jax))
    first = next((c for c in causes if not c.startswith(INSTALL_CAUSE)), causes[0] if causes else "")
    return f"works with no jax probed ({tried}): " + (first or "no jax release to probe")


# --- the chance of finding a hole -----------------------------------------------------------------------------------

def hole_chance(start: int, end: int, probed: Sequence[int]) -> float:
    """The chance that the search finds one failing release placed at random strictly inside a works-range
    [start, end]: the share of those releases the hole-free search probes. Exact, because the search with the hole
    probes exactly what the hole-free one does until it probes the hole, and once it has, reports it as a hole (the
    check past an edge's first-broken release tells it from the edge); but for a hole at the seed it starts from,
    which is found only when another seed works."""
    inside = end - start - 1
    return 1.0 if inside <= 0 else len({i for i in probed if start < i < end}) / inside

