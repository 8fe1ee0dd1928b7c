"""What hovering a matrix or timing cell shows, and how that text is made safe for a CSS `content` string.

Styler writes tooltips into `content: "..."` rules inside <style>, verbatim: the text must be escaped for CSS,
or a message holding `"` or `</style>` would break out of the string or the element.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reports.present import FLAKY, INCOMPLETE, attempts_text, present
from reports.text import as_text, first_line, seconds

#: One result as a mapping, as DataFrame.to_dict("records") gives it.
Row = Mapping[Any, Any]

#: Characters left as they are inside a CSS string; every other one becomes a hex escape.
_CSS_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;_-+=()[]{}!?@#%^*/|~'$")

#: How much of a message a tooltip shows: enough for a traceback's last lines, not a wall of text.
MESSAGE_LIMIT = 1200


def css_string(text: str) -> str:
    """`text` escaped to sit inside a double-quoted CSS string in a <style> element, line breaks kept."""
    # A hex escape ends at the first space after it, which CSS consumes: always write one, so that a real
    # space following it survives. With '<' escaped, no '</style>' can end the element early.
    return "".join(char if char in _CSS_SAFE else f"\\{ord(char):X} " for char in text)


def status_tip(row: Row) -> str:
    """Hover text of a matrix cell: where, which case, status, attempts, error, reason, warnings, timing."""
    lines = [f"{row['key']} · {row['cell_id']}", str(row["case_id"]), f"status: {present(row['shown']).label}"]
    if row["flaky"]:
        lines.append(f"{FLAKY.label}: {attempts_text(row['history'])}")
    elif row["attempts"] > 1:
        lines.append(f"attempts: {attempts_text(row['history'])}")
    error = ": ".join(part for part in (as_text(row["error_type"]), as_text(row["error_message"]).strip()) if part)
    if error:
        lines.append(error if len(error) <= MESSAGE_LIMIT else error[: MESSAGE_LIMIT - 1] + "…")
    if as_text(row["reason"]):
        lines.append(f"reason: {first_line(row['reason'], MESSAGE_LIMIT)}")
    lines += [f"warning: {first_line(text, 300)}" for text in row["warnings"]]
    if seconds(row["duration_s"]):
        lines.append(_timing(row))
    return "\n".join(lines)


def not_run_tip(key: str, cell_id: object, case_id: object) -> str:
    """Hover text of an empty matrix cell in an interrupted column: the case never ran there."""
    return f"{key} · {cell_id}\n{case_id}\n{INCOMPLETE.label}: stopped before this case ran"


def timing_tip(row: Row) -> str:
    """Hover text of a timing cell: where, which case, and the compile / execute split."""
    return "\n".join([f"{row['key']} · {row['cell_id']}", str(row["case_id"]), _timing(row)])


def _timing(row: Row) -> str:
    if not seconds(row["duration_s"]):
        return "time: not recorded"
    parts = [f"time: {seconds(row['duration_s'])} s"]
    split = [f"{name} {seconds(row[f'{name}_s'])} s" for name in ("compile", "execute") if seconds(row[f"{name}_s"])]
    if split:
        parts.append(f"({', '.join(split)})")
    if row["attempts"] > 1:
        parts.append(f"· attempt {row['attempt']}")
    if row["repeats"] > 1:
        parts.append(f"· median of {row['repeats']} runs")
    return " ".join(parts)
