"""How each status looks in a report: its mark, colours and legend text.

The statuses, their order and their meanings are harness.vocabulary's; this is only their presentation.
tests/test_reports_present.py checks that the looks cover exactly the vocabulary's statuses, and a status the
vocabulary does not know is drawn as unknown, never as passing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from harness import vocabulary as v

#: A display-only status: passed, but the case emitted warnings (usually deprecations) -- an early warning.
DEPRECATED = "passed_deprecated"


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


#: status, mark, symbol, background, foreground, label -- in legend order: the vocabulary's order, with the warned
#: variant of passed right after passed. Meanings are the vocabulary's.
_TABLE: tuple[tuple[str, str, str, str, str, str], ...] = (
    (v.PASSED, "✅", "✓", "#d3f5dc", "#116329", "passed"),
    (DEPRECATED, "⚠️", "⚠\ufe0e", "#fff0b3", "#7a4d00", "passed, warned"),
    (v.FAILED, "❌", "✗", "#ffcfcc", "#a40e26", "failed"),
    (v.ERROR, "🚫", "E", "#fbd3ec", "#8a1f5f", "error"),
    (v.NOT_APPLICABLE, "\N{HEAVY MINUS SIGN}", "\N{EN DASH}", "#f3f4f6", "#8c959f", "not applicable"),
    (v.XFAILED, "🐛", "x", "#ebe4fb", "#5a32a3", "xfailed"),
    (v.XPASSED, "❗", "X", "#d6ebff", "#0a4fa8", "xpassed"),
    (v.CRASHED, "💥", "C", "#b42318", "#ffffff", "crashed"),
    (v.TIMEOUT, "⏱️", "T", "#ffd9b8", "#8a3a00", "timeout"),
    (v.INSTALL_ERROR, "📦", "I", "#cfd6de", "#24292f", "install error"),
)

#: The meaning of the display-only status, which the vocabulary does not have.
_MEANINGS: dict[str, str] = {
    **v.MEANINGS,
    DEPRECATED: "passed, but emitted warnings (usually deprecations): an early warning of a coming break",
}

PRESENTATIONS: dict[str, Presentation] = {
    status: Presentation(mark, symbol, background, foreground, label, _MEANINGS[status], f"st-{status}")
    for status, mark, symbol, background, foreground, label in _TABLE
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


def display_status(status: str, warnings: Sequence[str] | None) -> str:
    """The status a report shows: DEPRECATED for a pass that warned, else the record's own status."""
    if status == v.PASSED and warnings is not None and len(warnings) > 0:
        return DEPRECATED
    return status


def attempts_text(history: Sequence[str]) -> str:
    """The statuses of a result's attempts in order: 'failed → passed'."""
    return " → ".join(present(status).label for status in history)


def resume_command(run_id: object) -> str:
    """The command that finishes the interrupted cells of `run_id`."""
    return f"nox -s matrix -- --resume {run_id}"


def legend(shown: Iterable[str]) -> list[tuple[str, Presentation]]:
    """Every known status in legend order, then any unknown status among `shown`, in first-seen order."""
    entries = list(PRESENTATIONS.items())
    unknown = [status for status in dict.fromkeys(shown) if status not in PRESENTATIONS]
    return entries + [(status, present(status)) for status in unknown]


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
