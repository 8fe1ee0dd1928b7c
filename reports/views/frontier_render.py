"""The frontier view: flax releases (rows, newest first) by jax releases, the measured range beside the declared one.

Reads OUT/report/frontier.json, written by `nox -s frontier`; renders it as an HTML fragment (`html_fragment`) and
as Markdown (`markdown`), for the report pages to include. "Measured" is the whole corpus's range (documented
changes excepted), "core cases" the smoke cases' range it was confirmed inside. Each grid cell says what is known of
that pair:

    probed and works / probed and broken / inside the measured range, not probed /
    allowed by flax's declared bound but outside the measured range, not probed / neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from harness.outputs import FRONTIER_FILENAME, FRONTIER_SCHEMA_VERSION, read_frontier
from harness.outputs import FrontierFileError as FrontierFileError  # what a reader of this view catches
from reports.verdicts.frontier_judge import deciding_probe, probe_works

SCHEMA_VERSION = FRONTIER_SCHEMA_VERSION
FILENAME = FRONTIER_FILENAME

WORKS = "\N{CHECK MARK}"
BROKEN = "\N{BALLOT X}"
IN_RANGE = "\N{MIDDLE DOT}"
DECLARED_ONLY = "\N{WHITE CIRCLE}"
LEGEND = (
    (WORKS, "probed: works (every case where it ran them all, else the core cases)"),
    (BROKEN, "probed: does not work (a case fails undocumented, a core case is broken, or the pair does not install)"),
    (IN_RANGE, "inside the measured range, not probed"),
    (DECLARED_ONLY, "allowed by flax's declared jax bound, outside the measured range, not probed"),
    ("(blank)", "outside flax's declared jax requirement: no installer pairs them, so never probed"),
)


@dataclass(frozen=True)
class Mark:
    """One grid cell: its symbol, its class name, and the hover text (the probe's cell and cause)."""

    symbol: str
    kind: str
    title: str


def load(report_dir: Path) -> dict[str, Any] | None:
    """The frontier of a report folder; None when `nox -s frontier` wrote none there (harness.outputs reads it)."""
    path = Path(report_dir) / FILENAME
    return read_frontier(path) if path.is_file() else None


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def mark(release: dict[str, Any], jax: str) -> Mark:
    """What is known of one (flax, jax) pair."""
    # A pair probed twice shows the word that stands (reports.verdicts.frontier_judge).
    probed = [probe for probe in release["probes"] if probe["jax"] == jax]
    row = release["row"]
    if probed:
        probe = deciding_probe(probed)
        if probe_works(probe):
            return Mark(WORKS, "works", f"{probe['cell']}: works")
        return Mark(BROKEN, "broken", f"{probe['cell']}: {probe['cause']}")
    inside = bool(row["works_from"]) and _key(row["works_from"]) <= _key(jax) <= _key(row["works_to"])
    if inside:
        return Mark(IN_RANGE, "in-range", "inside the measured range, not probed")
    if jax in release.get("declared_ok", []):
        return Mark(DECLARED_ONLY, "declared", f"declared jax{row['declared_jax']}, outside the measured range")
    return Mark("", "", "")


def core(release: dict[str, Any]) -> str:
    """The core (smoke) cases' range as text: 'A to B', or 'none'."""
    row = release["row"]
    return f"{row['core_from']} to {row['core_to']}" if row.get("core_from") else "none"


def measured(release: dict[str, Any]) -> str:
    """The measured (whole-corpus) range as text: 'A to B', 'A to B except H', or 'none'."""
    row = release["row"]
    if not row["works_from"]:
        return "none"
    holes = f" except {row['holes']}" if row["holes"] else ""
    return f"{row['works_from']} to {row['works_to']}{holes}"


def _ordered(data: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    releases = sorted(data["releases"], key=lambda r: _key(r["flax"]), reverse=True)
    return releases, sorted(data["jax"], key=_key)


def markdown(data: dict[str, Any]) -> str:
    """The frontier as a Markdown section: the grid, then the suggested requirement of each flax release."""
    releases, jax = _ordered(data)
    lines = ["## Frontier: the jax range each flax release works with", "",
             "; ".join(f"{symbol} {meaning}" for symbol, meaning in LEGEND), "",
             "| flax | declared | core cases | measured | probes | " + " | ".join(jax) + " |",
             "| --- | --- | --- | --- | --- | " + " | ".join("---" for _ in jax) + " |"]
    for release in releases:
        row = release["row"]
        cells = " | ".join(mark(release, version).symbol for version in jax)
        lines.append(f"| {row['flax']} | jax{row['declared_jax'] or ' (any)'} | {core(release)} | "
                     f"{measured(release)} | {row['probes']} | {cells} |")
    lines += ["", "Suggested requirements:", ""]
    lines += [f"- flax {r['flax']}: `{r['requirement']}`" for r in releases]
    return "\n".join(lines) + "\n"


def html_fragment(data: dict[str, Any]) -> str:
    """The frontier as an HTML <section> (a table with a hover text per probed pair), for a report page."""
    releases, jax = _ordered(data)
    head = "".join(f"<th>{escape(version)}</th>" for version in jax)
    body = []
    for release in releases:
        row = release["row"]
        marks = (mark(release, version) for version in jax)
        cells = "".join(f'<td class="frontier-{m.kind}" title="{escape(m.title)}">{escape(m.symbol)}</td>'
                        if m.kind else "<td></td>" for m in marks)
        body.append(f"<tr><th>{escape(row['flax'])}</th><td>jax{escape(row['declared_jax'] or ' (any)')}</td>"
                    f"<td>{escape(core(release))}</td><td>{escape(measured(release))}</td>"
                    f"<td>{escape(row['probes'])}</td>{cells}{_suggested(release['requirement'])}</tr>")
    legend = "".join(f"<li>{escape(symbol)} {escape(meaning)}</li>" for symbol, meaning in LEGEND)
    lines = "".join(f"<li>flax {escape(r['flax'])}: <code>{escape(r['requirement'])}</code></li>" for r in releases)
    # The grid scrolls inside its own box: 30-odd jax columns do not fit a page, and the page should not scroll.
    return ('<section id="frontier"><h2>Frontier: the jax range each flax release works with</h2>'
            f'<ul class="legend">{legend}</ul><div class="frontier-scroll"><table class="frontier"><thead><tr>'
            f"<th>flax</th><th>declared</th><th>core cases</th><th>measured</th><th>probes</th>{head}"
            f"<th>suggested</th></tr></thead><tbody>{''.join(body)}</tbody></table></div>"
            f'<p>Suggested requirements, with the cases that narrow them:</p><ul class="frontier-lines">{lines}</ul>'
            "</section>")


def _suggested(requirement: str) -> str:
    """The grid's last cell: the requirement itself (none where nothing works), its comment in the hover text; the
    whole lines are listed under the grid."""
    spec, _, comment = requirement.partition("#")
    shown = spec.strip() or "none"
    return f'<td title="{escape(comment.strip())}"><code>{escape(shown)}</code></td>'

