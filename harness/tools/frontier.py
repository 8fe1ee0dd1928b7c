"""`nox -s frontier`: the range of jax releases each flax release really works with, measured, not declared.

Flax declares only a lower bound on jax, and some of those bounds are false. For each flax release this finds a
known-good jax (the one released just before that flax, then the middle of its declared range), then bisects the
lower edge (from the oldest jax asked for) and the upper edge (to the newest), and probes two more points inside
the range found: a failing one is a hole, reported as such, never smoothed over. "Works" means the smoke subset of
the corpus (cases marked `smoke=True`, harness.tools.smoke) passes: no smoke case broken, at least one passed.

Each probe is an ordinary cell (`jax<j>-flax<f>-py<p>`, jaxlib == jax, the Python the pair needs) run through
harness.host.adhoc, so its results are stored under OUT/results and reused by matrix, upgrade and bisect, and the
other way round. At most 2*ceil(log2 N) + 4 probes per flax release for N jax releases (`budget`).

    python -m harness.tools.frontier run [--flax SPEC] [--jax SPEC] [--out DIR]   (what `nox -s frontier` runs)
    python -m harness.tools.frontier plan [--flax SPEC]       the flax releases as a CI matrix, one JSON line
    python -m harness.tools.frontier merge --plan FILE [--out DIR]   the jobs' results into one report; refuses
                                                                     (exit 1) when a planned release has none

Writes OUT/frontier/flax-<v>.json per flax release, then OUT/report/frontier.csv, frontier.md (a suggested
`jax>=A,<=B` line per release with its evidence) and frontier.json (what reports.frontier draws).
"""

from __future__ import annotations

import argparse
import csv
import email.parser
import io
import json
import math
import sys
import time
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from harness import vocabulary
from harness.host import adhoc, corpus, options
from harness.tools import index, pins, smoke

SCHEMA_VERSION = 1
DEFAULT_FLAX = ">=0.8.0"
DEFAULT_JAX = ">=0.4.30"
RELEASE_API = "https://pypi.org/pypi/{name}/{version}/json"
COLUMNS = ("flax", "declared_jax", "works_from", "works_to", "first_broken_below", "first_broken_above",
           "cause_below", "cause_above", "probes", "holes")
#: Known-good candidates tried before giving up on a flax release; the budget counts them.
SEEDS = 2
INTERIOR = 2
CAUSE_CHARS = 240


