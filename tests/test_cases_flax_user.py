"""The flax-side user-style case files are in the shipped corpus, under their families, with titled cases."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness.cell.source import case_files, static_cases
from harness.host.corpus import case_paths, expected_cases
from harness.host.options import BUILTIN

CASES = Path(__file__).resolve().parent.parent / "cases"
USER_FILES = ("partitioned_metadata_user.py", "nnx_sharded_merge_user.py", "vmap_param_shapes_user.py")


def test_user_files_are_in_the_builtin_corpus() -> None:
    assert set(USER_FILES) <= {path.name for path in case_files(CASES, builtin=True)}
    ids = {case_id for case_id, _ in expected_cases(case_paths([BUILTIN]))}
    assert "nnx_sharded_merge_user::test_optimizer_without_wrt_follows_param_sharding" in ids


@pytest.mark.parametrize("name", USER_FILES)
def test_user_cases_declare_the_family_of_their_file(name: str) -> None:
    found = static_cases(CASES / name)
    assert len(found) >= 3
    assert {family for _, family in found} == {name.removesuffix("_user.py")}


@pytest.mark.parametrize("name", USER_FILES)
def test_user_cases_have_a_title_line(name: str) -> None:
    tree = ast.parse((CASES / name).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            doc = ast.get_docstring(node)
            assert doc and doc.splitlines()[0].endswith("."), f"{name}::{node.name} needs a one-line title"
