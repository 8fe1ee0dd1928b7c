"""reports.views.ecosystem_render: the Ecosystem report's Markdown page and its pull-request comment."""

from __future__ import annotations

from typing import Any

from reports.verdicts.ecosystem_judge import CauseGroup, Reproducer
from reports.views import ecosystem_render

SUMMARY: dict[str, Any] = {"candidate": ["jax==0.9.0"], "baseline": "jax==0.8.3,flax==0.12.3", "as_of": "2026-01-20",
                           "verdict": "UNSAFE", "projects": [{"verdict": "UNSAFE"}, {"verdict": "SKIPPED"}]}
ROWS = [{"project": "alpha", "revision": "1.0 (sdist alpha-1.0.tar.gz)", "baseline": "b", "candidate": "c",
         "tests": "4", "verdict": "UNSAFE", "coverage": "", "reason": "a | b"},
        {"project": "remote", "revision": "", "baseline": "", "candidate": "", "tests": "", "verdict": "SKIPPED",
         "coverage": "", "reason": "cannot be reached"}]


def cause(number: int) -> CauseGroup:
    return CauseGroup(f"E{number}: broke", f"E{number}: broke", "jax 0.9.0: changed", "do this", ["alpha"], 2,
                      [Reproducer("alpha", "1.0", "t::a", "repro/a.py", {"jax": "0.9.0", "numpy": "2.0"})])


def test_the_page_shows_the_grid_the_causes_with_fix_and_reproducer_and_the_skipped() -> None:
    page = ecosystem_render.page(SUMMARY, [cause(1)], ROWS)
    assert page.startswith("# Ecosystem: jax==0.9.0 against jax==0.8.3,flax==0.12.3, as of 2026-01-20\n")
    assert "**UNSAFE**: 1 of 1 project(s) judged break (1 cause(s)); 1 skipped" in page
    assert "| alpha | 1.0 (sdist alpha-1.0.tar.gz) | b | c | 4 | **UNSAFE** | a \\| b |" in page  # a pipe escaped
    assert "1. `E1: broke` in 1 project(s): alpha (2 test(s))" in page
    assert "   - documented change: jax 0.9.0: changed; fix: do this" in page
    assert "   - alpha 1.0: `t::a` (jax==0.9.0): `uv run repro/a.py`" in page
    assert "## Skipped\n\n- remote: cannot be reached" in page


def test_the_comment_is_short_and_says_where_the_rest_is() -> None:
    many = [cause(n) for n in range(1, 9)]
    body = ecosystem_render.comment(SUMMARY, many, ROWS)
    assert len(body) <= ecosystem_render.COMMENT_LIMIT
    assert "5. `E5: broke`" in body and "6. `E6" not in body and "... and 3 more cause(s) in ecosystem.md" in body
    long = [CauseGroup("x" * 2000, "x" * 2000, projects=["alpha"], cases=1) for _ in range(4)]
    cut = ecosystem_render.comment(SUMMARY, long, ROWS)
    assert len(cut) <= ecosystem_render.COMMENT_LIMIT and cut.endswith("the whole report is ecosystem.md\n")


def test_the_html_page_escapes_every_text_and_colours_each_verdict() -> None:
    hostile = CauseGroup("<script>x</script>", "<script>x</script>", projects=["a&b"], cases=1)
    page = ecosystem_render.html_page(SUMMARY, [cause(1), hostile], ROWS)
    assert page.startswith("<!DOCTYPE html>") and "<script>" not in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "a&amp;b" in page
    assert f'<td style="{ecosystem_render.VERDICT_STYLE["UNSAFE"]}"><b>UNSAFE</b></td>' in page
    assert "<li>alpha 1.0: <code>t::a</code>: <code>uv run repro/a.py</code></li>" in page


def test_text_from_a_project_cannot_hide_or_fake_the_rest_of_the_markdown() -> None:
    # An error or a reason is the project's text: a `<!--` hid everything after it on GitHub (an UNSAFE project's
    # causes with it), and its line breaks started headings of their own.
    evil = "boom <!-- hide\n\n# SAFE: all good\n- fake item"
    rows = [{**ROWS[1], "verdict": "INCONCLUSIVE", "project": "gamma", "reason": evil}, {**ROWS[1], "reason": evil}]
    found = CauseGroup("E", "ValueError: x\n\n## fake heading", projects=["alpha"], cases=1,
                       reproducers=[Reproducer("alpha", "1.0", "t::a\nb", "", {})])
    for text in (ecosystem_render.page(SUMMARY, [found], rows), ecosystem_render.comment(SUMMARY, [found], rows)):
        assert "<!--" not in text and "boom &lt;\\!-- hide # SAFE: all good - fake item" in text
        assert not any(line.startswith(("# SAFE", "## fake", "- fake")) for line in text.splitlines())
        assert "1. `ValueError: x ## fake heading` in 1 project(s)" in text
    merged = {**SUMMARY, "candidate": ["jax==0.9.0 <!--"]}  # a merged part's own words
    assert "jax==0.9.0 &lt;\\!--" in ecosystem_render.comment(merged, [], rows).splitlines()[0]
    assert "   - alpha 1.0: `t::a b` ()" in ecosystem_render.page(SUMMARY, [found], rows)


