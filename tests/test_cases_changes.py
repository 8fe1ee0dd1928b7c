"""The corpus's documented changes: every user-style case says which change it documents (or `changed=None`), every
declaration reads from source, and each names the releases its case's docstring dates it to."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from harness.change import Change, declared, explicit, undeclared_upper_bounds

CASES = Path(__file__).resolve().parents[1] / "cases"
USER_FILES = sorted(CASES.glob("*_user.py"))
ALL_FILES = sorted(p for p in CASES.glob("*.py") if not p.name.startswith("_"))


def undeclared(path: Path) -> list[str]:
    """The cases of a user-style module that do not pass `changed=` at all."""
    return [name for name, said in explicit(path).items() if not said]


def _lower_bounds(requirement: str | None) -> list[str]:
    """'jax>=0.8.1,<0.9.0' -> ['0.8.1']: the releases a range starts at."""
    return re.findall(r">=\s*([\d.]+)", requirement or "")


def undated(path: Path) -> dict[str, list[str]]:
    """{case: releases its Change starts at (`since`, `warned`) that its docstring does not name}."""
    docs = {node.name: ast.get_docstring(node) or "" for node in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef)}
    missing: dict[str, list[str]] = {}
    for name, change in declared(path).items():
        releases = [*_lower_bounds(change.since), *_lower_bounds(change.warned)]
        absent = [release for release in releases if not re.search(rf"(?<![\d.]){re.escape(release)}(?![\d])",
                                                                   docs.get(name, ""))]
        if absent:
            missing[name] = absent
    return missing


def test_there_are_user_style_files() -> None:
    assert len(USER_FILES) == 5


@pytest.mark.parametrize("path", USER_FILES, ids=lambda p: p.name)
def test_every_user_style_case_declares_its_change_or_none(path: Path) -> None:
    assert undeclared(path) == []


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_every_declaration_of_the_corpus_reads_from_source_and_names_its_releases(path: Path) -> None:
    assert undated(path) == {}


def test_the_user_layer_declares_changes_of_every_kind_in_both_packages() -> None:
    found: list[Change] = [change for path in USER_FILES for change in declared(path).values()]
    assert {change.kind for change in found} == {"default", "removal", "api", "behaviour", "deprecation"}
    assert {(change.since or change.warned or "")[:4] for change in found} == {"jax>", "flax"}


def test_a_user_style_case_without_a_declaration_is_named(tmp_path: Path) -> None:
    path = tmp_path / "fam_user.py"
    path.write_text("@case('fam')\ndef test_quiet():\n    pass\n\n@case('fam', changed=None)\ndef test_said():\n"
                    "    pass\n")
    assert undeclared(path) == ["test_quiet"]


def test_a_declaration_its_docstring_does_not_date_is_named(tmp_path: Path) -> None:
    path = tmp_path / "fam_user.py"
    change = ("changed=Change('jax>=0.9.0', 'x', raises='E', fix='f', kind='default', warned='jax>=0.8.1,<0.9.0')")
    path.write_text(f"@case('fam', {change})\ndef test_dated():\n    '''Changes in jax 0.9.0; warns 0.8.1.'''\n\n"
                    f"@case('fam', {change})\ndef test_undated():\n    '''Changes in jax 0.9.10; warns 0.8.1.'''\n")
    assert undated(path) == {"test_undated": ["0.9.0"]}


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_every_upper_bound_on_a_need_of_the_corpus_is_a_declared_change(path: Path) -> None:
    # A bound no change declares turns a removal into "not applicable" in every cell past it, hiding it.
    assert undeclared_upper_bounds(path) == {}


def test_an_upper_bound_no_change_declares_is_named(tmp_path: Path) -> None:
    module = tmp_path / "toy.py"
    module.write_text('from harness.case import case, version\n\n@case("f", needs=[version("flax<0.11.2")])\n'
                      'def test_spelling():\n    pass\n')
    assert undeclared_upper_bounds(module) == {"test_spelling": ["flax<0.11.2"]}


STORED_RUN = Path(__file__).resolve().parent / "data" / "h200-2026-11-26-505aeae" / "results"


def test_each_declared_error_text_is_in_its_cases_failures_as_measured() -> None:
    """A change's `error` names a project's failure after it (reports.verdicts.documented.explains): it must be text the
    case's own failure holds, in the stored jax 0.11.2 run (measured on jax 0.9.2 too, when it was declared)."""
    import json

    texts = {f"{path.stem}::{name}": change.error for path in USER_FILES
             for name, change in declared(path).items() if change.error}
    assert texts, "no declaration gives an error text"
    failures: dict[str, list[str]] = {}
    for results in STORED_RUN.rglob("*.jsonl"):
        for line in results.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("case_id") in texts and record.get("status") == "failed":
                failures.setdefault(record["case_id"], []).append(str(record.get("error_message") or ""))
    for case_id, text in texts.items():
        assert failures.get(case_id), f"{case_id}: no stored failure to check its error text against"
        assert all(text in message for message in failures[case_id]), (case_id, text, failures[case_id][:1])
