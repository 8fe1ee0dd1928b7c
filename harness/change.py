"""A documented upstream change, declared on the case written to catch it: `@case(..., changed=Change(...))`.

The declaration is data: the cell's plugin writes it into each record of the case (`change`), and the host reads it
from source without importing anything (`declared()`, for `nox -s upgrade`), so both see the same value. What a
declaration means for a result (documented, stale, unexpected) is decided once, in reports/verdicts/documented.py.

Imports nothing but the standard library, packaging and the vocabulary: it runs inside every cell and on the host.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from harness import outputs
from harness.formats import ShardmatrixError
from harness.vocabulary import CHANGE_KEYS, CHANGE_KINDS, CHANGE_PACKAGES, DEPRECATION


class ChangeError(ShardmatrixError):
    """A declaration that cannot be read or does not hold together, in one line naming it."""


@dataclass(frozen=True)
class Change:
    """The upstream change a case documents: from which release (`since`, "jax>=0.9.0") what changed, the exception
    code written the old way fails with there (`raises`: one class name as a string, or several; each matches a
    recorded error type exactly, the class raised and not its bases), where it warned first (`warned`, or None),
    the fix, and its kind (harness.vocabulary.CHANGE_KINDS). A deprecation that has not broken anything yet has no
    `since` and no `raises`: kind "deprecation", and `warned` says from which release. `warning` is a part of the
    warning's own text there ("The default axis_types will change"): how a project whose settings make warnings
    errors (-Werror) fails inside `warned`, which a report then calls this change. `error` is a part of the first
    line of the exception it raises inside `since` ("can only refer to Auto axes of the mesh"): how a project's own
    failure is told to be this change, not another that raises the same class."""

    since: str | None
    what: str
    raises: str | tuple[str, ...] = ()
    fix: str = ""
    kind: str = ""
    warned: str | None = None
    warning: str = ""
    error: str = ""

    def __post_init__(self) -> None:
        names = (self.raises,) if isinstance(self.raises, str) else tuple(self.raises)
        object.__setattr__(self, "raises", names)
        if self.kind not in CHANGE_KINDS:
            raise ChangeError(f"{self.label}: kind {self.kind!r} is not one of {', '.join(CHANGE_KINDS)}")
        for field, text in (("since", self.since), ("warned", self.warned)):
            if text is not None:
                _range(text, field, self)
        if (self.since is None) != (self.kind == DEPRECATION):
            raise ChangeError(f"{self.label}: a change with no `since` (nothing broken yet) is kind {DEPRECATION!r}, "
                              "and only such a change")
        if self.since is None and (self.warned is None or names):
            raise ChangeError(f"{self.label}: a deprecation gives `warned` and raises nothing")
        if self.since is not None and not names:
            raise ChangeError(f"{self.label}: raises {self.raises!r} is not one or more exception class names")
        qualified = next((name for name in names if isinstance(name, str) and "." in name), None)
        if qualified is not None:
            # A record keeps type(exc).__name__ alone, and a name must match it exactly
            # (reports/verdicts/documented.py).
            raise ChangeError(f"{self.label}: raises {qualified!r} is qualified: give the class name alone "
                              f"({qualified.rpartition('.')[2]!r}), the name a record keeps and matches exactly")
        if not all(isinstance(name, str) and name.isidentifier() for name in names):
            raise ChangeError(f"{self.label}: raises {self.raises!r} is not one or more exception class names")
        if self.warning and self.warned is None:
            raise ChangeError(f"{self.label}: a `warning` needs the `warned` range it is given in")
        if self.error and self.since is None:
            raise ChangeError(f"{self.label}: an `error` needs the `since` range it is raised in")
        if not self.what.strip() or not self.fix.strip():
            raise ChangeError(f"{self.label}: `what` and `fix` must each say something")

    @property
    def label(self) -> str:
        """How the declaration is named in an error: Change('jax>=0.9.0', 'make_mesh ...')."""
        return f"Change({self.since!r}, {self.what[:40]!r})"

    def in_effect(self, installed: Mapping[str, str | None]) -> bool:
        """Whether the installed versions ({"jax": "0.8.1", ...}) fall inside `since`: the cells where code written
        the old way fails, so a case's needs are not checked there (a removal fails, it is not skipped)."""
        if self.since is None:
            return False
        requirement = Requirement(self.since)
        have = installed.get(requirement.name)
        return have is not None and requirement.specifier.contains(have, prereleases=True)

    def as_record(self) -> dict[str, Any]:
        """The record's `change` object (keys harness.vocabulary.CHANGE_KEYS)."""
        found = {"since": self.since, "what": self.what, "raises": list(self.raises), "warned": self.warned,
                 "fix": self.fix, "kind": self.kind, "warning": self.warning or None, "error": self.error or None}
        return {key: found[key] for key in CHANGE_KEYS}


