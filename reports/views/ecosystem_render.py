"""The Ecosystem report drawn as Markdown and HTML: the whole page (the grid of projects by {baseline, candidate},
the causes across projects with their fixes and reproducers, what was skipped) and a body short enough for a
pull-request comment or the rolling issue. It draws what reports.verdicts.ecosystem_judge decided; it decides nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from harness import ecosystem_summary
from reports.verdicts.ecosystem_judge import SKIPPED, CauseGroup
from reports.views._page import CSS

#: A pull-request comment's body: the causes shown before "and N more", and the characters it may take (GitHub's
#: limit is 65,536; a comment someone reads is far shorter).
COMMENT_CAUSES = 5
COMMENT_LIMIT = 4000
#: The characters of an INCONCLUSIVE project's reason in the comment: a resolver's conflict runs to pages, and a few
#: such projects would cut the causes off the comment.
COMMENT_REASON = 240


#: An @-mention as GitHub links it (a user or a team, not an e-mail address): in a body posted as a pull-request
#: comment or on the rolling issue it would notify whoever it names.
MENTION = re.compile(r"(?<![\w@`])@(?=[A-Za-z0-9])")
#: Put between `@` and the name: invisible, and GitHub links no mention then.
ZERO_WIDTH_JOINER = "\u200d"


#: What GitHub would make live in a project's text: an issue reference (`#123`, `org/repo#123`: each post adds a
#: "mentioned this" event to that issue) and an address it links by itself (an issue's address backlinks it too).
REFERENCE = re.compile(r"#(?=\d)")
ADDRESS = re.compile(r"(?i)\b(https?|ftp):(?=//)")
#: Markdown's link and image syntax (`![x](https://...)` fetches a remote image on every view): escaped, shown as is.
LINK_SYNTAX = re.compile(r"([\[\]!])")


def _cell(text: str) -> str:
    """Text from a project (an error, a reason) as one line of inert Markdown prose: its line breaks could start a
    heading or end the list, a `<!--` would hide the rest of the page (the causes of an UNSAFE project with it), a
    `|` would end a table cell, an `@name` would notify that person where the body is posted, an image, a link, an
    issue reference or an entity (`&#64;`, an `@` the mention guard cannot see) would be live where it is posted."""
    flat = " ".join(text.split()).replace("&", "&amp;").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
    flat = LINK_SYNTAX.sub(r"\\\1", flat)
    flat = ADDRESS.sub(lambda found: found.group(1) + ":" + ZERO_WIDTH_JOINER, flat)
    flat = REFERENCE.sub("#" + ZERO_WIDTH_JOINER, flat)
    return MENTION.sub("@" + ZERO_WIDTH_JOINER, flat)


def _code(text: str) -> str:
    """Text as one inline code span (HTML inside one is shown, not read; a line break would end it)."""
    return f"`{' '.join(text.replace('`', '').split())}`" if text.strip() else ""


def headline(summary: Mapping[str, Any], groups: Sequence[CauseGroup]) -> str:
    """One line: the verdict, how many projects broke, of how many judged, and how many causes."""
    projects = summary["projects"]
    judged = [p for p in projects if p["verdict"] != SKIPPED]
    unsafe = [p for p in judged if p["verdict"] == "UNSAFE"]
    # "0 of 3 break" alone reads as three that held; those whose answer is unknown are counted apart.
    unknown = [p for p in judged if p["verdict"] not in ("UNSAFE", "SAFE")]
    pending = summary.get("pending") or []
    return (f"**{summary['verdict']}**: {len(unsafe)} of {len(judged)} project(s) judged break"
            + (f", {len(unknown)} inconclusive" if unknown else "")
            + f" ({len(groups)} cause(s)); {len(projects) - len(judged)} skipped"
            + (f"; not run yet (stopped, or still running): {', '.join(pending)}" if pending else ""))


def title(summary: Mapping[str, Any]) -> str:
    """What was compared with what, as of which day."""
    return (f"Ecosystem: {' '.join(summary['candidate'])} against {summary['baseline']}, as of "
            f"{summary['as_of']}")


def held(summary: Mapping[str, Any]) -> str:
    """Which package the baseline held on both sides, and why (summaries before 2026-11-28 do not say)."""
    said = summary.get("held")
    return f"Baseline {summary['baseline']}: {said}." if isinstance(said, str) and said else ""


def excluded(summary: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(project, what was left out, why) of every project that ran (a skipped one left out nothing), in the report's
    order."""
    return [(str(p.get("name", "")), str(e.get("what", "")), str(e.get("reason", "")))
            for p in summary["projects"] if p.get("verdict") != SKIPPED
            for e in p.get("excluded") or [] if isinstance(e, Mapping)]


