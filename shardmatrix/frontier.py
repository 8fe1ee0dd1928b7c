"""`nox -s frontier`: the range of jax releases each flax release really works with, measured, not declared.

Flax declares only a lower bound on jax, and some of those bounds are false. For each flax release the search
(shardmatrix.frontier_search, then shardmatrix.frontier_corpus) finds the core range, where the smoke subset of
the corpus (cases marked `smoke=True`, shardmatrix.smoke) works, then confirms it with every case: the range
reported is where the whole corpus works by the compatibility verdict (reports.verdicts.compat, through
reports.verdicts.frontier_judge; documented changes excepted), and each case that narrows it gets its own range.

Each probe is an ordinary cell (`jax<j>-flax<f>-py<p>`, jaxlib == jax) run through harness.host.cellrun.probe, so its
results are reused, through the results cache, by a later probe of the same pair with the same inputs (environment,
case sources, selection, settings). Whole-corpus probes are cells of the run under OUT/results (a report shows them,
and a matrix cell of the same pair answers for one); core probes keep theirs under OUT/frontier-core. A pair is
tried on each Python this machine has that the packages' files admit (shardmatrix.releases), the pair's own
choice first, until one installs: "cannot be installed" then means on none of them. Flax releases are measured
--jobs at a time, the longest (by the stored durations of their last probes) first.

    python -m shardmatrix.frontier run [--flax SPEC] [--jax SPEC] [--jobs N] [--out DIR]   (`nox -s frontier`)
    python -m shardmatrix.frontier plan [--flax SPEC]       the flax releases as a CI matrix, one JSON line
    python -m shardmatrix.frontier merge --plan FILE [--out DIR]   the jobs' results into one report; refuses
                                                                     (exit 1) when a planned release has none

Writes OUT/frontier/flax-<v>.json per flax release, then OUT/report/frontier.csv, frontier_cases.csv, .md and .json
(shardmatrix.frontier_report).
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from harness import outputs
from harness.formats import ShardmatrixError, command
from harness.host import cellenv, cellrun, corpus, durations, interpreters, options, unreleased
from harness.host.matrix import Cell
from harness.host.options import Options
from harness.tools import index, pins
from harness.vocabulary import INSTALL_CAUSE
from shardmatrix import frontier_corpus, frontier_report, releases, smoke
from shardmatrix.frontier_search import Frontier, Probe

#: An install failure that another Python may not have: the installer names the Python, a wheel or an ABI tag.
PYTHON_SPECIFIC = re.compile(r"python|wheel|\babi\b|\bcp3\d+", re.IGNORECASE)
DEFAULT_FLAX = ">=0.8.0"
DEFAULT_JAX = ">=0.4.30"


class FrontierError(ShardmatrixError, ValueError):
    """A frontier that cannot be asked as given, phrased as one line; nothing is built."""


def parse_spec(text: str, flag: str) -> SpecifierSet:
    """A PEP 440 specifier set, or FrontierError naming the flag."""
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise FrontierError(f"{flag} {text!r} is not a version specifier like '>=0.4.30,<0.9'") from None


# --- the command line ------------------------------------------------------------------------------------------------

def parser(prog: str = "nox -s frontier --") -> options.Parser:
    """Arguments of `nox -s frontier --`: which flax and jax releases, and the shared options of a run."""
    p = options.Parser(prog=prog, parents=[options.parser(add_help=False)])
    p.add_argument("--flax", default=DEFAULT_FLAX, metavar="SPEC",
                   help=f"flax releases to measure, a PEP 440 specifier (default {DEFAULT_FLAX}), or one source "
                        "such as 'flax @ file:///src/flax'")
    p.add_argument("--jax", default=DEFAULT_JAX, metavar="SPEC",
                   help=f"jax releases to measure against (default {DEFAULT_JAX})")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="flax releases measured at once, one probe each (default: one per core)")
    return p


class Prober:
    """Probes for one frontier run: each (jax, flax) pair as a cell on the first Python it installs on, running the
    core (smoke) cases or every case."""

    def __init__(self, opts: Options, nodes: dict[str, Path], found: releases.Releases, pythons: list[str],
                 say: Callable[[str], object], additions: cellenv.Additions | None = None) -> None:
        self.opts, self.nodes, self.found, self.pythons, self.say = opts, nodes, found, pythons, say
        self.additions = additions or cellenv.Additions()
        # A project's core is every test of it: its whole-corpus probe is its core probe, run once.
        self.core_is_everything = bool(self.additions.project)
        self.made: dict[tuple[Version, Version], Probe] = {}
        # Core probes keep their results apart (OUT/frontier-core): a cell id of one run holds one selection's
        # records, the whole-corpus probes under OUT/results are ordinary cells a report shows, and a CI job uploads
        # OUT/frontier alone.
        self.core_opts = replace(opts, out=Path(opts.out) / "frontier-core")

    def pythons_for(self, jax: Version, flax: Version) -> list[str]:
        """The Pythons to try for a pair: those its files admit, from the pair's own choice (pins.python_for)."""
        admitted = self.found.pythons(jax, flax, self.pythons)
        return releases.preferred_order(admitted, pins.python_for(str(jax), str(flax)))

    def probe(self, jax: Version, flax: Version, corpus: bool = False) -> Probe:
        """One pair's verdict; an install error moves on to the next Python, and each try is its own cell."""
        if corpus and self.core_is_everything:
            return replace(self.made.get((jax, flax)) or self.probe(jax, flax), corpus=True)
        started = time.monotonic()
        tried = self.pythons_for(jax, flax)
        if not tried:
            cause = (f"{INSTALL_CAUSE}: no Python of this machine ({', '.join(self.pythons)}) has files of jax, "
                     f"jaxlib {jax} and flax {flax}")
            return self._said(flax, Probe(jax, False, cause, "", time.monotonic() - started, verdict="not_built",
                                          corpus=corpus))
        first = None
        for python in tried:
            cell = cellenv.apply(pins.make_cell(str(jax), str(flax), python), self.additions)
            result = self._one(cell, jax, corpus, started)
            if not result.cause.startswith(INSTALL_CAUSE):
                self.made[jax, flax] = result
                return self._said(flax, result)
            first = first or result
            if not PYTHON_SPECIFIC.search(result.cause):  # a conflict of the pins themselves: no Python does better
                tried = tried[:tried.index(python) + 1]
                break
        assert first is not None
        on = "Python " + ", ".join(tried)
        cause = first.cause.replace(INSTALL_CAUSE, f"{INSTALL_CAUSE} on {on}", 1) if len(tried) > 1 else first.cause
        return self._said(flax, replace(first, cause=cause, seconds=time.monotonic() - started))

    def _one(self, cell: Cell, jax: Version, corpus: bool, started: float) -> Probe:
        """One cell's run and its verdict (reports.verdicts.frontier_judge: reports.verdicts.compat's)."""
        # Here, not at the top: `plan` and `merge`, and the command's --help, import no pandas; only a run needs it.
        from reports.verdicts import frontier_judge

        if corpus:
            ran = cellrun.probe(cell, self.opts, None, say=lambda line: None)
        else:
            ran = cellrun.probe(cell, self.core_opts, list(self.nodes.values()), say=lambda line: None)
        judged = frontier_judge.judge(ran.files.results, ran.complete, list(self.nodes))
        return Probe(jax, judged.works, judged.cause, cell.id, time.monotonic() - started, ran.reused,
                     judged.verdict, corpus, judged.failing, judged.known)

    def _said(self, flax: Version, probe: Probe) -> Probe:
        kind = "every case" if probe.corpus else "core"
        verdict = probe.verdict or ("works" if probe.works else "broken")
        self.say(f"  flax {flax} x jax {probe.jax} ({kind}): {verdict}{'' if probe.works else ': ' + probe.cause} "
                 f"({probe.cell_id or 'no cell'}, {probe.seconds:.0f} s{', reused' if probe.reused else ''})")
        return probe


