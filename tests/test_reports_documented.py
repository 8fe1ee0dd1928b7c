"""Tests for reports/verdicts/documented.py: documented, stale and unexpected in pairs, the Changes view and changes.csv
from synthetic records, and the changes an upgrade crosses."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import record_factory as factory
from record_factory import collected, matrix_of

from reports.cli import main
from reports.data.load import records_frame
from reports.data.tables import Matrix
from reports.verdicts import compat, documented, documented_upgrade
from reports.views.html import render_html
from reports.views.markdown import render_markdown
from reports.views.verdict_text import describe

RUN = "20261124T030000Z-ab12"
#: This file's records: the factory's, with what its tests read set.
record = partial(factory.record, run_id=RUN, case_id="gathers_user::test_lookup", family="gathers")

MAKE_MESH = {"since": "jax>=0.9.0", "what": "make_mesh makes Explicit axes", "raises": ["ShardingTypeError"],
             "warned": "jax>=0.8.1,<0.9.0", "fix": "pass axis_types=", "kind": "default"}
WRT = {"since": "flax>=0.11.0", "what": "Optimizer needs wrt=", "raises": ["TypeError"], "warned": None,
       "fix": "wrt=nnx.Param", "kind": "api"}
VALUE = {"since": None, "what": ".value is deprecated", "raises": [], "warned": "flax>=0.12.1", "fix": "[...]",
         "kind": "deprecation"}


def failed(jax: str, error_type: str = "ShardingTypeError", change: dict[str, Any] | None = None,
           **fields: Any) -> dict[str, Any]:
    return record(jax, status="failed", error_type=error_type, error_message="boom", change=change or MAKE_MESH,
                  **fields)


# --- one result, in pairs ----------------------------------------------------------------------------------------


def test_a_failure_inside_the_range_with_the_declared_exception_is_documented_one_before_it_is_unexpected() -> None:
    assert documented.judge(MAKE_MESH, "failed", "ShardingTypeError", {"jax": "0.9.0"}) == documented.DOCUMENTED
    assert documented.judge(MAKE_MESH, "failed", "ShardingTypeError", {"jax": "0.8.3"}) == documented.UNEXPECTED


def test_a_failure_with_another_exception_is_unexpected_even_inside_the_range() -> None:
    assert documented.judge(MAKE_MESH, "failed", "ShardingTypeError", {"jax": "0.12.0.1"}) == documented.DOCUMENTED
    assert documented.judge(MAKE_MESH, "failed", "TypeError", {"jax": "0.12.0.1"}) == documented.UNEXPECTED


@pytest.mark.parametrize("error_type", ["", None, "Error", "Value", "alueErro", "ValueErrors", "ValueError2"])
def test_raises_given_as_a_string_is_one_exact_name_never_its_substrings(error_type: str | None) -> None:
    # Was documented: a string's `in` matched any substring, "" and a missing error type included.
    declared = {**MAKE_MESH, "raises": "ValueError"}
    assert documented.judge(declared, "failed", error_type, {"jax": "0.10.2"}) == documented.UNEXPECTED
    assert documented.judge(declared, "failed", "ValueError", {"jax": "0.10.2"}) == documented.DOCUMENTED


def test_a_declared_name_matches_its_own_class_not_a_subclass_or_base_that_contains_it() -> None:
    assert documented.judge(WRT, "failed", "ShardingTypeError", {"flax": "0.12.8"}) == documented.UNEXPECTED
    assert documented.judge(MAKE_MESH, "failed", "TypeError", {"jax": "0.10.2"}) == documented.UNEXPECTED
    assert documented.judge(WRT, "failed", "TypeError", {"flax": "0.12.8"}) == documented.DOCUMENTED


@pytest.mark.parametrize(("declared", "recorded", "same"), [
    ("ShardingTypeError", "jax.errors.ShardingTypeError", True),
    ("jax.errors.ShardingTypeError", "ShardingTypeError", True),
    ("jax.errors.ShardingTypeError", "jax.errors.ShardingTypeError", True),
    ("jax.errors.ShardingTypeError", "jax._src.core.ShardingTypeError", False),
    ("TypeError", "jax.errors.ShardingTypeError", False),
    ("errors.ShardingTypeError", "ShardingTypeError", True),
    ("ShardingTypeError", " ", False),
    ("", "ValueError", False),
])
def test_a_qualified_name_on_one_side_matches_by_class_name_two_qualified_names_must_be_equal(
    declared: str, recorded: str, same: bool
) -> None:
    assert documented.same_type(declared, recorded) is same


def test_only_strings_are_declared_names() -> None:
    assert documented.declared_types("ValueError") == ("ValueError",)
    assert documented.declared_types(["ValueError", "", 3, " TypeError "]) == ("ValueError", "TypeError")
    assert documented.declared_types(None) == documented.declared_types({"ValueError": 1}) == ()


def test_a_pass_after_the_release_is_stale_and_one_before_it_is_nothing() -> None:
    assert documented.judge(MAKE_MESH, "passed", None, {"jax": "0.10.2"}) == documented.STALE
    assert documented.judge(MAKE_MESH, "passed", None, {"jax": "0.8.3"}) == ""


WARNING = "The default axis_types will change in JAX v0.9.0"
MAKE_MESH_WARNS = {**MAKE_MESH, "warning": WARNING}
AS_ERROR = f"{WARNING} to jax.sharding.AxisType.Explicit. To maintain the old behavior, pass ..."


def test_its_warning_made_an_error_where_it_warns_is_documented_and_outside_that_range_unexpected() -> None:
    # A project whose settings make warnings errors (-Werror) fails a release before the change itself.
    assert documented.judge(MAKE_MESH_WARNS, "failed", "DeprecationWarning", {"jax": "0.8.1"}, AS_ERROR) == \
        documented.DOCUMENTED
    assert documented.judge(MAKE_MESH_WARNS, "failed", "DeprecationWarning", {"jax": "0.8.0"}, AS_ERROR) == \
        documented.UNEXPECTED


def test_another_warning_or_a_change_that_declares_none_is_not_its_warning() -> None:
    assert documented.judge(MAKE_MESH_WARNS, "failed", "DeprecationWarning", {"jax": "0.8.1"}, "x is deprecated") == \
        documented.UNEXPECTED
    assert documented.judge(MAKE_MESH, "failed", "DeprecationWarning", {"jax": "0.8.1"}, AS_ERROR) == \
        documented.UNEXPECTED


def test_a_projects_failure_that_is_a_declared_warning_takes_that_change_and_others_keep_none() -> None:
    declared = [("gathers_user::test_lookup", MAKE_MESH_WARNS), ("m::t", WRT)]
    frame = records_frame([
        record("0.8.1", status="failed", error_type="DeprecationWarning", error_message=AS_ERROR,
               case_id="test_mesh::test_auto"),
        record("0.8.1", status="failed", error_type="AssertionError", error_message=AS_ERROR,
               case_id="test_mesh::test_other"),
        record("0.8.0", status="failed", error_type="DeprecationWarning", error_message=AS_ERROR,
               case_id="test_mesh::test_early"),
    ])
    adopted = documented.adopt(frame, declared).set_index("case_id")["change"].to_dict()
    assert adopted == {"test_mesh::test_auto": MAKE_MESH_WARNS, "test_mesh::test_other": None,
                       "test_mesh::test_early": None}


def test_a_warning_two_changes_declare_is_taken_as_the_earliest_change_it_precedes() -> None:
    later = {**MAKE_MESH_WARNS, "since": "jax>=0.9.1", "what": "shard_map checks its inputs"}
    frame = records_frame([record("0.8.1", status="failed", error_type="DeprecationWarning", error_message=AS_ERROR,
                                  case_id="test_mesh::test_auto")])
    adopted = documented.adopt(frame, [("a::t", later), ("b::t", MAKE_MESH_WARNS)])
    assert adopted["change"].tolist() == [MAKE_MESH_WARNS]


def test_an_upgrade_into_a_changes_warning_crosses_it_as_a_warning_and_one_within_it_does_not() -> None:
    declared = [("gathers_user::test_lookup", MAKE_MESH_WARNS)]
    [entry] = documented_upgrade.between(declared, {"jax": "0.8.0"}, {"jax": "0.8.1"})
    assert (entry["label"], entry["kind"]) == ("jax 0.9.0: make_mesh makes Explicit axes", "changed default; it warns "
                                               "from jax 0.8.1, an error where warnings are errors")
    assert documented_upgrade.between(declared, {"jax": "0.8.1"}, {"jax": "0.8.3"}) == []


def compare_with_declarations(out: Path, jax: tuple[str, str], records_of: Callable[[str, str], list[dict[str, Any]]],
                              declared: list[dict[str, Any]]) -> int:
    """`python -m reports --compare` of a baseline run on jax[0] against a candidate on jax[1], each run's one cell
    holding records_of(run, jax), with a declarations file holding `declared`: the exit code."""
    runs = ("20261124T010000Z-aaaa", "20261124T020000Z-bbbb")
    for run, version in zip(runs, jax, strict=True):
        path = out / "results" / run / f"jax{version}-flax0.12.0-py3.11.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in records_of(run, version)))
        path.with_suffix(".done.json").write_text('{"returncode": 0}')
    file = out / "declared.json"
    file.write_text(json.dumps({"schema_version": 1, "changes": declared}))
    return main(["--out", str(out), "--compare", *runs, "--changes-from", str(file)])


def test_an_upgrade_names_the_documented_change_a_projects_warning_failure_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def records_of(run: str, jax: str) -> list[dict[str, Any]]:
        outcome = {} if jax == "0.8.0" else {"status": "failed", "error_type": "DeprecationWarning",
                                              "error_message": AS_ERROR}
        return [record(jax, "0.12.0", run_id=run, case_id="test_mesh::test_auto", **outcome)]

    code = compare_with_declarations(tmp_path, ("0.8.0", "0.8.1"), records_of,
                                     [{"case_id": "gathers_user::test_lookup", "change": MAKE_MESH_WARNS}])
    printed = capsys.readouterr().out
    assert code == 1 and printed.startswith("UNSAFE")
    assert f"1. [1 case(s)] DeprecationWarning: {AS_ERROR}" in printed
    assert "cases: test_mesh::test_auto\n     documented change: jax 0.9.0: make_mesh makes Explicit axes\n" in printed
    compare_md = (tmp_path / "report" / "compare.md").read_text(encoding="utf-8")
    assert "(documented change: jax 0.9.0: make_mesh makes Explicit axes)" in compare_md


# Two jax 0.9.0 changes raising what their errors say (measured on jax 0.9.2): a gather of a sharded array, and a
# sharding constraint naming an Explicit axis.
GATHER = {**MAKE_MESH, "what": "a gather of a sharded array needs out_sharding=",
          "error": "Use `.at[...].get(out_sharding=)`"}
CONSTRAINT = {**MAKE_MESH, "what": "with_sharding_constraint may name only Auto axes", "raises": ["ValueError"],
              "error": "can only refer to Auto axes of the mesh"}
GATHER_ERROR = ("Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather indexing as out "
                "sharding could not be resolved unambiguously")
CONSTRAINT_ERROR = ("The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto axes of the "
                    "mesh. Got spec=P('x',)")


def test_a_projects_failure_is_a_change_by_its_own_error_inside_since() -> None:
    assert documented.explains(GATHER, "ShardingTypeError", GATHER_ERROR, {"jax": "0.9.2"})
    assert documented.explains(CONSTRAINT, "ValueError", CONSTRAINT_ERROR, {"jax": "0.9.2"})


def test_the_same_exception_class_with_another_error_or_outside_since_is_not_the_change() -> None:
    # The class is the symptom: a ShardingTypeError of a sharding constraint is not the gather change.
    assert not documented.explains(GATHER, "ShardingTypeError", "with_sharding_constraint: axis x is Explicit",
                                {"jax": "0.9.2"})
    assert not documented.explains(GATHER, "ShardingTypeError", GATHER_ERROR, {"jax": "0.8.3"})
    assert not documented.explains(MAKE_MESH, "ShardingTypeError", GATHER_ERROR, {"jax": "0.9.2"})  # declares no error


def test_a_warning_several_changes_of_one_release_declare_names_what_they_share_and_stands_for_each() -> None:
    # equinox's filter_shard tests under -Werror at jax 0.8.1: make_mesh's warning, which the gather and the
    # constraint changes both declare, cannot say which of them the test will meet.
    gather, constraint = {**GATHER, "warning": WARNING}, {**CONSTRAINT, "warning": WARNING}
    gather["what"] = "make_mesh makes Explicit axes: a gather of a sharded array needs out_sharding="
    constraint["what"] = "make_mesh makes Explicit axes: with_sharding_constraint may name only Auto axes"
    frame = records_frame([record("0.8.1", status="failed", error_type="DeprecationWarning", error_message=AS_ERROR,
                                  case_id="test_sharding::test_shard")])
    [adopted] = documented.adopt(frame, [("g::t", gather), ("c::t", constraint)])["change"].tolist()
    assert documented.label(adopted) == "jax 0.9.0: make_mesh makes Explicit axes"
    assert adopted[documented.ANNOUNCES] == [documented.label(gather), documented.label(constraint)]
    assert documented_upgrade._carriers(frame.assign(change=[adopted])) == {
        documented.label(gather): ["test_sharding::test_shard"],
        documented.label(constraint): ["test_sharding::test_shard"]}


def test_a_warning_one_change_of_the_earliest_release_declares_names_that_change() -> None:
    gather = {**GATHER, "warning": WARNING}
    later = {**CONSTRAINT, "warning": WARNING, "since": "jax>=0.9.1"}
    frame = records_frame([record("0.8.1", status="failed", error_type="DeprecationWarning", error_message=AS_ERROR,
                                  case_id="test_sharding::test_shard")])
    assert documented.adopt(frame, [("c::t", later), ("g::t", gather)])["change"].tolist() == [gather]


def test_an_upgrade_names_a_projects_regression_after_the_change_its_error_is_and_lists_the_users_tests(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def records_of(run: str, jax: str) -> list[dict[str, Any]]:
        broken = {} if jax == "0.8.3" else {"status": "failed", "error_type": "ValueError",
                                             "error_message": CONSTRAINT_ERROR}
        return [record(jax, "0.12.0", run_id=run, case_id="test_shard::test_rows", **broken),
                record(jax, "0.12.0", run_id=run, case_id="test_shard::test_sum")]

    code = compare_with_declarations(tmp_path, ("0.8.3", "0.9.2"), records_of, [
        {"case_id": "gathers_user::test_lookup", "change": GATHER},
        {"case_id": "metadata_user::test_constraint", "change": CONSTRAINT}])
    printed = capsys.readouterr().out
    assert code == 1 and printed.startswith("UNSAFE")
    assert ("cases: test_shard::test_rows\n     documented change: jax 0.9.0: with_sharding_constraint may name only "
            "Auto axes\n") in printed
    assert "documented change: jax 0.9.0: a gather" not in printed
    # The crossed changes name the user's tests that fail with each, never the corpus's cases that declare them.
    assert "with_sharding_constraint may name only Auto axes (changed default). Fix: pass axis_types=. Cases: " \
           "test_shard::test_rows\n" in printed + "\n"
    assert "needs out_sharding= (changed default). Fix: pass axis_types=. Cases: none of the compared tests fails " \
           "with it" in printed
    assert "gathers_user::test_lookup" not in printed and "metadata_user::test_constraint" not in printed


@pytest.mark.parametrize("status", ["error", "not_applicable", "xfailed", "crashed", "timeout"])
def test_a_result_that_is_neither_a_failure_nor_a_pass_is_not_judged(status: str) -> None:
    assert documented.judge(MAKE_MESH, status, "ShardingTypeError", {"jax": "0.10.2"}) == ""


def test_no_declaration_or_a_deprecation_judges_nothing() -> None:
    assert documented.judge(None, "failed", "ShardingTypeError", {"jax": "0.10.2"}) == ""
    assert documented.judge(VALUE, "failed", "TypeError", {"flax": "0.12.8"}) == ""


def test_a_version_range_is_read_against_the_records_own_package() -> None:
    assert documented.in_range("flax>=0.11.0", {"jax": "0.12.0.1", "flax": "0.11.2"})
    assert not documented.in_range("flax>=0.11.0", {"jax": "0.12.0.1", "flax": "0.10.7"})
    assert not documented.in_range("flax>=0.11.0", {"jax": "0.12.0.1", "flax": None})
    assert not documented.in_range("numpy>=2", {"numpy": "2.1"})


def test_mark_gives_every_result_its_documented_flag_and_change_name() -> None:
    matrix = matrix_of(failed("0.10.2"), failed("0.8.3"), record("0.10.2", case_id="gathers::test_plain"))
    results = matrix.results.set_index(["cell_id", "case_id"])
    documented = results.loc[("jax0.10.2-flax0.12.8-py3.11", "gathers_user::test_lookup")]
    assert bool(documented["documented"])
    assert documented["change_name"] == "jax 0.9.0: make_mesh makes Explicit axes"
    outside = results.loc[("jax0.8.3-flax0.12.8-py3.11", "gathers_user::test_lookup")]
    assert not outside["documented"] and outside["change_name"] is None
    assert not results.loc[("jax0.10.2-flax0.12.8-py3.11", "gathers::test_plain"), "documented"]


def test_release_and_label_name_the_lower_bound_or_else_the_whole_range() -> None:
    assert documented.release(MAKE_MESH) == ("jax", "0.9.0")
    assert documented.release(VALUE) == ("flax", "0.12.1")
    assert documented.release({**MAKE_MESH, "since": "jax>=0.5.0,<0.7.0"}) == ("jax", "0.5.0")
    assert documented.release({**MAKE_MESH, "since": "jax<0.7.0"}) == ("jax", "<0.7.0")
    assert documented.label(WRT) == "flax 0.11.0: Optimizer needs wrt="


# --- shared with the tests of documented_table and documented_upgrade ---------------------------------------


def changes_matrix() -> Matrix:
    warned = ["DeprecationWarning: The default axis_types will change in JAX v0.9.0"]
    return matrix_of(
        record("0.7.2", change=MAKE_MESH, warnings=["DeprecationWarning: pjit is deprecated"]),  # outside `warned`
        record("0.8.1", change=MAKE_MESH, warnings=warned),
        record("0.8.3", change=MAKE_MESH, warnings=warned),
        failed("0.9.2"), failed("0.10.2"),
        failed("0.12.0.1", "ValueError"),  # another exception: unexpected
        record("0.8.3", case_id="gathers_user::test_wrt", change=WRT, flax="0.10.7"),
        failed("0.10.2", "TypeError", WRT, case_id="gathers_user::test_wrt", flax="0.11.2"),
        record("0.10.2", case_id="gathers_user::test_wrt", change=WRT, flax="0.12.8"),  # passes after: stale
        record("0.10.2", case_id="gathers_user::test_value", change=VALUE, warnings=["DeprecationWarning: .value"]),
    )


DECLARED = [("gathers_user::test_a", MAKE_MESH), ("gathers_user::test_b", MAKE_MESH), ("merge_user::test_w", WRT),
            ("merge_user::test_v", VALUE)]


# --- as matrix.md and matrix.html show it ---------------------------------------------------------------------


def test_matrix_md_has_the_changes_section_and_folds_documented_causes_under_it() -> None:
    markdown = render_markdown(changes_matrix())
    section = markdown.split("## Changes\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| jax") or line.startswith("| flax")]
    assert [row.split(" | ")[0] for row in rows] == ["| jax 0.9.0", "| flax 0.11.0", "| flax 0.12.1"]
    times = "\N{MULTIPLICATION SIGN}"
    assert (f"| jax 0.9.0 | make\\_mesh makes Explicit axes (**unexpected** in jax 0.12.0.1 {times} flax 0.12.8) | "
            "changed default | "
            f"`jax>=0.8.1,<0.9.0`; seen in jax 0.8.1, 0.8.3 | jax 0.8.3 {times} flax 0.12.8 | "
            f"jax 0.9.2 {times} flax 0.12.8 | `gathers_user::test_lookup` | pass axis\\_types= |") in rows
    causes = markdown.split("## Causes", 1)[1].split("\n## ", 1)[0]
    assert "2 documented changes (failing as their cases declare, see [Changes](#changes)), listed below" in causes
    assert "documented change jax 0.9.0: make\\_mesh makes Explicit axes, as ShardingTypeError: boom" in causes
    # The failure with another exception is not folded: it leads the causes.
    assert causes.index("ValueError: boom") < causes.index("documented changes")


def test_matrix_html_has_the_changes_section_and_the_folded_causes() -> None:
    page = render_html(changes_matrix())
    assert '<a href="#changes">Changes</a>' in page and '<h2 id="changes">Changes</h2>' in page
    changes_table = page.split('id="T_changes"', 1)[1].split("</table>", 1)[0]
    assert changes_table.count("<tr><td") == 3
    assert "<strong>stale</strong> in c7" in changes_table
    assert "2 documented\nchanges (failing as their cases declare" in page
    assert "<strong>jax 0.9.0: make_mesh makes Explicit axes</strong>,\nas <code>ShardingTypeError: boom</code>" in page


def test_the_upgrade_verdict_is_followed_by_the_changes_it_crosses_in_text_and_compare_md(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for run, jax in (("20261124T010000Z-aaaa", "0.8.3"), ("20261124T020000Z-bbbb", "0.9.2")):
        path = tmp_path / "results" / run / f"jax{jax}-flax0.12.8-py3.11.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(record(jax, run_id=run, case_id="mine::test_own")) + "\n")
        collected(path)
        path.with_suffix(".done.json").write_text('{"returncode": 0}')
    declared = tmp_path / "declared.json"
    rows = [{"case_id": case_id, "change": change} for case_id, change in DECLARED]
    declared.write_text(json.dumps({"schema_version": 1, "changes": rows}))
    code = main(["--out", str(tmp_path), "--compare", "20261124T010000Z-aaaa", "20261124T020000Z-bbbb",
                 "--changes-from", str(declared)])
    printed = capsys.readouterr().out
    assert code == 0 and printed.startswith("SAFE")  # the user's own case passes on both sides
    assert ("Documented changes between baseline jax0.8.3-flax0.12.8-py3.11 and candidate jax0.9.2-flax0.12.8-py3.11 "
            "(1; your code may hit them even where your cases pass):\n- jax 0.9.0: make_mesh makes Explicit axes "
            "(changed default). Fix: pass axis_types=.") in printed
    assert printed.index("SAFE") < printed.index("Documented changes")
    assert "## Documented changes" in (tmp_path / "report" / "compare.md").read_text(encoding="utf-8")


def test_a_bad_declarations_file_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "results" / RUN / "jax0.9.2-flax0.12.8-py3.11.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(record("0.9.2")) + "\n")
    (tmp_path / "bad.json").write_text("[]")
    assert main(["--out", str(tmp_path), "--compare", RUN, RUN, "--changes-from", str(tmp_path / "bad.json")]) == 64
    assert capsys.readouterr().err.count("\n") == 1


# --- what the compatibility verdict reads -------------------------------------------------------------------------


def test_a_cell_whose_only_failures_are_documented_works_for_current_code_and_one_more_makes_it_partial() -> None:
    plain = {"case_id": "gathers::test_plain"}
    matrix = matrix_of(failed("0.10.2"), record("0.10.2", **plain),
                       failed("0.12.0.1"), record("0.12.0.1", status="failed", error_type="TypeError", **plain))
    table = compat.verdicts(matrix).set_index("cell_id")
    documented_only = table.loc["jax0.10.2-flax0.12.8-py3.11"]
    assert documented_only["verdict"] == compat.CURRENT == "works_for_current_code"
    assert documented_only["changes"] == ["jax 0.9.0: make_mesh makes Explicit axes"]
    assert describe(documented_only) == "works for current code: 1 documented · 0 known upstream · 0 unexplained"
    assert table.loc["jax0.12.0.1-flax0.12.8-py3.11", "verdict"] == compat.PARTIAL


def test_the_columns_mark_writes_are_the_ones_the_verdict_reads() -> None:
    assert (documented.DOCUMENTED_COLUMN, documented.CHANGE_NAME_COLUMN) == (compat.DOCUMENTED, compat.CHANGE_NAME)
