"""harness/cell/exceptions.py: what a record keeps of an exception, in pairs."""

from __future__ import annotations

from pathlib import Path

from harness.cell import exceptions


class CollectError(Exception):
    """Named as pytest's wrapper of a failed import."""


def test_a_wrapped_import_error_is_unwrapped_to_its_cause() -> None:
    cause = ModuleNotFoundError("No module named 'sklearn'")
    wrapper = CollectError("pytest's own text")
    wrapper.__cause__ = cause
    assert exceptions.unwrapped(wrapper) is cause


def test_any_other_exception_is_kept_as_it_is() -> None:
    error = ValueError("boom")
    error.__cause__ = KeyError("k")
    assert exceptions.unwrapped(error) is error


def test_facts_keep_the_type_and_the_first_line(tmp_path: Path) -> None:
    facts = exceptions.exception_facts(AssertionError("first\nsecond"), tmp_path / "test_x.py")
    assert (facts["error_type"], facts["error_message"]) == ("AssertionError", "first")


def test_an_exception_without_text_is_named_by_its_type(tmp_path: Path) -> None:
    facts = exceptions.exception_facts(RuntimeError(), tmp_path / "test_x.py")
    assert facts["error_message"] == "RuntimeError"
