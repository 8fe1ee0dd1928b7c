"""`nox -s bisect`: the first release between a good and a bad one where a case stops passing.

Released versions come from the index; each probe is an ordinary cell (jaxlib == jax, python per pair) run for
the case's module and stored under OUT/results like any other, so a probe whose inputs are unchanged is reused
through the results cache, not rerun. A bisect is a run of its own (`own_run`): the run id nox shares with its
sessions would keep a probe already run under it from being reused. `--out` is checked before the first probe.
A probe that cannot be judged (the cell does not install, the case is not applicable there, or no record of the
case was written) is skipped and said so; the search narrows around it. Binary search: about log2(n) builds where
a linear scan needs n.

`--exclude-newer DAY` bisects in the world of that day (as `upgrade` and `shardmatrix ecosystem` resolve it): only
releases uploaded before it are probed, and each probe's other packages are resolved as the index stood then.
`--stops-passing` looks for the first release where the case stops passing in any way: a probe where it is not
applicable (a removal: it skips itself now) is bad, not skipped; one short of devices is still skipped.

Refuses instead of guessing: a case whose module the corpus does not have stops it before anything is built; a
case id the first probe's pytest did not collect from that module stops it after that probe, naming the nearest
ids pytest collected (class-based tests included: `module::Class::test`). Both ends are probed first (unless
--trust-ends): when --good does not pass or --bad does not fail, there is nothing to search and it says so in one
line; a case short of devices at both ends (not applicable, needing more devices than either end's cell has) is
refused in one line (BisectError), as no release between them can run it either.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone
from pathlib import Path

from packaging.version import Version

from harness import vocabulary
from harness.formats import ShardmatrixError
from harness.host import cellenv, cellrun, corpus, homes, options
from harness.host.matrix import Cell
from harness.results import CellReading, read_cell
from harness.runs import new_run_id
from harness.tools import index, pins, upgrade

#: A probe's status when its cell wrote no record of the case, or stopped before it finished: it cannot be
#: judged, so it is skipped.
NO_RECORD = "no_record"
INTERRUPTED = "interrupted"
#: Statuses of a probe that cannot be judged beyond what the vocabulary calls absent or unknown: the cell was not
#: built, wrote no record of the case, or stopped before it finished. (xfailed is broken: a known breakage still
#: breaks the case; a crash or a timeout in the case is the case failing.)
UNJUDGED = frozenset({vocabulary.INSTALL_ERROR, NO_RECORD, INTERRUPTED})


class BisectError(ShardmatrixError, ValueError):
    """A bisect that cannot be asked as given (an unknown case id), phrased as one line; nothing is built."""


@dataclass(frozen=True)
class Probe:
    """What one version gave: its status, the error line, the cell that ran it."""

    version: Version
    status: str
    error: str
    cell_id: str
    #: The devices the case needed where it was not applicable for them (the record's `devices_needed`), and the
    #: devices its cell had (`device_count`); None where the record does not say.
    needed: int | None = None
    have: int | None = None
    #: --stops-passing: a case not applicable there (a removal: it skips itself now) is bad, not unjudged.
    absent_is_bad: bool = False

    @property
    def short_of_devices(self) -> bool:
        """Whether the case was not applicable because it needs more devices than the cell has."""
        return vocabulary.is_short_of_devices(self.status, self.needed, self.have)

    @property
    def verdict(self) -> str:
        """'good', 'bad' or 'skip'."""
        if vocabulary.is_passing(self.status):
            return "good"
        if self.absent_is_bad and vocabulary.is_absent(self.status) and not self.short_of_devices:
            return "bad"
        unjudged = self.status in UNJUDGED or vocabulary.status_class(self.status) in (vocabulary.ABSENT,
                                                                                       vocabulary.UNKNOWN)
        return "skip" if unjudged else "bad"


#: A probe's status when its cell's reading cannot vouch for the case (harness.results): unknown, so skipped.
UNACCOUNTED = "unaccounted"


def unaccounted_for(reading: CellReading, case_id: str) -> str | None:
    """The first line of a probe's reading that puts the case in doubt: the cell's identity, or a line naming the
    case (a retry without its first attempt, conflicting records); None when its record stands."""
    lines = [*reading.mismatches, *(line for line in reading.problems if f" {case_id} " in line)]
    return lines[0] if lines else None


@dataclass
class Outcome:
    """The search's answer and every probe it made, in order; `refusal` says why it did not search."""

    candidates: list[Version]
    probes: list[Probe] = field(default_factory=list)
    last_good: Version | None = None
    first_bad: Probe | None = None
    refusal: str | None = None
    trusted_ends: bool = False

    @property
    def skipped(self) -> list[Probe]:
        """Probes that could not be judged."""
        return [probe for probe in self.probes if probe.verdict == "skip"]


