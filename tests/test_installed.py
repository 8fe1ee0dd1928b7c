from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.host import envbuild, installed
from harness.host.options import parse
from tests.collision_project import OWN, add_own_packages

ROOT = Path(__file__).resolve().parent.parent
STACK = {"jax": "0.4.38", "jaxlib": "0.4.38", "flax": "0.10.2", "packaging": "24.0", "pytest": "8.3.0",
         "pytest-xdist": "3.6.0", "pytest-timeout": "2.4.0", "pytest-rerunfailures": "16.6.1"}


def test_cell_of_a_cpu_stack_is_named_by_its_versions() -> None:
    cell = installed.cell_of({"python": "3.11", "dists": STACK})
    assert cell.id == "jax0.4.38-flax0.10.2-py3.11-installed"
    assert (cell.backend, cell.jaxlib, cell.devices) == ("cpu", "0.4.38", 8)


def test_cell_of_a_cuda_stack_reads_the_backend_off_the_plugin() -> None:
    cell = installed.cell_of({"python": "3.12", "dists": {**STACK, "jax-cuda12-plugin": "0.4.38"}})
    assert cell.id == "jax0.4.38-flax0.10.2-py3.12-cuda12-installed" and cell.accelerated


def test_backend_given_wins_over_the_plugins() -> None:
    cell = installed.cell_of({"python": "3.12", "dists": {**STACK, "jax-cuda12-plugin": "0.4.38"}}, "cpu")
    assert cell.backend == "cpu"


def test_missing_plugins_are_named_with_how_to_install_them() -> None:
    dists = {k: v for k, v in STACK.items() if k not in ("packaging", "pytest-xdist")}
    with pytest.raises(installed.InstalledError, match="not installed in this interpreter: pytest-xdist, packaging"):
        installed.cell_of({"python": "3.11", "dists": dists})


def test_the_harness_itself_need_not_be_installed_in_the_interpreter() -> None:
    # The plugin is put on pytest's path from the staged package (harness.host.cellrun.installed).
    assert "shardmatrix" not in STACK and installed.cell_of({"python": "3.11", "dists": STACK}).jax == "0.4.38"


def test_plugins_older_than_the_harness_needs_are_named_with_the_floor_from_pyproject() -> None:
    assert str(installed.floors()["pytest-timeout"]) == ">=2.4"
    old = {**STACK, "pytest-timeout": "2.3.1", "pytest-rerunfailures": "15.0"}
    with pytest.raises(installed.InstalledError, match=r"older than the harness needs: pytest-timeout 2\.3\.1 "
                                                       r"\(needs >=2\.4\), pytest-rerunfailures 15\.0"):
        installed.cell_of({"python": "3.11", "dists": old})


def test_a_pyproject_that_is_not_toml_is_named_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "pyproject.toml"
    broken.write_text("[project\n")
    with pytest.raises(installed.InstalledError, match=rf"^{broken}: malformed TOML \("):
        installed.floors(broken)


def test_probe_lists_this_interpreters_packages() -> None:
    found = installed.probe(sys.executable)
    assert found["python"] == f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert "pytest" in found["dists"]  # type: ignore[operator]


CASE = """
import jax


def test_sees_devices():
    assert jax.device_count() >= 1
"""


@pytest.mark.e2e
def test_installed_mode_records_the_interpreters_own_stack(tmp_path: Path) -> None:
    venv = tmp_path / "stack"
    uv = envbuild.uv_command()
    subprocess.run([*uv, "venv", "--quiet", "--python", "3.11", str(venv)], check=True)
    subprocess.run([*uv, "pip", "install", "--quiet", "--python", str(envbuild.venv_python(venv)), "jax==0.4.38",
                    "jaxlib==0.4.38", "flax==0.10.2", "--editable", str(ROOT)], check=True)
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "test_installed_case.py").write_text(CASE)
    done = subprocess.run([str(envbuild.venv_python(venv)), "-m", "harness.host.installed",
                           "--out", str(tmp_path / "out"), "--run-id", "20261121T084500Z-inst",
                           "--cases", str(tmp_path / "cases")],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    results = tmp_path / "out" / "results" / "20261121T084500Z-inst" / "jax0.4.38-flax0.10.2-py3.11-installed.jsonl"
    (record,) = [json.loads(line) for line in results.read_text().splitlines()]
    assert record["status"] == "passed" and record["jax"] == "0.4.38" and record["device_count"] == 8
    assert results.with_suffix(".done.json").exists()
    assert "jaxlib==0.4.38" in results.with_suffix(".freeze.txt").read_text()


@pytest.mark.e2e
def test_installed_mode_runs_a_projects_own_harness_reports_and_tests(tmp_path: Path) -> None:
    # Before, pytest loaded the plugin as `harness.cell.plugin` from the interpreter's shardmatrix: our `harness` was
    # imported before the project's tests, and answered their `import harness`.
    project = add_own_packages(shutil.copytree(ROOT / "tests" / "downstream", tmp_path / "tinytrainer",
                                               ignore=shutil.ignore_patterns("__pycache__", ".venv")))
    venv = tmp_path / "stack"
    uv = envbuild.uv_command()
    subprocess.run([*uv, "venv", "--quiet", "--python", "3.11", str(venv)], check=True)
    subprocess.run([*uv, "pip", "install", "--quiet", "--python", str(envbuild.venv_python(venv)), "jax==0.8.3",
                    "jaxlib==0.8.3", "flax==0.12.6", str(project), "--editable", str(ROOT)], check=True)
    done = subprocess.run([str(envbuild.venv_python(venv)), "-m", "harness.host.installed",
                           "--out", str(tmp_path / "out"), "--run-id", "20261126T090000Z-own",
                           "--cases", str(project / "tests")],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (results,) = (tmp_path / "out" / "results" / "20261126T090000Z-own").glob("*.jsonl")
    finals = {record["case_id"]: record["status"] for record in map(json.loads, results.read_text().splitlines())}
    # Its own modules answered, and its real tests (conftest, helpers on its pythonpath) ran and passed beside them.
    assert finals[OWN] == "passed" and len(finals) > 2 and set(finals.values()) == {"passed"}, finals


def test_an_unknown_option_is_refused_in_one_line_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    # Before, `--timout 5` was dropped by parse_known_args and the corpus ran with the default limit.
    assert installed.main(["--backend", "cpu", "--timout", "5"]) == 64
    assert capsys.readouterr().err == ("shardmatrix: nox -s installed: unknown option --timout "
                                       "(did you mean --timeout?)\n")


def test_a_missing_cases_folder_is_refused_before_the_interpreter_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(installed, "probe", lambda python: pytest.fail("the interpreter was probed"))
    assert installed.main(["--cases", str(tmp_path / "nowhere"), "--out", str(tmp_path)]) == 64
    assert capsys.readouterr().err == f"shardmatrix: --cases {tmp_path / 'nowhere'}: no such folder\n"


def test_what_only_a_built_cell_can_take_is_refused_in_installed_mode() -> None:
    with pytest.raises(installed.InstalledError, match="installed mode builds nothing"):
        installed.run(parse(["--with", "optax==0.2.5"]))
