"""`nox -s ranges` on a toy corpus and fake releases: the declared edges are read, probed, stored and printed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from harness import outputs
from harness.formats import ShardmatrixError
from harness.host import matrix
from harness.host.options import OptionsError
from harness.tools import range_check, range_take, ranges

CASES = '''
from harness.case import Change, api, case

@case("toy", needs=[api("flax.nnx")], cites=("google/flax#5070",))
def test_eager():
    pass

@case("toy", needs=[api("jax.sharding.use_mesh")],
      changed=Change("jax>=0.7.1", "use_mesh is removed", raises="AttributeError", kind="api", fix="jax.set_mesh"))
def test_use_mesh():
    pass
'''
KNOWN = '''
[[breakage]]
case = "test_toy::test_eager"
flax = ">=0.12.0,<0.12.3"
reason = "fails in with_sharding_constraint"
link = "https://github.com/google/flax/pull/5070"
raises = "AssertionError"
'''
CENSUS = '''schema_version = 1
[[report]]
id = "google/flax#5070"
link = "https://github.com/google/flax/pull/5070"
family = "toy"
date = "2025-11-03"
appeared = "flax==0.12.0"
fixed = "flax==0.12.3"
summary = "eager sharding fails"
'''
JAX = ("0.6.2", "0.7.0", "0.7.1", "0.7.2", "0.8.1")
FLAX = ("0.11.2", "0.12.0", "0.12.1", "0.12.2", "0.12.3")
CELLS = matrix.parse('[[cell]]\njax = "0.6.2"\njaxlib = "0.6.2"\nflax = "0.11.2"\npython = "3.11"\n\n'
                     '[[cell]]\njax = "0.8.1"\njaxlib = "0.8.1"\nflax = "0.12.0"\npython = "3.11"\n')


def fetch(url: str, accept: str = "") -> Any:
    versions = JAX if "/jax/" in url else FLAX
    return {"releases": {v: [{"filename": f"x-{v}-py3-none-any.whl", "url": "u", "yanked": False,
                              "upload_time_iso_8601": "2025-01-01T00:00:00Z"}] for v in versions}}


def probe(case: str, jax: Version, flax: Version) -> str:
    fails = flax == Version("0.12.0") if case.endswith("eager") else jax >= Version("0.7.1")
    return ranges.FAIL if fails else ranges.PASS


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "test_toy.py").write_text(CASES)
    (folder / "known_breakages.toml").write_text(KNOWN)
    (folder / "census.toml").write_text(CENSUS)
    return folder


def test_the_matrix_pairs_an_edge_with_the_cell_of_the_newest_release_not_after_it() -> None:
    partner = range_check.partner_from(CELLS)
    # Then the cells just past the bound (here the 0.8.1 cell's flax 0.12.0, tried if 0.11.2 does not install).
    assert partner("jax", Version("0.7.0"), Version("0.7.1")) == [Version("0.11.2"), Version("0.12.0")]
    assert partner("flax", Version("0.12.2"), Version("0.12.3")) == [Version("0.8.1")]
    # before every cell: those of the first cells past it
    assert partner("flax", Version("0.9.0"), Version("0.10.0")) == [Version("0.6.2")]


def test_a_jax_edge_tries_the_newest_flax_paired_with_it_first_and_a_flax_edge_the_oldest_jax() -> None:
    cells = matrix.parse("".join(
        f'[[cell]]\njax = "{jax}"\njaxlib = "{jax}"\nflax = "{flax}"\npython = "3.11"\n\n'
        for jax, flax in (("0.7.2", "0.12.0"), ("0.8.1", "0.12.0"), ("0.8.1", "0.12.6"), ("0.6.0", "0.11.2"),
                          ("0.12.0.1", "0.11.2"))))
    partner = range_check.partner_from(cells)
    # flax 0.12.6 needs jax >= 0.8.1, so 0.8.0 is probed with the next, 0.12.0 (also the cell before's).
    assert partner("jax", Version("0.8.0"), Version("0.8.1")) == [Version("0.12.6"), Version("0.12.0"),
                                                                  Version("0.11.2")]
    # The matrix pairs flax 0.11.2 with jax 0.12.0.1 only to show the pair breaks: its own jax comes first.
    assert partner("flax", Version("0.11.1"), Version("0.11.2")) == [Version("0.6.0"), Version("0.12.0.1"),
                                                                     Version("0.7.2"), Version("0.8.1")]


def test_a_corpus_with_a_wrong_edge_is_stored_and_printed_with_the_bound_releases_show(corpus: Path,
                                                                                         tmp_path: Path) -> None:
    said: list[str] = []
    out = tmp_path / "out"
    findings = range_check.run(["--cases", str(corpus), "--out", str(out), "--budget", "12"], CELLS, fetch,
                               said.append, probe=probe)
    assert {(f.edge.case, f.edge.text): f.status for f in findings} == {
        ("test_toy::test_use_mesh", ">=0.7.1"): ranges.CONFIRMED,
        ("test_toy::test_eager", ">=0.12.0"): ranges.WRONG,
        ("test_toy::test_eager", "<0.12.3"): ranges.WRONG}
    document = outputs.read_ranges(out / "report" / "ranges.json")
    assert [row["found"] for row in document["edges"] if row["status"] == ranges.WRONG] == [
        ">=0.12.0,<0.12.1", "<0.12.1"]
    assert any(line.startswith("wrong: test_toy::test_eager flax<0.12.3") and "releases show <0.12.1" in line
               for line in said)
    assert json.loads((out / "report" / "ranges.json").read_text())["schema_version"] == 2
    # The report test_eager cites has one edge wrong: a citation whose range the releases contradict catches nothing.
    assert ("census of cases: 0 of 1 reports a CPU cell can show are caught at their own transition (0 %); "
            "0 of 1 need more than a CPU") in said


@pytest.mark.parametrize("argv", [[], ["--take", "check"], ["--records", "out"]])
def test_a_cases_folder_with_no_case_module_is_refused_naming_it(tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "helpers.py").write_text("def test_not_collected():\n    pass\n")  # not test_*.py: not a case module
    with pytest.raises(range_check.RangeCheckError, match=f"^--cases {tmp_path}: no case module in it"):
        range_check.run(["--cases", str(tmp_path), *argv], CELLS, fetch, print, probe=probe)


def test_a_budget_below_one_is_refused_in_one_line(corpus: Path) -> None:
    with pytest.raises(range_check.RangeCheckError, match="--budget 0: must be at least 1"):
        range_check.run(["--cases", str(corpus), "--budget", "0"], CELLS, fetch, print, probe=probe)


def test_only_the_edges_of_the_cases_asked_for_are_checked(corpus: Path, tmp_path: Path) -> None:
    findings = range_check.run(["--cases", str(corpus), "--out", str(tmp_path), "--case", "test_toy::test_use_mesh"],
                               CELLS, fetch, print, probe=probe)
    assert [(f.edge.case, f.edge.text) for f in findings] == [("test_toy::test_use_mesh", ">=0.7.1")]


def test_the_inside_reach_asked_for_is_how_far_the_stored_rows_were_probed_inside(corpus: Path,
                                                                                  tmp_path: Path) -> None:
    asked = ["--cases", str(corpus), "--case", "test_toy::test_use_mesh", "--budget", "40"]
    [every] = range_check.run([*asked, "--out", str(tmp_path / "every")], CELLS, fetch, print, probe=probe)
    [bounds] = range_check.run([*asked, "--out", str(tmp_path / "none"), "--inside", "none"], CELLS, fetch, print,
                               probe=probe)
    assert every.status == bounds.status == ranges.CONFIRMED
    assert every.inside_judged and not bounds.inside_asked
    stored = outputs.read_ranges(tmp_path / "none" / "report" / "ranges.json")
    assert [row["inside_judged"] for row in stored["edges"]] == [0] and stored["options"] == {"inside": "none"}
    # A check of less evidence inside is never merged into one of more: its rows would replace theirs.
    with pytest.raises(range_check.RangeCheckError, match=r"checked with options none, this check with "
                                                          r"\{'inside': 'middle'\}: merge only checks run alike"):
        range_check.run([*asked, "--inside", "middle", "--merge", str(tmp_path / "every" / "report" / "ranges.json"),
                         "--out", str(tmp_path / "merged")], CELLS, fetch, print, probe=probe)


def test_an_inside_reach_it_does_not_know_is_refused_naming_it(corpus: Path) -> None:
    with pytest.raises(OptionsError, match=r"nox -s ranges: argument --inside: invalid choice: 'halfway'"):
        range_check.run(["--cases", str(corpus), "--inside", "halfway"], CELLS, fetch, print, probe=probe)


@pytest.mark.parametrize("mode", [["--take", "check"], ["--stamp", "r.json", "--checked-at", "abc"],
                                  ["--records", "out"]])
@pytest.mark.parametrize("reach", ["middle", "none"])
def test_an_inside_reach_with_a_mode_that_probes_nothing_is_refused_naming_both(corpus: Path, mode: list[str],
                                                                                reach: str) -> None:
    with pytest.raises(range_check.RangeCheckError, match=f"^--inside {reach} with {mode[0]}: {mode[0]} probes "):
        range_check.run(["--cases", str(corpus), *mode, "--inside", reach], CELLS, fetch, print, probe=probe)


def test_the_default_reach_with_a_take_is_no_refusal_of_the_reach(corpus: Path, tmp_path: Path) -> None:
    # It gets as far as the take itself, which refuses the folder that is not there.
    with pytest.raises(range_take.TakeError, match=r"^--take \S*absent: no such folder"):
        range_check.run(["--cases", str(corpus), "--take", str(tmp_path / "absent"), "--inside", "every",
                         "--ranges-from", str(tmp_path / "absent.json")], CELLS, fetch, print, probe=probe)


def test_a_case_with_no_declared_range_is_refused_in_one_line(corpus: Path) -> None:
    with pytest.raises(range_check.RangeCheckError, match="--case test_toy::test_nope: the corpus declares no range"):
        range_check.run(["--cases", str(corpus), "--case", "test_toy::test_nope"], CELLS, fetch, print, probe=probe)


class FakeRun:
    """What cellrun.probe returns, as much of it as a range probe reads."""

    def __init__(self, finals: dict[str, dict[str, object]]) -> None:
        self._finals, self.interrupted, self.reused_from = finals, False, None

    def finals(self) -> dict[str, dict[str, object]]:
        return self._finals


def test_a_cell_probe_reads_each_case_s_record_and_builds_a_pair_once(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    built: list[str] = []
    finals = {"m::test_passes": {"status": "passed"}, "m::test_xfails": {"status": "xfailed"},
              "m::test_warns": {"status": "passed", "warnings": ["DeprecationWarning: use_mesh is deprecated"]},
              "m::test_fails_warning": {"status": "failed", "warnings": ["DeprecationWarning: old"]},
              "m::test_other_warning": {"status": "passed", "warnings": ["DeprecationWarning: shard_map moved"]},
              "m::test_absent": {"status": "not_applicable", "reason": "jax.sharding.use_mesh is absent"}}
    monkeypatch.setattr(range_check.cellrun, "probe",
                        lambda cell, opts, paths, say: built.append(cell.id) or FakeRun(finals))
    opts = range_check.options.from_namespace(range_check.parser().parse_strictly(["--out", str(tmp_path)]))
    cell_probe = range_check.CellProbe(opts, range_check.cellenv.Additions(), lambda line: None,
                                       {"m::test_other_warning": "The default axis_types will change"})
    jax, flax = Version("0.7.1"), Version("0.10.7")
    assert cell_probe("m::test_passes", jax, flax) == ranges.PASS
    assert cell_probe("m::test_xfails", jax, flax) == ranges.FAIL
    assert cell_probe("m::test_warns", jax, flax) == ranges.WARNED
    # A failure is not a warning; its class is kept for the edge to judge by its `raises`.
    assert cell_probe("m::test_fails_warning", jax, flax) == ranges.failed_as("")
    # A change that names its warning is warned by that text only, not by another module's deprecation.
    assert cell_probe("m::test_other_warning", jax, flax) == ranges.PASS
    assert cell_probe("m::test_absent", jax, flax) == "not_applicable: jax.sharding.use_mesh is absent"
    assert built == ["jax0.7.1-flax0.10.7-py3.11"]
    assert cell_probe.seen()["m::test_absent"] == {(jax, flax): (False, "jax.sharding.use_mesh is absent")}
    assert cell_probe.seen()["m::test_passes"] == {(jax, flax): (True, "")}


def test_a_re_check_of_one_case_merged_into_an_earlier_check_keeps_the_other_cases_rows(corpus: Path,
                                                                                        tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    earlier = outputs.read_ranges(first / "report" / "ranges.json")
    range_check.run(["--cases", str(corpus), "--out", str(second), "--case", "test_toy::test_use_mesh", "--merge",
                     str(first / "report" / "ranges.json"), "--budget", "5"], CELLS, fetch, print, probe=probe)
    merged = outputs.read_ranges(second / "report" / "ranges.json")
    assert sorted((row["case"], row["declared"]) for row in merged["edges"]) == sorted(
        (row["case"], row["declared"]) for row in earlier["edges"])
    assert merged["wrong"] == 2 and merged["budget"] == earlier["budget"] + 5
    # Its bound (jax 0.7.0, 0.7.1), then every release inside `>=0.7.1` (0.7.2, 0.8.1).
    assert merged["probes"] == earlier["probes"] + 4


def _with_a_foreign_row(first: Path) -> Path:
    """The first check's document with a row of a case no module of the toy corpus holds (another helper's)."""
    document = dict(outputs.read_ranges(first / "report" / "ranges.json"))
    foreign = {**document["edges"][0], "case": "elsewhere::test_other", "source": "changed since jax>=0.9.0",
               "package": "jax", "declared": ">=0.9.0"}
    document["edges"] = [*document["edges"], foreign]
    return outputs.write_ranges(first / "merged", document)


def test_a_merge_drops_the_rows_of_cases_the_corpus_does_not_hold_and_says_so(corpus: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    earlier = _with_a_foreign_row(first)
    said: list[str] = []
    range_check.run(["--cases", str(corpus), "--out", str(second), "--case", "test_toy::test_use_mesh", "--merge",
                     str(earlier)], CELLS, fetch, said.append, probe=probe)
    merged = outputs.read_ranges(second / "report" / "ranges.json")
    assert "elsewhere::test_other" not in {row["case"] for row in merged["edges"]}
    assert any("not in the corpus; their rows are dropped: elsewhere::test_other" in line for line in said)
    assert [row["case"] for row in merged["edges"]].count("test_toy::test_use_mesh") == 1


def test_a_merge_without_case_replaces_the_rows_of_every_case_it_probed(corpus: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    earlier = _with_a_foreign_row(first)
    range_check.run(["--cases", str(corpus), "--out", str(second), "--merge", str(earlier)], CELLS, fetch, print,
                    probe=probe)
    merged = outputs.read_ranges(second / "report" / "ranges.json")
    rows = sorted((row["case"], row["declared"]) for row in merged["edges"])
    assert rows == sorted([("test_toy::test_use_mesh", ">=0.7.1"), ("test_toy::test_eager", ">=0.12.0"),
                           ("test_toy::test_eager", "<0.12.3")])


def test_a_check_records_each_probed_case_s_digest_and_the_commit(corpus: Path, tmp_path: Path) -> None:
    range_check.run(["--cases", str(corpus), "--out", str(tmp_path)], CELLS, fetch, print, probe=probe)
    stored = outputs.read_ranges(tmp_path / "report" / "ranges.json")
    assert stored["cases"] == {case: {"digest": digest, "commit": None}  # the toy corpus is in no git checkout
                               for case, digest in range_check.corpus_digests([str(corpus)]).items()}


def test_a_merge_keeps_a_row_of_a_case_changed_since_only_as_stale_and_unchecked(corpus: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    (corpus / "test_toy.py").write_text(CASES.replace("def test_use_mesh():\n    pass",
                                                      "def test_use_mesh():\n    assert True"))
    range_check.run(["--cases", str(corpus), "--out", str(second), "--case", "test_toy::test_eager", "--merge",
                     str(first / "report" / "ranges.json")], CELLS, fetch, print, probe=probe)
    merged = outputs.read_ranges(second / "report" / "ranges.json")
    [use_mesh] = [row for row in merged["edges"] if row["case"] == "test_toy::test_use_mesh"]
    assert use_mesh["status"] == ranges.UNCHECKED and use_mesh["why"].startswith(
        "stale: the case's source or declaration changed since it was checked at an unrecorded commit (it was "
        "confirmed)")
    assert "inside" not in use_mesh and "test_toy::test_use_mesh" not in merged["cases"]


def test_a_merged_row_of_a_check_that_recorded_no_digest_is_stale(corpus: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    document = dict(outputs.read_ranges(first / "report" / "ranges.json"))
    outputs.write_ranges(first / "old", {**document, "cases": {}})
    range_check.run(["--cases", str(corpus), "--out", str(second), "--case", "test_toy::test_eager", "--merge",
                     str(first / "old" / "ranges.json")], CELLS, fetch, print, probe=probe)
    merged = outputs.read_ranges(second / "report" / "ranges.json")
    [use_mesh] = [row for row in merged["edges"] if row["case"] == "test_toy::test_use_mesh"]
    assert use_mesh["status"] == ranges.UNCHECKED and "recorded no digest of the case" in use_mesh["why"]


def test_a_change_declared_in_a_module_the_folder_s_pytest_collects_is_read(corpus: Path, tmp_path: Path) -> None:
    (corpus / "toy_extra.py").write_text(CASES.replace("test_eager", "test_other_eager")
                                         .replace("test_use_mesh", "test_extra_use_mesh"))
    (corpus / "pytest.ini").write_text("[pytest]\npython_files = *.py\n")
    findings = range_check.run(["--cases", str(corpus), "--out", str(tmp_path), "--case",
                                "toy_extra::test_extra_use_mesh"], CELLS, fetch, print, probe=probe)
    assert [(f.edge.case, f.edge.text, f.status) for f in findings] == [
        ("toy_extra::test_extra_use_mesh", ">=0.7.1", ranges.CONFIRMED)]


def test_a_change_in_a_module_the_folder_s_pytest_does_not_collect_is_not_read(corpus: Path) -> None:
    (corpus / "toy_extra.py").write_text(CASES.replace("test_use_mesh", "test_extra_use_mesh"))
    with pytest.raises(range_check.RangeCheckError, match="toy_extra::test_extra_use_mesh: the corpus declares no"):
        range_check.run(["--cases", str(corpus), "--case", "toy_extra::test_extra_use_mesh"], CELLS, fetch, print,
                        probe=probe)


def test_a_merge_prints_the_wrong_edges_it_keeps_and_counts_every_stored_edge(corpus: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    said: list[str] = []
    range_check.run(["--cases", str(corpus), "--out", str(second), "--case", "test_toy::test_use_mesh", "--merge",
                     str(first / "report" / "ranges.json")], CELLS, fetch, said.append, probe=probe)
    stored = outputs.read_ranges(second / "report" / "ranges.json")
    (counted,) = [line for line in said if line.startswith("ranges: ") and " edge(s) (" in line]
    assert stored["wrong"] == 2 and ", 2 wrong, " in counted and "kept from the earlier check" in counted
    assert any(line.startswith("wrong: test_toy::test_eager flax<0.12.3") for line in said)


def test_a_merge_keeps_no_row_of_a_range_the_corpus_no_longer_declares(corpus: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    (corpus / "known_breakages.toml").write_text(KNOWN.replace("<0.12.3", "<0.12.1"))
    range_check.run(["--cases", str(corpus), "--out", str(second), "--case", "test_toy::test_use_mesh", "--merge",
                     str(first / "report" / "ranges.json")], CELLS, fetch, print, probe=probe)
    merged = outputs.read_ranges(second / "report" / "ranges.json")
    kept = {(row["case"], row["declared"]) for row in merged["edges"]}
    # Both ends of the changed range go: the `>=0.12.0` row was judged inside `<0.12.3`, a range no longer declared.
    assert kept == {("test_toy::test_use_mesh", ">=0.7.1")} and merged["wrong"] == 0


def test_a_merge_that_keeps_a_wrong_edge_fails_and_one_that_keeps_none_passes(corpus: Path, tmp_path: Path) -> None:
    first, second, third = tmp_path / "first", tmp_path / "second", tmp_path / "third"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    merge = ["--case", "test_toy::test_use_mesh", "--merge", str(first / "report" / "ranges.json")]
    kept = ["--cases", str(corpus), "--out", str(second), *merge]
    range_check.run(kept, CELLS, fetch, print, probe=probe)
    assert range_check.stored_status(kept) == 1  # test_eager's wrong edges were kept, though use_mesh is right
    (corpus / "known_breakages.toml").write_text(KNOWN.replace("<0.12.3", "<0.12.1"))
    dropped = ["--cases", str(corpus), "--out", str(third), *merge]
    range_check.run(dropped, CELLS, fetch, print, probe=probe)
    assert range_check.stored_status(dropped) == 0


def test_a_cell_whose_flax_does_not_import_is_no_evidence_about_any_case(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    unusable = f"{range_check.vocabulary.PACKAGES_FAILED}: flax: AttributeError: module 'jax.core' has no MainTrace"
    finals = {"m::test_a": {"status": "error", "reason": unusable},
              "n::<collection>": {"status": "error", "error_message": "ImportError: cannot import name 'nnx'"}}
    monkeypatch.setattr(range_check.cellrun, "probe", lambda cell, opts, paths, say: FakeRun(finals))
    opts = range_check.options.from_namespace(range_check.parser().parse_strictly(["--out", str(tmp_path)]))
    cell_probe = range_check.CellProbe(opts, range_check.cellenv.Additions(), lambda line: None)
    # Not FAIL: a case of a module whose import failed with the cell's is as unjudged as one that reached its setup.
    for case in ("m::test_a", "n::test_b"):
        answer = cell_probe(case, Version("0.4.38"), Version("0.8.5"))
        assert answer == f"{ranges.UNLOADABLE}{unusable}" and ranges.cannot_run(answer)


def test_a_case_that_timed_out_or_crashed_is_unjudged_and_one_that_failed_fails(monkeypatch: pytest.MonkeyPatch,
                                                                                tmp_path: Path) -> None:
    finals = {"m::test_timeout": {"status": "timeout", "error_message": "Timeout (>60.0s)"},
              "m::test_crashed": {"status": "crashed", "reason": "signal 9"},
              "m::test_failed": {"status": "failed", "error_type": "AttributeError", "error_message": "x"}}
    monkeypatch.setattr(range_check.cellrun, "probe", lambda cell, opts, paths, say: FakeRun(finals))
    opts = range_check.options.from_namespace(range_check.parser().parse_strictly(["--out", str(tmp_path)]))
    cell_probe = range_check.CellProbe(opts, range_check.cellenv.Additions(), lambda line: None)
    jax, flax = Version("0.7.1"), Version("0.10.7")
    assert cell_probe("m::test_timeout", jax, flax) == "timeout: Timeout (>60.0s)"
    assert cell_probe("m::test_crashed", jax, flax) == "crashed: signal 9"
    assert cell_probe("m::test_failed", jax, flax) == ranges.failed_as("AttributeError", "x")


def test_only_a_known_breakage_failing_as_declared_is_its_failure_and_another_exception_or_import_is_unjudged(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    unexpected = "expected AssertionError, got ImportError: cannot import name 'mutable_array' from 'jax._src.core'"
    finals = {"m::test_xfailed": {"status": "xfailed", "error_type": "AssertionError", "known_breakage": True},
              "m::test_other": {"status": "failed", "error_type": "ImportError", "error_message": unexpected,
                                "known_breakage": True},
              "m::test_other_error": {"status": "error", "error_type": "ImportError", "known_breakage": True,
                                      "reason": "the case could not import a module it uses"},
              "m::test_absent": {"status": "not_applicable", "reason": "flax.nnx is absent", "known_breakage": True},
              "n::<collection>": {"status": "error", "error_message": "ImportError: cannot import name 'MainTrace'"}}
    monkeypatch.setattr(range_check.cellrun, "probe", lambda cell, opts, paths, say: FakeRun(finals))
    opts = range_check.options.from_namespace(range_check.parser().parse_strictly(["--out", str(tmp_path)]))
    cell_probe = range_check.CellProbe(opts, range_check.cellenv.Additions(), lambda line: None)
    jax, flax = Version("0.10.0"), Version("0.10.7")
    assert cell_probe("m::test_xfailed", jax, flax) == ranges.FAIL
    for case in ("m::test_other", "m::test_other_error", "n::test_in_a_module_that_does_not_import"):
        answer = cell_probe(case, jax, flax)
        # Unjudged, and another pairing is tried: it may show the declared failure.
        assert answer is not None and answer.startswith(ranges.NOT_DECLARED) and ranges.cannot_run(answer), case
    assert cell_probe("m::test_other", jax, flax).endswith(unexpected)
    assert cell_probe("m::test_absent", jax, flax) == "not_applicable: flax.nnx is absent"


def test_a_cell_probe_pins_the_jaxlib_its_jax_release_requires_where_none_of_its_version_exists(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    built: list[tuple[str, str]] = []
    monkeypatch.setattr(range_check.cellrun, "probe", lambda cell, opts, paths, say: built.append(
        (cell.id, cell.jaxlib)) or FakeRun({"m::test_a": {"status": "passed"}}))

    def index_of(url: str, accept: str = "") -> Any:
        if "/jax/0.5.2/" in url:  # the release's own JSON
            return {"info": {"requires_dist": ["jaxlib<=0.5.2,>=0.5.1", 'jaxlib==0.5.0; extra == "ci"']}}
        versions = ("0.5.0", "0.5.1", "0.5.3") if "/jaxlib/" in url else ("0.5.1", "0.5.2", "0.5.3")
        return {"releases": {v: [{"filename": f"x-{v}-py3-none-any.whl", "yanked": False}] for v in versions}}

    opts = range_check.options.from_namespace(range_check.parser().parse_strictly(["--out", str(tmp_path)]))
    cell_probe = range_check.CellProbe(opts, range_check.cellenv.Additions(), lambda line: None,
                                       jaxlib=range_check.JaxlibPins(index_of))
    assert cell_probe("m::test_a", Version("0.5.2"), Version("0.10.4")) == ranges.PASS
    assert cell_probe("m::test_a", Version("0.5.3"), Version("0.10.4")) == ranges.PASS
    assert built == [("jax0.5.2-jaxlib0.5.1-flax0.10.4-py3.11", "0.5.1"), ("jax0.5.3-flax0.10.4-py3.11", "0.5.3")]


def test_an_edge_is_tried_last_with_the_other_package_s_release_out_on_the_days_of_its_sides() -> None:
    day = {Version(v): datetime(2024, month, 1, tzinfo=timezone.utc)
           for v, month in (("0.4.30", 6), ("0.4.31", 7), ("0.4.38", 12))}
    flax_days = {Version("0.8.5"): datetime(2024, 6, 20, tzinfo=timezone.utc),
                 Version("0.9.0"): datetime(2024, 8, 27, tzinfo=timezone.utc)}
    matrix = {"flax": [Version("0.4.38")], "jax": [Version("0.10.2")]}
    partner = range_check.with_contemporaries(lambda package, before, bound: matrix[package],
                                              {"jax": day, "flax": flax_days})
    assert partner("flax", Version("0.8.5"), Version("0.9.0")) == [Version("0.4.38"), Version("0.4.30"),
                                                                   Version("0.4.31")]
    # No flax out by jax 0.4.30's day: only 0.4.31's contemporary follows the matrix's pairing.
    assert partner("jax", Version("0.4.30"), Version("0.4.31")) == [Version("0.10.2"), Version("0.8.5")]


def test_an_edge_older_than_every_release_the_matrix_holds_is_tried_first_with_its_contemporaries() -> None:
    day = {Version("0.4.30"): datetime(2024, 6, 1, tzinfo=timezone.utc),
           Version("0.4.31"): datetime(2024, 7, 1, tzinfo=timezone.utc)}
    flax_days = {Version("0.8.5"): datetime(2024, 6, 20, tzinfo=timezone.utc),
                 Version("0.9.0"): datetime(2024, 8, 27, tzinfo=timezone.utc),
                 Version("0.10.2"): datetime(2024, 11, 1, tzinfo=timezone.utc),
                 Version("0.10.3"): datetime(2025, 2, 1, tzinfo=timezone.utc)}
    partner = range_check.with_contemporaries(lambda package, before, bound: [Version("0.12.0.1")],
                                              {"jax": day, "flax": flax_days},
                                              {"jax": Version("0.4.30"), "flax": Version("0.10.2")})
    # flax 0.9.0 is older than the matrix's oldest flax: the matrix pairs it with the newest jax only to show it breaks.
    assert partner("flax", Version("0.8.5"), Version("0.9.0")) == [Version("0.4.30"), Version("0.4.31"),
                                                                   Version("0.12.0.1")]
    # flax 0.10.3 is one the matrix holds a release at or before: its pairing first.
    assert partner("flax", Version("0.10.2"), Version("0.10.3"))[0] == Version("0.12.0.1")


def test_the_matrix_s_own_time_floor_leaves_out_an_old_release_paired_with_the_newest_of_the_other() -> None:
    cells = matrix.parse("".join(
        f'[[cell]]\njax = "{jax}"\njaxlib = "{jax}"\nflax = "{flax}"\npython = "3.11"\n\n'
        for jax, flax in (("0.4.38", "0.10.2"), ("0.12.0.1", "0.12.12"), ("0.12.0.1", "0.8.5"))))
    assert range_check.own_time_floor(cells) == {"jax": Version("0.4.38"), "flax": Version("0.10.2")}


def _edge_of(case: str) -> ranges.Edge:
    return ranges.Edge(case, "jax", Version("0.7.1"), True, "changed jax>=0.7.1")


def test_an_edge_the_budget_did_not_reach_keeps_the_reason_an_earlier_check_stored() -> None:
    stored = {"case": "a::t", "package": "jax", "declared": ">=0.7.1", "source": "changed jax>=0.7.1",
              "status": "unchecked", "found": None, "why": "flax 0.11.2 with jax 0.7.0 cannot be probed"}
    spent = ranges.Finding(_edge_of("a::t"), ranges.UNCHECKED, why="the probe budget (1) is spent", unreached=True)
    reached, kept = range_check.standing([spent], [stored])
    assert (reached, kept) == ([], [stored])


def test_an_edge_the_budget_reached_or_never_stored_is_this_check_s_own() -> None:
    stored = {"case": "a::t", "package": "jax", "declared": ">=0.7.1", "source": "changed jax>=0.7.1",
              "status": "unchecked", "found": None, "why": "old reason"}
    probed = ranges.Finding(_edge_of("a::t"), ranges.CONFIRMED)
    new = ranges.Finding(_edge_of("b::t"), ranges.UNCHECKED, why="the probe budget (1) is spent", unreached=True)
    assert range_check.standing([probed, new], [stored]) == ([probed, new], [])


def test_a_need_gone_with_no_change_is_kept_once_per_case_this_check_s_row_first() -> None:
    now = {"case": "a::t", "held": "jax 0.7.0, flax 0.11.2", "unmet": "jax 0.9.0, flax 0.12.0", "reason": "needs x"}
    before = {"case": "a::t", "held": "jax 0.6.2, flax 0.10.6", "unmet": "jax 0.9.0, flax 0.12.0", "reason": "needs x"}
    other = {"case": "b::t", "held": "jax 0.6.2, flax 0.10.6", "unmet": "jax 0.9.0, flax 0.12.0", "reason": "needs y"}
    assert range_check.one_per_case([now], [before, other]) == [now, other]
    assert range_check.one_per_case([], [before, before]) == [before]


def test_the_stored_check_holds_a_row_for_every_edge_the_corpus_declares_now_and_none_other() -> None:
    # A declaration changed without a re-check leaves a stale row on the ranges page and the new range nowhere (A9).
    from harness.host.corpus import BUILTIN

    declared = range_check.declared_keys(range_check.corpus_edges([BUILTIN]))
    rows = outputs.read_ranges(Path(__file__).resolve().parents[1] / "docs" / "data" / "ranges.json")["edges"]
    stored = {(row["case"], row["package"], row["declared"], row.get("source")) for row in rows}
    assert sorted(declared - stored) == [], "declared now, no stored row: re-check with `nox -s ranges -- --case`"
    assert sorted(stored - declared) == [], "stored rows of a declaration the corpus no longer makes"
    assert len(rows) == len(stored), "one declaration stored twice"


@pytest.mark.parametrize("given", [["--override", "flax==0.12.4"], ["--with", "optax==0.2.8"],
                                   ["--index", "https://example.org/simple"], ["--project", "."], ["--pre"],
                                   ["--env", "KERAS_BACKEND=jax"], ["--cells", "jax0.8*"]])
def test_an_option_that_changes_the_cell_behind_a_probe_or_is_ignored_is_refused_in_one_line(
        corpus: Path, given: list[str]) -> None:
    with pytest.raises(range_check.RangeCheckError, match=f"^{given[0]}: a range check probes the pairs it names"):
        range_check.run(["--cases", str(corpus), *given], CELLS, fetch, print, probe=probe)


def test_the_options_that_change_a_probe_s_answer_are_recorded_and_checks_run_otherwise_are_not_merged(
        corpus: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    range_check.run(["--cases", str(corpus), "--out", str(first), "--timeout", "5", "--devices", "4"], CELLS, fetch,
                    print, probe=probe)
    assert outputs.read_ranges(first / "report" / "ranges.json")["options"] == {"timeout": 5.0, "devices": 4}
    with pytest.raises(range_check.RangeCheckError, match=r"checked with options .*'timeout': 5.0.*, this check with "
                                                          r"none: merge only checks run alike"):
        range_check.run(["--cases", str(corpus), "--out", str(second), "--merge",
                         str(first / "report" / "ranges.json")], CELLS, fetch, print, probe=probe)


def test_only_answers_from_cells_built_in_this_run_are_counted_as_its_probes(monkeypatch: pytest.MonkeyPatch,
                                                                             tmp_path: Path) -> None:
    def ran(cell: Any, opts: Any, paths: Any, say: Any) -> FakeRun:
        done = FakeRun({"m::test_a": {"status": "passed"}, "m::test_b": {"status": "passed"}})
        done.reused_from = "an earlier run" if cell.jax == "0.7.1" else None
        return done

    monkeypatch.setattr(range_check.cellrun, "probe", ran)
    opts = range_check.options.from_namespace(range_check.parser().parse_strictly(["--out", str(tmp_path)]))
    cell_probe = range_check.CellProbe(opts, range_check.cellenv.Additions(), lambda line: None)
    for jax in ("0.7.1", "0.7.2"):
        for case in ("m::test_a", "m::test_b"):
            cell_probe(case, Version(jax), Version("0.10.7"))
    assert cell_probe.built == 2  # jax 0.7.2's two answers; 0.7.1's came from the results cache


def test_a_stamp_without_its_commit_is_refused_in_one_line(corpus: Path, tmp_path: Path) -> None:
    with pytest.raises(range_check.RangeCheckError, match="--stamp and --checked-at: give both"):
        range_check.run(["--cases", str(corpus), "--stamp", str(tmp_path / "ranges.json")], CELLS, fetch, print,
                        probe=probe)


def test_a_stamp_of_a_file_that_is_no_check_is_refused_naming_stamp_not_merge(corpus: Path, tmp_path: Path) -> None:
    foreign = tmp_path / "ecosystem.json"  # another tool's JSON, of a schema this reader knows
    foreign.write_text('{"schema_version": 2, "candidate": ["jax==0.9.0"], "projects": []}')
    for path, fault in ((tmp_path / "missing.json", "range check unreadable"),
                        (foreign, "range check: probes is None, not a count")):
        with pytest.raises(range_check.RangeCheckError, match=f"^--stamp {path}: {path}: {fault}"):
            range_check.run(["--cases", str(corpus), "--stamp", str(path), "--checked-at", "abc"], CELLS, fetch,
                            print, probe=probe)


def test_a_kept_need_gone_with_no_change_is_dropped_once_its_case_declares_one_is_gone_or_was_probed_now() -> None:
    def need(case: str) -> dict[str, str]:
        return {"case": case, "held": "jax 0.6.2, flax 0.11.2", "unmet": "jax 0.9.0, flax 0.12.4", "reason": "x"}

    rows = [need("m::test_stands"), need("m::test_now_declared"), need("gone::test_x"), need("m::test_probed")]
    kept = range_check.kept_needs(rows, held={"m::test_stands", "m::test_now_declared", "m::test_probed"},
                                  changed={"m::test_now_declared"}, probed={"m::test_probed"})
    assert kept == [need("m::test_stands")]


def test_a_merge_keeps_an_earlier_need_gone_with_no_change_of_a_case_that_still_lacks_its_change(
        corpus: Path, tmp_path: Path) -> None:
    first = tmp_path / "first"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    document = dict(outputs.read_ranges(first / "report" / "ranges.json"))
    needs = [{"case": case, "held": "jax 0.6.2, flax 0.11.2", "unmet": "jax 0.8.1, flax 0.12.0", "reason": "x"}
             for case in ("test_toy::test_eager", "test_toy::test_use_mesh", "gone::test_x")]
    earlier = outputs.write_ranges(first / "old", {**document, "needs_without_change": needs})
    range_check.run(["--cases", str(corpus), "--out", str(tmp_path / "second"), "--case", "test_toy::test_use_mesh",
                     "--merge", str(earlier)], CELLS, fetch, print, probe=probe)
    merged = outputs.read_ranges(tmp_path / "second" / "report" / "ranges.json")
    # test_use_mesh declares its change; gone::test_x is no case of the corpus.
    assert [row["case"] for row in merged["needs_without_change"]] == ["test_toy::test_eager"]


@pytest.mark.parametrize("with_", [["--merge", "x.json"], ["--case", "test_toy::test_eager"]])
def test_a_stamp_that_would_also_merge_or_probe_is_refused_in_one_line(corpus: Path, with_: list[str]) -> None:
    with pytest.raises(range_check.RangeCheckError, match=f"--stamp with {with_[0]}: a stamp probes and merges"):
        range_check.run(["--cases", str(corpus), "--stamp", "r.json", "--checked-at", "abc", *with_], CELLS, fetch,
                        print, probe=probe)


def declared_right(case: str, jax: Version, flax: Version) -> str:
    """A probe at which every range the toy corpus declares holds."""
    fails = Version("0.12.0") <= flax < Version("0.12.3") if case.endswith("eager") else jax >= Version("0.7.1")
    return ranges.FAIL if fails else ranges.PASS


def _ran(check: Path, run_id: str = "20261128T124000Z-ab12") -> Path:
    """`check` with the run folder a real check leaves under results/ (the fake probes build no cell): it says the
    day the check ran."""
    run = check / "results" / run_id
    run.mkdir(parents=True)
    (run / "jax0.8.1-flax0.12.1-py3.11.jsonl").write_text("")
    return check


def _stored_and_check(corpus: Path, tmp_path: Path) -> tuple[Path, Path]:
    """(a stored document where test_eager's range is wrong, a finished check where every range holds)."""
    first, check = tmp_path / "first", tmp_path / "check"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=probe)
    document = outputs.read_ranges(first / "report" / "ranges.json")
    # Stored at an earlier commit: the check's rows that say what the stored ones say are still a new check's.
    for stamp in document["cases"].values():
        stamp["commit"] = "an earlier commit"
    stored = outputs.write_stored_ranges(tmp_path / "data" / "ranges.json", document)
    range_check.run(["--cases", str(corpus), "--out", str(check)], CELLS, fetch, print, probe=declared_right)
    return stored, _ran(check)