def settings(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(project, `NAME=value`) of every variable a project that ran had its list set for its tests: a reader weighs a
    SAFE by what its tests ran under."""
    return [(str(p.get("name", "")), f"{name}={value}")
            for p in summary["projects"] if p.get("verdict") != SKIPPED and isinstance(p.get("env"), Mapping)
            for name, value in sorted(p["env"].items())]


def page(summary: Mapping[str, Any], groups: Sequence[CauseGroup], rows: Sequence[Mapping[str, str]]) -> str:
    """The whole Markdown report."""
    lines = [f"# {_cell(title(summary))}", "", headline(summary, groups), "",
             *([_cell(held(summary)), ""] if held(summary) else []),
             "| project | revision | baseline | candidate | tests | verdict | coverage or reason |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append("| " + " | ".join(_cell(row[key]) for key in ("project", "revision", "baseline")) + " | "
                     + _cell(row["candidate"]) + f" | {_cell(row['tests'])} | **{_cell(row['verdict'])}** | "
                     + _cell(row["coverage"] or row["reason"]) + " |")
    lines += ["", "## Regressions by cause", ""]
    if not groups:
        lines.append("None proven.")
    for number, found in enumerate(groups, 1):
        lines += cause_lines(number, found, reproducers=True)
    skipped = [row for row in rows if row["verdict"] == SKIPPED]
    if skipped:
        lines += ["", "## Skipped", ""] + [f"- {_cell(row['project'])}: {_cell(row['reason'])}" for row in skipped]
    if excluded(summary):
        lines += ["", "## Left out on purpose", ""] + [f"- {_cell(name)}: {_code(what)}: {_cell(reason)}"
                                                       for name, what, reason in excluded(summary)]
    if settings(summary):
        lines += ["", "## Set for its tests (the list's env)", ""] + [f"- {_cell(name)}: {_code(setting)}"
                                                                      for name, setting in settings(summary)]
    own = ecosystem_summary.ecosystem_project_report(Path("report"), "<project>")
    lines += ["", f"Each project's own comparison: `{own}`."]
    return "\n".join(lines) + "\n"


def cause_lines(number: int, found: CauseGroup, reproducers: bool) -> list[str]:
    """A cause: its example error, the projects it shows in, the documented change and fix, and reproducers."""
    lines = [f"{number}. {_code(found.example or found.signature)} in {len(found.projects)} project(s): "
             f"{_cell(', '.join(found.projects))} ({found.cases} test(s))"]
    if found.first_bad or found.bisect:
        lines.append(f"   - first bad release: {_cell(found.first_bad)}" if found.first_bad
                     else f"   - bisect: {_cell(found.bisect)}")
    if found.change:
        lines.append(f"   - documented change: {_cell(found.change)}"
                     + (f"; fix: {_cell(found.fix)}" if found.fix else ""))
    if reproducers:
        for made in found.reproducers:
            pins = ", ".join(f"{k}=={v}" for k, v in sorted(made.pins.items()) if k in ("jax", "jaxlib", "flax"))
            lines.append(f"   - {_cell(made.project)} {_cell(made.revision)}: {_code(made.case_id)} ({_cell(pins)})"
                         + (f": {_code('uv run ' + made.script)}" if made.script else ""))
    return lines


def comment(summary: Mapping[str, Any], groups: Sequence[CauseGroup], rows: Sequence[Mapping[str, str]]) -> str:
    """A body for a pull-request comment: the headline, which package the baseline held, the first causes, then the
    breaking projects, the projects without an answer and the SAFE ones whose coverage is partial (so a long list of
    any never pushes the causes out); cut to COMMENT_LIMIT characters with a line saying where the rest is."""
    lines = [f"### {_cell(title(summary))}", "", headline(summary, groups), "",
             *([_cell(held(summary)), ""] if held(summary) else [])]
    for number, found in enumerate(groups[:COMMENT_CAUSES], 1):
        lines += cause_lines(number, found, reproducers=False)
    if len(groups) > COMMENT_CAUSES:
        lines.append(f"... and {len(groups) - COMMENT_CAUSES} more cause(s) in {ecosystem_summary.ECOSYSTEM_MD}")
    # The breaking projects after the causes: a widespread break (many rows) must not push the causes out.
    lines += [_comment_row(row, "") for row in rows if row["verdict"] == "UNSAFE"]
    lines += [_comment_row(row, row["reason"]) for row in rows if row["verdict"] == "INCONCLUSIVE"]
    # A SAFE that stands on part of its tests says so, or the comment would count it among those that held.
    lines += [_comment_row(row, row["coverage"]) for row in rows if row["verdict"] == "SAFE" and row["coverage"]]
    body = "\n".join(lines) + "\n"
    if len(body) <= COMMENT_LIMIT:
        return body
    tail = f"\n... cut here: the whole report is {ecosystem_summary.ECOSYSTEM_MD}\n"
    return body[:COMMENT_LIMIT - len(tail)].rsplit("\n", 1)[0] + tail


def _comment_row(row: Mapping[str, str], said: str) -> str:
    """One project's line of the comment: its verdict, name and revision, and `said` (cut to COMMENT_REASON)."""
    why = _cell(said)
    why = why if len(why) <= COMMENT_REASON else why[:COMMENT_REASON - 1].rstrip("\\") + "…"
    named = " ".join(part for part in (row["project"], row["revision"]) if part)
    return f"- **{row['verdict']}** {_cell(named)}" + (f": {why}" if why else "")


#: A verdict's colours on the HTML page (a view's looks; the verdict is reports.verdicts.ecosystem_judge's).
VERDICT_STYLE = {"UNSAFE": "background:#ffebe9;color:#82071e", "INCONCLUSIVE": "background:#fff8c5;color:#4d2d00",
                 "SAFE": "background:#dafbe1;color:#116329", SKIPPED: "background:#f6f8fa;color:#59636e"}


def html_page(summary: Mapping[str, Any], groups: Sequence[CauseGroup], rows: Sequence[Mapping[str, str]]) -> str:
    """The whole report as one self-contained HTML page (inline style, no script, no network), every text escaped."""
    head = ["project", "revision", "baseline", "candidate", "tests", "verdict", "coverage or reason"]
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(row[key])}</td>" for key in ("project", "revision", "baseline", "candidate",
                                                                    "tests"))
        + f'<td style="{VERDICT_STYLE.get(row["verdict"], "")}"><b>{escape(row["verdict"])}</b></td>'
        + f"<td>{escape(row['coverage'] or row['reason'])}</td></tr>" for row in rows)
    causes = "".join(
        f"<li><code>{escape(found.example or found.signature)}</code> in {len(found.projects)} project(s): "
        f"{escape(', '.join(found.projects))} ({found.cases} test(s))<ul>"
        + (f"<li>first bad release: {escape(found.first_bad)}</li>" if found.first_bad
           else f"<li>bisect: {escape(found.bisect)}</li>" if found.bisect else "")
        + (f"<li>documented change: {escape(found.change)}" + (f"; fix: {escape(found.fix)}" if found.fix else "")
           + "</li>" if found.change else "")
        + "".join(f"<li>{escape(made.project)} {escape(made.revision)}: <code>{escape(made.case_id)}</code>"
                  + (f": <code>uv run {escape(made.script)}</code>" if made.script else "") + "</li>"
                  for made in found.reproducers)
        + "</ul></li>" for found in groups)
    headline_text = headline(summary, groups).replace("**", "")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title(summary))}"
            f"</title><style>{CSS}</style></head><body><h1>{escape(title(summary))}</h1>"
            f"<p class=\"meta\">{escape(headline_text)}</p>"
            + (f"<p class=\"meta\">{escape(held(summary))}</p>" if held(summary) else "") + "<table><thead><tr>"
            + "".join(f"<th>{name}</th>" for name in head) + f"</tr></thead><tbody>{body}</tbody></table>"
            f"<h2>Regressions by cause</h2>" + (f"<ol>{causes}</ol>" if groups else "<p>None proven.</p>")
            + (("<h2>Left out on purpose</h2><ul>" + "".join(
                f"<li>{escape(name)}: <code>{escape(what)}</code>: {escape(reason)}</li>"
                for name, what, reason in excluded(summary)) + "</ul>") if excluded(summary) else "")
            + (("<h2>Set for its tests (the list's env)</h2><ul>" + "".join(
                f"<li>{escape(name)}: <code>{escape(setting)}</code></li>" for name, setting in settings(summary))
                + "</ul>") if settings(summary) else "")
            + "</body></html>\n")
