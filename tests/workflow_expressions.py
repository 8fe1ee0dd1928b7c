"""GitHub's `${{ }}` expressions, the subset the workflows use, for tests/workflow_driver.py.

Literals, contexts and their properties, `!`, `==`, `!=`, `&&`, `||`, parentheses, and the functions success,
failure, cancelled, always, fromJSON, contains and startsWith, with GitHub's semantics (strings compared without
case, values of two types as numbers, `&&` and `||` giving an operand). Anything else raises ExpressionError, so an
expression the driver does not understand fails a test instead of passing silently.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

STATUS_FUNCTIONS = re.compile(r"\b(success|failure|cancelled|always)\s*\(")


class ExpressionError(ValueError):
    """An expression the driver does not understand, or a context value it does not have."""


TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)|(?P<op>==|!=|&&|\|\||[!().,\[\]])"
                   r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))")


def tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) of each token; ExpressionError for anything outside the subset."""
    found, at = [], 0
    text = text.strip()
    while at < len(text):
        match = TOKEN.match(text, at)
        if not match or match.end() == at:
            raise ExpressionError(f"cannot read {text[at:]!r} in {text!r}")
        kind = match.lastgroup or ""
        found.append((kind, match.group(kind)))
        at = match.end()
    return found


def number(value: Any) -> float:
    """GitHub's conversion to a number, for comparing values of two types."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value) if value.strip() else 0.0
        except ValueError:
            return math.nan
    return math.nan


def equal(a: Any, b: Any) -> bool:
    """GitHub's `==`: strings case-insensitively, values of two types as numbers."""
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    if type(a) is type(b) and not isinstance(a, (int, float)):
        return bool(a == b)
    return number(a) == number(b)


def truthy(value: Any) -> bool:
    """GitHub's truthiness: false, 0, '', null are false (NaN too); everything else is true."""
    if isinstance(value, float) and math.isnan(value):
        return False
    return value not in (False, 0, "", None) or isinstance(value, (dict, list))


def text(value: Any) -> str:
    """A value as `${{ }}` writes it into a string."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, indent=2)
    return str(value)


@dataclass
class Status:
    """What the status functions answer where an expression is evaluated."""

    success: bool = True
    failure: bool = False
    cancelled: bool = False


class Evaluator:
    """Evaluates one expression against contexts (lenient ones answer None for a missing key, as GitHub does)."""

    LENIENT = frozenset({"inputs", "vars", "env"})

    def __init__(self, contexts: dict[str, Any], status: Status) -> None:
        self.contexts, self.status = contexts, status

    def evaluate(self, source: str) -> Any:
        """The value of `source`; ExpressionError for what the driver does not understand."""
        self.items, self.at, self.source = tokens(source), 0, source
        value = self.either()
        if self.at != len(self.items):
            raise ExpressionError(f"unexpected {self.items[self.at][1]!r} in {source!r}")
        return value

    def peek(self) -> str:
        return self.items[self.at][1] if self.at < len(self.items) else ""

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.at >= len(self.items) or (expected is not None and self.items[self.at][1] != expected):
            raise ExpressionError(f"expected {expected or 'more'} in {self.source!r}")
        self.at += 1
        return self.items[self.at - 1]

    def either(self) -> Any:
        value = self.both()
        while self.peek() == "||":
            self.take()
            other = self.both()
            value = value if truthy(value) else other
        return value

    def both(self) -> Any:
        value = self.compare()
        while self.peek() == "&&":
            self.take()
            other = self.compare()
            value = other if truthy(value) else value
        return value

    def compare(self) -> Any:
        value = self.unary()
        if self.peek() in ("==", "!="):
            op = self.take()[1]
            same = equal(value, self.unary())
            return same if op == "==" else not same
        return value

    def unary(self) -> Any:
        if self.peek() == "!":
            self.take()
            return not truthy(self.unary())
        return self.postfix()

    def postfix(self) -> Any:
        value, path = self.primary()
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                key = self.take()
                if key[0] != "name":
                    raise ExpressionError(f"expected a property name in {self.source!r}")
                name = key[1]
            else:
                name = text(self.either())
                self.take("]")
            value, path = self.member(value, name, path), f"{path}.{name}"
        return value

    def member(self, value: Any, name: str, path: str) -> Any:
        if isinstance(value, dict):
            if name in value:
                return value[name]
            if path.split(".")[0] in self.LENIENT or path.endswith(".outputs"):
                return None
        raise ExpressionError(f"{path}.{name} is not known to the driver (in {self.source!r})")

    def primary(self) -> tuple[Any, str]:
        kind, token = self.take()
        if token == "(":
            value = self.either()
            self.take(")")
            return value, "(...)"
        if kind == "str":
            return token[1:-1].replace("''", "'"), "'...'"
        if kind == "num":
            return float(token), token
        if kind != "name":
            raise ExpressionError(f"unexpected {token!r} in {self.source!r}")
        if token in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[token], token
        if self.peek() == "(":
            return self.call(token), f"{token}()"
        if token not in self.contexts:
            raise ExpressionError(f"context {token!r} is not available here (in {self.source!r})")
        return self.contexts[token], token

    def call(self, name: str) -> Any:
        self.take("(")
        args = []
        while self.peek() != ")":
            args.append(self.either())
            if self.peek() == ",":
                self.take()
        self.take(")")
        functions: dict[str, Callable[..., Any]] = {
            "success": lambda: self.status.success and not self.status.cancelled,
            "failure": lambda: self.status.failure,
            "cancelled": lambda: self.status.cancelled,
            "always": lambda: True,
            "fromJSON": lambda s: json.loads(s),
            "contains": lambda hay, needle: (any(equal(x, needle) for x in hay) if isinstance(hay, list)
                                             else text(needle).casefold() in text(hay).casefold()),
            "startsWith": lambda s, prefix: text(s).casefold().startswith(text(prefix).casefold()),
        }
        if name not in functions:
            raise ExpressionError(f"function {name}() is not known to the driver (in {self.source!r})")
        try:
            return functions[name](*args)
        except (TypeError, ValueError) as error:
            raise ExpressionError(f"{name}() in {self.source!r}: {error}") from None


TEMPLATE = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)


def alone(value: str) -> str | None:
    """The expression of a value that is one `${{ }}` and nothing else, else None."""
    found = list(TEMPLATE.finditer(value.strip()))
    return found[0].group(1) if len(found) == 1 and found[0].span() == (0, len(value.strip())) else None


def expand(value: Any, evaluator: Evaluator) -> Any:
    """A YAML value with its `${{ }}` expressions evaluated: a lone expression keeps its type, else text."""
    if isinstance(value, dict):
        return {k: expand(v, evaluator) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, evaluator) for v in value]
    if not isinstance(value, str):
        return value
    lone = alone(value)
    if lone is not None:
        return evaluator.evaluate(lone)
    return TEMPLATE.sub(lambda m: text(evaluator.evaluate(m.group(1))), value)


def condition(source: Any, evaluator: Evaluator) -> bool:
    """An `if:`, with `success() &&` implied when it names no status function."""
    if source is None:
        source = "success()"
    if isinstance(source, bool):
        return source
    source = str(source).strip()
    lone = alone(source)
    if lone is not None:
        source = lone.strip()
    elif TEMPLATE.search(source):
        raise ExpressionError(f"an `if:` mixing text and expressions is always true on GitHub: {source!r}")
    if not STATUS_FUNCTIONS.search(source):
        source = f"success() && ({source})"
    return truthy(evaluator.evaluate(source))
