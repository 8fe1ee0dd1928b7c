"""What hovering a matrix or timing cell shows: plain text, one fact a line (reports/views/grid.py escapes it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reports.data.statuses import attempts_text
from reports.data.text import as_text, first_line, seconds, seconds_each
from reports.views.present import FLAKY, INCOMPLETE, present

#: One result as a mapping of (at least) FIELDS, as DataFrame.to_dict("records") gives it.
Row = Mapping[Any, Any]

#: Every result's FIELDS, each as a list aligned with the results: what the bulk functions read.
Columns = Mapping[str, Sequence[Any]]

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
    return _status_text(
        row["key"], row["cell_id"], row["case_id"], present(row["shown"]).label, row["flaky"], row["attempts"],
        row["history"], row["error_type"], row["error_message"], row["reason"], row["warnings"],
        timing_line(row) if timing is None else timing,
    )


def status_tips(columns: Columns, timings: Sequence[str]) -> list[str]:
    """status_tip() of every result, from its FIELDS as aligned lists and its timing line: the same texts, without
    a mapping per result (20,000 of them were a good part of a report's time)."""
    labels = {status: present(status).label for status in set(columns["shown"])}
    return [
        _status_text(*fields) for fields in zip(
            columns["key"], columns["cell_id"], columns["case_id"], [labels[s] for s in columns["shown"]],
            columns["flaky"], columns["attempts"], columns["history"], columns["error_type"],
            columns["error_message"], columns["reason"], columns["warnings"], timings, strict=True,
        )
    ]


def _status_text(
    key: object, cell_id: object, case_id: object, label: str, flaky: object, attempts: Any, history: Any,
    error_type: object, error_message: object, reason: object, warnings: Any, timing: str,
) -> str:
    lines = [f"{key} · {cell_id}", str(case_id), f"status: {label}"]
    if flaky:
        lines.append(f"{FLAKY.label}: {attempts_text(history)}")
    elif attempts > 1:
        lines.append(f"attempts: {attempts_text(history)}")
    # type() is str first: this runs for every result, and most fields are plain text or missing.
    kind = error_type if type(error_type) is str else as_text(error_type)
    message = (error_message if type(error_message) is str else as_text(error_message)).strip()
    error = f"{kind}: {message}" if kind and message else kind or message
    if error:
        lines.append(error if len(error) <= MESSAGE_LIMIT else error[: MESSAGE_LIMIT - 1] + "…")
    why = reason if type(reason) is str else as_text(reason)
    if why:
        lines.append(f"reason: {first_line(why, MESSAGE_LIMIT)}")
    lines += [f"warning: {first_line(text, 300)}" for text in warnings]
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


def timing_tips(columns: Columns, timings: Sequence[str]) -> list[str]:
    """timing_tip() of every result, from its FIELDS as aligned lists and its timing line."""
    return [
        f"{key} · {cell_id}\n{case_id!s}\n{timing}"
        for key, cell_id, case_id, timing in zip(
            columns["key"], columns["cell_id"], columns["case_id"], timings, strict=True
        )
    ]


#: The timing line of a result without a duration.
NOT_TIMED = "time: not recorded"


def timing_line(row: Row) -> str:
    """'time: 0.500 s (compile 0.300 s, execute 0.200 s) · median of 3 runs', both hover texts' last line."""
    return _timing_text(seconds(row["duration_s"]), seconds(row["compile_s"]), seconds(row["execute_s"]),
                        row["attempts"], row["attempt"], row["repeats"])


def timing_lines(columns: Columns) -> list[str]:
    """timing_line() of every result, from its FIELDS as aligned lists; each distinct duration is written once."""
    return [
        _timing_text(duration, compile_s, execute_s, attempts, attempt, repeats)
        for duration, compile_s, execute_s, attempts, attempt, repeats in zip(
            seconds_each(columns["duration_s"]), seconds_each(columns["compile_s"]),
            seconds_each(columns["execute_s"]), columns["attempts"], columns["attempt"], columns["repeats"],
            strict=True,
        )
    ]


def _timing_text(duration: str, compile_s: str, execute_s: str, attempts: Any, attempt: object,
                 repeats: Any) -> str:
    if not duration:
        return NOT_TIMED
    parts = [f"time: {duration} s"]
    split = [f"{name} {text} s" for name, text in (("compile", compile_s), ("execute", execute_s)) if text]
    if split:
        parts.append(f"({', '.join(split)})")
    if attempts > 1:
        parts.append(f"· attempt {attempt}")
    if repeats > 1:
        parts.append(f"· median of {repeats} runs")
    return " ".join(parts)
