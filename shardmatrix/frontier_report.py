"""What `nox -s frontier` writes: OUT/frontier/flax-<v>.json per flax release, then from all of them
OUT/report/frontier.csv (exactly COLUMNS), frontier.md (a suggested `jax>=A,<=B` line per release with its evidence)
and frontier.json (what reports.views.frontier_render draws). `merge` refuses an incomplete frontier.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness import outputs, vocabulary
from harness.formats import ShardmatrixError
from harness.outputs import FRONTIER_SCHEMA_VERSION, FrontierFileError
from harness.vocabulary import relative_paths
from shardmatrix.frontier_search import CHECKS, HOLE_NEIGHBOURS, INTERIOR, SEEDS, Frontier, Probe, hole_chance

SCHEMA_VERSION = FRONTIER_SCHEMA_VERSION
COLUMNS = outputs.FRONTIER_COLUMNS
CASE_COLUMNS = outputs.FRONTIER_CASE_COLUMNS


class IncompleteFrontier(ShardmatrixError, ValueError):
    """A planned flax release has no stored result (or a foreign one): nothing is published."""


def _text(version: Version | None) -> str:
    return "" if version is None else str(version)


def _jax(probe: Probe | None) -> str:
    return "" if probe is None else str(probe.jax)


def row(found: Frontier) -> dict[str, str]:
    """The csv row of one flax release (COLUMNS, in order)."""
    return {
        "flax": str(found.flax),
        "declared_jax": found.declared,
        "core_from": _text(found.core_from),
        "core_to": _text(found.core_to),
        "works_from": _text(found.works_from),
        "works_to": _text(found.works_to),
        "first_broken_below": _jax(found.below),
        "first_broken_above": _jax(found.above),
        "cause_below": found.nowhere or (found.below.cause if found.below else ""),
        "cause_above": found.nowhere or (found.above.cause if found.above else ""),
        "probes": str(len(found.probes)),
        "holes": " ".join(str(p.jax) for p in _holes(found)),
        "hole_chance": _chance(found),
        "narrower": " ".join(c.case for c in found.cases),
        "known_bugs": " ".join(found.known_bugs) if found.works_from else "",
        "stopped": found.stopped,
    }


def case_rows(found: Frontier) -> list[dict[str, str]]:
    """The frontier_cases.csv rows of one flax release (CASE_COLUMNS, in order)."""
    return [{"flax": str(found.flax), "case": c.case, "works_from": _text(c.works_from), "works_to": _text(c.works_to),
             "first_broken_below": _jax(c.below), "first_broken_above": _jax(c.above),
             "cause_below": c.cause(c.below), "cause_above": c.cause(c.above)} for c in found.cases]


def _holes(found: Frontier) -> list[Probe]:
    """The holes inside the reported range (the whole corpus's; the core's when the corpus has none)."""
    low, high = (found.works_from, found.works_to) if found.works_from else (found.core_from, found.core_to)
    return [p for p in found.holes if low is not None and high is not None and low < p.jax < high]


def _chance(found: Frontier) -> str:
    """The chance the search had to find one failing release placed at random inside the core range (a percentage;
    empty without a range): frontier_search.hole_chance of the releases it probed there."""
    if found.core_from is None or found.core_to is None:
        return ""
    index = {v: i for i, v in enumerate(found.candidates)}
    probed = [index[p.jax] for p in found.probes if p.jax in index]
    return f"{100 * hole_chance(index[found.core_from], index[found.core_to], probed):.0f}"


def requirement(found: Frontier) -> str:
    """The suggested jax requirement line: the whole-corpus range minus its holes, naming the narrower cases."""
    cases = ", ".join(f"{c.case} ({_span(c.works_from, c.works_to)})" for c in found.cases)
    core = f"jax>={found.core_from},<={found.core_to}"
    if found.stopped and found.works_from is None:
        return f"# flax {found.flax}: no range: the search {found.stopped}"
    if found.core_from is None:
        return f"# flax {found.flax}: no jax release works ({found.nowhere})"
    if found.works_from is None:
        return (f"# flax {found.flax}: no jax release passes the whole corpus; the core cases work with {core}"
                + (f"; narrower: {cases}" if cases else f" ({found.nowhere})"))
    holes = "".join(f",!={p.jax}" for p in _holes(found))
    narrower = f"  # narrower than the core's {core}: {cases}" if cases else ""
    bugs = f"  # known upstream bugs inside: {' '.join(found.known_bugs)}" if found.known_bugs else ""
    return f"jax>={found.works_from},<={found.works_to}{holes}{narrower}{bugs}"


def _span(low: Version | None, high: Version | None) -> str:
    return "works with none probed" if low is None else f"{low} to {high}"


def evidence(found: Frontier) -> list[str]:
    """The lines that back one release's suggested requirement: declared, both ranges, edges with causes, narrower
    cases, holes, every probe."""
    lines = [f"flax {found.flax}: {requirement(found)}   (declared: jax{found.declared or ' (no bound)'})"]
    if found.core_from is not None:
        lines.append(f"  core (smoke) cases: jax {found.core_from} to {found.core_to}; whole corpus: "
                     f"{_span(found.works_from, found.works_to) if not found.nowhere else 'none'}")
    if found.works_from is not None and found.works_from == found.candidates[0]:
        lines.append(f"  lower edge: works with the oldest jax asked for ({found.works_from}); older ones are untested")
    if found.works_to is not None and found.works_to == found.candidates[-1]:
        lines.append(f"  upper edge: works with the newest jax asked for ({found.works_to}); later releases are "
                     "untested")
    for side, probe in (("below", found.below), ("above", found.above)):
        if probe is not None:
            lines.append(f"  broken {side}: jax {probe.jax} ({probe.cell_id or 'not probed'}"
                         f"{', every case' if probe.corpus else ''}): {probe.verdict or 'broken'}: {probe.cause}")
    for case in found.cases:
        sides = "".join(f"; broken {side} at {probe.jax}: {case.cause(probe)}"
                        for side, probe in (("below", case.below), ("above", case.above)) if probe is not None)
        lines.append(f"  narrower: {case.case}: {_span(case.works_from, case.works_to)}{sides}")
    if found.works_from is not None:
        lines += [f"  known upstream bug inside the whole-corpus range: {bug}" for bug in found.known_bugs]
    for hole in _holes(found):
        lines.append(f"  hole: jax {hole.jax} ({hole.cell_id}): {hole.cause}")
    if found.stopped:
        lines.append(f"  the search {found.stopped}")
    spent = f"{found.spent(False)} of {found.budget.core} core, {found.spent(True)} of {found.budget.corpus} " \
            "whole-corpus"
    lines.append(f"  probes: {spent}")
    for probe in sorted(found.probes, key=lambda p: (p.jax, p.corpus)):
        verdict = probe.verdict or ("works" if probe.works else "broken")
        why = "" if probe.works else f": {probe.cause}"
        where = f"{probe.cell_id}, " if probe.cell_id else ""
        lines.append(f"  probe jax {probe.jax} ({'every case' if probe.corpus else 'core'}): {verdict}{why} "
                     f"({where}{probe.seconds:.0f} s{', reused' if probe.reused else ''})")
    return lines


def to_json(found: Frontier, declared: SpecifierSet) -> dict[str, Any]:
    """One flax release's result as stored in OUT/frontier/flax-<v>.json (what merge and reports read)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "flax": str(found.flax),
        "row": row(found),
        "cases": case_rows(found),
        "requirement": requirement(found),
        "evidence": evidence(found),
        "candidates": [str(v) for v in found.candidates],
        "declared_ok": [str(v) for v in found.candidates if v in declared],
        "budget": {"core": found.budget.core, "corpus": found.budget.corpus},
        "probes": [{"jax": str(p.jax), "works": p.works, "verdict": p.verdict, "corpus": p.corpus, "cause": p.cause,
                    "cell": p.cell_id, "seconds": round(p.seconds, 1), "reused": p.reused} for p in found.probes],
    }


