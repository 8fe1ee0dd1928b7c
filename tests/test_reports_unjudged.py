"""reports/unjudged.py: the lines saying what an upgrade comparison could not judge, in pairs (said / not said)."""

from __future__ import annotations

import pandas as pd

from reports.verdicts import unjudged


def test_a_cell_that_did_not_finish_is_named() -> None:
    assert unjudged.incomplete_reason(["jax0.9.2-flax0.12.6-py3.11"]) == [
        "cell jax0.9.2-flax0.12.6-py3.11 did not finish (no done marker: interrupted, or still running)"]


def test_every_cell_finished_says_nothing() -> None:
    assert unjudged.incomplete_reason([]) == []


def test_a_case_passing_only_on_retry_is_named_as_flaky() -> None:
    rows = pd.DataFrame({"case_id": ["m::test_a", "m::test_a", "m::test_b"]})
    (line,) = unjudged.retried_reason(rows)
    assert line.startswith("3 case(s) passed on the candidate only after a failing attempt (flaky: m::test_a, m::")


def test_no_retried_case_says_nothing() -> None:
    assert unjudged.retried_reason(pd.DataFrame({"case_id": []})) == []


def test_unreadable_lines_are_counted_with_the_first_one() -> None:
    assert unjudged.unreadable_reason(["a.jsonl:3: not valid JSON\nmore", "a.jsonl:4: x"]) == [
        "2 results line(s) could not be read (first: a.jsonl:3: not valid JSON)"]


def test_no_unreadable_line_says_nothing() -> None:
    assert unjudged.unreadable_reason([]) == []