def test_a_take_adopts_the_cases_a_finished_check_settled_into_the_stored_document_in_place(corpus: Path,
                                                                                            tmp_path: Path) -> None:
    stored, check = _stored_and_check(corpus, tmp_path)
    before, checked = outputs.read_ranges(stored), outputs.read_ranges(check / "report" / "ranges.json")
    said: list[str] = []
    argv = ["--cases", str(corpus), "--take", str(check), "--ranges-from", str(stored)]
    assert range_check.run(argv, CELLS, fetch, said.append) == []
    after = outputs.read_ranges(stored)
    assert [row for row in after["edges"] if row["case"] == "test_toy::test_eager"] == [
        row for row in checked["edges"] if row["case"] == "test_toy::test_eager"]
    assert after["wrong"] == 0 and after["probes"] == before["probes"] + checked["probes"]
    assert after["cases"]["test_toy::test_eager"]["run"] == "20261128T124000Z-ab12"
    assert after["cases"]["test_toy::test_eager"]["date"] == "2026-11-28"
    assert said[0].startswith("ranges: took 2 case(s) of the check at ")
    assert said[1].startswith("census of cases: 1 of 1 reports a CPU cell can show are caught")
    assert range_check.stored_status(argv) == 0
    with pytest.raises(range_take.TakeError, match="was taken already"):
        range_check.run(argv, CELLS, fetch, said.append)


