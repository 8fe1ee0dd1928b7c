"""A digest of each case's source and declaration: what a stored range check's rows speak for (harness.outputs'
ranges.json `cases`), so that `nox -s ranges -- --merge` tells a row of a case changed since from one that stands.

A case's digest covers its function as written (decorators included, so its `@case(...)` and its `changed=`), its
Change as read from source (module-level names resolved, so a wording moved to cases/_support.py counts), and its
known-breakage entries (ranges, raises, reason, link). It does not cover module-level helpers the body calls: a
change there is not seen.

`stamp` gives the rows of a check that recorded no digests (schema 1, before they were) the digest of their case
where git shows the case's digest at the commit the check ran at equal to the current one: the same function of the
same files, at both commits.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import subprocess
import tarfile
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.cell import known
from harness.cell.source import parse
from harness.change import declared
from harness.formats import ShardmatrixError


class DigestError(ShardmatrixError, ValueError):
    """A commit or checkout a digest cannot be taken at; one line."""


def digests(files: Iterable[Path], breakage_files: Iterable[Path]) -> dict[str, str]:
    """{case id ('module::test_name'): digest} of every test function of `files`, with the known-breakage entries of
    `breakage_files` and the Change each declares."""
    entries: dict[str, list[str]] = {}
    for path in breakage_files:
        for entry in known.load(path):
            said = {"ranges": {name: str(spec) for name, spec in sorted(entry.ranges.items())},
                    "raises": list(entry.raises), "reason": entry.reason, "link": entry.link}
            entries.setdefault(entry.case, []).append(json.dumps(said, sort_keys=True))
    found: dict[str, str] = {}
    for file in files:
        changes = declared(file)
        for name, segment in _functions(file).items():
            case = f"{file.stem}::{name}"
            change = changes.get(name)
            text = json.dumps([segment, change.as_record() if change is not None else None,
                               sorted(entries.get(case, []))])
            found[case] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return found


def _functions(file: Path) -> dict[str, str]:
    """{test function name: its source lines, decorators included} of one module."""
    lines = file.read_text(encoding="utf-8").splitlines()
    found = {}
    for node in parse(file).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            found[node.name] = "\n".join(lines[start - 1:node.end_lineno])
    return found


def head_commit(folder: Path) -> str | None:
    """The commit checked out where `folder` lies; None outside a git checkout (an installed corpus)."""
    done = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=False)
    return done.stdout.strip() or None if done.returncode == 0 else None


def resolve(commit: str, folder: Path) -> str:
    """The full hash of the commit `commit` names (a hash, a short one, a branch, a tag) in the git checkout where
    `folder` lies; DigestError for one git does not know there, or outside a checkout."""
    done = subprocess.run(["git", "-C", str(folder), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise DigestError(f"commit {commit}: git knows no such commit where {folder} lies")
    return done.stdout.strip()


def digests_at(commit: str, folder: Path, files: Iterable[Path], breakage_files: Iterable[Path]) -> dict[str, str]:
    """digests() of the same files (paths under `folder`, a case folder of a git checkout) as they were at `commit`;
    a file the commit lacks is left out. DigestError for a commit git does not know."""
    top = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                         check=False)
    if top.returncode != 0:
        raise DigestError(f"{folder}: not in a git checkout, so no case can be read at {commit}")
    root = Path(top.stdout.strip())
    inside = folder.resolve().relative_to(root.resolve())
    archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", commit, "--", str(inside)],
                             capture_output=True, check=False)
    if archive.returncode != 0:
        said = archive.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DigestError(f"commit {commit}: git cannot read {inside} there ({said[-1] if said else 'no reason'})")
    with tempfile.TemporaryDirectory() as scratch:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            # The "data" filter keeps an archive's paths inside the folder (Python 3.10.12+, 3.11.4+); git's own
            # archive of a commit needs none where it is missing.
            if hasattr(tarfile, "data_filter"):
                tar.extractall(scratch, filter="data")
            else:  # pragma: no cover - older Pythons
                tar.extractall(scratch)
        then = Path(scratch) / inside

        def there(paths: Iterable[Path]) -> list[Path]:
            moved = [then / Path(path).resolve().relative_to(folder.resolve()) for path in paths]
            return [path for path in moved if path.is_file()]

        try:
            return digests(there(files), there(breakage_files))
        except (ShardmatrixError, SyntaxError, UnicodeDecodeError) as exc:
            # A file as it was then that today's reader refuses: name it as git does, not by the scratch copy.
            told = " ".join(str(exc).replace(str(then), f"{commit}:{inside}").split())
            raise DigestError(f"commit {commit}: a case file there cannot be read as today's shardmatrix reads it "
                              f"({told})") from None


def stamp(document: Mapping[str, Any], now: Mapping[str, str], then: Mapping[str, str],
          commit: str) -> tuple[dict[str, Any], list[str]]:
    """(the document with a digest for each case of its rows that had none and whose digest at `commit` equals its
    digest now, and `commit` as its own where it recorded none; the cases left unstamped: changed since, or gone). A
    case already stamped keeps its stamp."""
    cases = {case: dict(stamp_) for case, stamp_ in document.get("cases", {}).items()}
    left = []
    for case in sorted({str(row["case"]) for row in document.get("edges", [])} - set(cases)):
        if case in now and now[case] == then.get(case):
            cases[case] = {"digest": now[case], "commit": commit}
        else:
            left.append(case)
    # A check that recorded no commit of its own ran at the one it is stamped at.
    return {**document, "cases": cases, "commit": document.get("commit") or commit}, left
