"""Record fields as display text: blanks for missing values, one line for long messages."""

from __future__ import annotations

import math
import re

import pandas as pd

#: An absolute path up to and including a site-packages folder: what follows is the package-relative path.
_SITE_PACKAGES = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][^\s'\"()\[\]<>,:;]+)*?[\\/](?:site|dist)-packages[\\/]")
#: An interpreter's own library folder (the standard library of a venv's base Python).
_STDLIB = re.compile(r"(?:[\\/][^\s'\"()\[\]<>,:;]+)*?[\\/]lib[\\/]python\d+(?:\.\d+)?[\\/]")
#: Any other absolute path of two or more parts (a checkout, a temporary folder): its last part is kept. Not the
#: path of a URL (after ':' or '//'): a link in a reason must stay whole.
_ABSOLUTE = re.compile(r"(?<![\w.:/])(?:/[^\s'\"()\[\]<>,:;/]+){2,}")


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
    """Text with venv and interpreter paths made package-relative ('jax/_src/core.py'), other absolute paths cut to
    their last part; nothing else changes."""
    found = as_text(text)
    if "/" not in found and "\\" not in found:
        return found
    found = _SITE_PACKAGES.sub("", found)
    found = _STDLIB.sub("", found)
    return _ABSOLUTE.sub(lambda match: match.group(0).rsplit("/", 1)[-1], found)
