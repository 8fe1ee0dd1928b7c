"""reports/views/frontier_render.py: the flax x jax frontier grid (measured range, declared bound, probes), as HTML
and as Markdown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness import outputs
from reports.views import frontier_render
from shardmatrix import frontier_corpus, frontier_report, frontier_search

JAX = ["0.7.0", "0.7.1", "0.7.2", "0.8.0", "0.8.1", "0.8.2", "0.9.0.1"]


def written(tmp_path: Path, works: dict[str, set[int]], holes: bool = False) -> dict[str, Any]:
    """The frontier.json that shardmatrix.frontier writes for synthetic works-sets (indices into JAX)."""
    candidates = [Version(v) for v in JAX]
    documents = []
    for flax, good in works.items():
        def probe(version: Version, corpus: bool = False, good: set[int] = good) -> frontier_search.Probe:
            i = candidates.index(version)
            cause = "" if i in good else f"TypeError: at {version}"
            return frontier_search.Probe(version, i in good, cause, f"cell{i}", corpus=corpus,
                                         verdict="works" if i in good else "broken")

        found = frontier_corpus.measure(Version(flax), SpecifierSet(">=0.7.1"), candidates, probe, candidates[1])
        documents.append(frontier_report.to_json(found, SpecifierSet(">=0.7.1")))
    frontier_report.write_report(tmp_path, documents)
    data = frontier_render.load(tmp_path / "report")
    assert data is not None
    return data


def test_the_markdown_grid_shows_probes_range_and_declared_bound_newest_flax_first(tmp_path: Path) -> None:
    data = written(tmp_path, {"0.10.2": {1, 2, 3, 4}, "0.11.0": {3, 4, 5, 6}})
    text = frontier_render.markdown(data)
    rows = [line for line in text.splitlines() if line.startswith("| 0.")]
    assert [row.split(" | ")[0] for row in rows] == ["| 0.11.0", "| 0.10.2"]
    old = rows[1].split(" | ")
    assert old[1:5] == ["jax>=0.7.1", "0.7.1 to 0.8.1", "0.7.1 to 0.8.1", str(len(data["releases"][1]["probes"]))]
    probed = {p["jax"]: p["works"] for p in data["releases"][1]["probes"]}
    for version, symbol in zip(JAX, old[5:], strict=True):
        symbol = symbol.rstrip(" |")
        if version in probed:
            assert symbol == (frontier_render.WORKS if probed[version] else frontier_render.BROKEN), version
        elif Version("0.7.1") <= Version(version) <= Version("0.8.1"):
            assert symbol == frontier_render.IN_RANGE, version
        elif Version(version) > Version("0.8.1"):  # declared compatible (>=0.7.1) but outside what was measured
            assert symbol == frontier_render.DECLARED_ONLY, version
        else:  # outside the declaration: never probed, no installer pairs them
            assert symbol == "", version
    assert "(blank) outside flax's declared jax requirement" in text  # and the legend says what a blank means
    assert "- flax 0.10.2: `jax>=0.7.1,<=0.8.1`" in text


def test_a_release_that_works_nowhere_reads_none_and_shows_only_what_was_probed(tmp_path: Path) -> None:
    data = written(tmp_path, {"0.8.0": set()})
    release = data["releases"][0]
    assert frontier_render.measured(release) == "none"
    marks = [frontier_render.mark(release, version) for version in JAX]
    assert {m.kind for m in marks} <= {"broken", "declared", ""} and any(m.kind == "broken" for m in marks)


def test_a_hole_is_named_in_the_measured_range() -> None:
    release = {"row": {"works_from": "0.7.0", "works_to": "0.9.0", "holes": "0.8.1"}}
    assert frontier_render.measured(release) == "0.7.0 to 0.9.0 except 0.8.1"


def test_the_html_fragment_escapes_causes_and_puts_them_in_the_hover(tmp_path: Path) -> None:
    data = written(tmp_path, {"0.10.2": {1, 2, 3, 4}})
    data["releases"][0]["probes"][-1]["cause"] = "<script>x</script>"
    data["releases"][0]["probes"][-1]["works"] = False
    html = frontier_render.html_fragment(data)
    assert html.startswith('<section id="frontier">') and html.endswith("</section>")
    assert "<script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    assert html.count("<th>0.") == len(JAX) + 1  # the jax columns and the one flax row
    assert "<code>jax&gt;=0.7.1,&lt;=0.8.1</code>" in html


def test_no_frontier_file_reads_as_none_and_a_newer_schema_is_refused(tmp_path: Path) -> None:
    assert frontier_render.load(tmp_path) is None
    (tmp_path / "frontier.json").write_text(json.dumps({"schema_version": 99}), encoding="utf-8")
    knows = rf"frontier schema 99 is newer than this reader knows \({outputs.FRONTIER_SCHEMA_VERSION}\)"
    with pytest.raises(frontier_render.FrontierFileError, match=knows):
        frontier_render.load(tmp_path)


def test_the_report_reads_frontier_json_through_the_one_reader(tmp_path: Path) -> None:
    (tmp_path / "frontier.json").write_text(json.dumps({"schema_version": 99}), encoding="utf-8")
    knows = rf"frontier schema 99 is newer than this reader knows \({outputs.FRONTIER_SCHEMA_VERSION}\)"
    with pytest.raises(outputs.FrontierFileError, match=knows):
        frontier_render.load(tmp_path)
    assert frontier_render.FrontierFileError is outputs.FrontierFileError


def test_the_html_grid_shows_the_requirement_and_lists_the_whole_lines_under_it(tmp_path: Path) -> None:
    data = written(tmp_path, {"0.10.2": {1, 2, 3, 4}})
    release = data["releases"][0]
    release["requirement"] = "jax>=0.7.1,<=0.8.1  # narrower than the core's jax>=0.7.0,<=0.8.1: gathers::test_take (x)"
    html = frontier_render.html_fragment(data)
    grid, _, lines = html.partition("</table>")
    assert '<td title="narrower than the core&#x27;s jax&gt;=0.7.0,&lt;=0.8.1: gathers::test_take (x)"><code>' \
           "jax&gt;=0.7.1,&lt;=0.8.1</code></td>" in grid
    assert "gathers::test_take" in lines and '<div class="frontier-scroll">' in grid
    release["requirement"] = "# flax 0.10.2: no jax release passes the whole corpus"
    assert "<code>none</code>" in frontier_render.html_fragment(data)


def test_a_pair_probed_working_once_and_failing_once_shows_broken_whatever_the_order() -> None:
    release = {"row": {"works_from": "0.7.0", "works_to": "0.9.0", "holes": ""}}
    good = {"jax": "0.8.0", "works": True, "verdict": "works", "cell": "c-good", "cause": ""}
    bad = {"jax": "0.8.0", "works": False, "verdict": "broken", "cell": "c-bad", "cause": "TypeError: x"}
    for probes in ([good, bad], [bad, good]):
        assert frontier_render.mark({**release, "probes": probes}, "0.8.0").symbol == frontier_render.BROKEN
    assert frontier_render.mark({**release, "probes": [good]}, "0.8.0").symbol == frontier_render.WORKS


def test_a_probe_whose_works_flag_and_verdict_disagree_shows_broken_and_the_whole_corpus_word_stands() -> None:
    release = {"row": {"works_from": "", "works_to": "", "holes": ""}}
    torn = {"jax": "0.8.0", "works": True, "verdict": "broken", "cell": "c", "cause": "TypeError: x"}
    assert frontier_render.mark({**release, "probes": [torn]}, "0.8.0").symbol == frontier_render.BROKEN
    # A core probe that failed is overruled by the whole corpus's working word, never the other way round.
    core = {"jax": "0.8.0", "works": False, "verdict": "broken", "cell": "core", "cause": "x", "corpus": False}
    whole = {"jax": "0.8.0", "works": True, "verdict": "works", "cell": "whole", "cause": "", "corpus": True}
    assert frontier_render.mark({**release, "probes": [whole, core]}, "0.8.0").symbol == frontier_render.WORKS
