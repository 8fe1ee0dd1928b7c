"""Pins for command-line cells: parsing, reading a project's pins, python choice, baseline and candidate."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from packaging.version import Version

from harness.host.matrix import Cell, Origin
from harness.tools import pins


def cell(jax: str, flax: str, python: str) -> Cell:
    return pins.make_cell(jax, flax, python)


MATRIX = [cell("0.10.2", "0.12.8", "3.11"), cell("0.12.0.1", "0.12.12", "3.12"), cell("0.12.0.1", "0.8.5", "3.12")]


def test_parse_pins_accepts_exact_pins_and_commas() -> None:
    assert pins.parse_pins(["jax==0.11.2,flax==0.12.12"]) == {"jax": "0.11.2", "flax": "0.12.12"}


@pytest.mark.parametrize("spec", ["jax>=0.11", "numpy==2.0", "jax==0.11.*", "jax==0.12.0rc1", "jax"])
def test_parse_pins_refuses_ranges_other_packages_and_prereleases(spec: str) -> None:
    with pytest.raises(pins.PinError):
        pins.parse_pins([spec])


@pytest.mark.parametrize("specs", [["jax==0.9.2,jax==0.9.1"], ["jax==0.9.2", "jax==0.9.1"], ["flax==0.12.8",
                                   "FLAX==0.12.8"]])
def test_a_package_pinned_twice_is_refused_in_one_line(specs: list[str]) -> None:
    with pytest.raises(pins.PinError, match=r"pinned twice .*: pin each package once$"):
        pins.parse_pins(specs)


def test_each_package_pinned_once_is_taken() -> None:
    assert pins.parse_pins(["jax==0.9.2", "flax==0.12.8"]) == {"jax": "0.9.2", "flax": "0.12.8"}


def test_a_candidate_naming_a_package_by_pin_and_by_source_is_refused() -> None:
    with pytest.raises(pins.PinError, match=r"^flax is pinned twice \('flax==0.12.8' and 'flax @ file:///src/flax'\)"):
        pins.candidate_pins(["flax==0.12.8", "flax @ file:///src/flax"])
    assert pins.candidate_pins(["jax==0.9.2", "flax @ file:///src/flax"]) == ({"jax": "0.9.2"},
                                                                               ["flax @ file:///src/flax"])


def test_a_jaxlib_pinned_without_its_jax_is_refused_not_dropped() -> None:
    with pytest.raises(pins.PinError, match=r"^jaxlib==0\.9\.1 without jax: cells pin jaxlib to jax"):
        pins.candidate_cell(pins.default_cell(MATRIX), {"jaxlib": "0.9.1"})
    with pytest.raises(pins.PinError, match="without jax"):
        pins.baseline_cell(MATRIX, {"jaxlib": "0.9.1"})
    assert pins.candidate_cell(pins.default_cell(MATRIX), {"jax": "0.10.2", "jaxlib": "0.10.2"}).jaxlib == "0.10.2"


def test_read_pins_from_uv_lock(tmp_path: Path) -> None:
    lock = tmp_path / "uv.lock"
    lock.write_text('version = 1\n[[package]]\nname = "jax"\nversion = "0.10.2"\n'
                    '[[package]]\nname = "flax"\nversion = "0.12.8"\n[[package]]\nname = "numpy"\nversion = "2.1"\n')
    assert pins.read_pins(lock) == {"jax": "0.10.2", "flax": "0.12.8"}


def test_read_pins_from_pyproject_and_requirements(tmp_path: Path) -> None:
    project = tmp_path / "pyproject.toml"
    project.write_text('[project]\nname = "x"\ndependencies = ["jax==0.10.2", "optax"]\n'
                       '[project.optional-dependencies]\nnn = ["flax==0.12.8"]\n')
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("jax==0.10.2  # pinned\n-e .\nflax==0.12.8\n")
    assert pins.read_pins(project) == pins.read_pins(requirements) == {"jax": "0.10.2", "flax": "0.12.8"}


def test_read_pins_refuses_a_range(tmp_path: Path) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("jax>=0.10\n")
    with pytest.raises(pins.PinError, match="range"):
        pins.read_pins(requirements)


def test_python_is_the_lowest_the_pair_needs() -> None:
    assert pins.python_for("0.10.2", "0.12.8") == "3.11"
    assert pins.python_for("0.11.2", "0.12.8") == "3.12"
    assert pins.python_for("0.10.2", "0.12.9") == "3.12"
    assert pins.python_for("0.10.2", "0.12.8", floor="3.12") == "3.12"


def test_default_baseline_is_the_newest_jax_with_its_newest_flax() -> None:
    assert pins.default_cell(MATRIX).id == "jax0.12.0.1-flax0.12.12-py3.12"
    assert pins.baseline_cell(MATRIX).id == "jax0.12.0.1-flax0.12.12-py3.12"


def test_the_default_baseline_comes_from_the_default_set() -> None:
    outside = replace(cell("0.13.0", "0.13.0", "3.12"), default=False)
    assert pins.default_cell([*MATRIX, outside]).id == "jax0.12.0.1-flax0.12.12-py3.12"
    with pytest.raises(pins.PinError, match="no cells in its default set"):
        pins.default_cell([outside])


def test_a_jax_only_baseline_takes_the_flax_the_matrix_pairs_with_that_jax() -> None:
    # Shaped like aimz (and haliax, optax): the lock pins jax 0.8.0 and its tests never install flax; the default
    # cell's flax (0.12.12) needs jax>=0.11.1, so taking it made the project's own baseline uninstallable.
    assert pins.baseline_cell(MATRIX, {"jax": "0.10.2"}).flax == "0.12.8"
    assert pins.baseline_cell(MATRIX, {"jax": "0.11.2"}).id == "jax0.11.2-flax0.12.8-py3.12"
    assert pins.baseline_cell(MATRIX, {"jax": "0.12.0.1"}).flax == "0.12.12"
    assert pins.candidate_cell(pins.baseline_cell(MATRIX, {"jax": "0.10.2"}), {"jax": "0.11.2"}).flax == "0.12.8"


def test_a_jax_only_baseline_older_than_every_cell_is_refused_naming_the_fix() -> None:
    with pytest.raises(pins.PinError, match=r"jax 0\.4\.0 or older: give --baseline jax==0\.4\.0,flax==X"):
        pins.baseline_cell(MATRIX, {"jax": "0.4.0"})


def test_candidate_keeps_the_baseline_pins_it_does_not_name() -> None:
    baseline = pins.baseline_cell(MATRIX, {"jax": "0.10.2", "flax": "0.12.8"})
    candidate = pins.candidate_cell(baseline, {"jax": "0.12.0.1"})
    assert (candidate.jax, candidate.jaxlib, candidate.flax, candidate.python) == ("0.12.0.1", "0.12.0.1", "0.12.8",
                                                                                   "3.12")
    assert pins.candidate_cell(baseline, {"flax": "0.12.6"}).python == "3.11"


def test_candidate_refuses_a_jaxlib_other_than_jax() -> None:
    with pytest.raises(pins.PinError, match="jaxlib"):
        pins.candidate_cell(MATRIX[0], {"jax": "0.11.2", "jaxlib": "0.11.1"})


def test_case_module_splits_and_refuses_a_bare_name() -> None:
    assert pins.case_module("sharded_gathers::test_take[x]") == ("sharded_gathers", "test_take[x]")
    with pytest.raises(pins.PinError):
        pins.case_module("test_take")


def test_a_prerelease_needs_pre_and_a_local_version_is_refused() -> None:
    assert pins.parse_pins(["jax==0.10.0rc1"], pre=True) == {"jax": "0.10.0rc1"}
    with pytest.raises(pins.PinError, match="pre-release"):
        pins.parse_pins(["jax==0.10.0rc1"])
    with pytest.raises(pins.PinError, match="local version"):
        pins.parse_pins(["jax==0.10.0+abc"], pre=True)


def test_sources_are_told_apart_from_pins() -> None:
    assert pins.split_sources(["jax==0.9.2", "flax @ file:///src/flax"]) == (["jax==0.9.2"], ["flax @ file:///src/flax"])


def test_a_projects_pins_are_its_locked_versions() -> None:
    from harness.host import project

    found = project.load(Path(__file__).resolve().parent / "downstream")
    assert pins.project_pins(found) == {"jax": "0.8.3", "jaxlib": "0.8.3", "flax": "0.12.6"}


def test_a_jax_locked_once_per_python_is_no_baseline_without_one_named(tmp_path: Path) -> None:
    from harness.host import project

    forked = project.Project(tmp_path, "p", (), "jax==0.4.30 ; python_full_version < '3.10'\njax==0.6.2 ; "
                             "python_full_version >= '3.10'\nflax==0.10.2\n", tmp_path / "uv.lock")
    with pytest.raises(pins.PinError, match=r"uv\.lock: jax is locked at several versions, one per Python \(jax==0\.4"
                                            r"\.30 ; python_full_version < '3\.10'; jax==0\.6\.2 .*\): give --baseline "
                                            r"jax==X$"):
        pins.project_pins(forked)
    assert pins.project_pins(forked, ranges=True)["flax"] == "0.10.2"  # --baseline names it: the rest is read
    once = project.Project(tmp_path, "p", (), "jax==0.6.2\nnumpy==1.26.4 ; python_full_version < '3.10'\n"
                           "numpy==2.2.6 ; python_full_version >= '3.10'\n", tmp_path / "uv.lock")
    assert pins.project_pins(once) == {"jax": "0.6.2"}  # only a package the cell does not pin differs by Python


def test_a_candidate_from_a_source_is_named_by_it() -> None:
    origin = Origin("flax", "0.12.6", "tree.1a2b3c4d", "file:///src/flax", "flax @ file:///b/flax-0.12.6.whl")
    base = cell("0.9.2", "0.12.6", "3.11")
    candidate = pins.candidate_cell(base, {}, (origin,))
    assert candidate.id == "jax0.9.2-flax0.12.6+tree.1a2b3c4d-py3.11" and candidate.sources == (origin,)
    assert candidate.requirements() == ["jax==0.9.2", "jaxlib==0.9.2", "flax @ file:///b/flax-0.12.6.whl"]


def test_a_range_is_refused_as_the_baseline_naming_the_ways_out(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "p"\ndependencies = ["jax>=0.8", "flax==0.12.6"]\n')
    with pytest.raises(pins.PinError, match=r"'jax>=0.8' is a range; name the baseline \(--baseline jax==A,flax==B\)"):
        pins.read_pins(pyproject)


def test_with_a_baseline_named_a_range_pins_nothing(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "p"\ndependencies = ["jax>=0.8", "flax==0.12.6"]\n')
    assert pins.read_pins(pyproject, ranges=True) == {"flax": "0.12.6"}


@pytest.mark.parametrize(("name", "content", "why"), [
    ("requirements.txt", b"\xff\xfe", r"not UTF-8 text \(byte 0\)"),
    ("uv.lock", b"[[package]\n", r"malformed TOML"),
    ("pyproject.toml", b"\xff", r"not UTF-8 text \(byte 0\)"),
])
def test_a_pins_file_that_cannot_be_read_is_one_line_naming_it(
    tmp_path: Path, name: str, content: bytes, why: str
) -> None:
    (tmp_path / name).write_bytes(content)
    with pytest.raises(pins.PinError, match=rf"{name}: {why}"):
        pins.read_pins(tmp_path / name)


def test_a_pins_file_of_text_is_read(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("jax==0.9.2\nflax==0.12.8\n", encoding="utf-8")
    assert pins.read_pins(tmp_path / "requirements.txt")["jax"] == "0.9.2"


#: jax 0.5.2's own Requires-Dist (read from its wheel's METADATA): no jaxlib 0.5.2 was ever released.
JAX_052_REQUIRES = ["jaxlib<=0.5.2,>=0.5.1", 'jaxlib==0.5.1; extra == "minimum-jaxlib"',
                    'jaxlib==0.5.0; extra == "ci"', "ml_dtypes>=0.4.0"]
JAXLIBS = [Version(v) for v in ("0.5.0", "0.5.1", "0.5.3", "0.6.0")]


def test_a_jax_with_a_jaxlib_of_its_version_pins_that_one_as_the_matrix_does() -> None:
    assert pins.jaxlib_for(Version("0.5.3"), JAXLIBS, ["jaxlib<=0.5.3,>=0.5.3"]) == Version("0.5.3")


def test_a_jax_with_no_jaxlib_of_its_version_pins_the_newest_its_own_requirement_accepts() -> None:
    # Not 0.5.3 (past its <=0.5.2), nor the extras' 0.5.0.
    assert pins.jaxlib_for(Version("0.5.2"), JAXLIBS, JAX_052_REQUIRES) == Version("0.5.1")


def test_a_jax_that_names_no_jaxlib_or_none_released_gets_none() -> None:
    assert pins.jaxlib_for(Version("0.5.2"), JAXLIBS, ["ml_dtypes>=0.4.0"]) is None
    assert pins.jaxlib_for(Version("0.5.2"), JAXLIBS, ["jaxlib==0.5.2"]) is None


def test_a_cell_of_another_jaxlib_names_it_in_its_id_and_one_of_jaxlib_equal_to_jax_does_not() -> None:
    other = pins.make_cell("0.5.2", "0.10.4", "3.11", jaxlib="0.5.1")
    assert (other.id, other.jaxlib) == ("jax0.5.2-jaxlib0.5.1-flax0.10.4-py3.11", "0.5.1")
    same = pins.make_cell("0.5.3", "0.10.4", "3.11", jaxlib="0.5.3")
    assert (same.id, same.jaxlib) == ("jax0.5.3-flax0.10.4-py3.11", "0.5.3")


def test_a_cell_of_a_jaxlib_built_for_numpy_1_holds_numpy_below_2() -> None:
    old = pins.make_cell("0.4.25", "0.8.1", "3.11")
    assert "numpy<2" in old.extras and "numpy<2" in old.requirements()
    other = pins.make_cell("0.4.25.1", "0.8.1", "3.11", jaxlib="0.4.25")
    assert "numpy<2" in other.extras


def test_a_cell_of_a_jaxlib_built_for_numpy_2_adds_nothing() -> None:
    assert pins.make_cell("0.4.26", "0.8.2", "3.11").extras == ()
    assert pins.make_cell("0.5.2", "0.10.4", "3.11", jaxlib="0.5.1").extras == ()
    assert pins.companions_for("abc1234") == ()  # an unreleased source's jaxlib