def search(candidates: list[Version], probe: Callable[[Version], Probe], trust_ends: bool = False,
           case_id: str = "the case") -> Outcome:
    """Binary search over candidates[0] (good) .. candidates[-1] (bad); skips are dropped.

    Both ends are probed first, and the search is refused (`refusal`, nothing else probed) when the good end does
    not pass or the bad end does not fail; BisectError when `case_id` is short of devices at both. With
    `trust_ends` they are assumed instead, as the caller vouches; the first bad release's probe is always made, so
    its error can be shown."""
    outcome = Outcome(candidates=list(candidates), trusted_ends=trust_ends)
    remaining = list(candidates)
    low, high = 0, len(remaining) - 1
    seen: dict[Version, Probe] = {}

    def look(version: Version) -> Probe:
        if version not in seen:
            seen[version] = probe(version)
            outcome.probes.append(seen[version])
        return seen[version]

    if not trust_ends:
        good = look(remaining[low])
        if good.short_of_devices:  # the bad end is asked too: short there as well, no release between can run it
            refuse_short_at_both_ends(case_id, good, look(remaining[high]))
        outcome.refusal = _refusal(good, "good", "does not pass") or _refusal(
            look(remaining[high]), "bad", "does not fail")
        if outcome.refusal:
            return outcome
    while high - low > 1:
        middle = (low + high) // 2
        found = look(remaining[middle])
        if found.verdict == "skip":
            del remaining[middle]
            high -= 1
        elif found.verdict == "good":
            low = middle
        else:
            high = middle
    outcome.last_good = remaining[low]
    bad = look(remaining[high])
    outcome.first_bad = bad if bad.verdict == "bad" else None
    return outcome


def refuse_short_at_both_ends(case_id: str, good: Probe, bad: Probe) -> None:
    """BisectError in one line when the case is short of devices at both ends; nothing otherwise."""
    if not (good.short_of_devices and bad.short_of_devices):
        return
    shortage = [vocabulary.devices_reason(end.needed, end.have) for end in (good, bad)
                if end.needed is not None and end.have is not None]
    said = shortage[0] if shortage[0] == shortage[1] else f"{shortage[0]} at the good end, {shortage[1]} at the bad"
    most = max(end.needed or 0 for end in (good, bad))
    raise BisectError(f"{case_id} {said}: short of devices at both ends ({good.cell_id}, {bad.cell_id}), so no "
                      f"release between them can run it: nothing to bisect (on CPU, --devices {most} gives the cells "
                      "enough)")


def _refusal(end: Probe, verdict: str, what: str) -> str | None:
    if end.verdict == verdict:
        return None
    what = "cannot be judged" if end.verdict == "skip" else what
    return (f"--{verdict} {end.version} {what} ({end.status}{': ' + end.error if end.error else ''}; cell "
            f"{end.cell_id}): nothing to search between the ends (--trust-ends to search anyway)")


def probe_cell(package: str, version: Version, held: dict[str, str], devices: int = 8) -> Cell:
    """The cell that tests `package==version` with the other package held at its pin."""
    chosen = {**held, package: str(version)}
    jax, flax = chosen["jax"], chosen["flax"]
    return pins.make_cell(jax, flax, pins.python_for(jax, flax), devices=devices)


