"""The range checker: each declared bound (a change's `since` and `warned`, each end of a known breakage's range) is
probed on the releases either side of it, on jax and on flax, and named confirmed, wrong (with the bound the
releases show) or unchecked (a side that cannot be probed, or the budget spent). A `since` or a breakage bound is
where the case starts or stops failing; a `warned` bound, where it starts or stops warning. A breakage no release is
declared to fix (a live bug) is checked at the newest release, where it must still fail.

Then inside: a confirmed edge's range is probed at the releases between its ends (`inside`), the middle first for
every edge, then every other release while the budget lasts; a live bug at its first release too. A release inside
that passes is a hole: the edge is wrong, and `found` names the part of the range that holds (split it there, or
correct the declaration). Where a release inside does not meet the case's own needs (an API not there yet), the
releases beyond it, away from the bound, are not asked: a need unmet there is unmet further from the releases the
case applies at, so the probes go where the case can be judged.

Pure: a probe is a function from (case, jax, flax) to what the case did there (shardmatrix.frontier makes them
cells, through its cache); `partner` gives the releases of the other package an edge may be held at, in the order
they are tried. The search is tested on fakes (tests/test_ranges.py).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness import outputs
from harness.cell.known import Breakage
from harness.change import Change
from harness.formats import ShardmatrixError
from harness.tools.budget import BudgetSpent
from harness.vocabulary import INSTALL_ERROR, NOT_APPLICABLE

#: What a probe answers: the case passed, failed, or anything else (or None): why it could not be probed there.
PASS, FAIL = "pass", "fail"
#: A pass with a warning: a `warned` bound is probed for it; every other bound reads it as PASS. Only a passing case
#: counts as warned, as in the report's Changes view (reports.verdicts.documented): a failure is not a warning.
WARNED = "pass, warned"
CONFIRMED, WRONG, UNCHECKED = "confirmed", "wrong", "unchecked"
#: A rising edge whose release before the bound is the last where the case's own needs are unmet (not applicable
#: there, failing from the bound on): the lower side can never be probed, so the edge is never confirmed, and it says
#: so instead of reading as unchecked (flax.config.flax_always_shard_variable first appears in flax 0.12.0).
BOUNDED = "bounded by the case's needs"
#: Every status an edge's row may hold, in the order counts are said.
STATUSES = (CONFIRMED, WRONG, UNCHECKED, BOUNDED)
#: How the source of a change's `since` edge starts ("changed since jax>=0.9.0"): a change is never fixed, so the
#: census reads this edge as standing for a live report's newest release too (harness.tools.caught).
CHANGED_SINCE = "changed since "

#: (case id, jax, flax) -> PASS, WARNED or FAIL, or why the case cannot be judged there (the pair does not install,
#: the case is not applicable there), or None.
CaseProbe = Callable[[str, Version, Version], "str | None"]
#: (package of the edge, the release before the bound, the bound) -> the other package's releases to hold it at,
#: the preferred first: the next is tried only where a side of the edge does not install with the one before.
Partner = Callable[[str, Version, Version], Sequence[Version]]
#: How a probe's answer starts when the pair did not install (harness.vocabulary's status for it).
UNINSTALLABLE = INSTALL_ERROR
#: How a probe's answer starts when the pair installed but cannot run any case (flax 0.8.5 on jax 0.4.38: its import
#: fails before any case runs): no evidence about the case, so never a failure; the next pairing is tried.
UNLOADABLE = "the pair does not load: "


#: How a probe's answer starts when the case failed outside any known breakage's range (its record is `failed` or
#: `error`): 'fail: ValueError: text'. Whether that is the failure an edge declares, the edge decides (`raises`).
FAILED_AS = "fail: "
#: How an unjudged answer starts when the case failed otherwise than declared: a known breakage that raised another
#: exception ('expected X, got Y'), a module that does not import, a failure of another class than the edge's
#: `raises`. Such a failure confirms no bound; another pairing may show the declared one, so the next is tried.
NOT_DECLARED = "not the declared failure: "


def failed_as(error_type: str, message: str = "") -> str:
    """A probe's answer for a case that failed with `error_type` (the class name its record keeps) outside any known
    breakage's range."""
    return f"{FAILED_AS}{error_type or 'no exception type'}" + (f": {message}" if message else "")


def cannot_run(answer: str) -> bool:
    """Whether a probe's answer says the pair could not run the case as declared (not installed, not importable, or
    failing otherwise than declared): another release of the other package may, so the next pairing is tried."""
    return answer.startswith((UNINSTALLABLE, UNLOADABLE, NOT_DECLARED))


