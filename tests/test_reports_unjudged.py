"""reports/verdicts/unjudged.py: the lines saying what an upgrade comparison could not judge, in pairs (said / not
said)."""

from __future__ import annotations

import pandas as pd

from harness.vocabulary import ABSENT, PASSING
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


def _pair(statuses_a: list[object], statuses_b: list[object]) -> tuple[pd.DataFrame, pd.Series, pd.Series]:
    from harness.vocabulary import status_class

    both = pd.DataFrame({"case_id": [f"m::t{n}" for n in range(len(statuses_a))], "status_a": statuses_a,
                         "status_b": statuses_b, "baseline": "old", "candidate": "new"})
    return both, both["status_a"].map(status_class), both["status_b"].map(status_class)


def test_cases_that_could_not_run_are_named_with_their_side() -> None:
    both, a_class, b_class = _pair(["error", "failed", "passed"], ["error", "error", "passed"])
    unrun = pd.Series([True, True, False])
    assert unjudged.case_reasons(both, a_class, b_class, unrun) == [
        "2 case(s) could not run (error), so they have no answer on that side (first: m::t0 is 'error' in the "
        "baseline old; also: m::t1)"]


def test_cases_with_an_answer_on_both_sides_say_nothing() -> None:
    both, a_class, b_class = _pair(["passed", "not_applicable"], ["failed", "passed"])
    assert unjudged.case_reasons(both, a_class, b_class, pd.Series([False, False])) == []


def test_cases_judged_by_neither_side_count_as_nothing_judged() -> None:
    both = pd.DataFrame({"case_id": ["fam::a"], "baseline": ["old"], "candidate": ["new"], "status_a": ["passed"],
                         "status_b": ["not_applicable"], "error_type_a": [None], "error_message_a": [None],
                         "reason_a": [None], "error_message_b": [None], "reason_b": ["needs 8 devices, cell has 1"]})
    a_class, b_class = pd.Series([PASSING]), pd.Series([ABSENT])
    assert unjudged.evidence_reasons(both, [("old", "new")], a_class, b_class)[0] == []
    (reason,), _ = unjudged.evidence_reasons(both, [("old", "new")], a_class, b_class, pd.Series([True]))
    assert reason.startswith("nothing was judged in old \N{RIGHTWARDS ARROW} new")


def _joined(statuses: list[str | None], messages: list[str | None]) -> pd.DataFrame:
    return pd.DataFrame({"baseline": "old", "candidate": "new", "status_a": "passed", "status_b": statuses,
                         "error_message_b": messages, "reason_b": messages})


def test_a_cell_whose_every_case_is_an_install_error_could_not_be_built_and_says_why() -> None:
    both = _joined(["install_error", "install_error", None], ["interpreter python3.12 not found", None, None])
    assert unjudged.unbuilt_reasons(both) == ["the candidate new could not be built: interpreter python3.12 not found"]


def test_a_cell_that_ran_a_case_was_built() -> None:
    both = _joined(["install_error", "crashed"], ["a lock file could not be read", "pytest exited with code 3"])
    assert unjudged.unbuilt_reasons(both) == []
