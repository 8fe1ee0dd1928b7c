"""Tests for reports/views/present.py: every status and verdict has a look, and an unknown one a neutral look."""

from __future__ import annotations

import re
from pathlib import Path

from harness import vocabulary
from reports.data.statuses import DEPRECATED, LABELS
from reports.verdicts import compat
from reports.views.present import LOOKS, PRESENTATIONS, UNKNOWN, VERDICTS, label, legend, present, stylesheet


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


def test_every_verdict_token_has_one_look_and_one_meaning_in_order() -> None:
    assert list(VERDICTS) == list(LOOKS) == list(compat.TOKENS)
    marks = [look.mark for look in LOOKS.values()]
    classes = [look.css_class for look in LOOKS.values()]
    assert len(set(marks)) == len(set(classes)) == len(compat.TOKENS)


def test_a_verdict_token_reads_as_its_words_and_an_unknown_one_as_itself() -> None:
    assert label(compat.WARNED) == "works with warnings"
    assert label("from_a_newer_writer") == "from_a_newer_writer"


def looks_in(source: str) -> list[str]:
    """What of a report's looks a module's source holds: emoji or symbols by name, CSS classes, file writing."""
    patterns = (r"\\N\{", r"[\U0001F300-\U0001FAFF\u2600-\u27BF]", r"css_class", r"\bwrite_(rows|frame)\(")
    return [pattern for pattern in patterns if re.search(pattern, source)]


def test_the_verdicts_floor_holds_no_looks_this_module_owns_them() -> None:
    # Was: reports/verdicts/compat.py held the verdicts' emoji, CSS classes and compat.csv's writing.
    assert looks_in('LOOKS = {"works": Look("works", "\\N{CHECK MARK}", "v-works")}\ncss_class = "v"\n')
    assert looks_in("def verdict(evidence: Evidence) -> str:\n    return WORKS\n") == []
    verdicts = Path(__file__).parents[1] / "reports" / "verdicts" / "compat.py"
    assert looks_in(verdicts.read_text(encoding="utf-8")) == []


def test_each_verdict_box_gets_its_colours_from_this_module_alone() -> None:
    # Was: the verdicts' colours lived in reports/views/_page.py, their classes here.
    rules = stylesheet()
    assert all(f".{look.css_class} {{ {look.style} }}" in rules for look in LOOKS.values())
    page = (Path(__file__).parents[1] / "reports" / "views" / "_page.py").read_text(encoding="utf-8")
    assert not re.search(r"^\.v-[a-z-]+ \{", page, re.M)
