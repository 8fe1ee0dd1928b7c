"""How each status and each cell verdict looks in a report: its mark, colours, words and legend; the one place a
report's looks live.

The statuses, their order and their meanings are harness.vocabulary's, their labels and the display-only DEPRECATED
reports/data/statuses.py's; the verdict tokens and their order are reports/verdicts/compat.py's. This is only their
presentation. tests/test_reports_present.py checks that the looks cover
exactly those statuses, and a status the vocabulary does not know is drawn as unknown, never as passing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import NamedTuple

from harness import vocabulary as v
from reports.data.statuses import DEPRECATED, LABELS, ordered
from reports.verdicts import compat


@dataclass(frozen=True)
class Presentation:
    """How one status is drawn: an emoji mark (Markdown, terminal), a text symbol and colours (HTML), a legend."""

    mark: str
    symbol: str
    background: str
    foreground: str
    label: str
    meaning: str
    css_class: str


#: status: mark, symbol, background, foreground. Legend order and labels are reports.data.statuses', meanings the
#: vocabulary's.
_LOOKS: dict[str, tuple[str, str, str, str]] = {
    v.PASSED: ("✅", "✓", "#d3f5dc", "#116329"),
    DEPRECATED: ("⚠️", "⚠\ufe0e", "#fff0b3", "#7a4d00"),
    v.FAILED: ("❌", "✗", "#ffcfcc", "#a40e26"),
    v.ERROR: ("🚫", "E", "#fbd3ec", "#8a1f5f"),
    v.NOT_APPLICABLE: ("\N{HEAVY MINUS SIGN}", "\N{EN DASH}", "#f3f4f6", "#8c959f"),
    v.XFAILED: ("🐛", "x", "#ebe4fb", "#5a32a3"),
    v.XPASSED: ("❗", "X", "#d6ebff", "#0a4fa8"),
    v.CRASHED: ("💥", "C", "#b42318", "#ffffff"),
    v.TIMEOUT: ("⏱️", "T", "#ffd9b8", "#8a3a00"),
    v.INSTALL_ERROR: ("📦", "I", "#cfd6de", "#24292f"),
}

#: The meaning of the display-only status, which the vocabulary does not have.
_MEANINGS: dict[str, str] = {
    **v.MEANINGS,
    DEPRECATED: "passed, but emitted warnings (usually deprecations): an early warning of a coming break",
}

PRESENTATIONS: dict[str, Presentation] = {
    status: Presentation(*_LOOKS[status], label, _MEANINGS[status], f"st-{status}") for status, label in LABELS.items()
}

#: Not statuses but marks beside them: a result whose attempts disagreed, and a cell that never finished. Their
#: colours are for the badge; a flaky result keeps its status colour, an interrupted cell its column.
FLAKY = Presentation("🔁", "↻", "#fb8500", "#ffffff", "flaky",
                     "the attempts disagreed (e.g. failed, then passed on a retry); the last attempt's status is shown",
                     "flaky")
INCOMPLETE = Presentation("⏸️", "⏸\ufe0e", "#fff1e5", "#953800", "interrupted",
                          "the cell was stopped before it finished: its recorded cases are shown, the rest never ran",
                          "incomplete")

#: Shown for a status this reader does not know: neutral, so a newer harness still gets a readable report.
UNKNOWN = Presentation("❓", "?", "#ffffff", "#57606a", "unknown", "a status this report does not know", "st-unknown")


def present(status: str) -> Presentation:
    """Return how `status` (a record status or DEPRECATED) is drawn; an unknown one gets the neutral look."""
    known = PRESENTATIONS.get(status)
    if known is not None:
        return known
    return replace(UNKNOWN, label=str(status))


def resume_command(run_id: object) -> str:
    """The command that finishes the interrupted cells of `run_id`."""
    return f"nox -s matrix -- --resume {run_id}"


def legend(shown: Iterable[str]) -> list[tuple[str, Presentation]]:
    """Every known status in legend order (reports.data.statuses.ordered), then any unknown status among `shown`, in
    first-seen order."""
    return [(status, present(status)) for status in ordered(shown)]


def stylesheet() -> str:
    """CSS classes `.st-<status>` giving each status its colours, shared by every HTML table and the legend, and
    `.v-<verdict>` giving each verdict box its colours."""
    rules = [
        f".{p.css_class} {{ background-color: {p.background}; color: {p.foreground}; }}"
        for p in [*PRESENTATIONS.values(), UNKNOWN]
    ]
    # The marks have their own rules (reports/views/_page.py): `.flaky` is a badge on a status, not a status colour.
    rules += [f".badge-{p.css_class} {{ background-color: {p.background}; color: {p.foreground}; }}"
              for p in (FLAKY, INCOMPLETE)]
    # The verdicts' boxes (defined below, read when this runs).
    rules += [f".{look.css_class} {{ {look.style} }}" for look in LOOKS.values()]
    return "\n".join(rules)


# --- cell verdicts (reports.verdicts.compat) -------------------------------------------------------------------------


class Look(NamedTuple):
    """How a verdict token reads in a report: its words, an emoji mark (Markdown), a text symbol, a CSS class and
    that class's style (HTML: stylesheet() writes the rule for reports/views/_page.py)."""

    words: str
    mark: str
    symbol: str
    css_class: str
    style: str