#: Failures that say the case's code (or flax itself) does not import at a pair, not that it broke there: never the
#: declared failure unless the edge declares that very class (a removal).
IMPORT_ERRORS = ("ImportError", "ModuleNotFoundError")


def declared_failure(edge: Edge, answer: str) -> str:
    """FAIL where a probe's `failed_as` answer is the failure `edge` declares: its class is one of the edge's `raises`
    (exactly, by class name, as reports.verdicts.documented compares), or, where the edge declares none, any class but
    an import error; else why it is not (NOT_DECLARED)."""
    error_type = answer[len(FAILED_AS):].partition(":")[0].strip()
    name = error_type.rpartition(".")[2]
    if edge.raises:
        if name in {declared.rpartition(".")[2] for declared in edge.raises}:
            return FAIL
        return f"{NOT_DECLARED}{answer[len(FAILED_AS):]} (declared: {' or '.join(edge.raises)})"
    if name in IMPORT_ERRORS:
        return f"{NOT_DECLARED}{answer[len(FAILED_AS):]} (the case's code does not import here)"
    return FAIL


@dataclass(frozen=True)
class Edge:
    """One declared bound: `case` fails at releases of `package` from `bound` on (`rising`, a `>=` bound) or passes
    from `bound` on (not `rising`, a `<` bound); for a `warns` bound (a change's `warned`), read "warns" for
    "fails". `source` names the declaration."""

    case: str
    package: str
    bound: Version
    rising: bool
    source: str
    #: The other end of the same range (a breakage's `>=A,<B`), which the search for a flip never passes.
    other: Version | None = None
    #: A change's `warned` bound: the releases either side are asked whether the case warned, not whether it failed.
    warns: bool = False
    #: The range a breakage also declares on the other package ('>=0.8.2'): the edge is probed inside it.
    within: str = ""
    #: A breakage with no upper end (a live bug): checked at the package's newest release, where it must still fail.
    live: bool = False
    #: For a `warns` edge: the release from which its change declares the case broken. A failure there reads as "no
    #: longer warns" (the break replaced the warning); a failure anywhere else says nothing of a warning.
    broken_from: Version | None = None
    #: The exception class names its declaration says the case fails with (a change's or a breakage's `raises`): a
    #: failure of another class confirms nothing (declared_failure).
    raises: tuple[str, ...] = ()
    #: A breakage declared on both packages, whole ("known breakage jax>=0.8.2, flax<0.12.2"): its jax and flax bounds
    #: are one declaration (harness.tools.caught), though each names its own range as its `source`.
    entry: str = ""

    @property
    def text(self) -> str:
        """The bound as declared: '>=0.8.0', '<0.12.1', or 'live' for a breakage no release has fixed."""
        return "live" if self.live else f"{'>=' if self.rising else '<'}{self.bound}"


@dataclass(frozen=True)
class Finding:
    """What the releases show at one edge: its status, the bound they show (for a wrong edge), and why."""

    edge: Edge
    status: str
    found: str = ""
    why: str = ""
    #: The other package's release the edge was judged with: its inside is probed there too.
    held: Version | None = field(default=None, compare=False)
    #: The releases inside the declared range this edge owns (`inside`), and those of them asked so far.
    inside_of: tuple[Version, ...] = ()
    inside_asked: tuple[Version, ...] = ()
    #: Those of the asked where the case could be judged (it applied and installed there).
    inside_judged: tuple[Version, ...] = ()
    #: The release inside where the case's own needs were unmet, nearest the bound: the releases beyond it (away
    #: from the bound) are not asked (`beyond_unmet`).
    inside_unmet: Version | None = None
    #: The budget ran out before the edge was probed: the check says nothing of it, so an earlier row stands.
    unreached: bool = field(default=False, compare=False)

    def as_row(self) -> dict[str, Any]:
        """The edge's row in the stored document, with what was probed inside its range."""
        return {"case": self.edge.case, "package": self.edge.package, "declared": self.edge.text,
                "source": self.edge.source, "status": self.status, "found": self.found or None, "why": self.why,
                "inside": self.inside_said(), "inside_releases": len(self.inside_of),
                "inside_judged": len(self.inside_judged), "inside_unmet": len(self.unmet_inside())}

    def unmet_inside(self) -> list[Version]:
        """The releases inside where the case's own needs are unmet: the one found so and those beyond it (away from
        the bound), but those judged: a release judged before a nearer one was found unmet met the case's needs (a
        need unmet at one pairing and met at the next), and counted twice it would outnumber the releases inside.
        Where they are every release inside, no hole can be there: the case runs at none of them."""
        return [version for version in self.inside_of if version not in self.inside_judged
                and beyond_unmet(self.edge, version, self.inside_unmet)]

    def inside_said(self) -> str:
        """'2 of 5 releases inside probed: 0.7.1, 0.8.0', or why nothing inside was (no release is inside)."""
        if not self.inside_of:
            unconfirmed = "nothing inside probed: the edge is not confirmed"
            return "no release inside" if self.status == CONFIRMED else unconfirmed
        said = f"{len(self.inside_asked)} of {len(self.inside_of)} releases inside probed"
        if len(self.inside_judged) != len(self.inside_asked):
            said += f", {len(self.inside_judged)} of them judged (the others not applicable or not installable)"
        skipped = [version for version in self.unmet_inside() if version not in self.inside_asked]
        if skipped:
            said += f", {len(skipped)} not asked (the case's needs are unmet at {self.inside_unmet} and beyond)"
        judged = ", ".join(str(version) for version in self.inside_judged)
        return said + (f": {judged}" if judged else "")


