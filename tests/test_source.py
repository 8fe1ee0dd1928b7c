from __future__ import annotations

from pathlib import Path

import pytest

from harness.cell import source

MODULE = '''
import jax
from harness.case import case
FAMILY = "gathers"
OTHER = 3

@case(FAMILY, devices=8)
def test_named_family(): ...

@case("literal_family")
def test_literal_family(): ...

@case(family=FAMILY)
def test_keyword_family(): ...

def test_plain(): ...

def helper(): ...

class TestGroup:
    def test_method(self): ...
    def not_a_test(self): ...
'''


def test_static_cases_reads_names_and_families_without_importing(tmp_path: Path) -> None:
    path = tmp_path / "gathers.py"
    path.write_text(MODULE)
    assert source.static_cases(path) == [
        ("test_named_family", "gathers"),
        ("test_literal_family", "literal_family"),
        ("test_keyword_family", "gathers"),
        ("test_plain", None),
        ("TestGroup::test_method", None),
    ]


def test_case_files_builtin_vs_downstream(tmp_path: Path) -> None:
    for name in ("a.py", "_support.py", "test_b.py", "c_test.py", "sub/test_d.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    assert [p.name for p in source.case_files(tmp_path, builtin=True)] == ["a.py", "c_test.py", "test_b.py"]
    assert [p.name for p in source.case_files(tmp_path, builtin=False)] == ["c_test.py", "test_d.py", "test_b.py"]


def test_shipped_corpus_declares_a_family_for_every_case() -> None:
    corpus = Path(__file__).parent.parent / "cases"
    files = source.case_files(corpus, builtin=True)
    assert files
    families = {file.stem.removesuffix("_user") for file in files if file.stem.endswith("_user")}
    for file in files:
        # <family>.py and <family>_user.py hold their family's cases; a module of another name (explicit_mesh_ops.py,
        # shard_map_rules.py) declares one of those families on every case (`@case(family=...)`).
        named = file.stem.removesuffix("_user")
        for name, family in source.static_cases(file):
            assert family == named if named in families else family in families, f"{file.name}::{name}: {family}"


def test_a_module_that_is_not_python_text_has_no_static_cases(tmp_path: Path) -> None:
    for content in (b"\xff\xfe", b"def test_(:\n", b"x = 1\x00\n"):
        (tmp_path / "test_bad.py").write_bytes(content)
        assert source.static_cases(tmp_path / "test_bad.py") == []  # pytest's collection error stands for it
    (tmp_path / "test_bad.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    assert source.static_cases(tmp_path / "test_bad.py") == [("test_a", None)]


def test_a_file_is_parsed_once_per_content_and_anew_once_edited(tmp_path: Path) -> None:
    module = tmp_path / "test_cases.py"
    module.write_text("def test_first(): ...\n", encoding="utf-8")
    tree = source.parse(module)
    assert source.parse(module) is tree  # the next cell's read of the same file parses nothing
    module.write_text("def test_first(): ...\ndef test_second(): ...\n", encoding="utf-8")
    assert source.static_cases(module) == [("test_first", None), ("test_second", None)]
    assert source.parse(module) is not tree


def test_a_file_that_is_not_python_raises_what_ast_raises(tmp_path: Path) -> None:
    module = tmp_path / "test_broken.py"
    module.write_text("def test_(:\n", encoding="utf-8")
    with pytest.raises(SyntaxError):
        source.parse(module)
    assert source.static_cases(module) == []


@pytest.mark.parametrize(("name", "text"), [
    ("pytest.ini", "[pytest]\npython_files = *.py\n"),
    ("pyproject.toml", '[tool.pytest.ini_options]\npython_files = ["*.py"]\n'),
    ("tox.ini", "[pytest]\npython_files = *.py\n"),
    ("setup.cfg", "[tool:pytest]\npython_files = *.py\n")])
def test_a_folder_whose_pytest_collects_every_module_gives_every_module(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    cases = tmp_path / "cases"
    cases.mkdir()
    for file in ("nnx_axes.py", "test_b.py"):
        (cases / file).write_text("")
    assert [p.name for p in source.case_files(cases, builtin=False)] == ["nnx_axes.py", "test_b.py"]


def test_a_folder_whose_pytest_sets_no_python_files_gives_test_files_only(tmp_path: Path) -> None:
    # A pyproject.toml without a pytest table is not pytest's: the search goes on, and finds pytest.ini's defaults.
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -q\n")
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    for file in ("nnx_axes.py", "test_b.py"):
        (tmp_path / "cases" / file).write_text("")
    assert [p.name for p in source.case_files(tmp_path / "cases", builtin=False)] == ["test_b.py"]
