"""What `nox -s frontier` writes: OUT/frontier/flax-<v>.json per flax release, then from all of them
OUT/report/frontier.csv (exactly COLUMNS), frontier.md (a suggested `jax>=A,<=B` line per release with its evidence)
and frontier.json (what reports.frontier draws). `merge` refuses an incomplete frontier.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness.formats import (
    FRONTIER_FILENAME,
    FRONTIER_SCHEMA_VERSION,
    FrontierFileError,
    ShardmatrixError,
    frontier_document,
    read_frontier,
)
from harness.tools.frontier_search import Frontier
from harness.vocabulary import relative_paths

SCHEMA_VERSION = FRONTIER_SCHEMA_VERSION
COLUMNS = ("flax", "declared_jax", "works_from", "works_to", "first_broken_below", "first_broken_above",
           "cause_below", "cause_above", "probes", "holes")


class IncompleteFrontier(ShardmatrixError, ValueError):
    """A planned flax release has no stored result (or a foreign one): nothing is published."""


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
        where = f"{probe.cell_id}, " if probe.cell_id else ""
        lines.append(f"  probe jax {probe.jax}: {verdict} ({where}{probe.seconds:.0f} s"
                     f"{', reused' if probe.reused else ''})")
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


def store(out: Path, document: dict[str, Any]) -> Path:
    """Write one flax release's result (what a CI job uploads and merge reads)."""
    path = result_path(out, document["flax"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path


def stored(out: Path, flax: str) -> dict[str, Any] | None:
    """One flax release's stored result, None when there is none or it is not one (another schema, unreadable)."""
    try:
        document = read_frontier(result_path(out, flax))
    except FrontierFileError:
        return None
    return document if document.get("flax") == flax else None


def write_report(out: Path, documents: list[dict[str, Any]]) -> Path:
    """OUT/report/frontier.csv, .md and .json from per-release results, newest flax first; returns the csv."""
    # A result stored by an older shardmatrix (or a CI job's runner) may hold venv paths: none reaches a report file.
    documents = sorted((_relative(d) for d in documents), key=lambda d: Version(d["flax"]), reverse=True)
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
    (folder / FRONTIER_FILENAME).write_text(json.dumps(frontier_document(jax, documents), indent=1), encoding="utf-8")
    return folder / "frontier.csv"


def _relative(document: dict[str, Any]) -> dict[str, Any]:
    """A stored result with every path in its row, evidence and probe causes package-relative."""
    return {**document,
            "row": {k: relative_paths(str(v)) for k, v in document["row"].items()},
            "evidence": [relative_paths(line) for line in document["evidence"]],
            "probes": [{**p, "cause": relative_paths(str(p.get("cause", "")))} for p in document.get("probes", [])]}


def merge(out: Path, planned: list[str]) -> Path:
    """Write the report from the stored per-release results; IncompleteFrontier naming every planned release
    without one (an incomplete frontier is not published)."""
    documents = {flax: stored(out, flax) for flax in planned}
    missing = [flax for flax, document in documents.items() if document is None]
    if missing:
        raise IncompleteFrontier(f"incomplete frontier: no result for flax {', '.join(missing)} (its job failed or "
                                 f"uploaded nothing, or one of another schema than {SCHEMA_VERSION}); nothing "
                                 "published")
    return write_report(out, [d for d in documents.values() if d is not None])
