"""Tests for reports/data/text.py: fields as display text."""

from __future__ import annotations

import pandas as pd

from reports.data.text import as_text, first_line, relative_paths, seconds


def test_missing_values_are_blank() -> None:
    assert [as_text(v) for v in (None, float("nan"), pd.NA)] == ["", "", ""]


def test_present_values_are_their_text() -> None:
    assert [as_text(v) for v in ("x", 8, 0.0)] == ["x", "8", "0.0"]


def test_first_line_skips_blank_lines_and_cuts_long_ones() -> None:
    assert first_line("\n  first  \nsecond") == "first"
    assert first_line("x" * 300, limit=10) == "x" * 9 + "…"


def test_first_line_of_nothing_is_empty() -> None:
    assert first_line(None) == first_line(float("nan")) == ""


def test_seconds_keep_three_significant_digits() -> None:
    assert [seconds(v) for v in (0.52, 0.0729, 12.345, 100.0, 1234.5)] == ["0.520", "0.0729", "12.3", "100", "1234"]


def test_missing_seconds_are_blank() -> None:
    assert seconds(float("nan")) == seconds(None) == ""


VENV = "/home/ci/work/.nox/cell-jax0-4-30-flax0-10-4-py3-11/lib/python3.11/site-packages"


# --- paths: package-relative, never a venv's ------------------------------------------------------------------


def test_a_venv_path_becomes_package_relative() -> None:
    text = f"cannot import name 'shard_map' from 'jax.experimental' ({VENV}/jax/experimental/__init__.py)"
    expected = "cannot import name 'shard_map' from 'jax.experimental' (jax/experimental/__init__.py)"
    assert relative_paths(text) == expected


def test_an_interpreter_path_and_a_checkout_path_lose_their_folders() -> None:
    text = 'File "/root/.pyenv/versions/3.11.7/lib/python3.11/contextlib.py", in /work/main/cases/_support.py'
    assert relative_paths(text) == 'File "contextlib.py", in _support.py'


def test_text_without_paths_is_left_alone() -> None:
    assert relative_paths("shapes (8, 4) and 1/2 of jax 0.4.30") == "shapes (8, 4) and 1/2 of jax 0.4.30"


def test_relative_paths_leave_a_url_whole() -> None:
    url = "https://github.com/google/flax/releases/tag/v0.12.0"
    assert relative_paths(f"by design, see {url}") == f"by design, see {url}"
    assert relative_paths("(/home/ci/checkout/cases/x.py)") == "(x.py)"
