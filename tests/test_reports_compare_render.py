"""The upgrade verdict as people read it: its terminal text and Markdown, regressions one line per root cause with
their cells, cases and one reproducer."""

from __future__ import annotations

from typing import Any

from compare_fakes import cases, compare, frame

from reports.views.compare_render import render_markdown, render_text


def test_text_links_reproducers_of_regressions() -> None:
    found = compare(frame([("a", "passed", {})], [("a", "failed", {})]), "r1:old", "r2:new")
    text = render_text(found, {("new", "fam::a"): "out/report/repro/new/fam__a.py"})
    assert text.startswith("UNSAFE") and "uv run out/report/repro/new/fam__a.py" in text


def test_regressions_are_one_line_per_cause_with_count_cells_and_one_reproducer() -> None:
    def broken(case: str, shape: str) -> tuple[str, str, dict[str, Any]]:
        return (case, "failed", {"error_type": "ValueError", "error_message": f"bad shape {shape}", "jax": "0.5.0",
                                 "flax": "0.10.2"})
    after = [broken("a", "(8, 2)"), broken("b", "(4, 4)"), broken("c", "(2,)"),
             ("d", "error", {"error_type": "ImportError", "error_message": "no module x"})]
    found = compare(frame(cases("a", "b", "c", "d"), after), "r1", "r2")
    assert len(found.regressions) == 4 and len(found.causes) == 2
    links = {("new", "fam::b"): "out/report/repro/new/fam__b.py", ("new", "fam::c"): "out/report/repro/new/fam__c.py"}
    text = render_text(found, links)
    assert "Regressions (passing \N{RIGHTWARDS ARROW} broken): 4 case(s) from 2 cause(s)" in text
    assert "  1. [3 case(s)] ValueError: bad shape (8, 2)\n" \
           "     cells: jax 0.5.0 \N{MULTIPLICATION SIGN} flax 0.10.2\n" \
           "     cases: fam::a, fam::b, fam::c\n     reproduce: uv run out/report/repro/new/fam__b.py\n" in text
    assert text.count("reproduce:") == 1 and text.count("ValueError") == 1
    markdown = render_markdown(found, links)
    assert "| 1 | ValueError: bad shape (8, 2) | 3 | jax 0.5.0 \N{MULTIPLICATION SIGN} flax 0.10.2 | " \
           "[script](out/report/repro/new/fam__b.py) |" in markdown
    assert "- cause 2: `fam::d`" in markdown


def test_the_terminal_shows_a_long_section_in_part_and_compare_md_in_full() -> None:
    broken = [(f"t{n:02}", "error", {"error_type": "ModuleNotFoundError", "error_message": "No module named 'x'"})
              for n in range(25)]
    found = compare(frame(broken, broken), "r1", "r2")
    text = render_text(found)
    assert "Could not run (error on a side: not judged): 25" in text
    assert "fam::t19: error" in text and "fam::t20" not in text
    assert "  ... and 5 more (compare.md lists every one)" in text
    assert "fam::t24" in render_markdown(found)


def test_a_regression_to_a_declared_known_bug_is_named_so_and_counted_apart_from_an_unexplained_one() -> None:
    bug = {"error_type": "TypeError", "reason": "why [jax>=0.8] https://github.com/google/flax/issues/5058"}
    found = compare(frame(cases("a", "b"), [("a", "xfailed", bug),
                                            ("b", "failed", {"error_type": "KeyError", "error_message": "k"})]),
                    "r1", "r2")
    text = render_text(found)
    assert ("Regressions (passing \N{RIGHTWARDS ARROW} broken): 2 case(s) from 2 cause(s): 0 documented · 1 known "
            "upstream · 1 unexplained") in text
    assert text.count("     known upstream bug\n") == 1
    markdown = render_markdown(found)
    assert markdown.count("(known upstream bug) |") == 1 and "KeyError: k |" in markdown
