"""jax's own too-few-devices errors, read from one data file (shortage.toml): how many devices an error asked for.

A project's test that builds a mesh or a pmap larger than the cell is short of devices, not broken; whether that
makes it `not_applicable` is decided in harness.cell.outcomes, against the cell's recorded device count.
"""

from __future__ import annotations

import functools
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PATTERNS = Path(__file__).with_name("shortage.toml")


@dataclass(frozen=True)
class Pattern:
    """One of jax's too-few-devices errors: the exception type and a regex naming the count (`asked` or `shape`)."""

    name: str
    error_type: str
    regex: re.Pattern[str]

    def asked(self, error_type: str | None, message: str) -> int | None:
        """The devices the error asked for, or None when it is not this error."""
        found = self.regex.search(message) if error_type == self.error_type else None
        if found is None:
            return None
        groups = found.groupdict()
        if groups.get("asked") is not None:
            return int(groups["asked"])
        return math.prod(int(size) for size in re.findall(r"\d+", groups["shape"]))

    def as_raised(self) -> str:
        """A regex for the error as pytest-rerunfailures writes it ('ValueError: <message>')."""
        return f"{re.escape(self.error_type)}: .*{self.regex.pattern}"


@functools.cache
def patterns(path: Path = PATTERNS) -> tuple[Pattern, ...]:
    """The patterns of the data file, each regex compiled once."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return tuple(Pattern(entry["name"], entry["error_type"], re.compile(entry["regex"])) for entry in data["pattern"])


def devices_asked(error_type: str | None, message: str) -> int | None:
    """How many devices a too-few-devices error of jax asked for; None for any other exception."""
    return next((n for n in (p.asked(error_type, message) for p in patterns()) if n is not None), None)