class Budget:
    """At most `limit` probes, each (case, jax, flax) counted once; reused answers are free."""

    def __init__(self, probe: CaseProbe, limit: int) -> None:
        self._probe, self.limit = probe, limit
        self.asked: dict[tuple[str, Version, Version], str | None] = {}

    def __call__(self, case: str, jax: Version, flax: Version) -> str | None:
        key = (case, jax, flax)
        if key not in self.asked:
            if len(self.asked) >= self.limit:
                raise BudgetSpent
            self.asked[key] = self._probe(case, jax, flax)
        return self.asked[key]


class DeclarationError(ShardmatrixError, ValueError):
    """A declared range the checker cannot probe as written; one line naming the case and the declaration."""


#: The operators a declared bound may use: `>=A` (fails from A on) and `<B` (passes from B on). Any other would make no
#: edge and be checked by nothing, so "0 unchecked" could hide it.
PROBED_OPERATORS = (">=", "<")


def _bounds(case: str, text: str, source: str, rising_only: bool = False, warns: bool = False,
            within: str = "", broken_from: Version | None = None, raises: tuple[str, ...] = ()) -> list[Edge]:
    requirement = Requirement(text)
    refused = [f"{spec.operator}{spec.version}" for spec in requirement.specifier
               if spec.operator not in PROBED_OPERATORS or (rising_only and spec.operator == "<")]
    if refused:
        raise DeclarationError(f"{case}: {source}: {refused[0]} cannot be checked against releases; declare it as "
                               f">=A and <B of the releases where it starts and stops")
    lower = [Version(spec.version) for spec in requirement.specifier if spec.operator == ">="]
    upper = [Version(spec.version) for spec in requirement.specifier if spec.operator == "<"]
    if lower and upper and min(upper) <= max(lower):
        raise DeclarationError(f"{case}: {source}: an empty range ({text}) holds no release")
    edges = []
    # The lower end first: a range reads from its start, whatever order its specifiers were written in.
    for spec in sorted(requirement.specifier, key=lambda spec: spec.operator != ">="):
        if spec.operator == ">=":
            edges.append(Edge(case, requirement.name, Version(spec.version), True, source, min(upper, default=None),
                              warns, within, broken_from=broken_from, raises=raises))
        elif spec.operator == "<" and not rising_only:
            edges.append(Edge(case, requirement.name, Version(spec.version), False, source, max(lower, default=None),
                              warns, within, broken_from=broken_from, raises=raises))
    return edges


def _start(since: str | None, package: str) -> Version | None:
    """Where a change's `since` starts on `package` ('jax>=0.10.0' -> 0.10.0), if it is on that package."""
    if since is None or Requirement(since).name != package:
        return None
    return min((Version(spec.version) for spec in Requirement(since).specifier if spec.operator in (">=", ">")),
               default=None)


