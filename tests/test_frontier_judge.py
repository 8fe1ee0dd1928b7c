"""A probe's cell judged by reports.verdicts.compat's one verdict: the token, the cause in one line, the undocumented
failures by case; works_for_current_code counts as working."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from record_factory import collected, record

from harness import vocabulary
from reports.verdicts import compat, frontier_judge

SMOKE = ["a::test_linen"]


def results(tmp_path: Path, *cases: tuple[str, str, dict[str, Any]]) -> Path:
    path = tmp_path / "results" / "r1" / "jax0.4.30-flax0.10.4-py3.11.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [record("0.4.30", "0.10.4", "3.11", case_id=case, status=status, **extra) for case, status, extra in cases]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return collected(path)


def test_every_case_passing_works_and_a_warning_is_works_with_warnings(tmp_path: Path) -> None:
    clean = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.PASSED, {})), True, SMOKE)
    assert (clean.verdict, clean.works, clean.cause, clean.failing) == (compat.WORKS, True, "", {})
    warned = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.PASSED, {"warnings": ["Deprecated"]})),
                                  True, SMOKE)
    assert (warned.verdict, warned.works) == (compat.WARNED, True)


def test_a_failing_non_core_case_is_partial_and_named_with_its_cause(tmp_path: Path) -> None:
    judged = frontier_judge.judge(results(
        tmp_path, (SMOKE[0], vocabulary.PASSED, {}),
        ("b::test_scan", vocabulary.FAILED, {"error_type": "AttributeError",
                                             "error_message": "jax.api_util has no attribute debug_info\nmore"})),
        True, SMOKE)
    assert (judged.verdict, judged.works) == (compat.PARTIAL, False)
    assert judged.failing == {"b::test_scan": "failed: AttributeError: jax.api_util has no attribute debug_info"}
    assert judged.cause == "b::test_scan: failed: AttributeError: jax.api_util has no attribute debug_info"


def test_a_failing_core_case_is_broken_and_named_first(tmp_path: Path) -> None:
    judged = frontier_judge.judge(results(
        tmp_path, ("b::test_other", vocabulary.FAILED, {"error_type": "E"}),
        (SMOKE[0], vocabulary.ERROR, {"error_type": "ImportError", "error_message": "no AbstractMesh"})), True, SMOKE)
    assert judged.verdict == compat.BROKEN
    assert judged.cause == f"{SMOKE[0]}: error: ImportError: no AbstractMesh (and 1 more)"


def test_an_install_error_is_not_built_and_says_cannot_be_installed(tmp_path: Path) -> None:
    judged = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.INSTALL_ERROR,
                                                     {"error_message": "no wheel for cp311"})), True, SMOKE)
    assert judged.verdict == compat.NOT_BUILT and judged.cause == "cannot be installed: no wheel for cp311"


def test_a_cell_that_stopped_is_interrupted_never_works(tmp_path: Path) -> None:
    judged = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.PASSED, {})), False, SMOKE)
    assert (judged.verdict, judged.works) == (compat.INTERRUPTED, False)
    empty = frontier_judge.judge(tmp_path / "none.jsonl", False, SMOKE)
    assert (empty.verdict, empty.works) == (compat.INTERRUPTED, False)


def test_nothing_applicable_is_no_evidence_never_works(tmp_path: Path) -> None:
    judged = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.NOT_APPLICABLE, {})), True, SMOKE)
    assert (judged.verdict, judged.works) == (compat.NO_EVIDENCE, False)


def test_core_cases_that_all_do_not_apply_are_no_evidence_named_so_one_that_applies_is_evidence(
    tmp_path: Path
) -> None:
    judged = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.NOT_APPLICABLE, {}),
                                          ("b::test_other", vocabulary.PASSED, {})), True, SMOKE)
    assert (judged.verdict, judged.works) == (compat.NO_EVIDENCE, False)
    assert judged.cause == "no smoke (core) case applies (every one not applicable)"
    judged = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.PASSED, {}),
                                          ("b::test_other", vocabulary.NOT_APPLICABLE, {})), True, SMOKE)
    assert (judged.verdict, judged.works) == (compat.WORKS, True)


def test_a_case_that_passed_only_on_retry_is_flaky_never_works_and_named(tmp_path: Path) -> None:
    judged = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.PASSED, {}),
                                          ("b::test_scan", vocabulary.FAILED, {"attempt": 1}),
                                          ("b::test_scan", vocabulary.PASSED, {"attempt": 2})), True, SMOKE)
    assert (judged.verdict, judged.works) == (compat.FLAKY, False)
    assert judged.cause == "b::test_scan: flaky, passed only after a failing attempt"


def test_a_failure_the_matrix_marks_documented_works_for_current_code(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The documented column is what reports.data.tables.build_matrix marks (reports/verdicts/documented.py decides
    it): a probe whose only failure is documented works, and the case is not among its failures."""
    real = frontier_judge.build_matrix

    def marked(*args: Any) -> Any:
        found = real(*args)
        return type(found)(results=found.results.assign(**{compat.DOCUMENTED: found.results["case_id"].eq(
            "b::test_mesh")}), cells=found.cells)

    monkeypatch.setattr(frontier_judge, "build_matrix", marked)
    judged = frontier_judge.judge(results(
        tmp_path, (SMOKE[0], vocabulary.PASSED, {}),
        ("b::test_mesh", vocabulary.FAILED, {"error_type": "ShardingTypeError"})), True, SMOKE)
    assert (judged.verdict, judged.works, judged.failing) == (compat.CURRENT, True, {})