def test_a_take_of_one_case_leaves_the_others_stored_and_fails_on_a_wrong_edge_it_still_holds(
        corpus: Path, tmp_path: Path) -> None:
    stored, check = _stored_and_check(corpus, tmp_path)
    argv = ["--cases", str(corpus), "--take", str(check), "--ranges-from", str(stored), "--case",
            "test_toy::test_use_mesh"]
    range_check.run(argv, CELLS, fetch, print)
    after = outputs.read_ranges(stored)
    assert after["wrong"] == 2 and "date" not in after["cases"]["test_toy::test_eager"]
    assert range_check.stored_status(argv) == 1


@pytest.mark.parametrize("with_", [["--merge", "r.json"], ["--stamp", "r.json"], ["--records", "out"],
                                   ["--checked-at", "abc"]])
def test_a_take_that_would_also_merge_stamp_or_read_records_is_refused_in_one_line(corpus: Path,
                                                                                  with_: list[str]) -> None:
    with pytest.raises(range_check.RangeCheckError, match=f"^--take with {with_[0]}: a take probes nothing"):
        range_check.run(["--cases", str(corpus), "--take", "check", *with_], CELLS, fetch, print)


@pytest.mark.parametrize("with_", [["--budget", "5"], ["--out", "elsewhere"], ["--timeout", "5"],
                                   ["--suite-budget", "60"]])
