"""What hovering a matrix or timing cell shows: plain text, one fact a line (reports/grid.py escapes it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reports.present import FLAKY, INCOMPLETE, attempts_text, present
from reports.text import as_text, first_line, seconds

#: One result as a mapping of (at least) FIELDS, as DataFrame.to_dict("records") gives it.
Row = Mapping[Any, Any]

#: The results columns a hover text reads.
FIELDS: tuple[str, ...] = (
    "key", "cell_id", "case_id", "shown", "flaky", "attempt", "attempts", "history", "repeats", "error_type",
    "error_message", "reason", "warnings", "duration_s", "compile_s", "execute_s",
)

#: How much of a message a tooltip shows: enough for a traceback's last lines, not a wall of text.
MESSAGE_LIMIT = 1200


def status_tip(row: Row, timing: str | None = None) -> str:
    """Hover text of a matrix cell: where, which case, status, attempts, error, reason, warnings, timing (`timing`,
    timing_line(row) when the caller has it already)."""
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
    timing = timing_line(row) if timing is None else timing
    if timing != NOT_TIMED:
        lines.append(timing)
    return "\n".join(lines)


def not_run_tip(key: str, cell_id: object, case_id: object) -> str:
    """Hover text of an empty matrix cell in an interrupted column: the case never ran there."""
    return f"{key} · {cell_id}\n{case_id}\n{INCOMPLETE.label}: stopped before this case ran"


def timing_tip(row: Row, timing: str | None = None) -> str:
    """Hover text of a timing cell: where, which case, and the compile / execute split (`timing`, timing_line(row)
    when the caller has it already)."""
    return "\n".join([f"{row['key']} · {row['cell_id']}", str(row["case_id"]),
                      timing_line(row) if timing is None else timing])


#: The timing line of a result without a duration.
NOT_TIMED = "time: not recorded"


def timing_line(row: Row) -> str:
    """'time: 0.500 s (compile 0.300 s, execute 0.200 s) · median of 3 runs', both hover texts' last line."""
    duration = seconds(row["duration_s"])
    if not duration:
        return NOT_TIMED
    parts = [f"time: {duration} s"]
    shown = {name: seconds(row[f"{name}_s"]) for name in ("compile", "execute")}
    split = [f"{name} {text} s" for name, text in shown.items() if text]
    if split:
        parts.append(f"({', '.join(split)})")
    if row["attempts"] > 1:
        parts.append(f"· attempt {row['attempt']}")
    if row["repeats"] > 1:
        parts.append(f"· median of {row['repeats']} runs")
    return " ".join(parts)