def _range(text: object, field: str, change: Change) -> None:
    """`text` must be a requirement on jax or flax with a version range ("jax>=0.8.1,<0.9.0")."""
    try:
        requirement = Requirement(str(text))
    except InvalidRequirement as exc:
        raise ChangeError(f"{change.label}: {field} {text!r} is not a requirement ({exc})") from None
    if requirement.name not in CHANGE_PACKAGES or not str(requirement.specifier):
        raise ChangeError(f"{change.label}: {field} {text!r} must give a version range of "
                          f"{' or '.join(CHANGE_PACKAGES)}")


# --- read from source -----------------------------------------------------------------------------------------------


def declared(path: Path) -> dict[str, Change]:
    """{test name: Change} of a case module, read from its source alone: each `@case(..., changed=...)` given a
    `Change(...)` written with literals (or module-level names bound to literals), or a module-level name bound to
    one. `changed=None` says so explicitly: no change documented (see `explicit()`). ChangeError names anything else."""
    source = Path(path)
    tree = _parse(source)
    bound = {**_imported(tree, source.parent), **_assigned(tree)}
    found: dict[str, Change] = {}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.name.startswith("test"):
            continue
        for decorator in node.decorator_list:
            value = case_keyword(decorator, "changed")
            if value is None:
                continue
            if isinstance(value, ast.Name) and value.id in bound:
                value = bound[value.id]
            if isinstance(value, ast.Constant) and value.value is None:
                continue
            found[node.name] = _literal_change(value, bound, f"{source.name}::{node.name}")
    return found


def _assigned(tree: ast.Module) -> dict[str, ast.expr]:
    return {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)}


def _imported(tree: ast.Module, folder: Path) -> dict[str, ast.expr]:
    """Names a module imports from a sibling module (`from cases._support import X`), bound as that module binds
    them: one wording shared by the cases of several files."""
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            sibling = folder / f"{node.module.rsplit('.', 1)[-1]}.py"
            if sibling.is_file():
                theirs = _assigned(_parse(sibling))
                found.update({alias.asname or alias.name: theirs[alias.name] for alias in node.names
                              if alias.name in theirs})
    return found


def case_keyword(decorator: ast.expr, keyword: str) -> ast.expr | None:
    """The source of a `@case(..., <keyword>=...)` decorator's argument; None for any other decorator or keyword.
    The host reads what a case declares (`changed=`, `cites=`) from source, without importing it."""
    if not isinstance(decorator, ast.Call):
        return None
    func = decorator.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name != "case":
        return None
    return next((kw.value for kw in decorator.keywords if kw.arg == keyword), None)


def _literal_change(node: ast.expr, bound: dict[str, ast.expr], where: str) -> Change:
    func = node.func if isinstance(node, ast.Call) else None
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if not isinstance(node, ast.Call) or name != "Change":
        raise ChangeError(f"{where}: changed= must be Change(...) written with literals, or a module-level name "
                          "bound to one (the host reads it without importing the case)")
    try:
        args = [_literal(arg, bound) for arg in node.args]
        kwargs = {str(kw.arg): _literal(kw.value, bound) for kw in node.keywords}
        return Change(*args, **kwargs)
    except ChangeError as exc:
        raise ChangeError(f"{where}: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise ChangeError(f"{where}: Change(...) must be written with literals ({exc})") from None


def _parse(path: Path) -> ast.Module:
    """A case module's syntax tree; ChangeError naming it when it is not Python text."""
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, ValueError) as exc:  # not UTF-8 (a UnicodeDecodeError), a NUL byte, not Python
        raise ChangeError(f"{path}: not a Python module ({type(exc).__name__}: {exc})") from None