def test_a_take_given_an_option_it_would_ignore_is_refused_naming_it(corpus: Path, with_: list[str]) -> None:
    with pytest.raises(range_check.RangeCheckError, match=f"^--take with {with_[0]}: a take probes nothing and "
                                                          f"writes only --ranges-from, so {with_[0]} would be ignored"):
        range_check.run(["--cases", str(corpus), "--take", "check", *with_], CELLS, fetch, print)


def test_a_take_into_a_stored_document_that_is_not_there_is_refused_in_one_line(corpus: Path, tmp_path: Path) -> None:
    _, check = _stored_and_check(corpus, tmp_path)
    with pytest.raises(range_check.RangeCheckError, match=f"^--ranges-from {tmp_path / 'nope.json'}: range check "
                                                          "unreadable"):
        range_check.run(["--cases", str(corpus), "--take", str(check), "--ranges-from", str(tmp_path / "nope.json")],
                        CELLS, fetch, print)


def _take(corpus: Path, check: Path, stored: Path, *more: str) -> list[str]:
    """`ranges --take check --ranges-from stored`, and what it said."""
    said: list[str] = []
    range_check.run(["--cases", str(corpus), "--take", str(check), "--ranges-from", str(stored), *more], CELLS, fetch,
                    said.append)
    return said


