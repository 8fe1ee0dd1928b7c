"""`nox -s ranges`: every range the corpus declares, checked at its edges and inside against releases
(harness.tools.ranges).

Each probe is an ordinary whole-corpus cell (`jax<j>-flax<f>-py<p>`, jaxlib == jax, or the jaxlib a jax release
requires where none of its version exists: `jax<j>-jaxlib<l>-flax<f>-py<p>`) run through
harness.host.cellrun.probe, the frontier's whole-corpus probe of the same pair: one answers the other through the
results cache, and one cell answers every edge probed at its pair. A jax edge holds flax where the default matrix
pairs it with that jax release (the matrix cell with the newest jax not after it), and the reverse.

    python -m shardmatrix.command ranges [--budget N] [--out DIR]   (`nox -s ranges`)

Writes OUT/report/ranges.json (harness.outputs) and prints each edge that is wrong or unchecked.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from packaging.version import Version

from harness import census, outputs, vocabulary
from harness.cell import known
from harness.cell.source import case_files
from harness.change import Change, declared
from harness.formats import ShardmatrixError
from harness.host import cellenv, cellrun, corpus, options
from harness.host.matrix import Cell
from harness.tools import bisect, caught, index, pins, ranges

#: Probes one check may build (each a cell); an edge past it is listed as unchecked.
DEFAULT_BUDGET = 40


class RangeCheckError(ShardmatrixError, ValueError):
    """A range check that cannot be asked as given; one line."""


def parser(prog: str = "nox -s ranges --") -> options.Parser:
    """Arguments of `nox -s ranges --`: the probe budget and the shared options of a run."""
    p = options.Parser(prog=prog, parents=[options.parser(add_help=False)])
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="N",
                   help=f"the most probes (cells) to build (default {DEFAULT_BUDGET})")
    p.add_argument("--case", action="append", default=[], metavar="CASE_ID",
                   help="check only the edges of this case (repeatable; default: every case)")
    p.add_argument("--merge", type=Path, default=None, metavar="RANGES_JSON",
                   help="an earlier check whose rows are kept but for those of the cases probed now (with --case, "
                        "those; else every case of --cases that declares a range) and of ranges the corpus no longer "
                        "declares; the stored document says how many probes both spent")
    return p


def partner_from(cells: list[Cell]) -> ranges.Partner:
    """The releases of the other package an edge is held at, in the order they are tried: those the matrix pairs
    with the newest release of the edge's package not after the bound, then not after the release before it, then
    with the oldest release past the bound. A jax edge tries the newest flax first (the matrix's own pairing of that
    jax); a flax edge the oldest jax, since the matrix also pairs old flax releases with the newest jax to show that
    they break."""

    def partner(package: str, before: Version, bound: Version) -> list[Version]:
        if not cells:
            return []
        other = "flax" if package == "jax" else "jax"

        def paired(limit: Version, after: bool = False) -> list[Version]:
            eligible = [c for c in cells if (Version(getattr(c, package)) > limit if after
                                             else Version(getattr(c, package)) <= limit)]
            if not eligible:
                return []
            pick = min if after else max
            nearest = pick(Version(getattr(c, package)) for c in eligible)
            found = {Version(getattr(c, other)) for c in eligible if Version(getattr(c, package)) == nearest}
            return sorted(found, reverse=package == "jax")

        # Last, the cells just past the bound: flax 0.10.5 needs jax >= 0.5.1, which no cell up to it pairs.
        return list(dict.fromkeys(paired(bound) + paired(before) + paired(bound, after=True)))

    return partner


def with_contemporaries(partner: ranges.Partner, dates: dict[str, dict[Version, datetime]],
                        floor: dict[str, Version] | None = None) -> ranges.Partner:
    """`partner`'s releases and those of the other package out on the day of the release before the bound and of the
    bound (the newest uploaded not after each): what those releases were made with, so they import on it where the
    matrix's pairings do not. The matrix's come first, but for an edge older than every release of its package the
    matrix holds (`floor`): the matrix pairs no release of its own with it, only the newest of the other package, to
    show that they break (flax 0.8.5 and 0.9.0 at jax 0.4.38 or 0.12, where their nnx does not import)."""

    def paired(package: str, before: Version, bound: Version) -> list[Version]:
        other = dates.get("flax" if package == "jax" else "jax", {})
        own = dates.get(package, {})
        found: list[Version] = []
        for release in (before, bound):
            day = own.get(release)
            out = [version for version, uploaded in other.items() if day is not None and uploaded <= day]
            if out:
                found.append(max(out))
        matrix = list(partner(package, before, bound))
        older = floor is not None and package in floor and bound < floor[package]
        return list(dict.fromkeys(found + matrix if older else matrix + found))

    return paired


def own_time_floor(cells: list[Cell]) -> dict[str, Version]:
    """The oldest release of each package the matrix pairs with a release of the other package that is not its newest:
    a cell of an old flax with the newest jax (jax 0.12.0.1 with flax 0.8.5) is there to show that the pair breaks."""
    found: dict[str, Version] = {}
    for package, other in (("jax", "flax"), ("flax", "jax")):
        newest = max((Version(getattr(cell, other)) for cell in cells), default=None)
        held = [Version(getattr(cell, package)) for cell in cells if Version(getattr(cell, other)) != newest]
        if held:
            found[package] = min(held)
    return found


def release_dates(fetch: index.Fetch) -> dict[str, dict[Version, datetime]]:
    """{package: {release: first upload}} of jax and flax; {} for a package whose index document gives none (the
    contemporary pairings are then left out)."""
    found: dict[str, dict[Version, datetime]] = {}
    for package in ("jax", "flax"):
        try:
            found[package] = index.upload_dates(fetch(index.json_api(package), "application/json"))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            found[package] = {}
    return found


class JaxlibPins:
    """jax release -> the jaxlib its probe cells pin (pins.jaxlib_for): jax's own version where jaxlib has it, else the
    newest jaxlib that jax release requires, read from its metadata on the index once per release."""

    def __init__(self, fetch: index.Fetch = index.fetch_json, download: index.Download | None = None) -> None:
        self.fetch, self.download = fetch, download
        self._jaxlibs: list[Version] | None = None
        self._document: dict[str, Any] | None = None
        self._picked: dict[Version, str] = {}

    def __call__(self, jax: Version) -> str:
        if jax not in self._picked:
            if self._jaxlibs is None:
                self._jaxlibs = index.releases("jaxlib", self.fetch)
            requires: list[str] = []
            if jax not in self._jaxlibs:
                if self._document is None:
                    self._document = self.fetch(index.json_api("jax"), "application/json")
                try:
                    requires = index.requires_dist("jax", jax, self._document, self.fetch, self.download)
                except index.IndexError_:
                    requires = []  # the cell pins jaxlib == jax, and its install error says why
            picked = pins.jaxlib_for(jax, self._jaxlibs, requires)
            self._picked[jax] = str(picked or jax)
        return self._picked[jax]


class CellProbe:
    """(case, jax, flax) -> what the case did in that pair's whole-corpus cell (and whether it warned); every case's
    applicability kept. A cell whose jax or flax does not import (or whose backend does not start) answers
    ranges.UNLOADABLE for every case: it is no evidence about any of them."""

    def __init__(self, opts: options.Options, additions: cellenv.Additions, say: Callable[[str], object],
                 warnings: dict[str, str] | None = None, jaxlib: Callable[[Version], str] = str) -> None:
        self.opts, self.additions, self.say = opts, additions, say
        #: {case id: a part of the text its change warned with}: only that warning counts as the case's.
        self.warnings = warnings or {}
        #: The jaxlib a cell of a jax release pins (JaxlibPins; jaxlib == jax by default).
        self.jaxlib = jaxlib
        self.finals: dict[tuple[Version, Version], dict[str, dict[str, object]] | None] = {}

    def _cell(self, jax: Version, flax: Version) -> dict[str, dict[str, object]] | None:
        if (jax, flax) not in self.finals:
            made = pins.make_cell(str(jax), str(flax), pins.python_for(str(jax), str(flax)), jaxlib=self.jaxlib(jax))
            cell = cellenv.apply(made, self.additions)
            ran = cellrun.probe(cell, self.opts, None, say=lambda line: None)
            self.finals[jax, flax] = None if ran.interrupted else ran.finals()
            self.say(f"  probed {cell.id}{' (reused)' if ran.reused_from else ''}")
        return self.finals[jax, flax]

    def __call__(self, case: str, jax: Version, flax: Version) -> str | None:
        finals = self._cell(jax, flax)
        if finals is None:
            return "the probe's cell stopped before it finished"
        unusable = next((str(record["reason"]) for record in finals.values()
                         if vocabulary.is_cell_unusable(record.get("reason"))), None)
        if unusable is not None:
            return f"{ranges.UNLOADABLE}{unusable}"
        record = bisect.probe_record(finals, case)
        verdict = bisect.Probe(jax, str(record["status"]), "", "").verdict
        why = record.get("reason") or record.get("error_message") or ""
        if vocabulary.is_inconclusive(record["status"]):
            # A timeout or a crash (a loaded machine, a dying process) found no bound: unjudged, never a failure.
            return f"{record['status']}: {why}".rstrip(": ")
        if verdict == "good":
            # A change that names its warning's text is warned only by that; one that names none, by any warning,
            # as the report's Changes view counts the cells that warned.
            text = self.warnings.get(case, "")
            carried = record.get("warnings")
            said = [str(warning) for warning in carried] if isinstance(carried, list) else []
            return ranges.WARNED if any(text in warning for warning in said) else ranges.PASS
        return ranges.FAIL if verdict == "bad" else f"{record['status']}: {why}".rstrip(": ")

    def seen(self) -> dict[str, dict[tuple[Version, Version], tuple[bool, str]]]:
        """{case: {pair: (passed there, why not applicable there or "")}} over every cell probed, for ranges.drift."""
        found: dict[str, dict[tuple[Version, Version], tuple[bool, str]]] = {}
        for pair, finals in self.finals.items():
            for case, record in (finals or {}).items():
                absent = record.get("status") == vocabulary.NOT_APPLICABLE
                reason = str(record.get("reason") or "") if absent else ""
                if reason.startswith("needs ") and " devices" in reason:
                    continue  # too few devices says nothing about an API
                found.setdefault(case, {})[pair] = (vocabulary.is_passing(record.get("status")), reason)
        return found


def declared_changes(cases: list[str]) -> dict[str, Change]:
    """{case id: Change} of the corpus asked for, read from source."""
    paths = corpus.case_paths(cases)
    files = [file for path in paths for file in ([path] if path.is_file() else case_files(path, False))]
    return {f"{file.stem}::{name}": change for file in files for name, change in declared(file).items()}


def corpus_edges(cases: list[str]) -> list[ranges.Edge]:
    """Every edge the corpus asked for declares now: its changes' and its known breakages' bounds."""
    breakages = [entry for path in corpus.known_breakage_files(cases) for entry in known.load(path)]
    return ranges.edges(declared_changes(cases), breakages)


def declared_keys(edges: list[ranges.Edge]) -> set[caught.Declared]:
    """(case, package, declared bound, declaration) of each edge: what a stored row must match to speak for it."""
    return {(edge.case, edge.package, edge.text, edge.source) for edge in edges}


def corpus_cases(cases: list[str]) -> set[str]:
    """The ids of every case the corpus asked for holds, read from source."""
    return {case for case, _ in corpus.expected_cases(corpus.case_paths(cases))}


def kept_rows(rows: list[dict[str, Any]], probed: set[str], current: set[caught.Declared],
              held: set[str]) -> list[dict[str, Any]]:
    """The rows of an earlier check that --merge keeps: every row of a case not probed now, but where the corpus holds
    the case (`held`) and no longer makes the row's declaration (since changed or dropped). A case the corpus does not
    hold (a --cases folder of one module) keeps its rows: this check cannot see its declarations, so it says nothing
    of them."""
    def declared_now(row: dict[str, Any]) -> bool:
        return (row["case"], row["package"], row["declared"], row.get("source")) in current

    return [row for row in rows if row["case"] not in probed and (row["case"] not in held or declared_now(row))]


def standing(findings: list[ranges.Finding], earlier: list[dict[str, Any]]
             ) -> tuple[list[ranges.Finding], list[dict[str, Any]]]:
    """(the findings this check reached, the earlier rows that stand for the edges it did not): an edge the budget
    never reached keeps what an earlier check stored for the same declaration, its reason included."""
    stored = {(row["case"], row["package"], row["declared"], row.get("source")): row for row in earlier}
    reached, kept = [], []
    for finding in findings:
        edge = finding.edge
        row = stored.get((edge.case, edge.package, edge.text, edge.source)) if finding.unreached else None
        if row is None:
            reached.append(finding)
        else:
            kept.append(row)
    return reached, kept


def one_per_case(drifted: list[dict[str, str]], earlier: list[dict[str, str]]) -> list[dict[str, str]]:
    """The needs gone with no change, one row per case: this check's, else the earlier check's first (a case probed
    at another pair now would otherwise be listed once per pair)."""
    found: dict[str, dict[str, str]] = {}
    for row in [*drifted, *earlier]:
        found.setdefault(row["case"], row)
    return list(found.values())


def _earlier(path: Path | None) -> dict[str, Any]:
    """The earlier check --merge names ({} without one)."""
    if path is None:
        return {}
    try:
        return dict(outputs.read_ranges(path))
    except (OSError, ShardmatrixError) as exc:
        raise RangeCheckError(f"--merge {path}: {exc}") from None


def run(argv: list[str], cells: list[Cell], fetch: index.Fetch = index.fetch_json,
        say: Callable[[str], object] = print, prog: str = "nox -s ranges --",
        probe: ranges.CaseProbe | None = None) -> list[ranges.Finding]:
    """`nox -s ranges --`: list the declared edges, probe them within the budget, store and print the findings."""
    namespace = parser(prog).parse_strictly(argv)
    if namespace.budget < 1:
        raise RangeCheckError(f"--budget {namespace.budget}: must be at least 1")
    opts = options.from_namespace(namespace)
    changes = declared_changes(opts.cases)
    edges = corpus_edges(opts.cases)
    current = declared_keys(edges)
    earlier = _earlier(namespace.merge)
    if namespace.case:
        unknown = sorted(set(namespace.case) - {edge.case for edge in edges})
        if unknown:
            raise RangeCheckError(f"--case {unknown[0]}: the corpus declares no range for it")
        edges = [edge for edge in edges if edge.case in namespace.case]
    releases = {package: index.releases(package, fetch) for package in ("jax", "flax")}
    cell_probe = None
    if probe is None:
        cell_probe = CellProbe(opts, cellenv.prepare(opts), say,
                               {case: change.warning for case, change in changes.items() if change.warning},
                               JaxlibPins(fetch))
        probe = cell_probe
    say(f"ranges: {len(edges)} declared edge(s), budget {namespace.budget} probe(s)")
    # A range open below is probed inside from the oldest release the matrix holds, not from jax 0.1.
    floor = {package: min(Version(getattr(cell, package)) for cell in cells) for package in ("jax", "flax")
             } if cells else None
    partner = with_contemporaries(partner_from(cells), release_dates(fetch), own_time_floor(cells))
    findings, spent = ranges.run(edges, releases, partner, probe, namespace.budget, floor)
    drifted = ranges.drift(cell_probe.seen(), changes) if cell_probe is not None else []
    kept = kept_rows(earlier.get("edges", []), {edge.case for edge in edges}, current, corpus_cases(opts.cases))
    findings, unreached = standing(findings, earlier.get("edges", []))
    kept += unreached
    drifted = one_per_case(drifted, earlier.get("needs_without_change", []))
    stored = ranges.store(Path(opts.out) / "report", findings, spent + earlier.get("probes", 0),
                          namespace.budget + earlier.get("budget", 0), drifted, kept)
    for line in ranges.describe(findings, drifted, spent, namespace.budget, kept):
        say(line)
    rows = kept + [finding.as_row() for finding in findings]
    for root in corpus.case_roots(opts.cases):
        if census.census_path(root).is_file():
            found = caught.catches(census.read_census(census.census_path(root)), census.corpus_citations(root), rows,
                                   current)
            say(f"census of {root.name}: {caught.summary(found)}")
            for problem in census.problems(census.read_census(census.census_path(root)),
                                           census.corpus_citations(root), releases):
                say(f"census of {root.name}: {problem}")
    say(f"ranges: {stored}")
    return findings


def stored_status(argv: list[str], prog: str = "nox -s ranges --") -> int:
    """The exit status of a check: 1 when the document it stored holds a wrong edge, kept by --merge or found now,
    else 0."""
    opts = options.from_namespace(parser(prog).parse_strictly(argv))
    stored = outputs.read_ranges(Path(opts.out) / "report" / outputs.RANGES_JSON.name)
    return 1 if any(row["status"] == ranges.WRONG for row in stored["edges"]) else 0