def _literal(node: ast.expr, bound: dict[str, ast.expr]) -> Any:
    if isinstance(node, ast.Name) and node.id in bound:
        node = bound[node.id]
    return ast.literal_eval(node)


def explicit(path: Path) -> dict[str, bool]:
    """{test name: whether its `@case(...)` passes `changed=` at all} for each case of a module (a user-style case
    must say, even if only `changed=None`)."""
    tree = _parse(Path(path))
    return {node.name: any(case_keyword(decorator, "changed") is not None for decorator in node.decorator_list)
            for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")}


def needed_versions(path: Path) -> dict[str, list[str]]:
    """{test name: the `version("...")` requirements among its `needs=`}, read from source like `declared()`: each
    written as a string literal, inside the list or through a module-level name bound to one (or to a list of them)."""
    source = Path(path)
    tree = _parse(source)
    bound = {**_imported(tree, source.parent), **_assigned(tree)}
    found: dict[str, list[str]] = {}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.name.startswith("test"):
            continue
        for decorator in node.decorator_list:
            needs = _keyword(decorator, "needs")
            if needs is not None:
                found[node.name] = list(_version_calls(needs, bound, set()))
    return found


def _keyword(decorator: ast.expr, name: str) -> ast.expr | None:
    if not isinstance(decorator, ast.Call) or not _is_case(decorator):
        return None
    return next((kw.value for kw in decorator.keywords if kw.arg == name), None)


def _is_case(call: ast.Call) -> bool:
    func = call.func
    return (func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "") == "case"


def _version_calls(node: ast.expr, bound: dict[str, ast.expr], seen: set[str]) -> list[str]:
    if isinstance(node, ast.Name) and node.id in bound and node.id not in seen:
        return _version_calls(bound[node.id], bound, seen | {node.id})
    if isinstance(node, ast.Starred):
        return _version_calls(node.value, bound, seen)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [text for element in node.elts for text in _version_calls(element, bound, seen)]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "version" and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return [node.args[0].value]
    return []


#: The specifier operators that bound a range from above.
UPPER = ("<", "<=", "==", "~=", "===")


def undeclared_upper_bounds(path: Path) -> dict[str, list[str]]:
    """{test name: each upper bound on a `version()` need that no `changed=` of the case declares}: an API that was
    there and is gone is a removal, which fails its cells with its fix instead of reading not applicable there. A
    bound `<X` (or `<=X`) is declared by a change whose `since` is `>=X` (or `>X`) on the same package."""
    changes = declared(path)
    missing: dict[str, list[str]] = {}
    for name, requirements in needed_versions(path).items():
        change = changes.get(name)
        since = Requirement(change.since) if change is not None and change.since is not None else None
        covered = {(since.name, str(spec)) for spec in since.specifier} if since is not None else set()
        for text in requirements:
            requirement = Requirement(text)
            for spec in requirement.specifier:
                if spec.operator not in UPPER:
                    continue
                opposite = {"<": ">=", "<=": ">"}.get(spec.operator)
                if opposite is None or (requirement.name, f"{opposite}{spec.version}") not in covered:
                    missing.setdefault(name, []).append(f"{requirement.name}{spec}")
    return missing


# --- the declarations file ------------------------------------------------------------------------------------------

def as_rows(found: Mapping[str, Change]) -> tuple[tuple[str, dict[str, Any]], ...]:
    """{case id: Change} as reports read declarations, in case id order: (case id, its record's `change` object)."""
    return tuple((case_id, change.as_record()) for case_id, change in sorted(found.items()))


def write_declarations(path: Path, found: Mapping[str, Change]) -> Path:
    """Write {case id: Change} as the declarations file `python -m reports --changes-from` reads (harness.outputs owns
    its format)."""
    rows = [{"case_id": case_id, "change": change} for case_id, change in as_rows(found)]
    return outputs.write_declarations(path, rows)


@dataclass(frozen=True)
class Declarations:
    """The documented changes an upgrade crosses, handed to its verdict in memory (`rows`, as `as_rows`), and the
    declarations file they were also written to, for a later process (`--changes-from`, an ecosystem's merge)."""

    rows: tuple[tuple[str, dict[str, Any]], ...]
    file: Path