def result_path(out: Path, flax: str) -> Path:
    """Where one flax release's frontier result is stored (harness.outputs decides)."""
    return outputs.frontier_release_path(out, flax)


def store(out: Path, document: dict[str, Any]) -> Path:
    """Write one flax release's result (what a CI job uploads and merge reads)."""
    return outputs.write_document(result_path(out, document["flax"]), outputs.FRONTIER_RELEASE, document)


def stored(out: Path, flax: str) -> dict[str, Any] | None:
    """One flax release's stored result (an older schema migrated), None when there is none or it is not one (a
    newer schema, unreadable)."""
    try:
        document = outputs.read_frontier_release(result_path(out, flax))
    except FrontierFileError:
        return None
    return document if document.get("flax") == flax else None


def write_report(out: Path, documents: list[dict[str, Any]]) -> Path:
    """OUT/report/frontier.csv, frontier_cases.csv, .md and .json from per-release results, newest flax first;
    returns the csv."""
    # A result stored by an older shardmatrix (or a CI job's runner) may hold venv paths: none reaches a report file.
    documents = sorted((_relative(d) for d in documents), key=lambda d: Version(d["flax"]), reverse=True)
    folder = Path(out) / "report"
    table = outputs.write_dicts(folder / outputs.FRONTIER_CSV.name, outputs.FRONTIER_CSV, COLUMNS,
                                [{name: d["row"].get(name, "") for name in COLUMNS} for d in documents])
    outputs.write_dicts(folder / outputs.FRONTIER_CASES_CSV.name, outputs.FRONTIER_CASES_CSV, CASE_COLUMNS,
                        [{name: case.get(name, "") for name in CASE_COLUMNS} for d in documents
                         for case in d.get("cases", [])])
    lines = [*summary(documents), "## Every probe", ""]
    for document in documents:
        lines += ["```text", *document["evidence"], "```", ""]
    outputs.write_atomically(folder / outputs.FRONTIER_MD, "\n".join(lines))
    jax = sorted({v for d in documents for v in d["candidates"]}, key=Version)
    outputs.write_document(folder / outputs.FRONTIER_JSON.name, outputs.FRONTIER_JSON,
                           outputs.frontier_document(jax, documents))
    return table