def edges(changes: Mapping[str, Change], breakages: Iterable[Breakage]) -> list[Edge]:
    """Every bound the corpus declares: each change's `since` (and `warned`), each end of each breakage range."""
    found: list[Edge] = []
    for case, change in sorted(changes.items()):
        if change.since is not None:
            found += _bounds(case, change.since, f"{CHANGED_SINCE}{change.since}", rising_only=True,
                             raises=tuple(change.raises))
        if change.warned is not None:
            found += _bounds(case, change.warned, f"warned {change.warned}", warns=True,
                             broken_from=_start(change.since, Requirement(change.warned).name),
                             raises=tuple(change.raises))
    for entry in breakages:
        declared: dict[str, SpecifierSet] = {package: entry.ranges[package] for package in ("jax", "flax")
                                             if package in entry.ranges}
        whole = f"known breakage {', '.join(f'{name}{spec}' for name, spec in declared.items())}" \
            if len(declared) > 1 else ""
        for package, spec in entry.ranges.items():
            if package in ("jax", "flax"):
                within = str(entry.ranges.get("flax" if package == "jax" else "jax", ""))
                found += [replace(edge, entry=whole) for edge in _bounds(
                    entry.case, f"{package}{spec}", f"known breakage {package}{spec}", within=within,
                    raises=tuple(entry.raises))]
        if not any(spec.operator in ("<", "<=", "==") for ranges_ in declared.values() for spec in ranges_):
            # No release is declared to fix it: the newest must still fail (of flax, for a flax-only range).
            package = "flax" if list(declared) == ["flax"] else "jax"
            other = "jax" if package == "flax" else "flax"
            said = ",".join(f"{name}{spec}" for name, spec in declared.items()) or "every release"
            lower = [Version(spec.version) for spec in declared.get(package, ()) if spec.operator == ">="]
            found.append(Edge(entry.case, package, Version("0"), True, f"known breakage {said}, live",
                              other=min(lower, default=None),
                              within=str(declared[other]) if other in declared else "", live=True,
                              raises=tuple(entry.raises), entry=whole))
    return found


def check(edge: Edge, releases: Mapping[str, list[Version]], partner: Partner, probe: Budget) -> Finding:
    """Probe the releases either side of one edge; where they disagree, search on for the bound they show."""
    versions = sorted(releases[edge.package])
    if edge.live:
        return _check_live(edge, releases, versions, partner, probe)
    # A bound between releases (>=0.4.32 where 0.4.31 and 0.4.33 exist) sits before the first release past it.
    at = bisect.bisect_left(versions, edge.bound)
    if at == len(versions):
        return Finding(edge, UNCHECKED, why=f"no {edge.package} release at or after {edge.bound}")
    if at == 0:
        return Finding(edge, UNCHECKED, why=f"no {edge.package} release before {edge.bound}")

    # Both sides, and any search past them, hold the other package at one release, where the default matrix pairs
    # it with the bound: only the package of the edge moves. The next pairing is tried where a side does not install.
    others = _pairings(edge, releases, partner(edge.package, versions[at - 1], versions[at]))
    if not others:
        return Finding(edge, UNCHECKED, why=f"no release of the other package is paired with {edge.package} "
                                            f"{edge.bound}")
    # The edge is judged at the first pairing where both of its sides can be: a side that does not install, does
    # not apply or (for a warning) fails there says nothing of the bound.
    findings = []
    for other in others:
        try:
            findings.append(_check_at(edge, versions, at, other, probe))
        except BudgetSpent:
            if not any(finding.status == BOUNDED for finding in findings):
                raise
            break  # the budget ends the search for a pairing that meets the need: what was found stands
        if findings[-1].status not in (UNCHECKED, BOUNDED):
            return findings[-1]
    # A need unmet at one pairing may be met at the next; only where none meets it is the edge bounded by it.
    return next((finding for finding in findings if finding.status == BOUNDED), findings[0])


def _pairings(edge: Edge, releases: Mapping[str, list[Version]], others: Sequence[Version]) -> list[Version]:
    """The other package's releases to try, each moved inside the range the breakage declares on it, once each."""
    if not edge.within:
        return list(others)
    inside = (_inside(releases["flax" if edge.package == "jax" else "jax"], edge.within, other) for other in others)
    return list(dict.fromkeys(other for other in inside if other is not None))


def _check_live(edge: Edge, releases: Mapping[str, list[Version]], versions: list[Version], partner: Partner,
                probe: Budget) -> Finding:
    """A live breakage: its case must still fail at the newest release, held at the first pairing that installs."""
    if not versions:
        return Finding(edge, UNCHECKED, why=f"no {edge.package} release")
    newest = versions[-1]
    others = _pairings(edge, releases, partner(edge.package, versions[-2] if len(versions) > 1 else newest, newest))
    said = f"no release of the other package is paired with {edge.package} {newest}"
    for other in others:
        jax, flax = (newest, other) if edge.package == "jax" else (other, newest)
        answer = probe(edge.case, jax, flax)
        if answer is not None and answer.startswith(FAILED_AS):
            answer = declared_failure(edge, answer)
        held = f"{edge.package} {newest} with {'flax' if edge.package == 'jax' else 'jax'} {other}"
        if answer == FAIL:
            return Finding(edge, CONFIRMED, held=other)
        if answer in (PASS, WARNED):
            return Finding(edge, WRONG, f"passes at {held}", f"{held} passes: a release fixed it")
        said = f"{held} cannot be probed" + (f" ({answer})" if answer else "")
    return Finding(edge, UNCHECKED, why=said)


