"""GitHub-flavoured Markdown's text primitives: a record's text escaped to stay inside one table cell, code spans,
and tables. Every Markdown view writes its cells through these, so a message holding `|`, a newline or `<script>`
stays inside its cell and reads as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

# Backslash-escaping ASCII punctuation is always literal in CommonMark; these are the characters that can start
# emphasis, code, links, HTML, entities, strikethrough or (on GitHub) math, plus the table's own `|`.
_SPECIALS = re.compile(r"([\\`*_\[\]<>|~&$])")


_BACKTICKS = re.compile(r"`+")


def one_line(text: object) -> str:
    """Text with every line break turned into a space, so it cannot end a table row."""
    return " ".join(str(text).splitlines()).strip()


def escape(text: object) -> str:
    """Plain text that renders literally inside a GFM table cell."""
    return _SPECIALS.sub(r"\\\1", one_line(text))


def code(text: object) -> str:
    """Text as an inline code span that stays inside a GFM table cell, whatever backticks it holds."""
    body = one_line(text)
    if not body:
        return ""
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    # GFM splits table cells before it parses code spans, so a pipe must be escaped even inside one.
    body = body.replace("|", "\\|")
    return f"{fence}{pad}{body}{pad}{fence}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]], align: Sequence[str] | None = None) -> str:
    """A GFM table from already-escaped cells; `align` holds one of 'l', 'c', 'r' per column."""
    rule = {"l": ":--", "c": ":-:", "r": "--:"}
    aligns = align or ["l"] * len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule[a] for a in aligns) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