def linear_cost(outcome: Outcome) -> int:
    """Builds a linear scan from the good end would have needed to reach the same first bad release (the good end
    included, unless the search trusted it too)."""
    good_end = 0 if outcome.trusted_ends else 1
    if outcome.first_bad is None:
        return len(outcome.candidates) - 1 + good_end
    return outcome.candidates.index(outcome.first_bad.version) + good_end


def describe(outcome: Outcome, package: str, case_id: str) -> list[str]:
    """The report printed at the end: last good, first bad with its error, skips, probe count."""
    lines = [f"bisect {case_id} over {package} {', '.join(map(str, outcome.candidates))}"]
    for probe in outcome.skipped:
        lines.append(f"  skipped {package}=={probe.version}: {probe.status}: {probe.error}")
    if outcome.refusal:
        lines.append(f"refused: {outcome.refusal}")
    elif outcome.first_bad is None:
        lines.append(f"no bad release found: the bad end did not fail ({outcome.probes[-1].status})")
    else:
        probed = any(probe.version == outcome.last_good for probe in outcome.probes)
        lines.append(f"last good: {package}=={outcome.last_good}" + ("" if probed else " (--trust-ends: not run)"))
        bad = outcome.first_bad
        lines.append(f"first bad: {package}=={bad.version} ({bad.cell_id}): {bad.status}: {bad.error}")
    lines.append(f"probes: {len(outcome.probes)} environment(s) (a linear scan needs {linear_cost(outcome)})")
    return lines


def parser(prog: str = "nox -s bisect --") -> options.Parser:
    """Arguments of `nox -s bisect --`: the case, the ends, the pins held, and the shared options."""
    p = options.Parser(prog=prog, parents=[options.parser(add_help=False)])
    p.add_argument("--case", required=True, metavar="CASE_ID", help="<module>::<test>, as the report names it")
    p.add_argument("--good", required=True, metavar="PKG==A", help="a release where the case passes")
    p.add_argument("--bad", required=True, metavar="PKG==B", help="a release where it does not")
    p.add_argument("--jax", metavar="==X", help="hold jax at this pin while bisecting flax")
    p.add_argument("--flax", metavar="==Y", help="hold flax at this pin while bisecting jax")
    p.add_argument("--exclude-newer", type=upgrade.day_argument, default=None, metavar="YYYY-MM-DD",
                   help="probe only releases uploaded before that day, each cell's other packages resolved as the "
                        "index stood then (uv --exclude-newer), as a run of that day saw them")
    p.add_argument("--stops-passing", action="store_true",
                   help="the first release where the case stops passing in any way: one where it skips itself or "
                        "is not applicable counts as bad (a removal), not as unjudged")
    p.add_argument("--trust-ends", action="store_true",
                   help="take --good as passing and --bad as failing without probing them first (default: probe "
                        "both, and refuse when they do not)")
    return p


@dataclass(frozen=True)
class Request:
    """What to bisect: the case, the package moving, its two ends, and the pins held."""

    case_id: str
    package: str
    good: Version
    bad: Version
    held: dict[str, str]
    #: --pre with a pre-release end: the pre-releases between the ends are probed too (the first bad may be one).
    pre: bool = False


def request(namespace: argparse.Namespace, default: Cell) -> Request:
    """Validate bisect arguments; the package not moving is held at --jax/--flax, else at the default cell's."""
    pins.case_module(namespace.case)
    pre = bool(namespace.pre)  # --pre: a nightly or release candidate may be an end
    good, bad = pins.parse_pins([namespace.good], pre=pre), pins.parse_pins([namespace.bad], pre=pre)
    if len(good) != 1 or set(good) != set(bad) or set(good) <= {"jaxlib"}:
        raise pins.PinError("--good and --bad must pin the same one package (jax or flax)")
    package = next(iter(good))
    if good[package] == bad[package]:
        raise pins.PinError("--good and --bad are the same release")
    held = {"jax": default.jax, "flax": default.flax}
    for name in ("jax", "flax"):
        given = getattr(namespace, name)
        if given:
            held.update(pins.parse_pins([given if given.startswith(name) else f"{name}{given}"]))
    ends = Version(good[package]), Version(bad[package])
    return Request(namespace.case, package, *ends, held, pre=pre and any(end.is_prerelease for end in ends))


