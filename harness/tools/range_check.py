"""`nox -s ranges`: every range the corpus declares, checked at its edges and inside against releases
(harness.tools.ranges).

Each probe is an ordinary whole-corpus cell (`jax<j>-flax<f>-py<p>`, jaxlib == jax, or the jaxlib a jax release
requires where none of its version exists: `jax<j>-jaxlib<l>-flax<f>-py<p>`) run through
harness.host.cellrun.probe, the frontier's whole-corpus probe of the same pair: one answers the other through the
results cache, and one cell answers every edge probed at its pair. A jax edge holds flax where the default matrix
pairs it with that jax release (the matrix cell with the newest jax not after it), and the reverse.

    python -m shardmatrix.command ranges [--budget N] [--out DIR]   (`nox -s ranges`)

Writes OUT/report/ranges.json (harness.outputs) and prints each edge that is wrong or unchecked. Three modes probe
nothing: `--stamp CHECK --checked-at COMMIT` stores an earlier check with the digests of its cases unchanged since
(harness.tools.case_digest), `--records OUT` lists where stored cell records contradict the declared ranges
(harness.tools.range_records), and `--take CHECK_DIR` adopts the cases a finished check settled into the stored
document (harness.tools.range_take).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
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
from harness.host.options import BUILTIN
from harness.tools import bisect, case_digest, caught, index, pins, range_records, range_take, ranges

#: Probes one check may build (each a cell); an edge past it is listed as unchecked.
DEFAULT_BUDGET = 40
#: The stored range check the docs show, from the checkout's root: what --take adopts a check into by default.
STORED_RANGES = Path("docs") / "data" / outputs.RANGES_JSON.name


class RangeCheckError(ShardmatrixError, ValueError):
    """A range check that cannot be asked as given; one line."""


class RangeParser(options.Parser):
    """A run's parser that refuses the options a range check cannot honour (REFUSED_OPTIONS)."""

    def parse_strictly(self, argv: Sequence[str]) -> argparse.Namespace:
        """Every argument, refused as options.Parser refuses, and as refuse_cell_changes does."""
        namespace = super().parse_strictly(argv)
        refuse_cell_changes(namespace)
        return namespace


def parser(prog: str = "nox -s ranges --") -> options.Parser:
    """Arguments of `nox -s ranges --`: the probe budget and the shared options of a run, but those that change the
    cell behind a probe."""
    p = RangeParser(prog=prog, parents=[options.parser(add_help=False)])
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="N",
                   help=f"the most probes (cells) to build (default {DEFAULT_BUDGET})")
    p.add_argument("--inside", choices=ranges.INSIDE, default=ranges.INSIDE_EVERY,
                   help="how far inside its range each confirmed edge is probed: every release the budget allows "
                        "(default), the middle release alone (a live bug's first), or none (the bounds only: such "
                        "rows read 'bounds only' in the census, never caught)")
    p.add_argument("--case", action="append", default=[], metavar="CASE_ID",
                   help="check only the edges of this case (repeatable; default: every case)")
    p.add_argument("--merge", type=Path, default=None, metavar="RANGES_JSON",
                   help="an earlier check whose rows are kept but for those of the cases probed now (with --case, "
                        "those; else every case of --cases that declares a range), of ranges the corpus no longer "
                        "declares and of cases it does not hold; a kept row of a case changed since (its digest) is "
                        "kept unchecked, stale; the stored document says how many probes both built")
    p.add_argument("--stamp", type=Path, default=None, metavar="RANGES_JSON",
                   help="probe nothing: store this earlier check with a digest of each of its cases whose source and "
                        "declaration git shows unchanged since --checked-at (a check that recorded none, schema 1; a "
                        "row keeps its first stamp, so stamp a document merged by hand once per commit its rows were "
                        "checked at, oldest first); never over another check stored under --out")
    p.add_argument("--records", type=Path, action="append", default=[], metavar="OUT",
                   help="probe nothing: list where the cell records under OUT/results (repeatable) contradict the "
                        "ranges declared now (a pass inside one, a pair answered both ways); exit 1 if any, refused "
                        "where no record is of a case that declares a range")
    p.add_argument("--checked-at", default=None, metavar="COMMIT",
                   help="with --stamp: the commit the check ran at (docs/data/runs.toml names it), stored in full")
    p.add_argument("--take", type=Path, default=None, metavar="CHECK_DIR",
                   help="probe nothing: adopt into the stored document (--ranges-from) the rows of each case (of "
                        "--case, where given) whose every declared edge the finished check in CHECK_DIR (an --out "
                        "folder of a run without --merge) confirmed or found bounded; other cases keep theirs")
    p.add_argument("--ranges-from", type=Path, default=STORED_RANGES, metavar="RANGES_JSON",
                   help=f"with --take: the stored document, rewritten in place (default {STORED_RANGES})")
    return p