def summary(documents: list[dict[str, Any]]) -> list[str]:
    """The top of frontier.md, every word generated from the results: what was measured, the table (the one the
    README shows), how a hole is found and how likely one was to be missed, and the probe budget."""
    jax = sorted({v for d in documents for v in d["candidates"]}, key=Version)
    lines = ["# The jax range each flax release works with", "",
             f"Measured by `nox -s frontier`: {len(documents)} flax release(s) against {len(jax)} jax release(s)"
             + (f" ({jax[0]} to {jax[-1]})" if jax else "") + ", in cells of that flax with jaxlib == jax. "
             "*Core* is where the core (smoke) cases work, found by bisection; *whole corpus* is where every case "
             "works by the compatibility verdict (works, works with warnings, works for current code or works except "
             "known bugs: documented changes and declared known upstream bugs excepted, the bugs that fail inside it "
             "listed beside it), confirmed by running every case at the last-good and first-broken jax of each edge. "
             "A case that narrows the whole-corpus range is named with its own range "
             f"({outputs.FRONTIER_CASES_CSV.name}).",
             "",
             "| flax | declared | core cases | whole corpus | first broken below | first broken above | narrower "
             "cases | hole found with | probes |",
             "| --- | --- | --- | --- | --- | --- | --- | --: | --: |"]
    for document in documents:
        row, cases = document["row"], document.get("cases", [])
        core = f"{row['core_from']} to {row['core_to']}" if row["core_from"] else "none"
        whole = f"{row['works_from']} to {row['works_to']}" if row["works_from"] else "none"
        whole += f" except {row['holes']}" if row["holes"] else ""
        narrower = "; ".join(f"`{c['case']}`: " + (f"{c['works_from']} to {c['works_to']}" if c["works_from"]
                                                   else "none") for c in cases) or "-"
        chance = f"{row['hole_chance']} %" if row["hole_chance"] else "-"
        bugs = row.get("known_bugs", "").split()
        named = ", ".join(f"[{vocabulary.link_name(bug)}]({bug})" for bug in bugs)
        whole += f" (known upstream bugs inside: {named})" if bugs and row["works_from"] else ""
        lines.append(f"| {row['flax']} | jax{row['declared_jax'] or ' (any)'} | {core} | {whole} | "
                     f"{_edge(row, 'below')} | {_edge(row, 'above')} | {narrower} | {chance} | {row['probes']} |")
    budgets = sorted({(len(d["candidates"]), d["budget"]["core"], d["budget"]["corpus"]) for d in documents
                      if "budget" in d})
    lines += ["", f"A hole is a failing jax release inside a working range. The search finds one only where it "
              "probes: at the known-good jax it starts from, at the bisection steps that land inside the range, at "
              f"the release just past each edge's first-broken one ({CHECKS} probes, which tell a one-release hole "
              f"the bisection landed on from the edge), and at {INTERIOR} more probes, each in the middle of the "
              "widest unprobed stretch inside the range. So one failing release at a random place inside the core "
              "range is found with the chance in the column *hole found with*: the share of the releases inside the "
              "range that were probed (exact: the search with the hole probes what it would without, until it probes "
              "the hole; but for the jax it starts from, which is found only when another seed works). A hole it "
              "misses is reported as working. A hole that only a non-core case shows is found "
              "only where a whole-corpus probe lands; once found, its neighbours are probed with every case, outwards "
              "until one works, so a hole is reported as wide as the failing releases around it.", "",
              "Probe budget per flax release over N jax releases, L = ceil(log2 N): core 3L + "
              f"{SEEDS + CHECKS + 1 + INTERIOR} (the seeds, both edges bisected and checked, one hole at an edge "
              "paid for, the interior probes), whole corpus 2L + "
              f"{4 + HOLE_NEIGHBOURS} (both edges' last-good and first-broken jax, each edge bisected once more for "
              "the cases that narrow it, a hole the whole corpus finds widened by a release each way)"
              + "".join(f"; N = {n}: {core} core, {corpus} whole-corpus" for n, core, corpus in budgets)
              + ". The search stops at it and says so in the csv's `stopped` column.", ""]
    return lines