def candidates(req: Request, fetch: index.Fetch = index.fetch_json, before: str | None = None) -> list[Version]:
    """Released versions from good to bad, both ends included (pre-releases too when `req.pre`); with `before` (a
    YYYY-MM-DD day, exclusive, as uv's --exclude-newer) only those uploaded before it: a release published after a
    run's day was not its world."""
    listed = index.releases(req.package, fetch, pre=req.pre)
    return index.between(out_before(req.package, listed, before, fetch) if before else listed, req.good, req.bad)


def out_before(package: str, versions: list[Version], day: str, fetch: index.Fetch) -> list[Version]:
    """The versions uploaded before `day` (a release whose upload day the index does not give is left out: unknown
    is not out); BisectError in one line when the index gives no upload days."""
    try:
        uploaded = index.upload_dates(fetch(index.json_api(package), "application/json"))
    except (OSError, ValueError, KeyError, TypeError) as unread:
        raise BisectError(f"--exclude-newer {day}: cannot tell which {package} releases were out before it "
                          f"({unread})") from None
    cutoff = datetime.combine(date.fromisoformat(day), time(), tzinfo=timezone.utc)
    return [v for v in versions if v in uploaded and uploaded[v] < cutoff]


def check_case(case_id: str, collected: dict[str, dict[str, object]], cell_id: str) -> None:
    """BisectError naming the nearest ids when `case_id` (parameters aside) is not among the cases pytest collected
    in a probe's cell; nothing when that cell collected nothing to judge by (it did not install, or the module did
    not import there)."""
    known = sorted({found for found, record in collected.items()
                    if record.get("status") != vocabulary.INSTALL_ERROR and not found.endswith(COLLECTION)})
    bases = {found.split("[")[0] for found in known}
    if not known or case_id.split("[")[0] in bases:
        return
    base = case_id.split("[")[0]
    test = base.rpartition("::")[2]
    # A test name written in part, or under another class, names its case better than spelling likeness does.
    containing = [found for found in known if len(test) > 3 and test in found.partition("::")[2]]
    near = containing[:3] or difflib.get_close_matches(base, known, n=3, cutoff=0.5)
    raise BisectError(f"unknown case {case_id}: pytest collected no such case in {cell_id}"
                      + (f" (did you mean {' or '.join(near)}?)" if near else f" ({len(known)} case(s) collected)"))


#: The name a module's collection error is recorded under (harness.vocabulary.COLLECTION_CASE).
COLLECTION = f"::{vocabulary.COLLECTION_CASE}"


def case_file(case_id: str, cases: list[str]) -> Path:
    """The file of a case's module ('<module>::...' names it by its stem, or by the end of its path where another
    test file shares its stem: 'v1/misc_util_test') in the shipped corpus or a --cases folder; PinError naming the
    corpus when there is none."""
    module, _name = pins.case_module(case_id)
    named = tuple(module.split("/"))
    for entry in corpus.case_paths(cases):
        files = [entry] if entry.is_file() else sorted(entry.rglob(f"{named[-1]}.py"))
        for file in files:
            if (*file.parent.parts, file.stem)[-len(named):] == named:
                return file
    raise pins.PinError(f"no module {module}.py among the cases ({', '.join(cases)})")


def probed_id(case_id: str, module: Path) -> str:
    """The id a probe of `module` alone records the case under: a probe holds one file, so no other shares its stem
    and its cases are `<stem>::<test>` there, whatever the corpus named them."""
    return f"{module.stem}::{case_id.partition('::')[2]}"


