"""The line formats of a cell's own files (a JSONL record line, a freeze's source lines), atomic JSON writes, and every
exit code shardmatrix answers with, parsed here once (a cell's files and their paths: harness.cellrecord and
harness.results; every other file it writes: harness.outputs).

A sibling of harness.vocabulary with the same rule: it imports nothing but the standard library, so the harness
inside any cell, the host, and reports/ all read a file the same way (two readers of one format disagree: one
`splitlines()` and one `split("\\n")` once made a record holding U+2028 visible to one and not the other).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple, NoReturn, TypeVar, cast
from urllib.parse import unquote, urlparse

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10: tomli, a dependency there (and of every cell)
    import tomli as tomllib

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


class UsageParser(argparse.ArgumentParser):
    """argparse whose usage errors exit USAGE_EXIT with one line (argparse's own 2 is INCONCLUSIVE's code)."""

    def error(self, message: str) -> NoReturn:
        """Print `<prog>: error: <message>` on stderr and exit USAGE_EXIT."""
        self.exit(USAGE_EXIT, f"{self.prog}: error: {message}\n")


Main = TypeVar("Main", bound=Callable[..., int])


def command(main: Main) -> Main:
    """Wrap a command's `main(argv)`: a ShardmatrixError (or an OSError: the file system refusing a path) raised
    anywhere in it ends the command with one line on stderr (`shardmatrix: <line>`) and USAGE_EXIT (64); any other
    exception is a bug of ours, shown with its traceback, and exits INTERNAL_ERROR_EXIT (3): neither is ever a
    verdict's code (Python's own 1 reads UNSAFE)."""

    @functools.wraps(main)
    def wrapped(argv: Sequence[str] | None = None) -> int:
        try:
            return main(argv)
        except ShardmatrixError as error:
            print(f"shardmatrix: {error}", file=sys.stderr)
            return USAGE_EXIT
        except OSError as error:  # the file system refused (a folder where a file was, no permission, no space)
            print(f"shardmatrix: {error.filename or ''}{': ' if error.filename else ''}"
                  f"{error.strerror or error}", file=sys.stderr)
            return USAGE_EXIT
        except Exception as error:  # the one place a crash is turned into its own exit code
            traceback.print_exc()
            print(f"shardmatrix: internal error ({type(error).__name__}): please report it", file=sys.stderr)
            return INTERNAL_ERROR_EXIT

    return cast(Main, wrapped)


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


# --- file errors and atomic writes ------------------------------------------------------------------------------

class FormatError(ShardmatrixError):
    """A file of ours that cannot be read as its format says, phrased as one line naming it: '<path>: <why>'."""

    def __init__(self, path: Path | str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path, self.why = Path(path), why


#: How a refusal is raised: given the one line that says why, the error to raise (its class names the file's kind).
Refusal = Callable[[str], Exception]
#: What a JSON document was expected to be, in words.
_JSON_KINDS: dict[type, str] = {dict: "an object", list: "a list"}


def parse_json(text: str, expected: type[dict[str, Any]] | type[list[Any]], refuse: Refusal) -> Any:
    """The JSON document `text`, a dict or a list as `expected`; `refuse(why)` raised for one that is not."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise refuse(f"not valid JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(data, expected):
        raise refuse(f"a JSON {type(data).__name__}, not {_JSON_KINDS[expected]}")
    return data


def read_text(path: Path, refuse: Refusal) -> str:
    """A text file's content; `refuse('<path>: why')` raised for one that cannot be read or is not UTF-8."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise refuse(f"{path}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise refuse(f"{path}: cannot read ({error.strerror or error})") from None


def parse_toml(text: str, path: Path, refuse: Refusal) -> dict[str, Any]:
    """The tables of TOML `text` read from `path`; `refuse('<path>: malformed TOML (why)')` raised for bad TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise refuse(f"{path}: malformed TOML ({error})") from None


def read_toml(path: Path, refuse: Refusal) -> dict[str, Any]:
    """The tables of a TOML file; `refuse(line)` raised, the line naming the file, for one that cannot be used."""
    return parse_toml(read_text(path, refuse), path, refuse)


def write_json_atomically(path: Path, payload: dict[str, Any]) -> None:
    """Write a JSON file through a temporary sibling and a rename, so no reader sees half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(payload) + "\n", encoding="utf-8")
    os.replace(partial, path)


# --- the freeze ---------------------------------------------------------------------------------------------------

#: A cell's freeze (its `uv pip freeze`; harness.results names its file) starts with comment lines naming where its
#: unreleased packages came from (one SOURCE_LINE each) and its project.
#: One unreleased package of a cell: '# flax 0.12.6 from file:///src/flax (tree.5a0b5832)', the label naming the
#: build by the hash of its content (tree.<hash>, wheel.<hash>, git.<commit>).
SOURCE_LINE = "# {package} {version} from {where} ({label})\n"
_SOURCE = re.compile(r"# (?P<package>\S+) (?P<version>\S+) from (?P<where>\S.*) \((?P<label>[^()\s]+)\)")


class Source(NamedTuple):
    """Where a cell's unreleased package came from, as its freeze records it."""

    package: str
    version: str
    where: str
    label: str

    @property
    def tag(self) -> str:
        """The version as the cell id names it: '0.12.6+tree.5a0b5832'."""
        return f"{self.version}+{self.label}"

    @property
    def shown(self) -> str:
        """Where it came from as a reader knows it: a file:// URL as its path, anything else as given."""
        return unquote(urlparse(self.where).path) if self.where.startswith("file:") else self.where


def source_line(source: Source) -> str:
    """The freeze's comment line for one unreleased package (SOURCE_LINE), newline included."""
    return SOURCE_LINE.format(**source._asdict())


def parse_sources(text: str) -> dict[str, Source]:
    """The unreleased packages a freeze's leading comment lines name, by package (other lines are left alone)."""
    found = {}
    for line in text.split("\n"):
        if not line.startswith("#"):
            break  # the comments come first; `uv pip freeze` follows
        match = _SOURCE.fullmatch(line.rstrip())
        if match:
            found[match["package"]] = Source(**match.groupdict())
    return found