def test_a_take_s_census_line_counts_no_stored_row_of_a_case_changed_since(corpus: Path, tmp_path: Path) -> None:
    first = tmp_path / "first"
    range_check.run(["--cases", str(corpus), "--out", str(first)], CELLS, fetch, print, probe=declared_right)
    document = outputs.read_ranges(_ran(first) / "report" / "ranges.json")
    # test_use_mesh's stored stamp is of an earlier commit, so the check's rows of it are a new check's to take.
    document["cases"]["test_toy::test_use_mesh"]["commit"] = "an earlier commit"
    stored = outputs.write_stored_ranges(tmp_path / "data" / "ranges.json", document)
    assert _take(corpus, first, stored, "--case", "test_toy::test_use_mesh")[-1].startswith(
        "census of cases: 1 of 1 reports a CPU cell can show are caught")
    # test_eager, which the report's catch stands on, changes: its stored rows stand for it no more.
    (corpus / "test_toy.py").write_text(CASES.replace("def test_eager():\n    pass", "def test_eager():\n    assert 1"))
    outputs.write_stored_ranges(stored, document)
    assert _take(corpus, first, stored, "--case", "test_toy::test_use_mesh")[-1].startswith(
        "census of cases: 0 of 1 reports a CPU cell can show are caught")


def test_a_take_that_takes_nothing_leaves_the_stored_file_as_it_was_however_often_it_runs(corpus: Path,
                                                                                          tmp_path: Path) -> None:
    stored = _stored_and_check(corpus, tmp_path)[0]
    wrong = tmp_path / "wrong"
    range_check.run(["--cases", str(corpus), "--out", str(wrong)], CELLS, fetch, print, probe=probe)
    _ran(wrong)
    before = stored.read_bytes()
    for _ in range(2):  # not refused as taken already: no stamp names a run that took nothing
        said = _take(corpus, wrong, stored, "--case", "test_toy::test_eager")
        assert stored.read_bytes() == before
        assert said[0].startswith("not taken: test_toy::test_eager: flax<0.12.3 [known breakage") and "wrong" in said[0]


