"""Tests for reports/present.py: every status has a look, and an unknown one still gets a neutral look."""

from __future__ import annotations

from harness import vocabulary
from reports.data.statuses import DEPRECATED, LABELS
from reports.views.present import PRESENTATIONS, UNKNOWN, legend, present, stylesheet


def test_every_harness_status_has_a_presentation() -> None:
    assert set(vocabulary.ALL) <= set(PRESENTATIONS)


def test_presentations_name_no_status_the_harness_lacks() -> None:
    assert set(PRESENTATIONS) - set(vocabulary.ALL) == {DEPRECATED}


def test_legend_follows_the_harness_order() -> None:
    order = [status for status in PRESENTATIONS if status != DEPRECATED]
    assert order == list(vocabulary.ALL)


def test_known_status_has_its_own_look() -> None:
    failed = present("failed")
    assert (failed.mark, failed.css_class) == ("❌", "st-failed")


def test_unknown_status_gets_the_neutral_look_under_its_own_name() -> None:
    mystery = present("<b>mystery</b>")
    assert (mystery.mark, mystery.css_class, mystery.label) == (UNKNOWN.mark, "st-unknown", "<b>mystery</b>")


def test_marks_and_classes_are_distinct() -> None:
    looks = list(PRESENTATIONS.values())
    assert len({p.mark for p in looks}) == len({p.symbol for p in looks}) == len({p.css_class for p in looks}) == len(
        looks
    )


def test_legend_appends_unknown_statuses_once() -> None:
    entries = [status for status, _ in legend(["passed", "weird", "weird"])]
    assert entries == [*PRESENTATIONS, "weird"]


def test_legend_of_known_statuses_is_the_table() -> None:
    assert [status for status, _ in legend(["failed"])] == list(PRESENTATIONS)


def test_each_look_is_labelled_as_every_text_names_its_status() -> None:
    assert {status: look.label for status, look in PRESENTATIONS.items()} == LABELS


def test_stylesheet_colours_every_class() -> None:
    css = stylesheet()
    assert all(f".{p.css_class} {{" in css for p in [*PRESENTATIONS.values(), UNKNOWN])


def test_each_status_means_what_the_vocabulary_says() -> None:
    assert {status: PRESENTATIONS[status].meaning for status in vocabulary.ALL} == vocabulary.MEANINGS


def test_an_unknown_status_is_drawn_as_unknown_never_as_passing() -> None:
    assert vocabulary.status_class("quarantined") == vocabulary.UNKNOWN
    mystery, passed = present("quarantined"), present(vocabulary.PASSED)
    assert (mystery.mark, mystery.symbol, mystery.css_class) == (UNKNOWN.mark, UNKNOWN.symbol, "st-unknown")
    assert mystery.mark != passed.mark and mystery.background != passed.background
