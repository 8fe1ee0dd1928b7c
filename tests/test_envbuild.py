"""harness.host.envbuild: uv builds, lock reuse, installer messages."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import fake_index
import pytest
from packaging.requirements import Requirement

from harness.host import cellplugin, envbuild, matrix, runtimes
from harness.host.renaming import StagingError

CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def test_installer_message_picks_the_reason() -> None:
    uv_output = (
        "  × No solution found when resolving dependencies:\n"  # noqa: RUF001
        "  ╰─▶ Because there is no version of jax==99.0 and you require jax==99.0, we can conclude that your\n"
        "      requirements are unsatisfiable.\n"
    )
    assert envbuild.installer_message(uv_output).startswith("Because there is no version of jax==99.0")
    assert envbuild.installer_message("error: No interpreter found for Python 3.99") == (
        "error: No interpreter found for Python 3.99"
    )
    assert envbuild.installer_message("") == "installer failed without output"


def test_install_resolves_once_then_syncs_and_skips_an_unchanged_venv(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([*envbuild.uv_command(), "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    tiny = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]
    log = tmp_path / "install.log"
    assert envbuild.install(tiny, venv, log) is None
    assert "pip compile" in log.read_text() and "pip sync" in log.read_text()
    assert list((tmp_path / ".shardmatrix-locks").glob("*.txt"))
    assert envbuild.install(tiny, venv, log) is None
    assert "nothing to do" in log.read_text()
    fresh = tmp_path / "fresh"
    subprocess.run([*envbuild.uv_command(), "venv", "-q", "-p", sys.executable, str(fresh)], check=True)
    assert envbuild.install(tiny, fresh, log) is None
    assert "pip compile" not in log.read_text()  # the lock beside the venvs was reused


def test_install_failure_is_reported_with_uv_reason(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([*envbuild.uv_command(), "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    impossible = matrix.parse('[[cell]]\njax="99.0.0"\njaxlib="99.0.0"\nflax="0.10.2"\npython="3.11"\n')[0]
    message = envbuild.install(impossible, venv, tmp_path / "install.log")
    assert message is not None and "jax==99.0.0" in message
    assert "jax==99.0.0" in (tmp_path / "install.log").read_text()


def tpu_cell(jax: str) -> matrix.Cell:
    return matrix.parse(f'[[cell]]\njax="{jax}"\njaxlib="{jax}"\nflax="0.10.2"\npython="3.11"\nbackend="tpu"\n')[0]


def fake_uv(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """uv faked: each command recorded with its stdin; `pip compile` writes a lock holding libtpu."""
    seen: list[list[str]] = []

    def fake_run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        seen.append([*command, *str(kwargs.get("input") or "").split()])  # pins reach uv pip compile on stdin
        if "--output-file" in command:
            lock = Path(command[command.index("--output-file") + 1])
            lock.parent.mkdir(parents=True, exist_ok=True)
            lock.write_text("jaxlib==0.4.38\nlibtpu==0.0.7\n")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(envbuild.subprocess, "run", fake_run)
    return seen


def test_an_old_tpu_cell_installs_with_libtpu_find_links(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen = fake_uv(monkeypatch)
    assert envbuild.install(tpu_cell("0.4.38"), tmp_path, tmp_path / "log") is None
    compile_tpu, sync_tpu = seen[0], seen[1]
    assert "jax[tpu]==0.4.38" in compile_tpu and matrix.LIBTPU_RELEASES in compile_tpu
    assert matrix.LIBTPU_RELEASES in sync_tpu
    assert envbuild.install(CELL, tmp_path, tmp_path / "log") is None
    assert all(matrix.LIBTPU_RELEASES not in command for command in seen[2:])


def test_a_tpu_cell_whose_libtpu_is_on_pypi_needs_no_find_links(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    seen = fake_uv(monkeypatch)
    assert envbuild.install(tpu_cell(str(matrix.LIBTPU_ON_PYPI_SINCE)), tmp_path, tmp_path / "log") is None
    assert seen and all(matrix.LIBTPU_RELEASES not in command for command in seen)


ACCELERATED = [c for c in matrix.load(Path(__file__).resolve().parent.parent / "matrix.toml") if c.accelerated]


@pytest.mark.parametrize("cell", ACCELERATED, ids=lambda c: c.backend)
def test_an_accelerator_cells_lock_holds_the_runtime_of_its_jaxlib_not_the_newer_one_offered(
        cell: matrix.Cell, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_index.offer(tmp_path / "index", cell)
    fake_index.use(monkeypatch, tmp_path / "index")
    lock = tmp_path / "lock.txt"
    assert envbuild.lock(cell, lock) is None
    held = runtimes.locked(lock.read_text())
    assert held["jaxlib"] == cell.jaxlib
    assert {name: held[name] for name in runtimes.LOCKSTEP[cell.backend]} == dict.fromkeys(
        runtimes.LOCKSTEP[cell.backend], cell.jaxlib)
    if cell.backend == "tpu":
        assert held["libtpu"] == fake_index.LIBTPU[cell.jax][1]


@pytest.mark.e2e
@pytest.mark.parametrize("cell", ACCELERATED, ids=lambda c: c.backend)
def test_the_shipped_accelerator_cells_lock_from_pypi_with_the_runtime_of_their_jaxlib(cell: matrix.Cell,
                                                                                      tmp_path: Path) -> None:
    # The real index: the pins exist, and the plugin/pjrt (or libtpu) the lock holds is the one of the cell's jaxlib.
    lock = tmp_path / "lock.txt"
    assert envbuild.lock(cell, lock) is None
    held = runtimes.locked(lock.read_text())
    assert runtimes.RUNTIME[cell.backend] in held and held["jaxlib"] == cell.jaxlib
    assert [held[name] for name in runtimes.LOCKSTEP[cell.backend]] == [cell.jaxlib] * len(
        runtimes.LOCKSTEP[cell.backend])


@pytest.mark.parametrize("cell", [c for c in ACCELERATED if runtimes.LOCKSTEP[c.backend]], ids=lambda c: c.backend)
def test_without_its_pins_the_newer_plugin_offered_is_refused_never_locked(
        cell: matrix.Cell, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake_index.offer(tmp_path / "index", cell)
    fake_index.use(monkeypatch, tmp_path / "index")
    monkeypatch.setattr(runtimes, "pins", lambda backend, jaxlib: [])
    lock = tmp_path / "lock.txt"
    plugin, newer = runtimes.LOCKSTEP[cell.backend][0], fake_index.neighbours(cell.jaxlib)[-1]
    assert envbuild.lock(cell, lock) == (
        f"the {cell.backend} lock pairs {plugin} {newer} with jaxlib {cell.jaxlib}: a plugin runs only with the "
        f"jaxlib of its own release; pin {plugin}=={cell.jaxlib}")
    assert not lock.exists()


FIXTURE = Path(__file__).resolve().parent / "downstream"
PROJECT_CELL = matrix.Cell(id="p", jax="0.9.2", jaxlib="0.9.2", flax="0.12.6", python="3.11", project=str(FIXTURE))


def test_a_project_is_installed_editable_at_its_locked_versions_beside_the_cells_pins(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([*envbuild.uv_command(), "venv", "-q", "-p", "3.11", str(venv)], check=True)
    assert envbuild.install(PROJECT_CELL, venv, tmp_path / "install.log") is None
    frozen = envbuild.freeze(venv, tmp_path / "freeze.txt", PROJECT_CELL)
    # The project pins jax==0.8.3; the cell's pin wins. optax is locked at 0.2.5 while newer ones exist: kept.
    assert "jax==0.9.2" in frozen.splitlines() and "optax==0.2.5" in frozen.splitlines()
    assert frozen.startswith(f"# project tinytrainer @ {FIXTURE} (tree.")
    assert any(line.startswith("-e file://") and line.endswith("downstream") for line in frozen.splitlines())


def test_a_requirement_conflicting_with_the_projects_names_both(tmp_path: Path) -> None:
    assert envbuild.resolves(PROJECT_CELL) is None
    clash = matrix.Cell(**{**PROJECT_CELL.__dict__, "extras": ("optax==0.2.3",)})
    assert envbuild.resolves(clash) == ("Because you require optax==0.2.3 and optax>=0.2.4, we can conclude that "
                                        "your requirements are unsatisfiable (tinytrainer requires optax>=0.2.4)")


def test_the_install_key_follows_the_projects_lock_and_extras(tmp_path: Path) -> None:
    from harness.host import project

    found = project.load(FIXTURE)
    key = envbuild.install_key(PROJECT_CELL, tmp_path, project=found)
    moved = project.Project(found.root, found.name, found.dependencies, found.locked + "chex==0.1.90\n", None)
    assert envbuild.install_key(PROJECT_CELL, tmp_path, project=moved) != key
    extra = matrix.Cell(**{**PROJECT_CELL.__dict__, "extras": ("chex==0.1.90",)})
    assert envbuild.install_key(extra, tmp_path, project=found) != key


def test_a_cell_whose_jaxlib_is_not_its_jaxs_release_is_refused_naming_both_plugins(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # PyPI's jax pins the plugin to its own release; the cell pins it to its jaxlib: uv refuses, never locks one.
    cell = replace(next(c for c in ACCELERATED if c.backend == "cuda13"), jaxlib="0.11.1")
    fake_index.offer(tmp_path / "index", cell, as_pypi=True)
    fake_index.use(monkeypatch, tmp_path / "index")
    lock = tmp_path / "lock.txt"
    refused = envbuild.lock(cell, lock)
    assert refused is not None and "\n" not in refused
    assert "depend on jax-cuda13-plugin[with-cuda]==0.11.2" in refused
    assert "you require jax-cuda13-plugin==0.11.1" in refused and refused.endswith("unsatisfiable.")
    assert not lock.exists()



@pytest.mark.parametrize(("python", "locked"), [("3.10", "2.0.0"), ("3.11", "2.1.0")])
def test_a_lock_for_several_pythons_gives_each_cells_python_its_own_locked_version(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, python: str, locked: str) -> None:
    folder = tmp_path / "index"
    folder.mkdir()
    cell = matrix.Cell(f"jax0.8.3-flax0.12.6-py{python}", "0.8.3", "0.8.3", "0.12.6", python,
                       project=str(Path(__file__).resolve().parent / "locks" / "pythons"))
    for name, version in (("jax", "0.8.3"), ("jaxlib", "0.8.3"), ("flax", "0.12.6"), ("iniconfig", "2.0.0"),
                          ("iniconfig", "2.1.0"), ("iniconfig", "2.3.0")):  # 2.3.0: what a fresh resolution takes
        fake_index.wheel(folder, name, version)
    for line in cellplugin.dependencies():
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate({"python_version": python}):
            fake_index.wheel(folder, requirement.name, next((s.version for s in requirement.specifier
                                                             if s.operator in (">=", "==")), "1.0"))
    fake_index.use(monkeypatch, folder)
    lock = tmp_path / "lock.txt"
    assert envbuild.lock(cell, lock) is None
    assert f"iniconfig=={locked}" in lock.read_text().splitlines()


def test_a_cell_resolved_as_of_a_day_holds_the_cells_packages_to_it_but_not_the_harnesss_own(tmp_path: Path) -> None:
    # jax 0.9.0's day (2026-01-20) knew pytest-rerunfailures 16.1 only; the plugin needs >= 16.6.1. Before, every
    # cell with exclude_newer that early was refused: "only pytest-rerunfailures<=16.1 is available".
    cell = replace(matrix.Cell(id="c", jax="0.9.0", jaxlib="0.9.0", flax="0.12.0", python="3.11"),
                   exclude_newer="2026-01-21")
    assert envbuild.resolves(cell) is None
    lock = tmp_path / "lock.txt"
    assert envbuild.lock(cell, lock) is None
    pinned = dict(line.split("==") for line in lock.read_text().splitlines() if "==" in line and line[0] not in "# ")
    assert pinned["jax"] == "0.9.0" and pinned["flax"] == "0.12.0"
    assert tuple(map(int, pinned["pytest-rerunfailures"].split(".")[:2])) >= (16, 6)
    later = replace(cell, id="d", jax="0.9.1", jaxlib="0.9.1")  # out on 2026-03-02: the cell's pins are held
    assert "jax==0.9.1" in (envbuild.resolves(later) or "")


def setuptools_project(root: Path) -> Path:
    """A project built by setuptools, its package under src/ (how aimz and many others lay out), with a setup.cfg of
    its own."""
    (root / "src" / "toytrainer").mkdir(parents=True)
    (root / "src" / "toytrainer" / "__init__.py").write_text("ORIGIN = 'toytrainer'\n")
    (root / "setup.cfg").write_text("[metadata]\nlicense = MIT\n")
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "toytrainer"\nversion = "0.1"\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n')
    return root


def test_a_setuptools_project_is_installed_editable_and_its_tree_stays_as_it_was(tmp_path: Path) -> None:
    # Before, setuptools' egg_info left src/toytrainer.egg-info in the user's folder after every cell was built.
    from harness.host import project

    root = setuptools_project(tmp_path / "toytrainer")
    before, files = project.tree_hash(root), sorted(p.relative_to(root) for p in root.rglob("*"))
    venv = tmp_path / "venv"
    subprocess.run([*envbuild.uv_command(), "venv", "-q", "-p", sys.executable, str(venv)], check=True)
    transcript: list[str] = []
    assert envbuild.install_project(venv, root, transcript) is None, transcript
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == files and project.tree_hash(root) == before
    # Editable all the same: the installed package is the project's own source, and its metadata is there.
    probe = "import toytrainer, importlib.metadata as m; print(toytrainer.__file__, m.version('toytrainer'))"
    done = subprocess.run([str(envbuild.venv_python(venv)), "-c", probe], capture_output=True, text=True,
                          cwd=tmp_path, check=True)
    assert done.stdout.split() == [str(root / "src" / "toytrainer" / "__init__.py"), "0.1"]


def test_a_plugin_that_does_not_build_is_the_cells_install_error(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(folder: Path | None = None) -> Path:
        raise StagingError("staged: the cell's plugin does not build: no hatchling")

    monkeypatch.setattr(cellplugin, "wheel", broken)
    log = tmp_path / "logs" / "install.log"
    assert envbuild.install(CELL, tmp_path / "venv", log) == "staged: the cell's plugin does not build: no hatchling"
    assert log.read_text() == "staged: the cell's plugin does not build: no hatchling\n"