#: How an unchecked finding opens when a side did not install with the pairing (the next pairing is then tried).
_UNINSTALLED = "does not install: "


def _check_at(edge: Edge, versions: list[Version], at: int, other: Version, probe: Budget) -> Finding:
    unjudged: dict[int, str] = {}

    def fails(i: int) -> bool | None:
        """Whether the case fails (warns, for a `warns` edge) at release i; None where it cannot be judged."""
        state, said = _state(edge, versions[i], other, probe)
        if state is None:
            unjudged[i] = said
        return state

    # A rising edge fails from the bound on; a falling one fails before it.
    below, above = fails(at - 1), fails(at)
    if below is None and above is True and edge.rising and _unmet_need(unjudged.get(at - 1, "")):
        held = f"{'flax' if edge.package == 'jax' else 'jax'} {other}"
        return Finding(edge, BOUNDED, why=f"{edge.package} {versions[at - 1]} with {held} does not meet the case's "
                                          f"needs ({unjudged[at - 1]}); {versions[at]}, the first that does, fails")
    if below is None or above is None:
        side = versions[at - 1] if below is None else versions[at]
        said = unjudged.get(at - 1 if below is None else at) or ""
        opening = _UNINSTALLED if said.startswith(UNINSTALLABLE) else ""
        held = f" with {'flax' if edge.package == 'jax' else 'jax'} {other}"
        return Finding(edge, UNCHECKED, why=f"{opening}{edge.package} {side}{held} cannot be probed"
                                            + (f" ({said})" if said else ""))
    if below != edge.rising and above == edge.rising:
        return Finding(edge, CONFIRMED, held=other)
    # Inside the range the case is declared broken: the flip is searched for between the edge and its other end.
    if edge.other is None:
        low_end, high_end = -1, len(versions)
    elif edge.rising:
        low_end, high_end = -1, bisect.bisect_left(versions, edge.other)
    else:
        low_end, high_end = bisect.bisect_left(versions, edge.other) - 1, len(versions)
    yes, no = ("warns", "does not warn") if edge.warns else ("fails", "passes")
    held = f" (with {'flax' if edge.package == 'jax' else 'jax'} {other})"
    why = f"{edge.package} {versions[at - 1]} {yes if below else no}, {versions[at]} {yes if above else no}{held}"
    try:
        bound = _search(fails, edge.rising, at, above, low_end, high_end)
    except BudgetSpent:
        # Both sides already disagree with the declaration: the edge is wrong whether or not the search ends.
        return Finding(edge, WRONG, "", why + "; search not finished: the probe budget is spent")
    found = f"{'>=' if edge.rising else '<'}{versions[bound]}" if bound is not None else ""
    return Finding(edge, WRONG, found, why + ("" if found else "; no flip found on this side"))


def _unmet_need(answer: str) -> bool:
    """Whether a probe's answer says the case is not applicable for a need of its own (an API, a version), not for
    too few devices, which says nothing of a release."""
    return answer.startswith(NOT_APPLICABLE) and not (" devices" in answer and "needs " in answer)


def _state(edge: Edge, version: Version, other: Version, probe: Budget) -> tuple[bool | None, str]:
    """(whether the case fails at `version` of the edge's package, warns for a `warns` edge; None where it cannot
    be judged, with why)."""
    jax, flax = (version, other) if edge.package == "jax" else (other, version)
    answer = probe(edge.case, jax, flax)
    if answer is not None and answer.startswith(FAILED_AS):
        answer = declared_failure(edge, answer)
    if answer == FAIL and edge.warns and (edge.broken_from is None or version < edge.broken_from):
        answer = "failed before its change's break, which says nothing of a warning"
    if answer not in (PASS, WARNED, FAIL):
        return None, answer or ""
    return (answer == WARNED if edge.warns else answer == FAIL), ""


# --- inside the declared range --------------------------------------------------------------------------------------


def inside(edge: Edge, versions: list[Version], floor: Version | None = None, owns: bool = False) -> list[Version]:
    """The releases inside the range an edge declares that its bound's probes do not ask, in the order they are
    probed: a live breakage's first release, then the middle release, then the middles of each half, and so on.

    One edge owns a range's inside: the lower end of a two-ended range, a `<B` range with no lower end, a live
    breakage with no lower end on its package (its `>=` edge owns it otherwise). A range open below starts at
    `floor` (the oldest release the matrix pairs), and a warning's inside ends where its change's break begins. The
    upper end of a two-ended range `owns` it where its lower end went unchecked (`owner`), from the lower bound
    on, since no probe of that edge judged it."""
    versions = sorted(versions)
    start = bisect.bisect_left(versions, floor) if floor is not None else 0
    at = bisect.bisect_left(versions, edge.bound)
    if edge.live:
        if edge.other is not None:
            return []
        low, high = start, len(versions) - 2
    elif edge.rising:
        low = at + 1
        high = (bisect.bisect_left(versions, edge.other) - 1) if edge.other is not None else len(versions) - 1
    elif edge.other is None or owns:
        low, high = (start if edge.other is None else bisect.bisect_left(versions, edge.other)), at - 2
    else:
        return []
    if edge.warns and edge.broken_from is not None:
        high = min(high, bisect.bisect_left(versions, edge.broken_from) - 1)
    window = versions[max(low, 0):high + 1]
    ordered = _middles(window)
    if edge.live and window:
        ordered = [window[0], *(version for version in ordered if version != window[0])]
    return ordered


