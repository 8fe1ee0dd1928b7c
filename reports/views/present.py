"""How each status looks in a report: its mark, colours and legend.

The statuses, their order and their meanings are harness.vocabulary's, their labels and the display-only DEPRECATED
reports/statuses.py's; this is only their presentation. tests/test_reports_present.py checks that the looks cover
exactly those statuses, and a status the vocabulary does not know is drawn as unknown, never as passing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from harness import vocabulary as v
from reports.data.statuses import DEPRECATED, LABELS, ordered


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


#: status: mark, symbol, background, foreground. Legend order and labels are reports.statuses', meanings the
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
    """Every known status in legend order (reports.statuses.ordered), then any unknown status among `shown`, in
    first-seen order."""
    return [(status, present(status)) for status in ordered(shown)]


def stylesheet() -> str:
    """CSS classes `.st-<status>` giving each status its colours, shared by every HTML table and the legend."""
    rules = [
        f".{p.css_class} {{ background-color: {p.background}; color: {p.foreground}; }}"
        for p in [*PRESENTATIONS.values(), UNKNOWN]
    ]
    # The marks have their own rules (reports/_page.py): `.flaky` is a badge on a status, not a status colour.
    rules += [f".badge-{p.css_class} {{ background-color: {p.background}; color: {p.foreground}; }}"
              for p in (FLAKY, INCOMPLETE)]
    return "\n".join(rules)