class FrontierError(ValueError):
    """A frontier that cannot be asked as given, phrased as one line; nothing is built."""


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
    """Where to look for a known-good jax: the one released with the flax release, then the middle of its
    declared range (of all candidates when none is declared-compatible)."""
    allowed = [v for v in candidates if v in declared] or candidates
    order = ([contemporary] if contemporary in allowed else []) + [allowed[len(allowed) // 2], allowed[-1]]
    return list(dict.fromkeys(order))[:SEEDS]


def measure(flax: Version, declared: SpecifierSet, candidates: list[Version], probe: Callable[[Version], Probe],
            contemporary: Version | None = None) -> Frontier:
    """Find a known-good jax, bisect both edges from it, then probe inside the range for holes."""
    found = Frontier(flax, str(declared), list(candidates))
    seen: dict[int, Probe] = {}

    def look(i: int) -> Probe:
        if i not in seen:
            seen[i] = probe(candidates[i])
            found.probes.append(seen[i])
        return seen[i]

    good = next((candidates.index(v) for v in seeds(candidates, declared, contemporary)
                 if look(candidates.index(v)).works), None)
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


def _nowhere(probes: list[Probe]) -> str:
    causes = [p.cause for p in probes]
    installs = [c for c in causes if c.startswith("cannot be installed")]
    if installs and len(installs) == len(causes):
        return installs[0]
    return "works with no jax probed: " + (causes[0] if causes else "no jax release to probe")


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
            return one_line(f"cannot be installed: {record.get('error_message') or record.get('error_type')}")
        if vocabulary.is_passing(status):
            passed += 1
        elif not vocabulary.is_absent(status):
            error = ": ".join(str(record[k]) for k in ("error_type", "error_message") if record.get(k))
            return one_line(f"{case_id}: {status}" + (f": {error}" if error else ""))
    return "" if passed else "no smoke case applies (every one not applicable)"


def one_line(text: str) -> str:
    """The first line of a text, cut to CAUSE_CHARS."""
    first = (text.strip().splitlines() or [""])[0]
    return first if len(first) <= CAUSE_CHARS else first[:CAUSE_CHARS - 3] + "..."


# --- the package index -----------------------------------------------------------------------------------------------

def parse_spec(text: str, flag: str) -> SpecifierSet:
    """A PEP 440 specifier set, or FrontierError naming the flag."""
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise FrontierError(f"{flag} {text!r} is not a version specifier like '>=0.4.30,<0.9'") from None


def upload_dates(document: dict[str, Any]) -> dict[Version, datetime]:
    """The first upload time of every final release in a PyPI JSON document."""
    dates: dict[Version, datetime] = {}
    versions = set(index.from_json_api(document))
    for text, files in document["releases"].items():
        times = [datetime.fromisoformat(f["upload_time_iso_8601"].replace("Z", "+00:00")) for f in files
                 if f.get("upload_time_iso_8601")]
        if times and Version(text) in versions:
            dates[Version(text)] = min(times)
    return dates


def declared_jax(flax: Version, document: dict[str, Any], fetch: index.Fetch = index.fetch_json,
                 download: Callable[[str], bytes] | None = None) -> SpecifierSet:
    """The jax requirement a flax release declares (unconditional Requires-Dist lines only): from PyPI's JSON of
    that release, else from its wheel's METADATA (`document` is flax's project JSON, which lists the wheel)."""
    try:
        lines = fetch(RELEASE_API.format(name="flax", version=flax), "application/json")["info"]["requires_dist"]
    except (OSError, ValueError, KeyError, TypeError):
        lines = _wheel_requires(flax, document, download or _get)
    found = SpecifierSet()
    for line in lines or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.name.lower() == "jax" and (requirement.marker is None
                                                  or requirement.marker.evaluate({"extra": ""})):
            found &= requirement.specifier
    return found


def _wheel_requires(flax: Version, document: dict[str, Any], download: Callable[[str], bytes]) -> list[str]:
    wheels = [f for f in document["releases"].get(str(flax), []) if f["filename"].endswith(".whl")]
    if not wheels:
        raise FrontierError(f"flax {flax}: no wheel on the index to read its jax requirement from")
    # A mirror lists files by relative address: they are relative to the project's JSON document.
    url = urllib.parse.urljoin(index.JSON_API.format(name="flax"), wheels[0]["url"])
    try:
        with zipfile.ZipFile(io.BytesIO(download(url))) as wheel:
            name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            metadata = email.parser.BytesParser().parsebytes(wheel.read(name))
    except (OSError, StopIteration, zipfile.BadZipFile) as error:
        raise FrontierError(f"flax {flax}: cannot read the wheel's METADATA at {url}: {error}") from None
    return [str(line) for line in metadata.get_all("Requires-Dist") or []]


def _get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "shardmatrix"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return bytes(response.read())


def contemporary(flax_date: datetime | None, jax_dates: dict[Version, datetime],
                 candidates: list[Version]) -> Version | None:
    """The candidate jax nearest in time to the flax release (what it was tested with): the newest released
    before it, else (a flax older than every candidate) the oldest candidate."""
    if flax_date is None or not candidates:
        return None
    before = [v for v in candidates if v in jax_dates and jax_dates[v] <= flax_date]
    return max(before) if before else min(candidates)


@dataclass
class Releases:
    """What the index says: flax releases and jax candidates (those with a jaxlib of the same version) and dates."""

    flax: list[Version]
    jax: list[Version]
    flax_dates: dict[Version, datetime]
    jax_dates: dict[Version, datetime]
    #: flax's project JSON: it lists each release's wheel, whose METADATA declares the jax requirement.
    flax_document: dict[str, Any]


def releases(flax_spec: SpecifierSet, jax_spec: SpecifierSet, fetch: index.Fetch = index.fetch_json) -> Releases:
    """Read both packages' releases from PyPI's JSON API; FrontierError when a spec selects none."""
    try:
        flax_document = fetch(index.JSON_API.format(name="flax"), "application/json")
        flax_dates = upload_dates(flax_document)
        jax_dates = upload_dates(fetch(index.JSON_API.format(name="jax"), "application/json"))
        jaxlibs = set(index.releases("jaxlib", fetch))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise FrontierError(f"cannot read releases from PyPI: {error}") from None
    flax = sorted(v for v in flax_dates if v in flax_spec)
    jax = sorted(v for v in jax_dates if v in jax_spec and v in jaxlibs)
    if not flax:
        raise FrontierError(f"--flax {flax_spec or '(any)'} selects no flax release")
    if not jax:
        raise FrontierError(f"--jax {jax_spec or '(any)'} selects no jax release that has a jaxlib of its version")
    return Releases(flax, jax, flax_dates, jax_dates, flax_document)


# --- what is written -------------------------------------------------------------------------------------------------

def row(found: Frontier) -> dict[str, str]:
    """The csv row of one flax release (COLUMNS, in order)."""
    def text(version: Version | None) -> str:
        return "" if version is None else str(version)

    return {
        "flax": str(found.flax),
        "declared_jax": found.declared,
        "works_from": text(found.works_from),
        "works_to": text(found.works_to),
        "first_broken_below": text(found.below.jax if found.below else None),
        "first_broken_above": text(found.above.jax if found.above else None),
        "cause_below": found.nowhere or (found.below.cause if found.below else ""),
        "cause_above": found.nowhere or (found.above.cause if found.above else ""),
        "probes": str(len(found.probes)),
        "holes": " ".join(str(p.jax) for p in found.holes),
    }


def requirement(found: Frontier) -> str:
    """The suggested jax requirement line: the measured range, minus its holes."""
    if found.works_from is None:
        return f"# flax {found.flax}: no jax release works ({found.nowhere})"
    holes = "".join(f",!={p.jax}" for p in found.holes)
    return f"jax>={found.works_from},<={found.works_to}{holes}"


def evidence(found: Frontier) -> list[str]:
    """The lines that back one release's suggested requirement: declared, edges with causes, every probe."""
    lines = [f"flax {found.flax}: {requirement(found)}   (declared: jax{found.declared or ' (no bound)'})"]
    if found.works_from is not None and found.works_from == found.candidates[0]:
        lines.append(f"  lower edge: works with the oldest jax asked for ({found.works_from}); older ones are untested")
    if found.works_to is not None and found.works_to == found.candidates[-1]:
        lines.append(f"  upper edge: works with the newest jax asked for ({found.works_to}); later releases are "
                     "untested")
    for side, probe in (("below", found.below), ("above", found.above)):
        if probe is not None:
            lines.append(f"  broken {side}: jax {probe.jax} ({probe.cell_id}): {probe.cause}")
    for hole in found.holes:
        lines.append(f"  hole: jax {hole.jax} ({hole.cell_id}): {hole.cause}")
    for probe in sorted(found.probes, key=lambda p: p.jax):
        verdict = "works" if probe.works else f"broken: {probe.cause}"
        lines.append(f"  probe jax {probe.jax}: {verdict} ({probe.seconds:.0f} s{', reused' if probe.reused else ''})")
    return lines


def to_json(found: Frontier, declared: SpecifierSet) -> dict[str, Any]:
    """One flax release's result as stored in OUT/frontier/flax-<v>.json (what merge and reports read)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "flax": str(found.flax),
        "row": row(found),
        "requirement": requirement(found),
        "evidence": evidence(found),
        "candidates": [str(v) for v in found.candidates],
        "declared_ok": [str(v) for v in found.candidates if v in declared],
        "probes": [{"jax": str(p.jax), "works": p.works, "cause": p.cause, "cell": p.cell_id,
                    "seconds": round(p.seconds, 1), "reused": p.reused} for p in found.probes],
    }


def result_path(out: Path, flax: str) -> Path:
    """Where one flax release's frontier result is stored."""
    return Path(out) / "frontier" / f"flax-{flax}.json"


def write_report(out: Path, documents: list[dict[str, Any]]) -> Path:
    """OUT/report/frontier.csv, .md and .json from per-release results, newest flax first; returns the csv."""
    documents = sorted(documents, key=lambda d: Version(d["flax"]), reverse=True)
    folder = Path(out) / "report"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "frontier.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(d["row"] for d in documents)
    lines = ["# The jax range each flax release works with", "",
             "Measured by `nox -s frontier`: the smoke cases pass (no smoke case broken, one passed) in cells of "
             "that flax with jaxlib == jax.", ""]
    for document in documents:
        lines += ["```text", *document["evidence"], "```", ""]
    (folder / "frontier.md").write_text("\n".join(lines), encoding="utf-8")
    jax = sorted({v for d in documents for v in d["candidates"]}, key=Version)
    (folder / "frontier.json").write_text(json.dumps(
        {"schema_version": SCHEMA_VERSION, "jax": jax, "releases": documents}, indent=1), encoding="utf-8")
    return folder / "frontier.csv"


# --- the command line ------------------------------------------------------------------------------------------------

def parser() -> options.Parser:
    """Arguments of `nox -s frontier --`: which flax and jax releases, and the shared options of a run."""
    p = options.Parser(prog="nox -s frontier --", parents=[options.parser(add_help=False)])
    p.add_argument("--flax", default=DEFAULT_FLAX, metavar="SPEC",
                   help=f"flax releases to measure, a PEP 440 specifier (default {DEFAULT_FLAX})")
    p.add_argument("--jax", default=DEFAULT_JAX, metavar="SPEC",
                   help=f"jax releases to measure against (default {DEFAULT_JAX})")
    return p


def run(argv: list[str], fetch: index.Fetch = index.fetch_json, say: Callable[[str], object] = print) -> list[Frontier]:
    """`nox -s frontier --`: measure every flax release asked for, write the results and the report."""
    namespace = parser().parse_strictly(argv)
    opts = options.from_namespace(namespace)
    flax_spec, jax_spec = parse_spec(namespace.flax, "--flax"), parse_spec(namespace.jax, "--jax")
    nodes = smoke.smoke_nodes(opts.cases)
    found = releases(flax_spec, jax_spec, fetch)
    say(f"frontier: {len(found.flax)} flax release(s) x {len(found.jax)} jax release(s) "
        f"({found.jax[0]} to {found.jax[-1]}); smoke: {', '.join(sorted(nodes))}")
    measured, documents = [], []
    for flax in found.flax:
        declared = declared_jax(flax, found.flax_document, fetch)

        def probe(jax: Version, flax: Version = flax) -> Probe:
            cell = pins.make_cell(str(jax), str(flax), pins.python_for(str(jax), str(flax)))
            started = time.monotonic()
            ran = adhoc.run_cell(cell, opts, set(nodes), force=opts.force, paths=list(nodes.values()), say=say)
            seconds = time.monotonic() - started
            cause = (f"the probe's cell stopped (exit {ran.returncode})" if ran.interrupted
                     else judge(adhoc.statuses_of(opts.out, ran.run_id, cell.id), list(nodes)))
            result = Probe(jax, not cause, cause, cell.id, seconds, ran.reused)
            say(f"  flax {flax} x jax {jax}: {'works' if result.works else 'broken: ' + cause} ({seconds:.0f} s)")
            return result

        start = contemporary(found.flax_dates.get(flax), found.jax_dates, found.jax)
        result = measure(flax, declared, found.jax, probe, start)
        document = to_json(result, declared)
        path = result_path(opts.out, str(flax))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=1), encoding="utf-8")
        for line in document["evidence"]:
            say(line)
        measured.append(result)
        documents.append(document)
    say(f"frontier: {write_report(opts.out, documents)}")
    return measured


