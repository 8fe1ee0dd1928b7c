"""jax's own too-few-devices errors, read from one data file (shortage.toml): how many devices an error asked for.

Anchored: a pattern matches only the whole first line of an exception of its type, as jax words it at mesh creation
(or pmap's compile), so a test's own ValueError that quotes such a phrase is a failure, never a device shortage.

A project's test that builds a mesh or a pmap larger than the cell is short of devices, not broken; whether that
makes it `not_applicable` is decided in harness.cell.outcomes, against the cell's recorded device count.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass
from pathlib import Path

from harness.formats import ShardmatrixError, read_toml

PATTERNS = Path(__file__).with_name("shortage.toml")


@dataclass(frozen=True)
class Pattern:
    """One of jax's too-few-devices errors: the exception type and a regex naming the count (`asked` or `shape`)."""

    name: str
    error_type: str
    regex: re.Pattern[str]

    def asked(self, error_type: str | None, message: str) -> int | None:
        """The devices the error asked for, or None when it is not this error: the pattern must be the whole of the
        exception's first line (jax's own words), never a phrase inside another message."""
        lines = message.strip().splitlines()
        found = self.regex.fullmatch(lines[0].strip()) if error_type == self.error_type and lines else None
        if found is None:
            return None
        groups = found.groupdict()
        if groups.get("asked") is not None:
            return int(groups["asked"])
        return math.prod(int(size) for size in re.findall(r"\d+", groups["shape"]))

    def as_raised(self) -> str:
        """A regex for the error as pytest-rerunfailures writes it ('ValueError: <message>'): jax's words right after
        the exception's name, to the end of its line."""
        return f"{re.escape(self.error_type)}: {self.regex.pattern}(?:$|\n)"


@functools.cache
def patterns(path: Path = PATTERNS) -> tuple[Pattern, ...]:
    """The patterns of the data file, each regex compiled once."""
    data = read_toml(path, ShardmatrixError)
    return tuple(Pattern(entry["name"], entry["error_type"], re.compile(entry["regex"])) for entry in data["pattern"])


def devices_asked(error_type: str | None, message: str) -> int | None:
    """How many devices a too-few-devices error of jax asked for; None for any other exception."""
    return next((n for n in (p.asked(error_type, message) for p in patterns()) if n is not None), None)