def every_node(cases: list[str]) -> dict[str, Path]:
    """{case id: pytest node} of every test in the corpus (a project's tests)."""
    return {case_id: Path(f"{file}::{case_id.partition('::')[2]}")
            for path in corpus.case_paths(cases) for file in ([path] if path.is_file() else sorted(path.rglob("*.py")))
            for case_id, _ in corpus.expected_cases([file])}


def expected_seconds(out: Path, flax: Version, seconds: dict[str, float]) -> float | None:
    """What measuring a flax release cost last time: the durations of the cells its stored result probed."""
    document = frontier_report.stored(out, str(flax))
    if document is None:
        return None
    cells = [p.get("cell") for p in document.get("probes", []) if p.get("cell")]
    known = [seconds[c] for c in cells if c in seconds]
    return sum(known) if known else None


def run(argv: list[str], fetch: index.Fetch = index.fetch_json, say: Callable[[str], object] = print,
        pythons: list[str] | None = None, prog: str = "nox -s frontier --") -> list[Frontier]:
    """`nox -s frontier --`: measure every flax release asked for, write the results and the report."""
    namespace = parser(prog).parse_strictly(argv)
    opts = options.from_namespace(namespace)
    additions = cellenv.prepare(opts)
    source = unreleased.resolve(namespace.flax) if unreleased.is_reference(namespace.flax) else None
    flax_spec = SpecifierSet() if source else parse_spec(namespace.flax, "--flax")
    jax_spec = parse_spec(namespace.jax, "--jax")
    if namespace.jobs < 1:
        raise FrontierError(f"--jobs {namespace.jobs}: must be at least 1")
    # A project works when all its tests pass; the shipped corpus, when its smoke cases do.
    nodes = every_node(opts.cases) if additions.project else smoke.smoke_nodes(opts.cases)
    found = releases.releases(flax_spec, jax_spec, fetch)
    declared: dict[Version, SpecifierSet] = {}
    if source is not None:
        # One flax, from its source: named by version and build, its declared jax read from what was built.
        found.flax = [Version(source.tag)]
        additions = replace(additions, origins=(*additions.origins, source))
        declared[found.flax[0]] = index.requirement_of(unreleased.requires(source), "jax") or SpecifierSet()
    pythons = interpreters.available() if pythons is None else pythons
    say(f"frontier: {len(found.flax)} flax release(s) x {len(found.jax)} jax release(s) "
        f"({found.jax[0]} to {found.jax[-1]}), Python {', '.join(pythons) or '(none found)'}, {namespace.jobs} at "
        f"once; smoke: {', '.join(sorted(nodes))}")
    prober = Prober(opts, nodes, found, pythons, say, additions)
    seconds = durations.cell_seconds()
    order = durations.longest_first(found.flax, lambda flax: expected_seconds(opts.out, flax, seconds))
    lock = threading.Lock()

    def one(flax: Version) -> tuple[Frontier, dict[str, Any]]:
        began = time.monotonic()
        requirement = declared.get(flax) or releases.declared_jax(flax, found.flax_document, fetch)
        start = releases.contemporary(found.flax_dates.get(flax), found.jax_dates, found.jax)
        result = frontier_corpus.measure(flax, requirement, found.jax,
                                         lambda jax, corpus: prober.probe(jax, flax, corpus), start)
        document = frontier_report.to_json(result, requirement)
        document["seconds"] = round(time.monotonic() - began, 1)  # this release's wall, for `nox -s bench`
        frontier_report.store(opts.out, document)
        with lock:  # one release's evidence stays together while other releases are measured
            for line in document["evidence"]:
                say(line)
        return result, document

    with ThreadPoolExecutor(max_workers=namespace.jobs) as pool:
        done = dict(zip(order, pool.map(one, order), strict=True))
    measured = [done[flax][0] for flax in found.flax]
    say(f"frontier: {frontier_report.write_report(opts.out, [done[flax][1] for flax in found.flax])}")
    return measured


