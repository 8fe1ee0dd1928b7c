"""An ecosystem run's files: the summary's reader refuses, in one line naming the field, what no run writes; a
project's own report names its run on its first line."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import formats
from harness.ecosystem_summary import (
    ECOSYSTEM_JSON,
    ecosystem_project_report,
    ecosystem_project_run,
    read_ecosystem,
    write_ecosystem,
    write_ecosystem_project_report,
)

HEAD = '"schema_version": 2, "candidate": ["jax==0.9.0"], "baseline": "jax==0.8.3,flax==0.12.3", "as_of": "2026-01-20"'
RUN_UNSAID = r"ecosystem summary does not say its candidate, baseline, day \(YYYY-MM-DD\) and whole_suite"
RUN = {"candidate": ["jax==0.9.0"], "baseline": "jax==0.8.3,flax==0.12.3", "as_of": "2026-01-20",
       "whole_suite": False}


def test_a_summary_as_a_run_writes_it_reads_back(tmp_path: Path) -> None:
    project = {"name": "alpha", "verdict": "UNSAFE", "tests": 3, "pins": {"baseline": {"jax": "0.8.3"}},
               "causes": [{"signature": "s", "change": "c", "cases": ["tests/test_a.py::test_a"]}]}
    path = write_ecosystem(tmp_path, {**RUN, "verdict": "UNSAFE", "projects": [project]})
    assert path == tmp_path / ECOSYSTEM_JSON.name
    assert read_ecosystem(path)["projects"] == [project]


@pytest.mark.parametrize(("document", "message"), [
    ('{"schema_version": 1, "cells": []}', RUN_UNSAID),
    ('{"schema_version": 1, "candidate": "jax==0.9.0", "baseline": "b", "as_of": "d", "projects": []}',
     RUN_UNSAID),  # a string read as its characters
    ('{"schema_version": 1, "candidate": [], "baseline": "", "as_of": "", "projects": []}', RUN_UNSAID),
    ('{HEAD, "whole_suite": "false", "projects": []}', RUN_UNSAID),  # bool("false") would be a whole-suite run
    ('{"schema_version": "1", "candidate": ["jax==0.9.0"], "baseline": "b", "as_of": "2026-01-20", "projects": []}',
     r"its schema_version is not a number"),
    ('{HEAD, "projects": {"alpha": "SAFE"}}', r"ecosystem summary has no list of projects"),
    ('{HEAD, "projects": [{"name": "alpha"}]}', r"project alpha: does not name its project and its verdict"),
    ('{HEAD, "projects": [{"name": "alpha", "verdict": "UNSAFE", "causes": [{"cases": []}]}]}',
     r"project alpha: its causes are not each a signature"),
    ('{HEAD, "projects": [{"name": "alpha", "verdict": "UNSAFE", "causes": [{"signature": "s", "cases": 5}]}]}',
     r"project alpha: its causes are not each a signature with text fields and a list of test ids"),
    ('{HEAD, "projects": [{"name": "alpha", "verdict": "UNSAFE", "pins": ["jax==1"], "causes": []}]}',
     r"project alpha: pins not of the type a run writes"),
    ('{HEAD, "projects": [{"name": "alpha", "verdict": "SAFE", "revision": 5, "tests": "3", "causes": []}]}',
     r"project alpha: revision, tests not of the type a run writes"),
    ('{HEAD, "projects": [{"name": "al', r"ecosystem summary is not valid JSON"),  # cut short
    ('{HEAD, "projects": [], "pending": "alpha"}', r"ecosystem summary: pending is not a list of project names"),
    # Attack 39b's B2: each crashed the merge (exit 3), or printed `1`: None as a test left out on purpose.
    ('{HEAD, "projects": [], "pending": [1]}', r"ecosystem summary: pending is not a list of project names"),
    ('{HEAD, "projects": [{"name": "alpha", "verdict": "UNSAFE", "excluded": 5, "causes": []}]}',
     r"project alpha: its excluded is not a list of tests left out, each with its what and reason as text"),
    ('{HEAD, "projects": [{"name": "alpha", "verdict": "UNSAFE", "excluded": [{"what": 1, "reason": null}]}]}',
     r"project alpha: its excluded is not a list of tests left out"),
    ('{HEAD, "projects": [{"name": "alpha", "verdict": "UNSAFE", "env": {"X": 1}}]}',
     r"project alpha: its env is not a table of variables set to text"),
    # A summary whose own verdict is better than its projects: the docs' replay shows the stated one.
    ('{HEAD, "verdict": "SAFE", "projects": [{"name": "alpha", "verdict": "SAFE"}, {"name": "beta", "verdict": '
     '"INCONCLUSIVE"}]}', r"ecosystem summary: it says SAFE, but project beta is INCONCLUSIVE$"),
    ('{HEAD, "verdict": "INCONCLUSIVE", "projects": [{"name": "alpha", "verdict": "UNSAFE"}]}',
     r"ecosystem summary: it says INCONCLUSIVE, but project alpha is UNSAFE$"),
    ('{HEAD, "verdict": "SAFE", "projects": [{"name": "alpha", "verdict": "SAFE"}], "pending": ["beta"]}',
     r"ecosystem summary: it says SAFE, but beta did not run$"),
    ('{HEAD, "verdict": "SAFE", "projects": []}', r"ecosystem summary: it says SAFE, but it judged no project$"),
    ('{HEAD, "verdict": 5, "projects": []}', r"ecosystem summary: its verdict 5 is not text$"),
    ('{HEAD, "projects": []}', r"ecosystem summary: it states no verdict \(a run states the worst of its projects'\)$"),
    # One project twice, SAFE and UNSAFE: a reader keyed by name keeps whichever came last.
    ('{HEAD, "projects": [{"name": "alpha", "verdict": "UNSAFE"}, {"name": "alpha", "verdict": "SAFE"}]}',
     r"ecosystem summary: project alpha is listed twice \(a run judges each project once\)$"),
])
def test_a_summary_no_run_wrote_is_refused_in_one_line_naming_the_file(tmp_path: Path, document: str,
                                                                         message: str) -> None:
    path = tmp_path / ECOSYSTEM_JSON.name
    path.write_text(document.replace("HEAD", HEAD))
    with pytest.raises(formats.ShardmatrixError, match=rf"{ECOSYSTEM_JSON.name}.*{message}") as raised:
        read_ecosystem(path)
    assert "\n" not in str(raised.value)


def test_a_project_report_names_its_run_on_its_first_line(tmp_path: Path) -> None:
    path = write_ecosystem_project_report(tmp_path, "alpha", "# compare\n", {**RUN, "projects": []})
    assert path == ecosystem_project_report(tmp_path, "alpha") == tmp_path / "ecosystem" / "alpha.md"
    assert ecosystem_project_run(path) == RUN
    assert path.read_text().endswith("as of 2026-01-20.\n\n# compare\n")


@pytest.mark.parametrize("first", ["# compare", "<!-- shardmatrix ecosystem run: {\"cand", "<!-- shardmatrix "
                                   "ecosystem run: [1] -->", ""])
def test_a_project_report_that_names_no_run_is_none(tmp_path: Path, first: str) -> None:
    path = tmp_path / "alpha.md"
    path.write_text(f"{first}\nthe rest\n")
    assert ecosystem_project_run(path) is None
    assert ecosystem_project_run(tmp_path / "missing.md") is None


@pytest.mark.parametrize(("verdict", "projects"), [
    ("SAFE", ["SAFE", "SAFE"]), ("UNSAFE", ["SAFE", "UNSAFE"]), ("INCONCLUSIVE", ["SAFE", "SKIPPED"]),
    ("INCONCLUSIVE", ["SAFE"]),  # worse than its projects is no lie about them: only a better verdict is refused
])
def test_a_summary_whose_verdict_its_projects_allow_reads_back(tmp_path: Path, verdict: str,
                                                                projects: list[str]) -> None:
    named = [{"name": f"p{number}", "verdict": said} for number, said in enumerate(projects)]
    path = write_ecosystem(tmp_path, {**RUN, "verdict": verdict, "projects": named})
    assert read_ecosystem(path)["verdict"] == verdict