def probe_record(records: dict[str, dict[str, object]], case_id: str) -> dict[str, object]:
    """The record of exactly `case_id`; where its module did not import, that module's collection error (the case's
    code no longer runs there, as upgrade's verdict reads it); else a NO_RECORD stand-in that says what was
    recorded instead."""
    if case_id in records:
        return records[case_id]
    collection = records.get(f"{case_id.partition('::')[0]}{COLLECTION}")
    if collection is not None and collection.get("status") == vocabulary.ERROR:
        # optax at jax 0.10.0: `import optax` raised, so the probe recorded only sharding_test::<collection>; read as
        # no record, it was skipped and the bad end refused, while upgrade called the same cell a regression.
        return collection
    others = sorted(records)
    instead = f"recorded {', '.join(others[:3])}{' ...' if len(others) > 3 else ''}" if others else "nothing recorded"
    return {"status": NO_RECORD, "error_message": f"no record of {case_id} ({instead})"}


def probe_of(version: Version, record: dict[str, object], cell_id: str) -> Probe:
    """A version's probe from the record of its case: status, error (else reason), and the devices it needed."""
    error = ": ".join(str(record.get(k)) for k in ("error_type", "error_message") if record.get(k))
    return Probe(version, str(record["status"]), error or str(record.get("reason") or ""), cell_id,
                 needed=_count(record.get("devices_needed")), have=_count(record.get("device_count")))


def _count(value: object) -> int | None:
    """A record's device count; None where it is absent or not a whole number (a bool is no count)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def own_run(opts: options.Options, namespace: argparse.Namespace) -> options.Options:
    """`opts` with a run id of the bisect's own unless --run-id or --resume names one: a nox invocation shares
    $SHARDMATRIX_RUN_ID with all its sessions (and watch's bisects), and a probe of a cell already run under that id
    is no cache hit (the cache reuses only another run), so it ran again into the same results file."""
    if namespace.run_id or namespace.resume:
        return opts
    return dataclasses.replace(opts, run_id=new_run_id())


def run(
    argv: list[str], cells: list[Cell], fetch: index.Fetch = index.fetch_json, say: Callable[[str], object] = print,
    prog: str = "nox -s bisect --",
) -> Outcome:
    """`nox -s bisect --`: list the releases, probe them by binary search, print the answer."""
    namespace = parser(prog).parse_strictly(argv)
    opts = own_run(options.from_namespace(namespace), namespace)
    additions = cellenv.prepare(opts)  # with --project, its tests are the cases
    req = request(namespace, pins.default_cell(cells))
    module = case_file(req.case_id, opts.cases)
    homes.writable(opts.out, "--out")  # a file in the way found after the first probe would waste it
    found = candidates(req, fetch, namespace.exclude_newer)
    say(f"{len(found)} {req.package} releases from {req.good} to {req.bad}, "
        f"holding {', '.join(f'{k}=={v}' for k, v in req.held.items() if k != req.package)}")

    def probe(version: Version) -> Probe:
        cell = cellenv.apply(dataclasses.replace(probe_cell(req.package, version, req.held),
                                                 exclude_newer=namespace.exclude_newer), additions)
        # The whole module: pytest's collection there says whether the case exists (a class's inherited tests
        # included), and every bisect of a case of this module reuses the probe.
        ran = cellrun.probe(cell, opts, [module], say=say)
        finals = ran.finals()
        check_case(probed_id(req.case_id, module), finals, cell.id)
        record = probe_record(finals, probed_id(req.case_id, module))
        if ran.interrupted:  # what it recorded is not a finished run's word
            record = {"status": INTERRUPTED, "error_message": f"the probe's cell stopped (exit {ran.returncode})"}
        doubt = unaccounted_for(read_cell(ran.files.results, ran.files.run_id), probed_id(req.case_id, module))
        if doubt is not None:  # a probe whose evidence for the case is in doubt is skipped, never good
            record = {"status": UNACCOUNTED, "error_message": doubt}
        result = dataclasses.replace(probe_of(version, record, cell.id), absent_is_bad=namespace.stops_passing)
        say(f"  {req.package}=={version}: {result.status} -> {result.verdict}")
        return result

    outcome = search(found, probe, trust_ends=namespace.trust_ends, case_id=req.case_id)
    for line in describe(outcome, req.package, req.case_id):
        say(line)
    return outcome