#: (option, its namespace field) of a run's options that change the cell behind a probe (its packages, its index,
#: its project, its variables) while the row still names the pair the checker asked about, or that the check ignores
#: (--cells: it builds the cells of the pairs it asks): refused, one line each.
REFUSED_OPTIONS = (("--override", "override"), ("--with", "extras"), ("--index", "indexes"), ("--project", "project"),
                   ("--pre", "pre"), ("--env", "env"), ("--cells", "cells"))
#: (option, its namespace field, its default) of those that change what a probe's cell answers and are recorded in
#: the stored document where given (harness.outputs.RANGE_OPTIONS names them there).
RECORDED_OPTIONS = (("--timeout", "timeout", 300.0), ("--devices", "devices", None),
                    ("--suite-budget", "suite_budget", 0.0))


def refuse_cell_changes(namespace: Any) -> None:
    """RangeCheckError naming the first option given that the range check cannot honour as its rows say."""
    for option, name in REFUSED_OPTIONS:
        if getattr(namespace, name, None):
            raise RangeCheckError(f"{option}: a range check probes the pairs it names, as released; it cannot "
                                  f"{'choose cells' if option == '--cells' else 'change the cell behind a probe'}")


def options_given(namespace: Any) -> dict[str, float | str]:
    """{name: value} of the recorded options given other values than their defaults; `inside` where it was not every
    release (a check of less evidence inside is not merged with, or taken into, one of more)."""
    given: dict[str, float | str] = {name: getattr(namespace, name) for _, name, default in RECORDED_OPTIONS
                                     if getattr(namespace, name, default) != default}
    reach = getattr(namespace, "inside", ranges.INSIDE_EVERY)
    return given if reach == ranges.INSIDE_EVERY else {**given, "inside": reach}


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
                 warnings: dict[str, str] | None = None, jaxlib: Callable[[Version], str] = str,
                 paths: Sequence[Path] | None = None) -> None:
        self.opts, self.additions, self.say = opts, additions, say
        #: What each probe's cell runs: the whole corpus (None), or the node ids of the cases asked (`--case`).
        self.paths = paths
        #: {case id: a part of the text its change warned with}: only that warning counts as the case's.
        self.warnings = warnings or {}
        #: The jaxlib a cell of a jax release pins (JaxlibPins; jaxlib == jax by default).
        self.jaxlib = jaxlib
        self.finals: dict[tuple[Version, Version], dict[str, dict[str, object]] | None] = {}
        #: The pairs whose cell the results cache answered (built by an earlier run), and how many answers came from
        #: cells built in this run: only those are this check's probes.
        self.reused: set[tuple[Version, Version]] = set()
        self.built = 0

    def _cell(self, jax: Version, flax: Version) -> dict[str, dict[str, object]] | None:
        if (jax, flax) not in self.finals:
            made = pins.make_cell(str(jax), str(flax), pins.python_for(str(jax), str(flax)), jaxlib=self.jaxlib(jax))
            cell = cellenv.apply(made, self.additions)
            ran = cellrun.probe(cell, self.opts, self.paths, say=lambda line: None)
            self.finals[jax, flax] = None if ran.interrupted else ran.finals()
            if ran.reused_from:
                self.reused.add((jax, flax))
            self.say(f"  probed {cell.id}{' (reused)' if ran.reused_from else ''}")
        return self.finals[jax, flax]

    def __call__(self, case: str, jax: Version, flax: Version) -> str | None:
        finals = self._cell(jax, flax)
        self.built += (jax, flax) not in self.reused
        if finals is None:
            return "the probe's cell stopped before it finished"
        unusable = next((str(record["reason"]) for record in finals.values()
                         if vocabulary.is_cell_unusable(record.get("reason"))), None)
        if unusable is not None:
            return f"{ranges.UNLOADABLE}{unusable}"
        record = bisect.probe_record(finals, case)
        if case not in finals and record.get("status") == vocabulary.ERROR:
            # The module did not import (flax's own import failing at an old jax, say): nothing of the case ran.
            why = record.get("error_message") or record.get("reason") or "its collection failed"
            return f"{ranges.NOT_DECLARED}the case's module does not import here ({why})"
        return record_answer(record, self.warnings.get(case, ""))

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


