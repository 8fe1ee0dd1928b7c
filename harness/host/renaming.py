"""The one rewriter of our import statements, for code of ours that is installed under another package name.

Two installs rename: a cell's `shardmatrix_cell` (harness.host.cellplugin renames `harness`) and the wheel's
`shardmatrix.harness` and `shardmatrix.reports` (hatch_build.py renames `harness` and `reports`), so that neither puts
a top-level `harness` or `reports` in a user's environment. Only import statements are rewritten, found by the parser,
each at its own lines: a docstring or a string that says `harness` is left as written. The build loads this module by
its path, outside any package: it imports nothing but the standard library.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path


class StagingError(RuntimeError):
    """An import of ours that staging could not rename (a bug of ours, never the user's)."""


def renamed(path: Path, names: Mapping[str, str]) -> str:
    """The module at `path` with its imports of each package in `names` made imports of the name it maps to."""
    return renamed_source(path.read_text(encoding="utf-8"), names, str(path))


def renamed_source(source: str, names: Mapping[str, str], where: str = "<source>") -> str:
    """`source` with its imports of each package in `names` (`harness`, `harness.cell`) renamed (`shardmatrix_cell`,
    `shardmatrix_cell.cell`); StagingError, naming `where` and the line, for an import left unrenamed."""
    lines = source.splitlines(keepends=True)
    for old, new in names.items():
        escaped = re.escape(old)
        for node in imports_of(ast.parse("".join(lines), where), old):
            for number in range(node.lineno - 1, node.end_lineno or node.lineno):
                # `from harness... import` names the package once, after `from`; `import harness..., x` after
                # `import` or a comma.
                pattern = (rf"(\bfrom\s+){escaped}\b" if isinstance(node, ast.ImportFrom)
                           else rf"((?:\bimport|,)\s*){escaped}\b")
                lines[number] = re.sub(pattern, rf"\g<1>{new}", lines[number])
    text = "".join(lines)
    tree = ast.parse(text, where)
    for old in names:
        left = imports_of(tree, old)
        if left:
            raise StagingError(f"{where}:{left[0].lineno}: an import of {old} that staging could not rename")
    return text


def imports_of(tree: ast.Module, package: str) -> list[ast.Import | ast.ImportFrom]:
    """The statements importing `package` or one of its modules, at any depth (a function's own imports too)."""
    ours = re.compile(rf"{re.escape(package)}(\.|$)")
    return [node for node in ast.walk(tree)
            if (isinstance(node, ast.ImportFrom) and node.level == 0 and ours.match(node.module or ""))
            or (isinstance(node, ast.Import) and any(ours.match(alias.name) for alias in node.names))]