def plan(flax_spec: str, fetch: index.Fetch = index.fetch_json) -> list[dict[str, str]]:
    """The flax releases a CI frontier run measures, one matrix entry each."""
    spec = parse_spec(flax_spec, "--flax")
    selected = [v for v in index.releases("flax", fetch) if v in spec]
    if not selected:
        raise FrontierError(f"--flax {flax_spec} selects no flax release")
    return [{"flax": str(v)} for v in selected]


def merge(out: Path, planned: list[str]) -> Path:
    """Write the report from the stored per-release results; FrontierError naming every planned release without
    one (an incomplete frontier is not published)."""
    missing = [flax for flax in planned if not result_path(out, flax).is_file()]
    if missing:
        raise FrontierError(f"incomplete frontier: no result for flax {', '.join(missing)} (its job failed or "
                            "uploaded nothing); nothing published")
    documents = []
    for flax in planned:
        document = json.loads(result_path(out, flax).read_text(encoding="utf-8"))
        if document.get("schema_version") != SCHEMA_VERSION or document.get("flax") != flax:
            raise FrontierError(f"{result_path(out, flax)}: not a frontier result of flax {flax} "
                                f"(schema {SCHEMA_VERSION})")
        documents.append(document)
    return write_report(out, documents)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m harness.tools.frontier run|plan|merge ...`; 2 with one line on stderr for bad input, 1 for an
    incomplete merge."""
    args = list(sys.argv[1:] if argv is None else argv)
    command, rest = (args[0], args[1:]) if args else ("", [])
    try:
        if command == "run":
            run(rest)
        elif command == "plan":
            p = argparse.ArgumentParser(prog="python -m harness.tools.frontier plan")
            p.add_argument("--flax", default=DEFAULT_FLAX, metavar="SPEC")
            print(json.dumps(plan(p.parse_args(rest).flax or DEFAULT_FLAX)))
        elif command == "merge":
            p = argparse.ArgumentParser(prog="python -m harness.tools.frontier merge")
            p.add_argument("--plan", required=True, metavar="FILE", help="the plan's JSON ('-': stdin)")
            p.add_argument("--out", type=Path, default=Path("out"), metavar="DIR")
            parsed = p.parse_args(rest)
            text = sys.stdin.read() if parsed.plan == "-" else Path(parsed.plan).read_text(encoding="utf-8")
            print(f"frontier: {merge(parsed.out, [entry['flax'] for entry in json.loads(text)])}")
        else:
            print("usage: python -m harness.tools.frontier run|plan|merge ...", file=sys.stderr)
            return 2
    except FrontierError as error:
        print(f"shardmatrix: {error}", file=sys.stderr)
        return 1 if command == "merge" else 2
    except (options.OptionsError, corpus.CorpusError, smoke.SmokeError, pins.PinError,
            index.IndexError_) as error:
        print(f"shardmatrix: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