def record_answer(record: Mapping[str, object], warning: str = "") -> str:
    """What a case's record in a probe's cell answers: PASS or WARNED (a change that names its warning's text is
    warned only by that; one that names none, by any warning, as the report's Changes view counts it); FAIL for a
    known breakage that failed as declared (xfailed); `ranges.failed_as` its exception's class for any other failure,
    which the edge judges by its own `raises`; else why the case cannot be judged there. A timeout or a crash found
    no bound, and a known breakage that raised another exception than it declares ('expected X, got Y') is another
    failure, not the breakage."""
    status = record.get("status")
    why = str(record.get("reason") or record.get("error_message") or "")
    if vocabulary.is_inconclusive(status):
        return f"{status}: {why}".rstrip(": ")
    if vocabulary.is_passing(status):
        carried = record.get("warnings")
        said = [str(text) for text in carried] if isinstance(carried, list) else []
        return ranges.WARNED if any(warning in text for text in said) else ranges.PASS
    if bisect.Probe(Version("0"), str(status), "", "").verdict != "bad" or vocabulary.is_out_of_memory(why):
        return f"{status}: {why}".rstrip(": ")  # not applicable, not recorded, out of memory: unjudged
    if status == vocabulary.XFAILED:
        return ranges.FAIL
    error_type, message = str(record.get("error_type") or ""), str(record.get("error_message") or "")
    if record.get("known_breakage") is True or known.is_unexpected(message):
        return f"{ranges.NOT_DECLARED}{message or status}"
    return ranges.failed_as(error_type, message)


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


def case_nodes(cases: list[str], ids: Sequence[str]) -> list[Path]:
    """The pytest node ids (`<file>::<test>`) of the given case ids in the corpus asked for: a check of a few cases
    runs only those in each probe's cell, not the whole corpus (a cell's drift is then seen for those cases only)."""
    files = corpus_files(cases)
    names = corpus.qualified_names(files)
    by_module = {corpus.case_module(file, names): file for file in files}
    nodes = []
    for case_id in dict.fromkeys(ids):
        module, _, test = case_id.partition("::")
        if module not in by_module:
            raise RangeCheckError(f"--case {case_id}: no module {module} in the corpus")
        nodes.append(Path(f"{by_module[module]}::{test}"))
    return nodes


def joined_sources(edges: list[ranges.Edge]) -> dict[tuple[str, str], str]:
    """{(case, source): the whole declaration} of each edge whose source is one part of it (a breakage on jax and
    flax), for caught.catches."""
    return {(edge.case, edge.source): edge.entry for edge in edges if edge.entry}


def corpus_cases(cases: list[str]) -> set[str]:
    """The ids of every case the corpus asked for holds, read from source."""
    return {case for case, _ in corpus.expected_cases(corpus.case_paths(cases))}


def kept_rows(rows: list[dict[str, Any]], probed: set[str], current: set[caught.Declared],
              held: set[str]) -> list[dict[str, Any]]:
    """The rows of an earlier check that --merge keeps: every row of a case not probed now that the corpus holds
    (`held`) and still declares as the row says. A row of a case the corpus does not hold (gone, or of another
    corpus) or of a declaration since changed or dropped speaks for nothing here."""
    def declared_now(row: dict[str, Any]) -> bool:
        return (row["case"], row["package"], row["declared"], row.get("source")) in current

    return [row for row in rows if row["case"] not in probed and row["case"] in held and declared_now(row)]


