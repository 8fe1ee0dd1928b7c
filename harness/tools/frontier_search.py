"""The search of `nox -s frontier` for one flax release: a known-good jax, both edges bisected from it, and probes
inside the range found, all within a budget of 2*ceil(log2 N) + 4 probes over N jax releases.

Pure: a probe is a function from a jax release to its verdict (harness.tools.frontier makes them cells), so the
search and its budget are tested with synthetic works-sets.

The known-good point is looked for where it most likely is (the jax released with that flax, then the middle of
its declared range), then in the middle of the widest stretch not yet probed, for as long as the budget still pays
for both bisections from a point found there. Holes are never smoothed over: a failing interior probe is one.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness import vocabulary

#: Where a known-good jax is looked for first (the contemporary jax, then the middle of the declared range).
SEEDS = 2
#: Probes inside every range found, beyond its edges: a failing one is a hole.
INTERIOR = 2
CAUSE_CHARS = 240
INSTALL_CAUSE = "cannot be installed"
EXCLUDED_CAUSE = "excluded by the flax release's declared requirement"


@dataclass(frozen=True)
class Probe:
    """One (jax, flax) pair's verdict: works, or the cause in one line; its cell, seconds, and whether reused."""

    jax: Version
    works: bool
    cause: str = ""
    cell_id: str = ""
    seconds: float = 0.0
    reused: bool = False


@dataclass
class Frontier:
    """What was measured for one flax release: the range, the probes at its edges and inside, every probe made."""

    flax: Version
    declared: str
    candidates: list[Version]
    probes: list[Probe] = field(default_factory=list)
    works_from: Version | None = None
    works_to: Version | None = None
    below: Probe | None = None
    above: Probe | None = None
    holes: list[Probe] = field(default_factory=list)
    #: Why no jax works, when none does.
    nowhere: str = ""


def budget(n: int) -> int:
    """The most probes one flax release may cost over n jax releases."""
    return 2 * math.ceil(math.log2(n)) + SEEDS + INTERIOR if n > 1 else SEEDS + INTERIOR


def seeds(candidates: list[Version], declared: SpecifierSet, contemporary: Version | None) -> list[Version]:
    """Where to look for a known-good jax first: the one released with the flax release, then the middle of its
    declared range (of all candidates when none is declared-compatible)."""
    allowed = [v for v in candidates if v in declared] or candidates
    order = ([contemporary] if contemporary in allowed else []) + [allowed[len(allowed) // 2], allowed[-1]]
    return list(dict.fromkeys(order))[:SEEDS]


def bisection_cost(width: int) -> int:
    """Probes a bisection needs to find an edge among `width` steps (a known side at each end)."""
    return math.ceil(math.log2(width)) if width > 1 else 0


def next_seed(n: int, probed: set[int], spent: int, limit: int) -> int | None:
    """The middle of the widest stretch of unprobed candidates, if the budget still pays for it, both bisections
    from it and the interior probes; None when it does not (every probed point so far failed)."""
    bounds = [-1, *sorted(probed), n]
    gaps = [(b - a - 1, a, b) for a, b in itertools.pairwise(bounds) if b - a > 1]
    if not gaps:
        return None
    _, a, b = max(gaps, key=lambda gap: (gap[0], gap[1]))
    mid = (a + b) // 2
    cost = 1 + bisection_cost(mid - a) + bisection_cost(b - mid) + INTERIOR
    return mid if spent + cost <= limit else None


def measure(flax: Version, declared: SpecifierSet, candidates: list[Version], probe: Callable[[Version], Probe],
            contemporary: Version | None = None) -> Frontier:
    """Find a known-good jax among those the flax release declares, bisect both edges from it, then probe inside
    the range for holes. A jax outside the declaration is never probed (no installer pairs them): where the range
    ends at the declaration, the next jax beyond it is the edge, its cause the declaration."""
    found = Frontier(flax, str(declared), list(candidates))
    limit = budget(len(candidates))
    everything = candidates
    candidates = [v for v in candidates if v in declared] or candidates
    seen: dict[int, Probe] = {}

    def look(i: int) -> Probe:
        if i not in seen:
            seen[i] = probe(candidates[i])
            found.probes.append(seen[i])
        return seen[i]

    good = next((candidates.index(v) for v in seeds(candidates, declared, contemporary)
                 if look(candidates.index(v)).works), None)
    while good is None and not _uninstallable_everywhere(found.probes):
        more = next_seed(len(candidates), set(seen), len(found.probes), limit)
        if more is None:
            break
        good = more if look(more).works else None
    if good is None:
        found.nowhere = _nowhere(found.probes)
        return found
    # Lower edge: the first good in (lo, hi], a known bad (or nothing) at lo; upper: the last good in [lo, hi).
    lo = max((i for i, p in seen.items() if i < good and not p.works), default=-1)
    hi = good
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if look(mid).works else (mid, hi)
    start, found.below = hi, (seen[lo] if lo >= 0 else None)
    lo, hi = good, min((i for i, p in seen.items() if i > good and not p.works), default=len(candidates))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if look(mid).works else (lo, mid)
    end, found.above = lo, (seen[hi] if hi < len(candidates) else None)
    for i in interior_points(start, end, set(seen)):
        look(i)
    found.works_from, found.works_to = candidates[start], candidates[end]
    found.holes = [seen[i] for i in sorted(seen) if start < i < end and not seen[i].works]
    below = [v for v in everything if v < candidates[0]] if found.below is None and start == 0 else []
    above = [v for v in everything if v > candidates[-1]] if found.above is None and end == len(candidates) - 1 else []
    excluded = f"{EXCLUDED_CAUSE} jax{declared} (an installer refuses the pair; not probed)"
    found.below = Probe(below[-1], False, excluded) if below else found.below
    found.above = Probe(above[0], False, excluded) if above else found.above
    return found


def interior_points(start: int, end: int, probed: set[int]) -> list[int]:
    """Up to INTERIOR not yet probed indices strictly inside (start, end), nearest to its thirds."""
    free = [i for i in range(start + 1, end) if i not in probed]
    chosen: list[int] = []
    for k in range(1, INTERIOR + 1):
        target = start + (end - start) * k / (INTERIOR + 1)
        rest = [i for i in free if i not in chosen]
        if rest:
            chosen.append(min(rest, key=lambda i: (abs(i - target), i)))
    return sorted(chosen)


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


# --- judging a probe's records -------------------------------------------------------------------------------------

def judge(records: dict[str, dict[str, Any]], smoke_ids: Sequence[str]) -> str:
    """The cause why the smoke subset does not pass in these records, in one line; empty when it does."""
    passed = 0
    for case_id in sorted(smoke_ids):
        record = records.get(case_id)
        if record is None:
            return f"{case_id}: no record"
        status = record.get("status")
        if status == vocabulary.INSTALL_ERROR:
            return one_line(f"{INSTALL_CAUSE}: {record.get('error_message') or record.get('error_type')}")
        if vocabulary.is_passing(status):
            passed += 1
        elif not vocabulary.is_absent(status):
            error = ": ".join(str(record[k]) for k in ("error_type", "error_message") if record.get(k))
            return one_line(f"{case_id}: {status}" + (f": {error}" if error else ""))
    return "" if passed else "no smoke case applies (every one not applicable)"


def one_line(text: str) -> str:
    """The first line of a text, paths package-relative as in every report file, cut to CAUSE_CHARS."""
    first = vocabulary.relative_paths((text.strip().splitlines() or [""])[0])
    return first if len(first) <= CAUSE_CHARS else first[:CAUSE_CHARS - 3] + "..."