def test_a_declared_known_bug_alone_works_except_known_bugs_and_names_its_link(tmp_path: Path) -> None:
    # Was partial (not working): a live known bug failed every probe, so the frontier had no whole-corpus range.
    bug = {"reason": "nnx.shard_map passes auto= [jax>=0.8.0] https://github.com/google/flax/issues/5058",
           "error_type": "TypeError"}
    judged = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.PASSED, {}),
                                          ("b::test_auto", vocabulary.XFAILED, bug)), True, SMOKE)
    assert (judged.verdict, judged.works, judged.failing) == (compat.KNOWN_BUGS, True, {})
    assert judged.known == {"b::test_auto": "https://github.com/google/flax/issues/5058"}


def test_an_unexplained_failure_beside_a_known_bug_is_partial_and_only_it_is_failing(tmp_path: Path) -> None:
    bug = {"reason": "why [jax>=0.8.0] https://github.com/google/flax/issues/5058", "error_type": "TypeError"}
    judged = frontier_judge.judge(results(tmp_path, (SMOKE[0], vocabulary.PASSED, {}),
                                          ("b::test_auto", vocabulary.XFAILED, bug),
                                          ("b::test_other", vocabulary.FAILED, {"error_type": "KeyError"})),
                                  True, SMOKE)
    assert (judged.verdict, judged.works, list(judged.failing)) == (compat.PARTIAL, False, ["b::test_other"])
    assert list(judged.known) == ["b::test_auto"]


def test_a_failure_its_case_declares_as_a_change_works_for_current_code(tmp_path: Path) -> None:
    """Through reports/verdicts/documented.py, unpatched: the record's declared change, failing inside its range with
    the exception it declares, is documented; with another exception it is not."""
    change = {"since": "jax>=0.4.30", "what": "make_mesh makes Explicit axes", "raises": ["ShardingTypeError"],
              "warned": None, "fix": "pass axis_types=", "kind": "api"}
    declared = {"change": change, "schema_version": 3}
    documented = frontier_judge.judge(results(
        tmp_path, (SMOKE[0], vocabulary.PASSED, {}),
        ("b::test_mesh", vocabulary.FAILED, {"error_type": "ShardingTypeError", **declared})), True, SMOKE)
    assert (documented.verdict, documented.works, documented.failing) == (compat.CURRENT, True, {})
    other = frontier_judge.judge(results(
        tmp_path, (SMOKE[0], vocabulary.PASSED, {}),
        ("b::test_mesh", vocabulary.FAILED, {"error_type": "TypeError", **declared})), True, SMOKE)
    assert (other.verdict, other.works) == (compat.PARTIAL, False)


def test_a_probe_missing_a_collected_case_does_not_work_and_says_why(tmp_path: Path) -> None:
    path = results(tmp_path, (SMOKE[0], vocabulary.PASSED, {}))
    assert frontier_judge.judge(path, True, SMOKE).works  # the pair: every collected case recorded
    collected(path, [SMOKE[0], "a::test_other"])
    judged = frontier_judge.judge(path, True, SMOKE)
    assert (judged.verdict, judged.works) == (compat.UNACCOUNTED, False)
    assert "1 of 2 expected case(s) have no record: a::test_other" in judged.cause


def test_a_stored_probe_works_only_when_its_flag_and_its_verdict_both_say_so() -> None:
    assert frontier_judge.probe_works({"works": True, "verdict": "works_with_warnings"})
    assert frontier_judge.probe_works({"works": True, "verdict": None})  # a probe stored before verdicts
    assert not frontier_judge.probe_works({"works": True, "verdict": "broken"})
    assert not frontier_judge.probe_works({"works": "yes", "verdict": "works"})


def test_the_deciding_probe_of_a_pair_is_a_failing_one_of_the_highest_standing() -> None:
    good, bad = {"works": True, "verdict": "works"}, {"works": False, "verdict": "partial"}
    assert frontier_judge.deciding_probe([good, bad]) is bad and frontier_judge.deciding_probe([bad, good]) is bad
    assert frontier_judge.deciding_probe([bad, {**good, "corpus": True}])["works"] is True
