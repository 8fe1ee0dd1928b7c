"""reports.verdicts.ecosystem_judge: causes grouped across projects, and the verdict of the whole run."""

from __future__ import annotations

from typing import Any

from reports.verdicts.ecosystem_judge import INCONCLUSIVE, SAFE, SKIPPED, UNSAFE, grid, group, worst

SIGNATURE = "ShardingTypeError: Use `.at[...].get(out_sharding=)` to provide output P(...)"
CHANGE = {"since": "jax>=0.9.0", "what": "jax.make_mesh makes Explicit axes", "fix": "pass axis_types=",
          "kind": "default"}


def project(name: str, verdict: str, *signatures: str, change: str = "") -> dict[str, Any]:
    return {"name": name, "verdict": verdict, "revision": f"{name} 1.0",
            "pins": {"candidate": {"jax": "0.9.0", "flax": "0.12.3"}},
            "causes": [{"signature": s, "example": s, "change": change, "cases": [f"t::{name}_a", f"t::{name}_b"],
                        "reproducer": f"repro/{name}.py"} for s in signatures]}


def test_one_error_in_two_projects_is_one_group_naming_both_with_a_reproducer_each() -> None:
    (found, other) = group([project("alpha", UNSAFE, SIGNATURE), project("beta", UNSAFE, SIGNATURE, "other")])
    assert (found.signature, found.projects, found.cases) == (SIGNATURE, ["alpha", "beta"], 4)
    assert [(r.project, r.case_id, r.script) for r in found.reproducers] == [
        ("alpha", "t::alpha_a", "repro/alpha.py"), ("beta", "t::beta_a", "repro/beta.py")]
    assert (other.signature, other.projects) == ("other", ["beta"])


def test_two_errors_are_two_groups_and_an_inconclusive_projects_causes_are_not_regressions() -> None:
    found = group([project("alpha", UNSAFE, "a"), project("beta", INCONCLUSIVE, "b")])
    assert [g.signature for g in found] == ["a"]


def test_a_documented_cause_carries_its_change_and_fix() -> None:
    label = "jax 0.9.0: jax.make_mesh makes Explicit axes"
    (found,) = group([project("alpha", UNSAFE, "documented: " + label, change=label)], [("c::x", CHANGE)])
    assert (found.change, found.fix) == (label, "pass axis_types=")


def test_inconclusive_never_hides_unsafe_and_skipped_is_no_answer() -> None:
    assert worst([INCONCLUSIVE, UNSAFE, SAFE]) == UNSAFE
    assert worst([SAFE, INCONCLUSIVE]) == INCONCLUSIVE
    assert worst([SAFE, SKIPPED]) == INCONCLUSIVE  # a listed project not run: the list was not all asked
    assert worst([SKIPPED]) == INCONCLUSIVE and worst([]) == INCONCLUSIVE
    assert worst([SAFE], pending=1) == INCONCLUSIVE  # a run stopped part way is never SAFE
    assert worst([UNSAFE], pending=1) == UNSAFE


def test_a_verdict_this_reader_does_not_know_is_never_safe() -> None:
    # A merged summary from a newer or hand-edited run may say anything: read as SAFE, it turned the run green.
    assert worst([SAFE, "MAYBE"]) == INCONCLUSIVE and worst(["safe"]) == INCONCLUSIVE
    assert worst([SAFE, "MAYBE", UNSAFE]) == UNSAFE


def test_the_grid_lists_the_worst_first() -> None:
    rows = grid([project("gamma", SAFE), project("alpha", SKIPPED), project("beta", UNSAFE, "x")])
    assert [(r["project"], r["verdict"]) for r in rows] == [("beta", UNSAFE), ("gamma", SAFE), ("alpha", SKIPPED)]


def test_two_projects_failing_their_own_asserts_alike_are_two_causes_not_one() -> None:
    # numpy's assert_allclose words every numeric mismatch alike: grouped, two projects' unrelated checks read as one
    # cause "in 2 project(s)". A bare exception type says no more.
    mismatch = "AssertionError: Not equal to tolerance rtol=N, atol=N"
    found = group([project("alpha", UNSAFE, mismatch, "RuntimeError"), project("beta", UNSAFE, mismatch,
                                                                               "RuntimeError")])
    assert sorted((g.signature, tuple(g.projects)) for g in found) == [
        (mismatch, ("alpha",)), (mismatch, ("beta",)), ("RuntimeError", ("alpha",)), ("RuntimeError", ("beta",))]
    (one,) = group([project("alpha", UNSAFE, SIGNATURE), project("beta", UNSAFE, SIGNATURE)])  # jax's own words
    assert one.projects == ["alpha", "beta"]
    # pytest's own `Failed` (a pytest.raises that saw nothing, a pytest.fail) is a test's own check too.
    unraised = "Failed: DID NOT RAISE <class 'ValueError'>"
    assert [g.projects for g in group([project("alpha", UNSAFE, unraised), project("beta", UNSAFE, unraised)])] == [
        ["alpha"], ["beta"]]