#: Each verdict token, best first, with its one-line meaning for the legend and the docs' verdict table.
VERDICTS: dict[str, str] = {
    compat.WORKS: "every applicable case passes",
    compat.WARNED: "every applicable case passes; some raise deprecation warnings",
    compat.CURRENT: "only documented changes fail: code written for these releases works, older code breaks",
    compat.KNOWN_BUGS: "only declared known upstream bugs (with their links) and documented changes fail: code that "
                       "avoids those bugs works, as on every pair that has them",
    compat.FLAKY: "a case's attempts disagreed (failed, then passed): a failure that shows some of the time is not "
                  "ruled out",
    compat.PARTIAL: "an applicable case fails and neither a documented change nor a known upstream bug explains it "
                    "(its causes are listed)",
    compat.BROKEN: "jax or flax do not import, the backend does not start, or a smoke (core) case fails",
    compat.NO_EVIDENCE: "no applicable case ran, or none of its smoke (core) cases applies: nothing says it works",
    compat.INTERRUPTED: "the run was interrupted (no done marker): the cases it never ran are unknown",
    compat.UNACCOUNTED: "its results files hold what the reader could not account for, or name another cell: "
                        "unknown",
    compat.NOT_BUILT: "the cell's environment could not be built",
}

#: Each token's look; its style is the verdict box's colours in matrix.html (stylesheet() writes them).
LOOKS: dict[str, Look] = {
    compat.WORKS: Look("works", "\N{WHITE HEAVY CHECK MARK}", "\N{CHECK MARK}", "v-works",
                       "background: #d3f5dc; color: #116329;"),
    compat.WARNED: Look("works with warnings", "\N{WARNING SIGN}\N{VARIATION SELECTOR-16}",
                        "\N{WARNING SIGN}\N{VARIATION SELECTOR-15}", "v-warned",
                        "background: #fff0b3; color: #7a4d00;"),
    compat.CURRENT: Look("works for current code", "\N{BALLOT BOX WITH CHECK}\N{VARIATION SELECTOR-16}",
                         "\N{BALLOT BOX WITH CHECK}", "v-current", "background: #e3f2d0; color: #3b5e14;"),
    compat.KNOWN_BUGS: Look("works except known bugs", "\N{LADY BEETLE}", "\N{CHECK MARK}\N{LOW ASTERISK}",
                            "v-known-bugs", "background: #dff3ee; color: #0f5a4a;"),
    compat.FLAKY: Look("flaky", "\N{CLOCKWISE RIGHTWARDS AND LEFTWARDS OPEN CIRCLE ARROWS}",
                       "\N{CLOCKWISE OPEN CIRCLE ARROW}", "v-flaky",
                       "background: #ffe2c7; color: #8a3a00; box-shadow: inset 0 0 0 2px #fb8500;"),
    compat.PARTIAL: Look("partial", "\N{LARGE ORANGE DIAMOND}", "\N{CIRCLE WITH LEFT HALF BLACK}", "v-partial",
                         "background: #ffe2c7; color: #8a3a00;"),
    compat.BROKEN: Look("broken", "\N{CROSS MARK}", "\N{BALLOT X}", "v-broken", "background: #ffcfcc; color: #a40e26;"),
    compat.NO_EVIDENCE: Look("no evidence", "\N{WHITE QUESTION MARK ORNAMENT}", "?", "v-no-evidence",
                             "background: #eaeef2; color: #59636e;"),
    compat.INTERRUPTED: Look("interrupted", "\N{DOUBLE VERTICAL BAR}\N{VARIATION SELECTOR-16}",
                             "\N{DOUBLE VERTICAL LINE}", "v-interrupted",
                             "background: repeating-linear-gradient(135deg, #fff1e5 0 4px, #ffe2c7 4px 6px); "
                             "color: #953800;"),
    compat.UNACCOUNTED: Look("unaccounted", "\N{BLACK QUESTION MARK ORNAMENT}", "\N{INTERROBANG}", "v-unaccounted",
                             "background: repeating-linear-gradient(45deg, #fff8c5 0 4px, #f5e0a0 4px 6px); "
                             "color: #7d4e00;"),
    compat.NOT_BUILT: Look("not built", "\N{PACKAGE}", "\N{EMPTY SET}", "v-not-built",
                           "background: #cfd6de; color: #24292f;"),
}


def label(token: str) -> str:
    """A verdict token as words: 'works_with_warnings' -> 'works with warnings'; an unknown token as itself."""
    return LOOKS[token].words if token in LOOKS else token