def plan(flax_spec: str, fetch: index.Fetch = index.fetch_json) -> list[dict[str, str]]:
    """The flax releases a CI frontier run measures, one matrix entry each."""
    spec = parse_spec(flax_spec, "--flax")
    selected = [v for v in index.releases("flax", fetch) if v in spec]
    if not selected:
        raise FrontierError(f"--flax {flax_spec} selects no flax release")
    return [{"flax": str(v)} for v in selected]


@command
def main(argv: Sequence[str] | None = None) -> int:
    """`python -m shardmatrix.frontier run|plan|merge ...`; 64 with one line on stderr for bad input, 1 for an
    incomplete merge."""
    args = list(sys.argv[1:] if argv is None else argv)
    command_name, rest = (args[0], args[1:]) if args else ("", [])
    try:
        if command_name == "run":
            run(rest)
        elif command_name == "plan":
            p = options.Parser(prog="python -m shardmatrix.frontier plan")
            p.add_argument("--flax", default=DEFAULT_FLAX, metavar="SPEC")
            print(outputs.plan_json(outputs.FRONTIER_PLAN, plan(p.parse_strictly(rest).flax or DEFAULT_FLAX)))
        elif command_name == "merge":
            p = options.Parser(prog="python -m shardmatrix.frontier merge")
            p.add_argument("--plan", required=True, metavar="FILE", help="the plan's JSON ('-': stdin)")
            p.add_argument("--out", type=Path, default=Path("out"), metavar="DIR")
            parsed = p.parse_strictly(rest)
            where = "stdin" if parsed.plan == "-" else parsed.plan
            text = outputs.plan_text(parsed.plan, sys.stdin, "--plan")
            planned = [entry["flax"] for entry in outputs.read_plan(text, outputs.FRONTIER_PLAN, "flax", where)]
            print(f"frontier: {frontier_report.merge(parsed.out, planned)}")
        else:
            raise FrontierError("usage: python -m shardmatrix.frontier run|plan|merge ...")
    except frontier_report.IncompleteFrontier as error:
        print(f"shardmatrix: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
