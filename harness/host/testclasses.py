"""The tests of a module's classes, read from its source: unittest.TestCase subclasses (absltest, parameterized) and
`Test*` classes, with the `test*` methods they inherit from a base class in the same module or in a sibling module.

For the host's uses of a source scan only (a cell that never ran, the progress line, stale known breakages), where
pytest cannot say. What a source cannot show is said too: a class whose tests are generated (absl's
`parameterized.parameters`) or inherited from a base that cannot be read is `unknown`, so nothing naming it is
called stale.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from harness.cell import source

#: Decorators whose test names are generated at import (absl's parameterized): the source cannot show them.
GENERATED = frozenset({"parameters", "named_parameters", "product"})
#: Bases that make a unittest case class (unittest, absltest, parameterized, chex, jax's JaxTestCase) by their name.
TESTCASE_SUFFIX = "TestCase"
#: Deeper base chains than this are not followed (a cycle of imports, a generated hierarchy).
MAX_DEPTH = 8


@dataclass
class ClassTests:
    """What a module's classes hold: `found` pytest names ('Class::test_x'), `unknown` classes whose tests the source
    cannot fully show."""

    found: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


@dataclass
class _Resolved:
    methods: list[str]
    certain: bool
    testcase: bool
    #: `__test__ = False`, set in the class or inherited (None: never set): pytest skips it (it may be a base).
    hidden: bool | None = None


def class_tests(path: Path) -> ClassTests:
    """The tests of the module's classes as pytest collects them (its own, and those its imports put in its
    namespace), and the classes whose tests cannot be known."""
    module = _Module.read(path)
    result = ClassTests()
    if module is None:
        return result
    for name in [*module.classes, *(n for n in module.imported if n not in module.classes)]:
        resolved = module.resolve_name(name, 0)
        if resolved is None:
            continue  # an imported name that is no class of the sibling
        if not (resolved.testcase or name.startswith("Test")) or resolved.hidden:
            if not resolved.certain:  # an unread base may make it a test class
                result.unknown.append(name)
            continue
        result.found += [f"{name}::{method}" for method in resolved.methods]
        if not resolved.certain:
            result.unknown.append(name)
    return result


class _Module:
    """One module's top-level classes and the sibling modules its imports name."""

    def __init__(self, path: Path, tree: ast.Module) -> None:
        self.path = path
        self.classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
        #: local name -> (sibling module file, class name there); local module alias -> sibling module file.
        self.imported: dict[str, tuple[Path, str]] = {}
        self.modules: dict[str, Path] = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module:
                sibling = self._sibling(node.module)
                for alias in node.names:
                    if sibling is not None:
                        self.imported[alias.asname or alias.name] = (sibling, alias.name)
            elif isinstance(node, ast.ImportFrom):  # from . import helpers
                for alias in node.names:
                    found = self._sibling(alias.name)
                    if found is not None:
                        self.modules[alias.asname or alias.name] = found
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    found = self._sibling(alias.name)
                    if found is not None:
                        self.modules[alias.asname or alias.name.split(".")[-1]] = found

    @classmethod
    def read(cls, path: Path) -> _Module | None:
        try:
            return cls(path, source.parse(path))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            return None

    def _sibling(self, dotted: str) -> Path | None:
        candidate = self.path.parent / f"{dotted.split('.')[-1]}.py"
        return candidate if candidate.is_file() and candidate != self.path else None

    def resolve_name(self, name: str, depth: int) -> _Resolved | None:
        """A class of this module, or one its imports name in a sibling module; None for neither."""
        if name in self.classes:
            return self.resolve(name, depth)
        return _in_sibling(*self.imported[name], depth) if name in self.imported else None

    def resolve(self, name: str, depth: int) -> _Resolved:
        """A class's test methods, own and inherited (once each), and whether the source shows them all."""
        node = self.classes[name]
        if depth > MAX_DEPTH:
            return _Resolved([], certain=False, testcase=False)
        methods: list[str] = []
        certain, testcase, hidden = True, False, _hidden(node)
        for base in node.bases:
            inherited = self._base(base, depth)
            if inherited is None:
                certain = False
                continue
            methods += [m for m in inherited.methods if m not in methods]
            certain, testcase = certain and inherited.certain, testcase or inherited.testcase
            hidden = inherited.hidden if hidden is None else hidden  # the first in the MRO that sets it
        for member in node.body:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and member.name.startswith("test"):
                if any(_decorator_name(d) in GENERATED for d in member.decorator_list):
                    certain = False
                elif member.name not in methods:
                    methods.append(member.name)
        return _Resolved(methods, certain, testcase, hidden)

    def _base(self, base: ast.expr, depth: int) -> _Resolved | None:
        """A base class resolved: one of this module's, one a sibling module defines, a TestCase root; None when the
        source cannot tell (a base from elsewhere)."""
        if isinstance(base, ast.Name):
            if base.id in self.classes or base.id in self.imported:
                return self.resolve_name(base.id, depth + 1)
            if base.id == "object":
                return _Resolved([], certain=True, testcase=False)
        if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id in self.modules:
            return _in_sibling(self.modules[base.value.id], base.attr, depth)
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
        if name.endswith(TESTCASE_SUFFIX):
            return _Resolved([], certain=True, testcase=True)
        return None


def _in_sibling(path: Path, name: str, depth: int) -> _Resolved | None:
    module = _Module.read(path)
    if module is None or name not in module.classes:
        return None
    return module.resolve(name, depth + 1)


def _hidden(node: ast.ClassDef) -> bool | None:
    """What the class body sets `__test__` to, negated (True: `__test__ = False`); None where it sets nothing."""
    for statement in node.body:
        if (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant)
                and any(isinstance(t, ast.Name) and t.id == "__test__" for t in statement.targets)):
            return not statement.value.value
    return None


def _decorator_name(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
