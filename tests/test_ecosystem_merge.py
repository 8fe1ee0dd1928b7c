"""shardmatrix.ecosystem_merge: the fan-in of one job per project, and which run a summary or a project's report is of.

The parts are written by real runs with cells faked at pytest (tests/test_ecosystem.py's `cells` and `run_list`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_ecosystem import cells, merge, run_list  # noqa: F401 - `cells` is the fixture the runs take

from harness import formats
from harness.ecosystem_summary import (
    ECOSYSTEM_JSON,
    ecosystem_project_report,
    read_ecosystem,
    write_ecosystem,
    write_ecosystem_project_report,
)
from shardmatrix import ecosystem_merge

RUN = {"candidate": ["jax==0.9.0", "flax==0.12.6"], "baseline": "jax==0.8.3,flax==0.12.3", "as_of": "2026-03-01",
       "whole_suite": False}


def test_runs_whose_pins_differ_only_in_order_and_spelling_are_one_run() -> None:
    same = {**RUN, "candidate": ["FLAX==0.12.6", "jax == 0.9.0"], "baseline": "flax==0.12.3, JAX==0.8.3"}
    assert ecosystem_merge.run_key(same) == ecosystem_merge.run_key(RUN)
    assert ecosystem_merge.normalised("JAX==0.10.0RC1") == "jax==0.10.0rc1"
    assert ecosystem_merge.normalised("jax @ git+https://x/jax@main") == "jax @ git+https://x/jax@main"


@pytest.mark.parametrize("other", [{"candidate": ["jax==0.9.1", "flax==0.12.6"]}, {"baseline": "jax==0.8.2"},
                                   {"as_of": "2026-03-02"}, {"whole_suite": True}])
def test_a_run_of_another_candidate_baseline_day_or_suite_is_another_run(other: dict[str, object]) -> None:
    assert ecosystem_merge.run_key({**RUN, **other}) != ecosystem_merge.run_key(RUN)


def reorder(part: Path, candidate: list[str]) -> None:
    """The part's summary as a job that was handed the candidate's pins in another order wrote it."""
    path = part / "report" / ECOSYSTEM_JSON.name
    document = json.loads(path.read_text())
    path.write_text(json.dumps({**document, "candidate": candidate}))


def test_merge_takes_parts_whose_candidate_lists_differ_only_in_order(tmp_path: Path,
                                                                      cells: list[str]) -> None:  # noqa: F811
    for name in ("alpha", "gamma"):
        run_list(tmp_path / name, [name], "--only", name)
    reorder(tmp_path / "alpha" / "out", ["JAX==0.9.0"])  # the same pin, spelt otherwise
    code, said = merge(tmp_path, [tmp_path / "alpha" / "out", tmp_path / "gamma" / "out"], "--only", "alpha",
                       "--only", "gamma")
    assert (code, said[-1]) == (formats.UNSAFE_EXIT, "UNSAFE")
    reorder(tmp_path / "alpha" / "out", ["jax==0.9.1"])  # pair: another candidate is another run
    with pytest.raises(ecosystem_merge.MergeError, match=r"--merge .*/gamma/out: another run"):
        merge(tmp_path, [tmp_path / "alpha" / "out", tmp_path / "gamma" / "out"])


def test_a_projects_report_of_an_earlier_run_is_left_out_of_the_merge_in_one_line(tmp_path: Path,
                                                                                  cells: list[str]  # noqa: F811
                                                                                  ) -> None:
    run_list(tmp_path / "gamma", ["gamma"], "--only", "gamma")
    report = ecosystem_project_report(tmp_path / "gamma" / "out" / "report", "gamma")
    assert ecosystem_merge.stale_report(report, {**RUN, "candidate": ["jax==0.9.0"],
                                                 "baseline": "jax==0.8.3,flax==0.12.3"}) == ""
    assert report.read_text().splitlines()[1] == ("Ecosystem run: jax==0.9.0 against jax==0.8.3,flax==0.12.3, as of "
                                                  "2026-03-01.")
    write_ecosystem_project_report(report.parent.parent, "gamma", "old\n", {**RUN, "as_of": "2025-01-01"})
    code, said = merge(tmp_path, [tmp_path / "gamma" / "out"], "--only", "gamma")
    assert code == formats.SAFE_EXIT
    assert any(line.endswith("gamma's report report/ecosystem/gamma.md left out: it is of another run (jax==0.9.0 "
                             "flax==0.12.6 against jax==0.8.3,flax==0.12.3, as of 2025-01-01)") for line in said)
    (gamma,) = read_ecosystem(tmp_path / "all" / "report" / ECOSYSTEM_JSON.name)["projects"]
    assert "report" not in gamma and gamma["verdict"] == "SAFE"


def test_a_run_names_the_reports_an_earlier_run_left_in_its_folder(tmp_path: Path,
                                                                   cells: list[str]) -> None:  # noqa: F811
    folder = tmp_path / "out" / "report"
    write_ecosystem_project_report(folder, "old", "old\n", {**RUN, "as_of": "2025-01-01"})
    unnamed = ecosystem_project_report(folder, "older")
    unnamed.write_text("# a report written before reports named their run\n")
    _, said = run_list(tmp_path, ["gamma"], "--only", "gamma")
    stale = [line for line in said if "left out of this run's report" in line]
    assert stale == [f"{ecosystem_project_report(folder, 'old')}: left out of this run's report: it is of "
                     "another run (jax==0.9.0 flax==0.12.6 against jax==0.8.3,flax==0.12.3, as of 2025-01-01)",
                     f"{unnamed}: left out of this run's report: it names no run"]


def test_the_merged_report_says_which_package_the_baseline_held_and_why(tmp_path: Path) -> None:
    for name in ("alpha", "beta"):
        write_ecosystem(tmp_path / name / "report", {
            **RUN, "held": "flax 0.12.3 held on both sides: as --baseline gives it", "pending": [], "verdict": "SAFE",
            "projects": [{"name": name, "verdict": "SAFE", "causes": []}]})
    merged = ecosystem_merge.merged([tmp_path / "alpha", tmp_path / "beta"], say=lambda line: None)
    assert merged["held"] == "flax 0.12.3 held on both sides: as --baseline gives it"
    assert [p["name"] for p in merged["projects"]] == ["alpha", "beta"]


def test_a_part_judged_under_another_entry_of_the_same_name_is_refused_naming_it(tmp_path: Path,
                                                                                 cells: list[str]  # noqa: F811
                                                                                 ) -> None:
    """Attack 39b's B11: a part run with `keywords = "trivial"` merged as the list's project of that name."""
    run_list(tmp_path / "gamma", ["gamma"], "--only", "gamma")
    path = tmp_path / "gamma" / "out" / "report" / ECOSYSTEM_JSON.name
    document = json.loads(path.read_text())
    assert merge(tmp_path, [tmp_path / "gamma" / "out"], "--only", "gamma")[0] == formats.SAFE_EXIT  # the same list
    (gamma,) = document["projects"]
    path.write_text(json.dumps({**document, "projects": [{**gamma, "selection": "0" * 16}]}))
    with pytest.raises(ecosystem_merge.MergeError, match=r"--merge .*/gamma/out: project gamma was judged under "
                                                         r"another entry than the list's"):
        merge(tmp_path, [tmp_path / "gamma" / "out"], "--only", "gamma")