def test_a_take_into_a_link_rewrites_the_file_it_names_and_leaves_the_link(corpus: Path, tmp_path: Path) -> None:
    stored, check = _stored_and_check(corpus, tmp_path)
    link = tmp_path / "link.json"
    link.symlink_to(stored)
    _take(corpus, check, link)
    assert link.is_symlink() and outputs.read_ranges(stored)["wrong"] == 0


def test_a_take_interrupted_while_it_writes_leaves_the_stored_file_whole(corpus: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    stored, check = _stored_and_check(corpus, tmp_path)
    before = stored.read_bytes()

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(outputs.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _take(corpus, check, stored)
    assert stored.read_bytes() == before and [path.name for path in stored.parent.iterdir()] == ["ranges.json"]


def test_a_take_whose_census_cannot_be_read_is_refused_before_it_writes(corpus: Path, tmp_path: Path) -> None:
    stored, check = _stored_and_check(corpus, tmp_path)
    before = stored.read_bytes()
    (corpus / "census.toml").write_text(CENSUS + "[[report\n")  # cut off mid-table: not TOML
    with pytest.raises(ShardmatrixError, match="census"):
        _take(corpus, check, stored)
    assert stored.read_bytes() == before


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_take_of_a_check_whose_commit_git_does_not_know_here_is_refused_in_one_line(corpus: Path,
                                                                                       tmp_path: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m",
                                                 "cases"]):
        subprocess.run(["git", "-C", str(corpus), *args], check=True, capture_output=True)
    stored, check = _stored_and_check(corpus, tmp_path)
    path = check / "report" / "ranges.json"
    document = outputs.read_ranges(path)
    assert document["commit"] is not None  # the check ran in the checkout, and says at which commit
    for commit, why in (("f" * 40, f"git knows no commit {'f' * 40} where "),
                        (None, "it records no commit")):
        stamps = {case: {**stamp, "commit": commit} for case, stamp in document["cases"].items()}
        outputs.write_ranges(path.parent, {**document, "commit": commit, "cases": stamps})
        with pytest.raises(range_check.RangeCheckError, match=f"^--take {re.escape(str(path))}: {re.escape(why)}"):
            _take(corpus, check, stored)
    outputs.write_ranges(path.parent, document)
    _take(corpus, check, stored)
    assert outputs.read_ranges(stored)["commit"] == document["commit"]


def test_records_on_disk_that_contradict_a_declared_range_are_listed_and_fail_the_check(corpus: Path,
                                                                                        tmp_path: Path) -> None:
    from harness import results
    from harness.cellrecord import make_record

    def records(status: str) -> Path:
        out = tmp_path / status
        cell, run = "jax0.8.1-flax0.12.1-py3.11", "20261128T000000Z-a"
        results.write_records(out / "results" / run / f"{cell}.jsonl", [make_record(
            run_id=run, cell_id=cell, case_id="test_toy::test_eager", status=status, jax="0.8.1", flax="0.12.1",
            attempt=1, known_breakage=True)])
        return out

    said: list[str] = []
    argv = ["--cases", str(corpus), "--records", str(records("xpassed"))]
    assert range_check.run(argv, CELLS, fetch, said.append, probe=probe) == []
    assert said[0].startswith("hole: test_toy::test_eager passed at 20261128T000000Z-a/jax0.8.1-flax0.12.1-py3.11, "
                              "inside its known breakage flax")
    assert range_check.stored_status(argv) == 1
    assert range_check.stored_status(["--cases", str(corpus), "--records", str(records("xfailed"))]) == 0


def _stored_records(out: Path, case: str = "test_toy::test_eager", status: str = "xfailed",
                    cell: str = "jax0.8.1-flax0.12.1-py3.11", jax: str = "0.8.1") -> Path:
    """OUT with one cell's record of `case` under results/ (its cell id naming the versions it ran on, or not)."""
    from harness import results
    from harness.cellrecord import make_record

    run = "20261128T000000Z-a"
    results.write_records(out / "results" / run / f"{cell}.jsonl", [make_record(
        run_id=run, cell_id=cell, case_id=case, status=status, jax=jax, flax="0.12.1", attempt=1,
        known_breakage=True)])
    return out


@pytest.mark.parametrize(("given", "refusal"), [
    (["--case", "test_toy::test_typo"], "--case test_toy::test_typo: the corpus declares no range for it"),
    (["--merge", "r.json"], "--records with --merge: reading records probes, stores and merges nothing"),
    (["--stamp", "r.json", "--checked-at", "abc"], "--records with --stamp: "),
])
def test_records_asked_of_a_case_with_no_range_or_beside_a_merge_or_stamp_are_refused_in_one_line(
        corpus: Path, tmp_path: Path, given: list[str], refusal: str) -> None:
    argv = ["--cases", str(corpus), "--records", str(_stored_records(tmp_path / "out")), *given]
    with pytest.raises(range_check.RangeCheckError, match=f"^{refusal}"):
        range_check.run(argv, CELLS, fetch, print, probe=probe)


def test_records_of_no_case_that_declares_a_range_are_no_evidence_and_refused(corpus: Path, tmp_path: Path) -> None:
    # A typo in --records' folder, an empty run, or only cases that declare nothing: "0 contradictions" would pass.
    (tmp_path / "empty" / "results").mkdir(parents=True)
    unranged = _stored_records(tmp_path / "other", case="test_toy::test_absent", status="passed")
    for folder in (tmp_path / "empty", unranged):
        argv = ["--cases", str(corpus), "--records", str(folder)]
        with pytest.raises(range_check.RangeCheckError, match=f"^--records {folder}: no record of a case that "
                                                              "declares a range under results/"):
            range_check.run(argv, CELLS, fetch, print, probe=probe)
        with pytest.raises(range_check.RangeCheckError):
            range_check.stored_status(argv)


def test_records_of_a_cell_whose_identity_is_in_doubt_are_left_out_in_a_line_that_does_not_fail(
        corpus: Path, tmp_path: Path) -> None:
    out = _stored_records(tmp_path / "out")
    _stored_records(out, status="xpassed", cell="jax0.9.0-flax0.12.1-py3.11", jax="0.8.1")  # named 0.9.0, ran 0.8.1
    said: list[str] = []
    argv = ["--cases", str(corpus), "--records", str(out)]
    range_check.run(argv, CELLS, fetch, said.append, probe=probe)
    assert not any(line.startswith("hole:") for line in said)
    assert any("jax0.9.0-flax0.12.1-py3.11.jsonl: left out, its identity is in doubt" in line for line in said)
    assert said[-1] == ("ranges: 0 contradiction(s) in 1 record(s) of cases that declare a range, of 1 folder(s); 1 "
                        "cell(s) or folder(s) left out")
    assert range_check.stored_status(argv) == 0


def test_the_census_s_problems_are_printed_one_line_each_its_pins_held_to_the_index(corpus: Path,
                                                                                     tmp_path: Path) -> None:
    (corpus / "census.toml").write_text(CENSUS.replace('fixed = "flax==0.12.3"', 'fixed = "flax==0.12.15"'))
    (corpus / "test_toy.py").write_text(CASES.replace('cites=("google/flax#5070",)',
                                                      'cites=("google/flax#5070", "google/flax#9")'))
    said: list[str] = []
    range_check.run(["--cases", str(corpus), "--out", str(tmp_path / "out"), "--budget", "12"], CELLS, fetch,
                    said.append, probe=probe)
    assert "census of cases: test_toy::test_eager cites google/flax#9, which the census does not list" in said
    assert ("census of cases: google/flax#5070: fixed flax==0.12.15 is not a flax release (of 5 known, 0.11.2 to "
            "0.12.3)") in said


def test_a_check_of_named_cases_runs_only_their_node_ids_in_each_probe_s_cell(corpus: Path) -> None:
    nodes = range_check.case_nodes([str(corpus)], ["test_toy::test_use_mesh", "test_toy::test_use_mesh"])
    assert nodes == [Path(f"{corpus / 'test_toy.py'}::test_use_mesh")]
    builtin = range_check.case_nodes(["builtin"], ["shard_map_rules::test_jnp_insert_inside_shard_map"])
    assert [node.name for node in builtin] == ["shard_map_rules.py::test_jnp_insert_inside_shard_map"]
    with pytest.raises(range_check.RangeCheckError, match="--case nowhere::test_x: no module nowhere"):
        range_check.case_nodes([str(corpus)], ["nowhere::test_x"])


#: The two needs the stored check found gone with no change (docs/data/ranges.json, 2026-11-28), shaped as its probed
#: cells saw them: {case: (the pair it passed at, the later pair where its need was unmet, why)}.
GONE_UNDECLARED = {
    "placement_fixes::test_device_put_reshards_under_use_mesh":
        (("0.7.0", "0.10.7"), ("0.7.1", "0.10.7"), "jax.sharding.use_mesh is absent"),
    "shard_map_rules::test_random_keys_through_a_partial_auto_shard_map":
        (("0.7.2", "0.10.7"), ("0.8.0", "0.10.7"), "jax.experimental.shard_map.shard_map does not accept 'auto'"),
}


def _seen_as_stored() -> dict[str, dict[tuple[Version, Version], tuple[bool, str]]]:
    def pair(jax: str, flax: str) -> tuple[Version, Version]:
        return Version(jax), Version(flax)

    return {case: {pair(*held): (True, ""), pair(*unmet): (False, why)}
            for case, (held, unmet, why) in GONE_UNDECLARED.items()}


def test_a_need_gone_from_a_case_that_declares_no_change_is_listed() -> None:
    assert [row["case"] for row in ranges.drift(_seen_as_stored(), [])] == sorted(GONE_UNDECLARED)


def test_the_shipped_corpus_declares_each_removal_the_stored_check_found_at_the_release_it_went() -> None:
    declared = range_check.declared_changes(["builtin"])
    assert ranges.drift(_seen_as_stored(), declared) == []
    for case, (held, unmet, _) in GONE_UNDECLARED.items():
        since = Requirement(str(declared[case].since))
        # In effect from the release the need went, not at the one before it: the release it was removed in.
        assert since.name == "jax" and unmet[0] in since.specifier and held[0] not in since.specifier, (case, since)