def test_a_mention_in_a_projects_text_notifies_nobody_where_the_body_is_posted() -> None:
    """An `@name` in a reason or a project's words reaches GitHub with a zero-width joiner after its `@`; an e-mail
    address, and a name in a code span (never linked), are kept as they are."""
    said = "ping @jax-devs and @org/team, mail dev@example.org"
    rows = [{**ROWS[0], "verdict": "INCONCLUSIVE", "reason": said}]
    joined = ecosystem_render.ZERO_WIDTH_JOINER
    for text in (ecosystem_render.page(SUMMARY, [], rows), ecosystem_render.comment(SUMMARY, [], rows)):
        assert f"ping @{joined}jax-devs and @{joined}org/team, mail dev@example.org" in text
        assert "@jax-devs" not in text and "@org/team" not in text
    found = CauseGroup("E", "ValueError: @someone broke it", projects=["alpha"], cases=1)
    assert "`ValueError: @someone broke it`" in ecosystem_render.page(SUMMARY, [found], ROWS)
    assert ecosystem_render.page(SUMMARY, [], ROWS).count(joined) == 0  # text without a mention is unchanged


def test_the_html_page_shows_why_a_cause_was_not_bisected() -> None:
    """Pair: a first bad release where one was found, the bisect's reason where none was."""
    found = CauseGroup("E", "E: x", projects=["alpha"], cases=1, bisect="the good end fails too")
    bisected = CauseGroup("F", "F: y", projects=["alpha"], cases=1, first_bad="jax==0.9.0")
    page = ecosystem_render.html_page(SUMMARY, [found, bisected], ROWS)
    assert "<li>bisect: the good end fails too</li>" in page and "<li>first bad release: jax==0.9.0</li>" in page


def test_the_headline_counts_the_inconclusive_apart_from_those_that_held() -> None:
    summary = {**SUMMARY, "verdict": "INCONCLUSIVE", "projects": [{"verdict": "INCONCLUSIVE"}, {"verdict": "SAFE"}]}
    assert ecosystem_render.headline(summary, []) == (
        "**INCONCLUSIVE**: 0 of 2 project(s) judged break, 1 inconclusive (0 cause(s)); 0 skipped")
    held = {**SUMMARY, "verdict": "SAFE", "projects": [{"verdict": "SAFE"}]}
    assert ecosystem_render.headline(held, []) == "**SAFE**: 0 of 1 project(s) judged break (0 cause(s)); 0 skipped"


def test_long_inconclusive_reasons_never_cut_the_causes_off_the_comment() -> None:
    conflict = "Because you require numpy<2 and jax==0.9.0 depends on numpy>=2, " * 40  # uv's words run to pages
    rows = [ROWS[0], *({**ROWS[1], "project": f"p{n}", "verdict": "INCONCLUSIVE", "reason": conflict}
                       for n in range(12))]
    body = ecosystem_render.comment(SUMMARY, [cause(1)], rows)
    assert len(body) <= ecosystem_render.COMMENT_LIMIT and "1. `E1: broke` in 1 project(s): alpha" in body
    assert "- **INCONCLUSIVE** p0: Because you require numpy&lt;2" in body and "…" in body


def test_every_view_says_which_package_the_baseline_held_and_why() -> None:
    why = "flax 0.12.2 held on both sides: the newest flax whose declared jax>=0.8.1 admits jax 0.8.2 and 0.9.0"
    said = {**SUMMARY, "held": why}
    line = f"Baseline jax==0.8.3,flax==0.12.3: {why}.".replace(">", "&gt;")  # escaped in Markdown and HTML alike
    assert f"\n\n{line}\n\n" in ecosystem_render.page(said, [], ROWS)
    assert f"\n\n{line}\n\n" in ecosystem_render.comment(said, [], ROWS)
    assert f'<p class="meta">{line}</p>' in ecosystem_render.html_page(said, [], ROWS)
    assert "Baseline jax==" not in ecosystem_render.page(SUMMARY, [], ROWS)  # an older summary says nothing of it