def _middles(window: list[Version]) -> list[Version]:
    """The middle first, then the middles of each half, breadth first: the first few probes spread over the range."""
    found: list[Version] = []
    spans = [(0, len(window) - 1)]
    while spans:
        low, high = spans.pop(0)
        if low > high:
            continue
        middle = (low + high) // 2
        found.append(window[middle])
        spans += [(low, middle - 1), (middle + 1, high)]
    return found


#: How many inside releases the first pass tries, for one it can judge, before moving on to the next edge.
FIRST_PASS_TRIES = 3


def probe_inside(finding: Finding, versions: list[Version], probe: Budget, first_pass: bool,
                 pairings: Callable[[Version], Sequence[Version]] | None = None) -> Finding:
    """Ask the releases inside a confirmed edge's range, held at the release its bounds were judged with: in the first
    pass until one is judged (the middle release, at most FIRST_PASS_TRIES tried), then every one left. A release
    inside that passes (does not warn) is a hole: the edge is wrong, and `found` is the part of the range that holds
    from the edge (split the range there, or correct the declaration). Where a release does not install with that
    release of the other package, the next of `pairings(release)` is tried. BudgetSpent leaves what was asked
    recorded."""
    edge, other = finding.edge, finding.held
    if finding.status != CONFIRMED or other is None:
        return finding
    versions = sorted(versions)
    asked, judged, unmet = list(finding.inside_asked), list(finding.inside_judged), finding.inside_unmet
    tries = 0
    try:
        for version in finding.inside_of:
            if version in asked or beyond_unmet(edge, version, unmet):
                continue
            if first_pass and tries >= FIRST_PASS_TRIES:
                break
            tries += 1
            state, said = _state(edge, version, other, probe)
            for alternative in (pairings(version) if pairings is not None else ()):
                if state is not None or not cannot_run(said):
                    break
                if alternative != other:
                    state, said = _state(edge, version, alternative, probe)
            asked.append(version)
            if state is not None:
                judged.append(version)
            elif _unmet_need(said) and (unmet is None or beyond_unmet(edge, unmet, version)):
                unmet = version
            if state is False:
                return _hole(replace(finding, inside_asked=tuple(asked), inside_judged=tuple(judged),
                                     inside_unmet=unmet), versions, version, probe)
            if state is not None and first_pass:
                break
    except BudgetSpent:
        pass
    return replace(finding, inside_asked=tuple(asked), inside_judged=tuple(judged), inside_unmet=unmet)


def beyond_unmet(edge: Edge, version: Version, unmet: Version | None) -> bool:
    """Whether `version` lies at or past `unmet` (a release inside where the case's needs were unmet), away from the
    releases the case was judged at (the bound's side): older for a `<B` range or a live bug, newer for a `>=A` one.
    Needs are APIs and versions that come (or go) once, so a need unmet there is unmet beyond."""
    if unmet is None:
        return False
    return version >= unmet if edge.rising and not edge.live else version <= unmet


def _hole(finding: Finding, versions: list[Version], hole: Version, probe: Budget) -> Finding:
    """A release inside the range passes: the edge is wrong; search between its bound and the hole for where the
    range stops holding, and say the part that holds as `found`."""
    edge, other = finding.edge, finding.held
    assert other is not None
    at, h = bisect.bisect_left(versions, edge.bound), versions.index(hole)
    # The release next to the edge known to fail: the bound for a rising edge, the one before it for a falling one,
    # the newest for a live breakage.
    known = at if edge.rising and not edge.live else (len(versions) - 1 if edge.live else at - 1)
    yes, no = ("warns", "does not warn") if edge.warns else ("fails", "passes")
    held = f" (with {'flax' if edge.package == 'jax' else 'jax'} {other})"
    why = f"{edge.package} {hole} {no} inside the declared range{held}"
    try:
        flip = _boundary(lambda i: _state(edge, versions[i], other, probe)[0], known, h)
    except BudgetSpent:
        flip = None
    if flip is None:
        return replace(finding, status=WRONG, why=why + f"; where it stops to {yes} was not found")
    if edge.rising and not edge.live:
        holds = f">={versions[known]},<{versions[flip]}"
    else:
        start = versions[flip + 1]
        holds = f">={start}" + ("" if edge.live else f",<{edge.bound}")
    return replace(finding, status=WRONG, found=holds,
                   why=why + f": the range holds {edge.package}{holds} only; split it there or correct it")


