"""A downstream project in cells: loading it, its lock read by uv, its tests and pytest configuration, its content."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.host import project

FIXTURE = Path(__file__).resolve().parent / "downstream"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "tinytrainer"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    return target


def test_the_fixture_loads_with_its_dependencies_and_its_locked_versions() -> None:
    found = project.load(FIXTURE)
    assert found.name == "tinytrainer" and found.lockfile == FIXTURE / "uv.lock"
    # The cell's pins stand in for jax and flax; the rest, and the dev group its CI installs, are kept.
    assert found.dependencies == ("optax>=0.2.4", "pytest>=8.2")
    locked = found.locked_versions()
    assert (locked["jax"], locked["flax"], locked["optax"]) == ("0.8.3", "0.12.6", "0.2.5")
    assert "tinytrainer" not in locked  # the project itself is installed from its folder, not the lock


def test_a_folder_without_pyproject_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(project.ProjectError, match=r"^--project .*: no pyproject.toml there$"):
        project.load(tmp_path)


def test_a_lock_that_does_not_match_its_pyproject_is_refused(copy: Path) -> None:
    pyproject = copy / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"optax>=0.2.4"', '"optax>=0.2.4", "chex"'))
    with pytest.raises(project.ProjectError, match=r"uv.lock does not match pyproject.toml \(run `uv lock`\)"):
        project.load(copy)


def test_a_requirements_lockfile_must_pin_exactly(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "1"\ndependencies = ["optax"]\n')
    (tmp_path / "requirements.txt").write_text("jax==0.8.3\noptax==0.2.5\n")
    assert project.load(tmp_path).locked_versions() == {"jax": "0.8.3", "optax": "0.2.5"}
    (tmp_path / "requirements.txt").write_text("jax==0.8.3\noptax>=0.2\n")
    with pytest.raises(project.ProjectError, match=r"'optax>=0\.2' is not an exact pin"):
        project.load(tmp_path)


def test_dynamic_dependencies_are_refused(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "1"\ndynamic = ["dependencies"]\n')
    with pytest.raises(project.ProjectError, match="dependencies are dynamic"):
        project.load(tmp_path)


def test_testpaths_come_from_pytest_configuration_else_tests(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "1"\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "checks").mkdir()
    assert project.load(tmp_path).testpaths() == [tmp_path / "tests"]
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = checks\n")
    assert project.load(tmp_path).testpaths() == [tmp_path / "checks"]
    assert project.pytest_config(tmp_path) == tmp_path / "pytest.ini"


@pytest.mark.parametrize(("name", "text"), [("tox.ini", "[pytest]\n"), ("setup.cfg", "[tool:pytest]\n"),
                                            ("pyproject.toml", '[project]\nname = "p"\n[tool.pytest.ini_options]\n')])
def test_the_configuration_file_is_the_one_pytest_would_read(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / name).write_text(text)
    assert project.pytest_config(tmp_path) == tmp_path / name


def test_without_any_pytest_section_pyproject_is_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "tox.ini").write_text("[tox]\n")
    assert project.pytest_config(tmp_path) == tmp_path / "pyproject.toml"


def test_an_ini_option_is_read_as_written_and_none_where_unset(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = ["-ra", "-Werror"]\ntimeout = 5\n')
    config = project.pytest_config(tmp_path)
    assert project.ini_option(config, "addopts") == ["-ra", "-Werror"] and project.ini_option(config, "timeout") == "5"
    assert project.ini_option(config, "xfail_strict") is None
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\naddopts = -Werror -p no:xdist\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    config = project.pytest_config(tmp_path)
    assert project.ini_option(config, "addopts") == "-Werror -p no:xdist" and project.ini_option(config, "x") is None


def test_the_tree_hash_follows_sources_and_ignores_caches_and_venvs(copy: Path) -> None:
    before = project.tree_hash(copy)
    (copy / "src" / "tinytrainer" / "__pycache__").mkdir()
    (copy / "src" / "tinytrainer" / "__pycache__" / "embed.cpython-311.pyc").write_bytes(b"\0")
    (copy / ".venv").mkdir()
    (copy / ".venv" / "pyvenv.cfg").write_text("home = /x\n")
    assert project.tree_hash(copy) == before
    run = copy / "ci-out" / "results" / "20261127T080000Z-ab12"  # an --out given inside the project, as CI's
    run.mkdir(parents=True)
    (run / "cell.jsonl").write_text("{}\n")
    (copy / "ci-out" / "watch-state.json").write_text("{}\n")
    assert project.tree_hash(copy) == before
    (copy / "results" / "not-a-run").mkdir(parents=True)  # the project's own folder named results: its source
    (copy / "results" / "not-a-run" / "data.csv").write_text("x\n")
    assert project.tree_hash(copy) != before
    before = project.tree_hash(copy)
    embed = copy / "src" / "tinytrainer" / "embed.py"
    embed.write_text(embed.read_text() + "\n")
    assert project.tree_hash(copy) != before
    assert project.provenance(copy).startswith(f"# project tinytrainer @ {copy} (tree.")


def test_a_conftest_that_did_not_import_is_read_from_the_cells_record() -> None:
    records = [{"case_id": "conftest::<collection>", "status": "error", "error_type": "ModuleNotFoundError",
                "error_message": "No module named 'tinytrainer'"}]
    assert project.conftest_failure(records) == ("ModuleNotFoundError", "No module named 'tinytrainer'")


def test_a_conftest_that_failed_on_a_removed_jax_name_stopped_pytest_too() -> None:
    # Shaped like aimz at jax 0.10.0: its conftest imports numpyro, which imports a name jax removed; the record is
    # `failed` (a removal), and read as no conftest failure every case of the cell was `crashed` ("pytest exited
    # with code 4"), so the watch answered INCONCLUSIVE where its tests could no longer run.
    records = [{"case_id": "conftest::<collection>", "status": "failed", "error_type": "ImportError",
                "error_message": "jax.interpreters.pxla has no xla_pmap_p (jax 0.10.0)"}]
    assert project.conftest_failure(records) == ("ImportError", "jax.interpreters.pxla has no xla_pmap_p (jax 0.10.0)")


def test_a_run_that_got_past_its_conftests_has_no_conftest_failure() -> None:
    records = [{"case_id": "test_embed::<collection>", "status": "error", "error_type": "ModuleNotFoundError"},
               {"case_id": "test_train::TestTrain::test_a_step_lowers_the_loss", "status": "passed"}]
    assert project.conftest_failure(records) is None


def test_the_floors_under_jax_and_flax_are_kept_to_resolve_with_the_cells_pins() -> None:
    lines = ["jax>=0.8,<0.9", "flax~=0.12.4", "jaxlib>0.8; sys_platform == 'linux'", "optax>=0.2"]
    assert project.floors(lines) == ["jax>=0.8", "flax>=0.12.4", 'jaxlib>0.8; sys_platform == "linux"']


def test_an_exact_pin_or_an_upper_bound_is_no_floor_the_cell_decides() -> None:
    assert project.floors(["jax==0.8.3", "flax<0.13", "jaxlib!=0.8.1", "optax>=0.2"]) == []


BYTES = b"\xff\xfe not text"
PYPROJECT = '[project]\nname = "mine"\nversion = "1"\ndependencies = ["optax"]\n'


@pytest.mark.parametrize("culprit", ["pyproject.toml", "requirements.txt", "setup.cfg"])
def test_a_project_file_of_bytes_is_refused_in_one_line_naming_it(tmp_path: Path, culprit: str) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / culprit).write_bytes(BYTES)
    with pytest.raises(project.ProjectError, match=rf"{culprit}: not UTF-8 text \(byte 0\)"):
        project.load(tmp_path).testpaths()


def test_a_malformed_pyproject_is_refused_in_one_line_naming_it_a_good_one_loads(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "pyproject.toml").write_text("[project\n", encoding="utf-8")
    with pytest.raises(project.ProjectError, match=r"pyproject\.toml: malformed TOML \("):
        project.load(tmp_path).testpaths()


def test_a_project_of_text_files_loads(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\ntestpaths = tests\n", encoding="utf-8")
    assert project.load(tmp_path).dependencies == ("optax",)


def test_a_malformed_setup_cfg_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "setup.cfg").write_text("no section header\n", encoding="utf-8")
    with pytest.raises(project.ProjectError, match=r"setup\.cfg: File contains no section headers"):
        project.load(tmp_path).testpaths()


# --- locks as people make them (tests/locks/: each made with the real uv, as its pyproject.toml says) ---------------

LOCKS = Path(__file__).resolve().parent / "locks"


def test_a_lock_made_with_exclude_newer_is_checked_as_made_and_keeps_its_versions() -> None:
    found = project.load(LOCKS / "exclude_newer")
    assert project.lock_options(LOCKS / "exclude_newer" / "uv.lock") == ["--exclude-newer", "2024-01-02T00:00:00Z"]
    assert found.locked_versions()["six"] == "1.16.0"  # not the newer 1.17.0 a fresh `uv lock` would take


def test_a_lock_made_with_a_relative_exclude_newer_is_checked_with_its_span() -> None:
    assert project.lock_options(LOCKS / "exclude_newer_span" / "uv.lock") == ["--exclude-newer", "P1W"]
    assert "six" in project.load(LOCKS / "exclude_newer_span").locked_versions()


def test_a_lock_checked_without_its_options_is_refused_with_uvs_own_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    # The pair of the test above: what `uv lock --check` says of that lock when not given its exclude-newer.
    monkeypatch.setattr(project, "lock_options", lambda lockfile: [])
    with pytest.raises(project.ProjectError, match=r"uv\.lock does not match pyproject\.toml \(run `uv lock`\): "
                                                   r"Resolving despite existing lockfile due to removal of global "
                                                   r"exclude newer$"):
        project.load(LOCKS / "exclude_newer")


def test_a_lock_for_several_pythons_is_read_with_each_pythons_markers() -> None:
    locked = project.load(LOCKS / "pythons").locked
    assert "iniconfig==2.0.0 ; python_full_version < '3.11'" in locked
    assert "iniconfig==2.1.0 ; python_full_version >= '3.11'" in locked


def test_a_test_group_that_includes_another_is_read_with_it_and_locked_with_it() -> None:
    found = project.load(LOCKS / "groups")
    assert found.dependencies == ("iniconfig", "six")
    assert {"iniconfig", "six"} <= set(found.locked_versions())  # exported with --group test, not only dev


def test_a_group_that_includes_itself_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n[dependency-groups]\n'
                                             'test = [{include-group = "lint"}]\nlint = [{include-group = "test"}]\n')
    with pytest.raises(project.ProjectError, match=r"group 'test' includes itself \(test -> lint -> test\)$"):
        project.load(tmp_path)


def test_a_pylock_toml_is_read_as_exact_pins() -> None:
    found = project.load(LOCKS / "pylock")
    assert found.lockfile == LOCKS / "pylock" / "pylock.toml" and found.locked_versions() == {"six": "1.16.0"}


def test_a_pylock_toml_package_without_a_version_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "pylock.toml").write_text('lock-version = "1.0"\n[[packages]]\nname = "mine"\n'
                                          'directory = { path = "../mine" }\n')
    with pytest.raises(project.ProjectError, match=r"pylock\.toml: 'mine' is locked without a version"):
        project.load(tmp_path)


_PROJECT = '[project]\nname = "p"\n'


@pytest.mark.parametrize(("pyproject", "lock", "said"), [
    ('project = "p"\n', None, r"pyproject\.toml: \[project\] is str, not a table$"),
    (_PROJECT + 'dependencies = "jax>=0.4"\n', None,
     r"pyproject\.toml: \[project\] dependencies must be a list of requirement strings, not 'jax>=0\.4'$"),
    (_PROJECT + "dependencies = [3]\n", None, r"\[project\] dependencies must be a list of requirement strings"),
    (_PROJECT + '[project.optional-dependencies]\ntest = "pytest"\n', None,
     r"optional dependencies 'test' must be a list of requirement strings, not 'pytest'$"),
    (_PROJECT + '[dependency-groups]\ntest = "pytest"\n', None, r"dependency group 'test' is str, not a list$"),
    (_PROJECT + '[dependency-groups]\ntest = [{ include = "dev" }]\n', None,
     r"dependency group 'test' holds \{'include': 'dev'\}, neither a requirement nor \{include-group = NAME\}$"),
    (_PROJECT, ("pylock.toml", 'lock-version = "1.0"\npackages = ["six"]\n'), r"pylock\.toml: package #1 has no name$"),
    (_PROJECT, ("pylock.toml", 'lock-version = "1.0"\n[[packages]]\nversion = "1.0"\n'),
     r"pylock\.toml: package #1 has no name$"),
    (_PROJECT, ("pylock.toml", 'lock-version = "1.0"\npackages = 3\n'), r"packages is int, not an array of tables$"),
    (_PROJECT, ("pylock.toml", 'lock-version = "1.0"\n[[packages]]\nname = "six"\nversion = "1.0"\n'
                               'marker = "python_version >>"\n'), r"package 'six' .* does not read as an exact pin$"),
    (_PROJECT, ("uv.lock", 'version = 1\noptions = "x"\n'), r"uv\.lock: \[options\] is str, not a table$"),
    (_PROJECT, ("uv.lock", 'version = 1\n[options]\nexclude-newer-package = "six"\n'),
     r"uv\.lock: \[options\] exclude-newer-package is str, not a table$"),
])
def test_a_project_file_of_the_wrong_shape_is_refused_in_one_line_naming_the_part(
        tmp_path: Path, pyproject: str, lock: tuple[str, str] | None, said: str) -> None:
    # A string where a list belongs would be read one requirement per character ('p', 'y', 't', ... from the index).
    (tmp_path / "pyproject.toml").write_text(pyproject)
    if lock is not None:
        (tmp_path / lock[0]).write_text(lock[1])
    with pytest.raises(project.ProjectError, match=said) as refused:
        project.load(tmp_path)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(("above", "said"), [
    ("not = [toml\n", r"looking for a uv workspace above it: .*/pyproject\.toml: .*\(at line 1"),
    ("[tool]\nuv = 3\n", r"looking for a uv workspace above it: .*/pyproject\.toml: \[tool\.uv\] is int, not a table$"),
])
def test_a_pyproject_above_the_project_that_uv_cannot_read_is_named_as_what_was_looked_for(
        tmp_path: Path, above: str, said: str) -> None:
    # Was a TypeError for [tool.uv] = 3, and the bare parse error of a file the user never named.
    (tmp_path / "pyproject.toml").write_text(above)
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text(_PROJECT)
    with pytest.raises(project.ProjectError, match=rf"^--project .*/proj: {said}"):
        project.load(tmp_path / "proj")


def test_a_pyproject_above_the_project_that_is_no_workspace_is_passed_by(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "outer"\n[tool.uv]\npackage = false\n')
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text(_PROJECT)
    assert project.load(tmp_path / "proj").name == "p"


def test_a_project_of_the_right_shape_with_its_groups_and_pylock_loads(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(_PROJECT + 'dependencies = ["six"]\n[project.optional-dependencies]\n'
                                             'test = ["pytest"]\n[dependency-groups]\ndev = ["iniconfig"]\n'
                                             'test = [{ include-group = "dev" }]\n')
    (tmp_path / "pylock.toml").write_text('lock-version = "1.0"\n[[packages]]\nname = "six"\nversion = "1.16.0"\n'
                                          'marker = "python_version >= \'3.10\'"\n')
    found = project.load(tmp_path)
    assert found.dependencies == ("six", "pytest", "iniconfig", "iniconfig")
    assert found.locked_versions() == {"six": "1.16.0"}


@pytest.mark.parametrize(("folder", "said"), [("workspace", r"a uv workspace \(\[tool\.uv\.workspace\]\) is not "
                                                             r"supported"),
                                              ("workspace/packages/member", r"a member of the uv workspace at .*"
                                                                            r"workspace is not supported")])
def test_a_uv_workspace_is_refused_in_one_line_naming_it(folder: str, said: str) -> None:
    with pytest.raises(project.ProjectError, match=said):
        project.load(LOCKS / folder)