def test_what_a_project_leaves_out_on_purpose_is_shown_with_its_reason() -> None:
    said = {**SUMMARY, "projects": [{"name": "qwix", "verdict": "SAFE", "excluded": [
        {"what": "--ignore tests/contrib/kernels", "reason": "imports google3 <internal>"}]}]}
    assert ("## Left out on purpose\n\n- qwix: `--ignore tests/contrib/kernels`: imports google3 &lt;internal&gt;"
            in ecosystem_render.page(said, [], ROWS))
    assert ("<li>qwix: <code>--ignore tests/contrib/kernels</code>: imports google3 &lt;internal&gt;</li>"
            in ecosystem_render.html_page(said, [], ROWS))
    assert "Left out on purpose" not in ecosystem_render.page(SUMMARY, [], ROWS)
    skipped = {**said, "projects": [{**said["projects"][0], "verdict": "SKIPPED"}]}  # it ran nothing to leave out
    assert "Left out on purpose" not in ecosystem_render.page(skipped, [], ROWS)


def test_links_images_references_and_entities_in_a_projects_text_are_inert_in_the_comment() -> None:
    """att39's reason: an image (fetched on every view), a link, an issue reference (a "mentioned this" event on the
    issue at every post) and an `&#64;` entity; pair: plain text is left as it was."""
    evil = ("conflict ![x](https://evil.example/p.png) [click](https://evil.example) jax-ml/jax#12345 &#64;mattjj "
            "see https://github.com/jax-ml/jax/issues/1")
    rows = [{**ROWS[0], "verdict": "INCONCLUSIVE", "reason": evil}]
    joined = ecosystem_render.ZERO_WIDTH_JOINER
    for text in (ecosystem_render.page(SUMMARY, [], rows), ecosystem_render.comment(SUMMARY, [], rows)):
        assert "](" not in text.replace("\\](", "") and "![" not in text
        assert "\\!\\[x\\](" in text and "\\[click\\](" in text
        assert f"jax-ml/jax#{joined}12345" in text and f"&amp;#{joined}64;mattjj" in text
        assert "https://" not in text and f"https:{joined}//github.com/jax-ml/jax/issues/1" in text
    plain = [{**ROWS[0], "verdict": "INCONCLUSIVE", "reason": "numpy 2 is required"}]
    assert "- **INCONCLUSIVE** alpha 1.0 (sdist alpha-1.0.tar.gz): numpy 2 is required" in ecosystem_render.comment(
        SUMMARY, [], plain)


def test_the_comments_causes_come_before_any_number_of_inconclusive_projects() -> None:
    rows = [ROWS[0], *({**ROWS[1], "project": f"p{n}", "verdict": "INCONCLUSIVE", "reason": "x" * 200}
                       for n in range(40))]
    body = ecosystem_render.comment(SUMMARY, [cause(1), cause(2), cause(3)], rows)
    assert len(body) <= ecosystem_render.COMMENT_LIMIT
    assert all(f"`E{n}: broke` in 1 project(s)" in body for n in (1, 2, 3)) and "cut here" in body


def test_a_safe_project_on_part_of_its_tests_shows_its_coverage_in_the_comment_and_a_whole_one_does_not() -> None:
    partial = {**ROWS[0], "project": "gamma", "verdict": "SAFE",
               "coverage": "1 of 10 tests could show a regression (9 skipped on both sides)"}
    whole = {**ROWS[0], "project": "delta", "verdict": "SAFE", "coverage": ""}
    body = ecosystem_render.comment(SUMMARY, [], [partial, whole])
    assert "- **SAFE** gamma 1.0 (sdist alpha-1.0.tar.gz): 1 of 10 tests could show a regression (9 skipped" in body
    assert "delta" not in body


def test_the_comments_causes_come_before_any_number_of_unsafe_projects() -> None:
    """Attack 39b's B7: 60 UNSAFE rows filled the comment to its cut before the first cause."""
    rows = [{**ROWS[0], "project": f"p{n:02d}-{'y' * 60}"} for n in range(60)]
    body = ecosystem_render.comment(SUMMARY, [cause(1), cause(2), cause(3)], rows)
    assert len(body) <= ecosystem_render.COMMENT_LIMIT and "cut here" in body
    assert all(f"`E{n}: broke` in 1 project(s)" in body for n in (1, 2, 3))
    assert body.index("`E3: broke`") < body.index("- **UNSAFE** p00")


def test_the_variables_a_list_set_for_a_projects_tests_are_shown_on_the_page_and_the_html() -> None:
    """Attack 39b's B8: an entry's env was shown nowhere, so a reader could not weigh a SAFE by it."""
    summary = {**SUMMARY, "projects": [{"name": "keras", "verdict": "SAFE", "env": {"KERAS_BACKEND": "jax"}},
                                       {"name": "remote", "verdict": "SKIPPED", "env": {"X": "1"}},
                                       {"name": "plain", "verdict": "SAFE", "env": {}}]}
    page = ecosystem_render.page(summary, [], ROWS)
    assert "## Set for its tests (the list's env)\n\n- keras: `KERAS_BACKEND=jax`\n" in page and "X=1" not in page
    assert "<li>keras: <code>KERAS_BACKEND=jax</code></li>" in ecosystem_render.html_page(summary, [], ROWS)
    assert "Set for its tests" not in ecosystem_render.page(SUMMARY, [], ROWS)