def _boundary(state: Callable[[int], bool | None], known: int, hole: int) -> int | None:
    """The index nearest `known` (where the case fails) from which it passes, toward `hole` (where it passes)."""
    low, high = known, hole
    while abs(high - low) > 1:
        middle = (low + high) // 2
        answer = state(middle)
        if answer is None:
            return None
        if answer:
            low = middle
        else:
            high = middle
    return high


def _inside(versions: list[Version], within: str, paired: Version) -> Version | None:
    """The release the edge holds the other package at: `paired` where the breakage's range on that package holds
    it, else the newest release inside that range not after `paired`, else the oldest inside (None: none is)."""
    allowed = SpecifierSet(within)
    inside = sorted(version for version in versions if version in allowed)
    if paired in allowed or not inside:
        return paired if paired in allowed else None
    before = [version for version in inside if version <= paired]
    return before[-1] if before else inside[0]


def _search(fails: Callable[[int], bool | None], rising: bool, at: int, above: bool, low_end: int,
            high_end: int) -> int | None:
    """The index of the first release past the flip, bisected towards it from the edge's side that disagrees, never
    past `low_end` or `high_end` (exclusive: the indices just outside where the flip may be)."""
    broken_after = rising  # the state the edge declares from the flip on
    if above != broken_after:  # the declared side has not flipped yet: the flip is later
        low, high = at, high_end
    else:  # the release before the bound has already flipped: the flip is earlier
        low, high = max(low_end, -1), at - 1
    # Invariant: index `low` (or nothing) is before the flip, `high` (or past the end) is at or after it.
    while high - low > 1:
        mid = (low + high) // 2
        state = fails(mid)
        if state is None:
            return None
        if state == broken_after:
            high = mid
        else:
            low = mid
    return high if high < high_end else None


#: How far inside its range each confirmed edge is probed (`--inside`): not at all (the bounds only, as the checker was
#: before the inside probes: a row of it reads "bounds only" in the census, never caught), the middle release alone
#: (and a live bug's first release: the least that rules a hole in), or every release the budget allows.
INSIDE = outputs.RANGE_INSIDE
INSIDE_NONE, INSIDE_MIDDLE, INSIDE_EVERY = INSIDE


def run(edges_: list[Edge], releases: Mapping[str, list[Version]], partner: Partner, probe: CaseProbe,
        limit: int, floor: Mapping[str, Version] | None = None,
        reach: str = INSIDE_EVERY) -> tuple[list[Finding], int]:
    """Check every edge within `limit` probes; (findings, probes spent). First each edge's bound and one release
    inside its range (the middle); then, with the budget left, every other release inside (as far as `reach`, one
    of INSIDE, allows). Edges past the budget are unchecked; a confirmed edge says how much of its inside was
    probed."""
    budget = Budget(probe, limit)
    findings: list[Finding] = []
    for edge in edges_:
        versions = sorted(releases[edge.package])
        try:
            finding = check(edge, releases, partner, budget)
        except BudgetSpent:
            finding = Finding(edge, UNCHECKED, why=f"the probe budget ({limit}) is spent", unreached=True)
        if finding.status == CONFIRMED:
            owned = inside(edge, versions, (floor or {}).get(edge.package), owner(edge, findings))
            finding = replace(finding, inside_of=tuple(owned))
            if reach != INSIDE_NONE:
                finding = probe_inside(finding, versions, budget, True, _inside_pairings(edge, releases, partner))
        findings.append(finding)
    if reach != INSIDE_EVERY:
        return findings, len(budget.asked)
    # Past the budget, an inside release another edge already asked is still answered (free), so no early stop.
    for i, finding in enumerate(findings):
        findings[i] = probe_inside(finding, sorted(releases[finding.edge.package]), budget, False,
                                   _inside_pairings(finding.edge, releases, partner))
    return findings, len(budget.asked)


