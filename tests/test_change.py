"""Documented changes as data: a Change holds together or names its fault, reads from source as it is written, and
reaches each record of its case."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.case import MARKER, case
from harness.change import (
    Change,
    ChangeError,
    declared,
    explicit,
    needed_versions,
    undeclared_upper_bounds,
    write_declarations,
)
from harness.outputs import DECLARATIONS_VERSION
from harness.vocabulary import CHANGE_KEYS
from reports.verdicts.documented_upgrade import read_declarations

MAKE_MESH = {"raises": "ShardingTypeError", "fix": "pass axis_types=", "kind": "default",
             "warned": "jax>=0.8.1,<0.9.0"}


def test_a_whole_declaration_becomes_the_records_object() -> None:
    change = Change("jax>=0.9.0", "make_mesh makes Explicit axes", **MAKE_MESH)  # type: ignore[arg-type]
    assert change.raises == ("ShardingTypeError",)
    assert change.as_record() == {"since": "jax>=0.9.0", "what": "make_mesh makes Explicit axes",
                                  "raises": ["ShardingTypeError"], "warned": "jax>=0.8.1,<0.9.0",
                                  "fix": "pass axis_types=", "kind": "default", "warning": None, "error": None}
    assert tuple(change.as_record()) == CHANGE_KEYS


def test_the_warning_a_change_gives_is_kept_with_the_range_it_warns_in_and_refused_without_one() -> None:
    warned = Change("jax>=0.9.0", "make_mesh makes Explicit axes", warning="The default axis_types will change",
                    **MAKE_MESH)  # type: ignore[arg-type]
    assert warned.as_record()["warning"] == "The default axis_types will change"
    with pytest.raises(ChangeError, match=r"a `warning` needs the `warned` range it is given in"):
        Change("jax>=0.9.0", "make_mesh makes Explicit axes", raises="ShardingTypeError", fix="pass axis_types=",
               kind="default", warning="The default axis_types will change")


def test_the_error_a_change_raises_is_kept_with_the_range_it_is_raised_in_and_refused_without_one() -> None:
    raised = Change("jax>=0.9.0", "make_mesh makes Explicit axes", error="can only refer to Auto axes of the mesh",
                    **MAKE_MESH)  # type: ignore[arg-type]
    assert raised.as_record()["error"] == "can only refer to Auto axes of the mesh"
    with pytest.raises(ChangeError, match=r"an `error` needs the `since` range it is raised in"):
        Change(None, "make_mesh will make Explicit axes", fix="pass axis_types=", kind="deprecation",
               warned="jax>=0.8.1", error="can only refer to Auto axes of the mesh")


@pytest.mark.parametrize(("since", "overrides", "fault"), [
    ("numpy>=2.0", {}, "must give a version range of jax or flax"),
    ("jax", {}, "must give a version range"),
    ("jax>=0.9.0", {"warned": "jax>=>0.8"}, "warned 'jax>=>0.8' is not a requirement"),
    ("jax>=0.9.0", {"kind": "renamed"}, "kind 'renamed' is not one of default, removal, api, behaviour"),
    ("jax>=0.9.0", {"raises": ()}, "is not one or more exception class names"),
    ("jax>=0.9.0", {"raises": "not a name"}, "is not one or more exception class names"),
    ("jax>=0.9.0", {"raises": ""}, "is not one or more exception class names"),
    ("jax>=0.9.0", {"raises": ["ValueError", ""]}, "is not one or more exception class names"),
    ("jax>=0.9.0", {"raises": "jax.errors.ShardingTypeError"},
     "raises 'jax.errors.ShardingTypeError' is qualified: give the class name alone ('ShardingTypeError')"),
    ("jax>=0.9.0", {"fix": " "}, "must each say something"),
    (None, {"kind": "default"}, "a change with no `since` (nothing broken yet) is kind 'deprecation'"),
    ("jax>=0.9.0", {"kind": "deprecation"}, "a change with no `since` (nothing broken yet) is kind 'deprecation'"),
    (None, {"kind": "deprecation", "raises": (), "warned": None}, "a deprecation gives `warned` and raises nothing"),
    (None, {"kind": "deprecation", "raises": "E"}, "a deprecation gives `warned` and raises nothing"),
])
def test_a_declaration_that_does_not_hold_together_names_its_fault(since: str, overrides: dict[str, object],
                                                                     fault: str) -> None:
    with pytest.raises(ChangeError, match=re.escape(fault)):
        Change(since, "what", **{**MAKE_MESH, **overrides})  # type: ignore[arg-type]


def test_raises_as_a_string_is_one_class_name_and_as_a_list_each_name() -> None:
    one = Change("jax>=0.9.0", "what", raises="ValueError", fix="f", kind="api")
    several = Change("jax>=0.9.0", "what", raises=["ValueError", "TypeError"], fix="f", kind="api")
    assert (one.raises, one.as_record()["raises"]) == (("ValueError",), ["ValueError"])
    assert several.raises == ("ValueError", "TypeError")


def test_case_refuses_a_change_that_is_not_a_change() -> None:
    with pytest.raises(ChangeError, match=r"@case\('fam'\): changed= must be a Change\(\.\.\.\) or None, not dict"):
        case("fam", changed={"since": "jax>=0.9.0"})  # type: ignore[arg-type]
    assert case("fam", changed=None) is not None


def test_a_deprecation_that_broke_nothing_yet_has_no_since_and_raises_nothing() -> None:
    change = Change(None, "pjit is deprecated", kind="deprecation", warned="jax>=0.8.0", fix="jax.jit")
    assert change.as_record()["since"] is None and change.as_record()["raises"] == []


def test_case_carries_its_change_on_the_marker_and_a_case_without_one_does_not() -> None:
    change = Change("flax>=0.11.0", "Optimizer needs wrt=", raises="TypeError", fix="pass wrt=nnx.Param", kind="api")

    @case("fam", changed=change)
    def test_x() -> None: ...

    @case("fam")
    def test_y() -> None: ...

    assert test_x.pytestmark[0].kwargs["changed"] is change  # type: ignore[attr-defined]
    assert "changed" not in test_y.pytestmark[0].kwargs  # type: ignore[attr-defined]
    assert test_x.pytestmark[0].name == MARKER  # type: ignore[attr-defined]


SOURCE = '''
from harness.case import Change, case

SHARED = Change("jax>=0.9.0", "make_mesh makes Explicit axes", raises=["ShardingTypeError", "ValueError"],
                fix="pass axis_types=", kind="default", warned="jax>=0.8.1,<0.9.0")

@case("fam", changed=SHARED)
def test_shared():
    pass

@case("fam", devices=8, changed=Change("flax>=0.11.0", "wrt= is required", raises="TypeError", fix="wrt=",
                                       kind="api"))
def test_literal():
    pass

@case("fam", changed=None)
def test_nothing_changed():
    pass

@case("fam")
def test_undeclared():
    pass
'''


def test_declarations_read_from_source_literal_or_bound_to_a_module_name(tmp_path: Path) -> None:
    path = tmp_path / "mod_user.py"
    path.write_text(SOURCE)
    found = declared(path)
    assert sorted(found) == ["test_literal", "test_shared"]
    assert found["test_shared"].raises == ("ShardingTypeError", "ValueError")
    assert found["test_literal"] == Change("flax>=0.11.0", "wrt= is required", raises="TypeError", fix="wrt=",
                                           kind="api")
    assert explicit(path) == {"test_shared": True, "test_literal": True, "test_nothing_changed": True,
                              "test_undeclared": False}


def test_a_wording_imported_from_a_sibling_module_is_followed(tmp_path: Path) -> None:
    (tmp_path / "_support.py").write_text('WHAT = "shared wording"\nFIX = "the fix"\n')
    path = tmp_path / "mod_user.py"
    path.write_text("from cases._support import WHAT, FIX as F\n\n@case('fam', changed=Change('flax>=0.12.0', WHAT, "
                    "raises='ValueError', fix=F, kind='default'))\ndef test_x():\n    pass\n")
    assert declared(path)["test_x"].what == "shared wording" and declared(path)["test_x"].fix == "the fix"


@pytest.mark.parametrize(("argument", "fault"), [
    ("make_change()", "changed= must be Change"),
    ('Change(SINCE, "x", raises="E", fix="f", kind="api")', "must be written with literals"),
    ('Change("jax>=1", "x", raises="E", fix="f", kind="odd")', "mod_user.py::test_x: Change('jax>=1', 'x'): kind"),
])
def test_a_declaration_the_host_cannot_read_is_named(tmp_path: Path, argument: str, fault: str) -> None:
    path = tmp_path / "mod_user.py"
    path.write_text(f"@case('fam', changed={argument})\ndef test_x():\n    pass\n")
    with pytest.raises(ChangeError, match=re.escape(fault)):
        declared(path)


def test_the_declarations_file_holds_each_case_with_its_change(tmp_path: Path) -> None:
    change = Change("jax>=0.10.0", "x", raises="AttributeError", fix="f", kind="removal", warned="jax>=0.8.1")
    path = write_declarations(tmp_path / "report" / "changes.json", {"mod::test_b": change, "mod::test_a": change})
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema_version"] == DECLARATIONS_VERSION
    assert [row["case_id"] for row in data["changes"]] == ["mod::test_a", "mod::test_b"]
    assert data["changes"][0]["change"] == change.as_record()
    # One format, one reader: the report reads what the host wrote.
    assert read_declarations(path) == [("mod::test_a", change.as_record()), ("mod::test_b", change.as_record())]


PLUGIN_CASES = '''
from harness.case import Change, case

@case("fam", changed=Change("jax>=0.0.1", "every jax", raises="ValueError", fix="none", kind="behaviour"))
def test_declared():
    raise ValueError("as documented")

@case("fam", smoke=True)
def test_plain():
    pass
'''


def test_each_record_of_a_declaring_case_carries_its_change(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(toy_cases=PLUGIN_CASES)
    out = pytester.path / "out"
    pytester.runpytest("toy_cases.py", "--shardmatrix-out", str(out), "--shardmatrix-run", "r1",
                       "--shardmatrix-cell", "c1", "--shardmatrix-devices", "0", "-p", "no:cacheprovider")
    records = {record["case_id"]: record for record in map(json.loads, (out / "results" / "r1" / "c1.jsonl")
                                                           .read_text().splitlines())}
    declared_record = records["toy_cases::test_declared"]
    assert declared_record["status"] == "failed" and declared_record["error_type"] == "ValueError"
    assert declared_record["change"] == {"since": "jax>=0.0.1", "what": "every jax", "raises": ["ValueError"],
                                         "warned": None, "fix": "none", "kind": "behaviour", "warning": None,
                                         "error": None}
    assert records["toy_cases::test_plain"]["change"] is None
    # Whether a case is a smoke case is recorded beside it: the compatibility verdict reads it.
    assert (records["toy_cases::test_plain"]["smoke"], declared_record["smoke"]) == (True, False)


def test_a_case_module_that_is_not_python_text_is_one_line_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "test_bad.py"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(ChangeError, match=r"test_bad\.py: not a Python module \(UnicodeDecodeError"):
        declared(path)
    with pytest.raises(ChangeError, match=r"test_bad\.py: not a Python module"):
        explicit(path)


def test_a_change_is_in_effect_inside_its_since_and_not_below_it_or_without_the_package() -> None:
    removed = Change("jax>=0.7.1", "use_mesh is removed", raises="AttributeError", kind="api", fix="jax.set_mesh")
    assert removed.in_effect({"jax": "0.7.1", "flax": "0.12.0"})
    assert not removed.in_effect({"jax": "0.7.0", "flax": "0.12.0"})
    assert not removed.in_effect({"jax": None})


UPPER_BOUNDS = '''
from harness.case import Change, api, case, version

OLD = [version("flax<0.11.2")]

@case("f", needs=[api("flax.nnx"), version("flax<0.11.2")],
      changed=Change("flax>=0.11.2", "renamed", raises="AssertionError", kind="api", fix="read sharding_names"))
def test_declared():
    pass

@case("f", needs=[*OLD])
def test_through_a_name_undeclared():
    pass

@case("f", needs=[version("jax<=0.8.0")],
      changed=Change("jax>=0.8.0", "off by one", raises="TypeError", kind="api", fix="x"))
def test_wrong_edge():
    pass

@case("f", needs=[version("jax>=0.6.1")])
def test_lower_bound_only():
    pass
'''


def test_an_upper_bound_on_a_need_is_refused_unless_a_change_of_the_case_starts_there(tmp_path: Path) -> None:
    module = tmp_path / "toy.py"
    module.write_text(UPPER_BOUNDS)
    assert needed_versions(module)["test_through_a_name_undeclared"] == ["flax<0.11.2"]
    assert undeclared_upper_bounds(module) == {"test_through_a_name_undeclared": ["flax<0.11.2"],
                                               "test_wrong_edge": ["jax<=0.8.0"]}
