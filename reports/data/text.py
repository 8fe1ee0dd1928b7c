"""Record fields as display text: blanks for missing values, one line for long messages."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

from harness.vocabulary import relative_paths as vocabulary_relative_paths


def as_text(value: object) -> str:
    """A field as display text: '' for a missing value (None, NA or NaN), else str()."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def first_line(text: object, limit: int = 200) -> str:
    """The first non-blank line of a message, stripped and cut to `limit` characters; '' for a missing one."""
    for line in as_text(text).splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def seconds_each(values: Iterable[object]) -> list[str]:
    """seconds() of every value, each distinct value formatted once (a report writes thousands of durations)."""
    written: dict[object, str] = {}
    found = []
    for value in values:
        text = written.get(value)
        if text is None or not value:  # 0.0 and -0.0 are one key but not one text
            text = written[value] = seconds(value)
        found.append(text)
    return found


def seconds(value: object) -> str:
    """A duration in seconds to 3 significant digits ('0.520', '12.3', '1234'); '' when missing."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    if math.isnan(number):
        return ""
    if abs(number) >= 1000:
        return f"{number:.0f}"
    return f"{number:#.3g}".rstrip(".")


def relative_paths(text: object) -> str:
    """A field as text with venv and interpreter paths made package-relative (harness.vocabulary.relative_paths)."""
    return vocabulary_relative_paths(as_text(text))