def fresh(rows: list[dict[str, Any]], stamps: Mapping[str, Mapping[str, Any]], now: Mapping[str, str]
          ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """(the kept rows as they stand now, the stamps of their cases): a row whose case's digest when it was checked
    (`stamps`, the earlier document's `cases`) differs from its digest `now`, or was never recorded, is stale: it is
    kept unchecked, saying why, and its case unstamped, so no later merge takes it for a check of the case as it is."""
    kept, stood = [], {}
    for row in rows:
        stamp, digest = stamps.get(row["case"]), now.get(row["case"])
        if stamp is not None and stamp.get("digest") == digest:
            kept.append(row)
            stood[row["case"]] = dict(stamp)
            continue
        why = ("stale: the check that stored it recorded no digest of the case (stamp it: --stamp) "
               if stamp is None else f"stale: the case's source or declaration changed since it was checked at "
                                     f"{stamp.get('commit') or 'an unrecorded commit'} ")
        kept.append({**{key: value for key, value in row.items() if not key.startswith("inside")},
                     "status": ranges.UNCHECKED, "found": None, "why": why + f"(it was {row['status']}): re-check it"})
    return kept, stood


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


def kept_needs(rows: list[dict[str, str]], held: set[str], changed: set[str], probed: set[str]) -> list[dict[str, str]]:
    """The needs gone with no change an earlier check listed that --merge keeps: those of a case the corpus still
    holds, that declares no Change now (the change it lacked is declared) and that this check did not probe (its own
    reading replaces the earlier one)."""
    return [row for row in rows if row["case"] in held and row["case"] not in changed and row["case"] not in probed]


def one_per_case(drifted: list[dict[str, str]], earlier: list[dict[str, str]]) -> list[dict[str, str]]:
    """The needs gone with no change, one row per case: this check's, else the earlier check's first (a case probed
    at another pair now would otherwise be listed once per pair)."""
    found: dict[str, dict[str, str]] = {}
    for row in [*drifted, *earlier]:
        found.setdefault(row["case"], row)
    return list(found.values())


def _earlier(path: Path | None, given: dict[str, float | str] | None, option: str = "--merge") -> dict[str, Any]:
    """The earlier check `option` (--merge, --stamp) names ({} without one), a refusal naming that option; with
    `given`, refused where it was run with other options that change a probe's answer (--timeout, --devices,
    --suite-budget): its rows are not this check's kind."""
    if path is None:
        return {}
    try:
        document = dict(outputs.read_ranges(path))
    except (OSError, ShardmatrixError) as exc:
        raise RangeCheckError(f"{option} {path}: {exc}") from None
    if given is not None and document["options"] != given:
        raise RangeCheckError(f"--merge {path}: checked with options {document['options'] or 'none'}, this check "
                              f"with {given or 'none'}: merge only checks run alike")
    return document


def run(argv: list[str], cells: list[Cell], fetch: index.Fetch = index.fetch_json,
        say: Callable[[str], object] = print, prog: str = "nox -s ranges --",
        probe: ranges.CaseProbe | None = None) -> list[ranges.Finding]:
    """`nox -s ranges --`: list the declared edges, probe them within the budget, store and print the findings (with
    --stamp: store an earlier check with its cases' digests, probing nothing)."""
    namespace = parser(prog).parse_strictly(argv)
    if namespace.budget < 1:
        raise RangeCheckError(f"--budget {namespace.budget}: must be at least 1")
    opts = options.from_namespace(namespace)
    refuse_empty_corpus(opts.cases)
    refuse_inside_without_probes(namespace)
    if namespace.take is not None:
        refuse_beside_take(namespace)
        take_check(namespace.take, namespace.ranges_from, opts.cases, namespace.case, say)
        return []
    mixed = next((option for option, given in (("--merge", namespace.merge), ("--stamp", namespace.stamp),
                                               ("--checked-at", namespace.checked_at)) if given), None)
    if namespace.records and mixed:
        raise RangeCheckError(f"--records with {mixed}: reading records probes, stores and merges nothing")
    if namespace.stamp is not None or namespace.checked_at is not None:
        stamp_earlier(namespace.stamp, namespace.checked_at, opts.cases, Path(opts.out) / "report", say,
                      namespace.merge, namespace.case)
        return []
    if namespace.records:
        lines, said = contradicted(namespace.records, opts.cases, namespace.case)
        for line in [*lines, *said]:
            say(line)
        return []
    changes = declared_changes(opts.cases)
    edges = corpus_edges(opts.cases)
    earlier = _earlier(namespace.merge, options_given(namespace))
    if namespace.case:
        unknown = sorted(set(namespace.case) - {edge.case for edge in edges})
        if unknown:
            raise RangeCheckError(f"--case {unknown[0]}: the corpus declares no range for it")
    asked = [edge for edge in edges if not namespace.case or edge.case in namespace.case]
    releases = {package: index.releases(package, fetch) for package in ("jax", "flax")}
    cell_probe = None
    if probe is None:
        cell_probe = CellProbe(opts, cellenv.prepare(opts), say,
                               {case: change.warning for case, change in changes.items() if change.warning},
                               JaxlibPins(fetch), case_nodes(opts.cases, namespace.case) if namespace.case else None)
        probe = cell_probe
    say(f"ranges: {len(asked)} declared edge(s), budget {namespace.budget} probe(s)")
    # A range open below is probed inside from the oldest release the matrix holds, not from jax 0.1.
    floor = {package: min(Version(getattr(cell, package)) for cell in cells) for package in ("jax", "flax")
             } if cells else None
    partner = with_contemporaries(partner_from(cells), release_dates(fetch), own_time_floor(cells))
    findings, spent = ranges.run(asked, releases, partner, probe, namespace.budget, floor, namespace.inside)
    # Only answers from cells built now are this check's probes: one the results cache gave was counted where built.
    spent = cell_probe.built if cell_probe is not None else spent
    drifted = ranges.drift(cell_probe.seen(), changes) if cell_probe is not None else []
    _store_and_say(namespace, opts, findings, earlier, spent, drifted, edges, releases, say)
    return findings


def _store_and_say(namespace: Any, opts: options.Options, findings: list[ranges.Finding], earlier: dict[str, Any],
                   spent: int, drifted: list[dict[str, str]], edges: list[ranges.Edge],
                   releases: Mapping[str, list[Version]], say: Callable[[str], object]) -> None:
    """Merge the findings with what the earlier check says that still stands, store them, and print them."""
    current, held = declared_keys(edges), corpus_cases(opts.cases)
    probed = {finding.edge.case for finding in findings}
    now = corpus_digests(opts.cases)
    rows = earlier.get("edges", [])
    dropped = sorted({row["case"] for row in rows if row["case"] not in held})
    if dropped:
        say(f"ranges: {len(dropped)} case(s) of the earlier check are not in the corpus; their rows are dropped: "
            + ", ".join(dropped[:5]) + (" ..." if len(dropped) > 5 else ""))
    findings, unreached = standing(findings, [row for row in rows if row["case"] in held])
    kept, stood = fresh(kept_rows(rows, probed, current, held) + unreached, earlier.get("cases", {}), now)
    changes = declared_changes(opts.cases)
    changed = set(changes)
    drifted = one_per_case(drifted, kept_needs(earlier.get("needs_without_change", []), held, changed, probed))
    commit = next((case_digest.head_commit(root) for root in corpus.case_roots(opts.cases)), None)
    stamps = {**stood, **{case: {"digest": now[case], "commit": commit} for case in probed if case in now}}
    provenance = ranges.Provenance(options_given(namespace), commit, stamps)
    stored = ranges.store(Path(opts.out) / "report", findings, spent + earlier.get("probes", 0),
                          namespace.budget + earlier.get("budget", 0), drifted, kept, provenance)
    for line in ranges.describe(findings, drifted, spent, namespace.budget, kept):
        say(line)
    for line in census_said(opts.cases, kept + [finding.as_row() for finding in findings], current, releases):
        say(line)
    say(f"ranges: {stored}")


def corpus_files(cases: list[str]) -> list[Path]:
    """The case modules of the corpus asked for."""
    paths = corpus.case_paths(cases)
    return [file for path in paths for file in ([path] if path.is_file() else case_files(path, False))]


def corpus_digests(cases: list[str]) -> dict[str, str]:
    """{case id: digest of its source and declaration} of the corpus asked for (harness.tools.case_digest)."""
    return case_digest.digests(corpus_files(cases), corpus.known_breakage_files(cases))


def stamp_earlier(path: Path | None, commit: str | None, cases: list[str], out: Path,
                  say: Callable[[str], object], merge: Path | None = None, asked: Sequence[str] = ()) -> Path:
    """--stamp: the earlier check at `path`, checked at `commit`, stored under `out` with a digest of each of its
    cases whose digest at that commit equals its digest now (case_digest.stamp); those left are printed. Refused
    where `out` holds another check, which it would replace."""
    if path is None or commit is None:
        raise RangeCheckError("--stamp and --checked-at: give both (the check, and the commit it ran at)")
    if merge or asked:
        raise RangeCheckError(f"--stamp with {'--merge' if merge else '--case'}: a stamp probes and merges nothing")
    document = _earlier(path, None, "--stamp")
    roots = corpus.case_roots(cases)
    if len(roots) != 1:
        raise RangeCheckError("--stamp: give one --cases folder (the corpus the check was of)")
    files, breakages = corpus_files(cases), corpus.known_breakage_files(cases)
    try:
        commit = _checked_at(commit, roots[0])
        then = case_digest.digests_at(commit, roots[0], files, breakages)
    except case_digest.DigestError as exc:
        raise RangeCheckError(f"--checked-at {commit}: {exc}") from None
    _refuse_another_check(Path(out) / outputs.RANGES_JSON.name, path, document)
    stamped, left = case_digest.stamp(document, case_digest.digests(files, breakages), then, commit)
    stored = outputs.write_ranges(out, stamped)
    say(f"ranges: {len(stamped['cases'])} case(s) stamped as unchanged since {commit}; {len(left)} left unstamped "
        f"(changed since, or gone: a --merge keeps their rows unchecked)" + (": " + ", ".join(left) if left else ""))
    say(f"ranges: {stored}")
    return stored


def refuse_empty_corpus(cases: list[str]) -> None:
    """RangeCheckError naming a `--cases` entry that holds no case module: its ranges would silently go unchecked
    (the shipped corpus given by its path is one: its modules are not test_*.py, so a folder's rule finds none)."""
    for entry in cases:
        if entry != BUILTIN and not corpus_files([entry]):
            raise RangeCheckError(f"--cases {entry}: no case module in it (a folder's case modules are its test_*.py "
                                  "files; the shipped corpus is the default, checked without --cases)")


def refuse_inside_without_probes(namespace: Any) -> None:
    """RangeCheckError naming the mode given with `--inside` other than every: --take, --stamp and --records probe
    nothing, so a reach there would be ignored (the check taken or stamped keeps the one it was run with)."""
    if namespace.inside == ranges.INSIDE_EVERY:
        return
    given = next((option for option, name in (("--take", "take"), ("--stamp", "stamp"), ("--records", "records"))
                  if getattr(namespace, name)), None)
    if given:
        raise RangeCheckError(f"--inside {namespace.inside} with {given}: {given} probes nothing, so it reaches "
                              "nowhere inside (a check keeps the --inside it was run with)")


def refuse_beside_take(namespace: Any) -> None:
    """RangeCheckError naming the first mode given with --take: a take probes, merges and stamps nothing."""
    given = [option for option, name in (("--merge", "merge"), ("--stamp", "stamp"), ("--records", "records"),
                                         ("--checked-at", "checked_at")) if getattr(namespace, name)]
    if given:
        raise RangeCheckError(f"--take with {given[0]}: a take probes nothing and adopts one check into one document")
    # A take writes only --ranges-from: a budget, an --out or a cell option would be silently ignored.
    ignored = [option for option, said in (("--budget", namespace.budget != DEFAULT_BUDGET),
                                           ("--out", getattr(namespace, "out", None) is not None)) if said]
    ignored += [f"--{name.replace('_', '-')}" for name in options_given(namespace) if name != "inside"]
    if ignored:
        raise RangeCheckError(f"--take with {ignored[0]}: a take probes nothing and writes only --ranges-from, so "
                              f"{ignored[0]} would be ignored")


def take_check(folder: Path, stored_path: Path, cases: list[str], asked: Sequence[str],
               say: Callable[[str], object]) -> Path:
    """--take: the check in `folder` adopted case by case (of `asked`, where given) into the stored document at
    `stored_path`, rewritten in place (harness.tools.range_take; through a link, the file it names; not at all where
    no case is taken), then what was taken and the census's caught line."""
    check = range_take.read_check(folder)
    range_take.refuse_itself(check, stored_path)
    try:
        stored = outputs.read_ranges(stored_path)
    except ShardmatrixError as exc:
        raise RangeCheckError(f"--ranges-from {exc}") from None
    refuse_unknown_commit(check, cases)
    current, now = declared_keys(corpus_edges(cases)), corpus_digests(cases)
    adopted = range_take.adopt(stored, check, current, now, asked)
    # Only rows that stand for their case now catch a report, as in the docs' census (a stale row catches nothing);
    # read before writing, so a census that cannot be read leaves the stored document as it was.
    standing_rows = fresh([dict(row) for row in adopted.document["edges"]], adopted.document["cases"], now)[0]
    said = census_said(cases, standing_rows, current)
    if adopted.taken:
        outputs.write_stored_ranges(Path(stored_path).resolve(), adopted.document)
    for line in [*range_take.describe(adopted, check, stored_path), *said]:
        say(line)
    return Path(stored_path)


def refuse_unknown_commit(check: range_take.Check, cases: list[str]) -> None:
    """RangeCheckError where the corpus lies in a git checkout and the check names no commit git knows there (none,
    another repository's, one not fetched): the stored document would name a commit no one can check out."""
    commit = check.document["commit"]
    for root in corpus.case_roots(cases):
        if case_digest.head_commit(root) is None:
            continue  # an installed corpus: no git to ask, and a check of it records no commit
        why = "it records no commit" if commit is None else ""
        if commit is not None:
            try:
                case_digest.resolve(str(commit), root)
            except case_digest.DigestError:
                why = f"git knows no commit {commit} where {root} lies (another repository's, or not fetched)"
        if why:
            raise RangeCheckError(f"--take {check.path}: {why}: the stored document would name a commit no one can "
                                  "check out; take a check run in this checkout")


def census_said(cases: list[str], rows: list[dict[str, Any]], current: set[caught.Declared],
                releases: Mapping[str, list[Version]] | None = None) -> list[str]:
    """The census's caught line of each case folder that holds a census, judged on `rows`, and with `releases` its
    pins checked against them."""
    changes = declared_changes(cases)
    # A change warned with no text of its warning was confirmed by whatever warned: it vouches for nothing.
    unvouched = {case for case, change in changes.items() if change.warned and not change.warning}
    lines = []
    for root in corpus.case_roots(cases):
        if census.census_path(root).is_file():
            reports = census.read_census(census.census_path(root))
            found = caught.catches(reports, census.corpus_citations(root), rows, current, unvouched,
                                   joined_sources(corpus_edges(cases)))
            lines.append(f"census of {root.name}: {caught.summary(found)}")
            if releases is not None:
                lines += [f"census of {root.name}: {problem}"
                          for problem in census.problems(reports, census.corpus_citations(root), releases)]
    return lines


def _checked_at(commit: str, root: Path) -> str:
    """The commit --checked-at names, in full: a branch moves and a short hash may grow ambiguous, and a stamp names
    the commit its digests were read at. The check's own `commit` is not held against it: a document merged by hand
    holds rows checked at several commits, each stamped in its turn (a row keeps the first stamp it gets)."""
    return case_digest.resolve(commit, root)


def _refuse_another_check(target: Path, path: Path, document: Mapping[str, Any]) -> None:
    """RangeCheckError where the stamp's target already holds a check other than the one stamped (its rows differ, or
    it cannot be read), or the digests an earlier stamp of it added: writing would lose them. The stamped file itself,
    or an earlier stamp of it from which this one starts, may be replaced."""
    if not target.exists() or (path.exists() and target.resolve() == path.resolve()):
        return
    try:
        held = outputs.read_ranges(target)
    except ShardmatrixError as exc:
        raise RangeCheckError(f"--stamp: {target} is there and is no check this reader reads ({exc}); a stamp "
                              "would replace it: move it aside or give another --out") from None
    if held["edges"] != document.get("edges"):
        raise RangeCheckError(f"--stamp: {target} holds another check ({len(held['edges'])} rows, not the "
                              f"{len(document.get('edges', []))} of {path}); a stamp would replace it: give another "
                              "--out")
    # The same check, stamped before from the same source: restamping the source would drop what that stamp added.
    dropped = sorted(set(held["cases"]) - set(document.get("cases", {})))
    if dropped:
        more = ", ..." if len(dropped) > 1 else ""
        raise RangeCheckError(f"--stamp: {target} holds digests of {len(dropped)} case(s) that {path} lacks "
                              f"({dropped[0]}{more}: an earlier stamp's); stamp {target} itself, or give another --out")


def contradicted(folders: list[Path], cases: list[str], asked: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """--records: (the lines where the records under `folders` contradict the ranges the corpus declares now, of the
    cases asked, else every case; what was left out, then how many) (harness.tools.range_records). RangeCheckError
    for a folder without results, a case asked that declares no range, and records of no case that declares one:
    "no contradiction" from no evidence would read as a clean bill."""
    missing = next((folder for folder in folders if not (folder / "results").is_dir()), None)
    if missing is not None:
        raise RangeCheckError(f"--records {missing}: no results folder in it")
    changes = declared_changes(cases)
    breakages = [entry for path in corpus.known_breakage_files(cases) for entry in known.load(path)]
    ranged = {edge.case for edge in ranges.edges(changes, breakages)}
    unknown = sorted(set(asked) - ranged)
    if unknown:
        raise RangeCheckError(f"--case {unknown[0]}: the corpus declares no range for it")
    read = range_records.read_finals(folders)
    records = [record for record in read.records
               if str(record.get("case_id", "")).partition("[")[0] in (set(asked) or ranged)]
    if not records:
        raise RangeCheckError(f"--records {' '.join(map(str, folders))}: no record of "
                              f"{'the cases asked' if asked else 'a case that declares a range'} under results/ "
                              f"({len(read.records)} record(s) read, {len(read.left)} cell(s) or folder(s) left out): "
                              "nothing to hold against the ranges")
    lines = range_records.contradictions(records, changes, breakages, record_answer)
    counted = (f"ranges: {len(lines)} contradiction(s) in {len(records)} record(s) of cases that declare a range, of "
               f"{len(folders)} folder(s)" + (f"; {len(read.left)} cell(s) or folder(s) left out" if read.left else ""))
    return lines, [*read.left, counted]


def stored_status(argv: list[str], prog: str = "nox -s ranges --") -> int:
    """The exit status of a check: 1 when the document it stored holds a wrong edge, kept by --merge or found now,
    else 0; with --records, 1 when a record contradicts a declared range."""
    namespace = parser(prog).parse_strictly(argv)
    opts = options.from_namespace(namespace)
    if namespace.records:
        return 1 if contradicted(namespace.records, opts.cases, namespace.case)[0] else 0
    # A take rewrote the stored document in place: a wrong edge it still holds (a case left as it was) fails it too.
    report = Path(opts.out) / "report" / outputs.RANGES_JSON.name
    stored = outputs.read_ranges(namespace.ranges_from if namespace.take is not None else report)
    return 1 if any(row["status"] == ranges.WRONG for row in stored["edges"]) else 0