def _edge(row: dict[str, str], side: str) -> str:
    """A table cell for the first broken jax on one side: the jax and its cause, or why there is none."""
    jax, cause = row[f"first_broken_{side}"], row[f"cause_{side}"]
    if not jax:
        if row["works_from"]:
            return "(newest asked works)" if side == "above" else "(none older asked)"
        # No whole-corpus range: the narrower cases say why when the core works; else the cause, once.
        cause = cause if side == "below" and not row["core_from"] else "-"
    cut = cause if len(cause) <= 120 else cause[:117] + "..."
    return (f"{jax}: {cut}" if jax else cut).replace("|", "\\|")


def _relative(document: dict[str, Any]) -> dict[str, Any]:
    """A stored result with every path in its row, evidence and probe causes package-relative."""
    return {**document,
            "row": {k: relative_paths(str(v)) for k, v in document["row"].items()},
            "cases": [{k: relative_paths(str(v)) for k, v in case.items()} for case in document.get("cases", [])],
            "evidence": [relative_paths(line) for line in document["evidence"]],
            "probes": [{**p, "cause": relative_paths(str(p.get("cause", "")))} for p in document.get("probes", [])]}


def merge(out: Path, planned: list[str]) -> Path:
    """Write the report from the stored per-release results; IncompleteFrontier naming every planned release
    without one, and why (an incomplete frontier is not published)."""
    documents: dict[str, dict[str, Any]] = {}
    missing: list[str] = []
    for flax in planned:
        path = result_path(out, flax)
        if not path.exists():
            missing.append(flax)
            continue
        try:
            document = outputs.read_frontier_release(path)
        except FrontierFileError as error:
            missing.append(f"{flax} ({error})")
            continue
        if document["flax"] != flax:
            missing.append(f"{flax} ({path} holds flax {document['flax']})")
            continue
        documents[flax] = document
    if missing:
        raise IncompleteFrontier(f"incomplete frontier: no result for flax {', '.join(missing)} (its job failed or "
                                 "uploaded nothing); nothing published")
    return write_report(out, list(documents.values()))