def owner(edge: Edge, found: list[Finding]) -> bool:
    """Whether a `<B` edge owns its two-ended range's inside: its `>=A` edge (checked before it) went unchecked or
    bounded, so nothing inside would be probed otherwise (a hole at A+1 would stay invisible). A wrong one probed it."""
    if edge.rising or edge.live or edge.other is None:
        return False
    return any(finding.status in (UNCHECKED, BOUNDED) for finding in found
                   if (finding.edge.case, finding.edge.source, finding.edge.package) == (edge.case, edge.source,
                                                                                         edge.package)
                   and finding.edge.rising and finding.edge.bound == edge.other)


def _inside_pairings(edge: Edge, releases: Mapping[str, list[Version]],
                     partner: Partner) -> Callable[[Version], Sequence[Version]]:
    """For a release inside an edge's range: the other package's releases the matrix pairs with it."""
    return lambda version: _pairings(edge, releases, partner(edge.package, version, version))


#: {case id: {(jax, flax): (the case passed there, the reason it was not applicable there, or "")}}: what probed
#: cells said of each case.
Seen = Mapping[str, Mapping[tuple[Version, Version], tuple[bool, str]]]


def drift(seen: Seen, changed: Iterable[str]) -> list[dict[str, str]]:
    """Each case that passed at one probed pair and is not applicable for an unmet need at a later one (neither
    release older), with no change declared on it: an API that was there and is gone, read as not applicable instead
    of failing. Only a pass vouches that a need held: a case failing on a broken import says nothing of its API."""
    covered = set(changed)
    found = []
    for case, pairs in sorted(seen.items()):
        if case in covered:
            continue
        passed = [pair for pair, (passing, _) in pairs.items() if passing]
        for later, (passing, reason) in sorted(pairs.items()):
            earlier = [pair for pair in passed if pair[0] <= later[0] and pair[1] <= later[1]]
            if passing or not reason or not earlier:
                continue
            jax, flax = max(earlier)
            found.append({"case": case, "held": f"jax {jax}, flax {flax}",
                          "unmet": f"jax {later[0]}, flax {later[1]}", "reason": reason})
            break
    return found


@dataclass(frozen=True)
class Provenance:
    """What a stored check was checked with: the options of the run that change a probe's answer where given
    (harness.outputs.RANGE_OPTIONS), the checkout's commit, and {case id: {digest, commit}} of each case whose rows
    it holds (harness.tools.case_digest): a later --merge tells a row of a case changed since from one that stands."""

    options: Mapping[str, float | str] = field(default_factory=dict)
    commit: str | None = None
    cases: Mapping[str, Mapping[str, str | None]] = field(default_factory=dict)


def store(out: Path, findings: list[Finding], spent: int, limit: int,
          drifted: list[dict[str, str]] | None = None, kept: list[dict[str, Any]] | None = None,
          provenance: Provenance = Provenance()) -> Path:
    """Write the findings through harness.outputs (ranges.json), with the budget they were found in and what they
    were checked with; `kept` are rows of an earlier check (of other cases) stored beside them."""
    rows = [*(kept or []), *(finding.as_row() for finding in findings)]
    return outputs.write_ranges(out, {"probes": spent, "budget": limit,
                                      "wrong": sum(row["status"] == WRONG for row in rows),
                                      "unchecked": sum(row["status"] == UNCHECKED for row in rows),
                                      "edges": rows, "needs_without_change": drifted or [],
                                      "options": dict(provenance.options), "commit": provenance.commit,
                                      "cases": {case: dict(stamp) for case, stamp in sorted(provenance.cases.items())}})


def describe(findings: list[Finding], drifted: list[dict[str, str]], spent: int, limit: int,
             kept: list[dict[str, Any]] | None = None) -> list[str]:
    """The lines printed at the end: each edge not confirmed (those kept from an earlier check too), each need that
    went away undeclared, and the counts of every edge the stored document holds, so a wrong edge kept by --merge is
    never hidden behind "0 wrong"."""
    rows = [*(kept or []), *(finding.as_row() for finding in findings)]
    lines = []
    for row in rows:
        if row["status"] != CONFIRMED:
            shown = f" (releases show {row['found']})" if row.get("found") else ""
            lines.append(f"{row['status']}: {row['case']} {row['package']}{row['declared']} "
                         f"[{row['source']}]{shown}: {row['why']}")
    for drift_row in drifted:
        lines.append(f"need gone with no change: {drift_row['case']}: held at {drift_row['held']}, unmet at "
                     f"{drift_row['unmet']}: {drift_row['reason']}")
    counts = {status: sum(row["status"] == status for row in rows) for status in STATUSES}
    earlier = f" ({len(kept)} kept from the earlier check)" if kept else ""
    lines.append(f"ranges: {len(rows)} edge(s){earlier}: " + ", ".join(f"{n} {status}" for status, n in counts.items())
                 + f"; {spent} of {limit} probes")
    return lines
