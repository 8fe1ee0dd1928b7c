"""Every file shardmatrix writes and every exit code it answers with, named, versioned and parsed here once.

A sibling of harness.vocabulary with the same rule: it imports nothing but the standard library, so the harness
inside any cell, the host, and reports/ all read a file the same way (two readers of one format disagree: one
`splitlines()` and one `split("\\n")` once made a record holding U+2028 visible to one and not the other).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

# --- exit codes ---------------------------------------------------------------------------------------------------

#: A verdict's exit code: `nox -s upgrade`, `python -m reports --compare` and `python -m reports.regressions`.
SAFE_EXIT, UNSAFE_EXIT, INCONCLUSIVE_EXIT = 0, 1, 2
#: A tool that broke (an uncaught exception): never to be read as a verdict.
INTERNAL_ERROR_EXIT = 3
#: Bad input on the command line or in a file named there (sysexits' EX_USAGE): every command, one line on stderr.
USAGE_EXIT = 64


class ShardmatrixError(Exception):
    """Input shardmatrix refuses, phrased as one line naming the culprit; nothing runs, nothing recorded is lost.

    Every error a user can cause derives from it, so a command's `main()` catches this one class."""


# --- JSONL --------------------------------------------------------------------------------------------------------


def jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of each non-blank line of a JSONL text.

    Split on "\\n" alone: JSON escapes every control character inside strings but writers (ours included, with
    ensure_ascii=False) leave U+2028, U+0085 and form feeds raw, and `str.splitlines()` would cut a record there."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, line


def parse_jsonl(text: str) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of each line that parses; a line that does not is left out (its number is absent)."""
    for number, line in jsonl_lines(text):
        try:
            yield number, json.loads(line)
        except ValueError:
            continue


def dump_jsonl_line(record: dict[str, Any]) -> str:
    """One record as one JSONL line, newline included (non-ASCII kept readable; anything else through str())."""
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"
