"""The wheel, installed outside any checkout: `shardmatrix` runs with no extra, finds the corpus and the matrix it
carries, and puts no top-level name but `shardmatrix` in the environment (a user's own `reports` stays theirs)."""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from email.parser import Parser
from pathlib import Path

import pytest
from collision_project import add_own_packages
from test_reports_cli import CELL, RUN, record, write_run

from harness.tools import index
from shardmatrix import command

ROOT = Path(__file__).resolve().parent.parent
UV = shutil.which("uv")
#: The ecosystem's ways to install a command into an environment of its own.
TOOL_INSTALLERS = ("uv tool install ", "pipx install ", "uvx --from ")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout."""
    if UV is None:
        pytest.skip("uv is not on PATH")
    folder = tmp_path_factory.mktemp("dist")
    subprocess.run([UV, "build", "--wheel", "--out-dir", str(folder), str(ROOT)], check=True, capture_output=True)
    (built,) = folder.glob("shardmatrix-*.whl")
    return built


def fresh_venv(folder: Path, *requirements: str) -> Path:
    """A new venv at `folder` with `requirements` installed (uv pip, no extra): its bin folder."""
    assert UV is not None
    subprocess.run([UV, "venv", "--quiet", "--python", sys.executable, str(folder)], check=True, capture_output=True)
    subprocess.run([UV, "pip", "install", "--quiet", "--python", str(folder / "bin" / "python"), *requirements],
                   check=True, capture_output=True)
    return folder / "bin"


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv outside the checkout with the built wheel installed, as `pip install shardmatrix` does: its bin folder."""
    return fresh_venv(tmp_path_factory.mktemp("wheel") / "venv", str(wheel))


def outside(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run as a user would, away from the checkout: no PYTHONPATH, no venv of ours active."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_the_command_and_its_subcommands_answer_help(installed: Path, tmp_path: Path) -> None:
    done = outside([str(installed / "shardmatrix"), "--help"], tmp_path)
    assert done.returncode == 0 and "upgrade" in done.stdout, done.stderr
    done = outside([str(installed / "shardmatrix"), "upgrade", "--help"], tmp_path)
    assert done.returncode == 0 and "--baseline" in done.stdout, done.stderr


def test_it_reports_a_stored_run(installed: Path, tmp_path: Path) -> None:
    write_run(tmp_path, json.dumps(record()), json.dumps(record(case_id="fam::b", status="failed")))
    done = outside([str(installed / "shardmatrix"), "report", "--out", str(tmp_path), "--run", RUN], tmp_path)
    assert done.returncode == 0, done.stderr
    assert CELL in done.stdout and (tmp_path / "report" / "matrix.html").exists()


def test_the_corpus_and_the_matrix_come_from_inside_the_installed_package(installed: Path, tmp_path: Path) -> None:
    probe = ("from shardmatrix.harness.host import corpus, plan, matrix\n"
             "paths = corpus.case_paths(['builtin'])\n"
             "inside = all('site-packages' in str(p) for p in paths)\n"
             "print(len(paths), inside, len(matrix.load(plan.default_matrix())))\n"
             "print(len(corpus.known_breakage_files(['builtin'])))\n")
    done = outside([str(installed / "python"), "-c", probe], tmp_path)
    assert done.returncode == 0, done.stderr
    files, inside, cells = done.stdout.split()[:3]
    assert int(files) == len([p for p in (ROOT / "cases").glob("*.py") if not p.name.startswith("_")])
    assert inside == "True" and int(cells) > 0
    assert done.stdout.split()[3] == "1"


def test_the_wheel_installs_no_top_level_name_but_shardmatrix(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
        info = next(top for top in tops if top.endswith(".dist-info"))
        entry_points = archive.read(f"{info}/entry_points.txt").decode()
    assert tops == {"shardmatrix", info}
    # The console script, and no pytest11 entry point: that would load into every pytest run of the user's venv.
    assert entry_points.split() == ["[console_scripts]", "shardmatrix", "=", "shardmatrix:main"]


def test_the_wheel_depends_on_what_its_commands_need(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        info = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(info).decode())
    required = {line.split(";")[0].split(">")[0].split("=")[0].strip() for line in metadata.get_all("Requires-Dist")}
    assert {"uv", "pandas", "jinja2", "packaging", "pytest"} <= required
    assert metadata.get_all("Provides-Extra") == ["docs", "test"]  # no `report` extra left to forget


def test_a_projects_own_reports_and_harness_installed_editable_beside_shardmatrix_stay_its_own(
        wheel: Path, tmp_path: Path) -> None:
    project = add_own_packages(tmp_path / "tinytrainer")
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
        '[project]\nname = "tinytrainer"\nversion = "0.1"\n\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["reports", "harness"]\n', encoding="utf-8")
    bin_folder = fresh_venv(tmp_path / "venv", str(wheel), "-e", str(project))
    check = "import harness, reports; print(reports.ORIGIN, harness.ORIGIN)"
    done = outside([str(bin_folder / "python"), "-c", check], tmp_path)
    assert done.stdout.split() == ["tinytrainer", "tinytrainer"], done.stderr[-2000:]
    # And the command beside them still runs its own code.
    write_run(tmp_path / "out", json.dumps(record()))
    done = outside([str(bin_folder / "shardmatrix"), "report", "--out", str(tmp_path / "out"), "--run", RUN], tmp_path)
    assert done.returncode == 0 and CELL in done.stdout, done.stderr[-2000:]


def maintainers_lines() -> list[str]:
    """The README's three lines under 'Before you bump' (install, upgrade, watch), their comments left out."""
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("## Before you bump", 1)[1]
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    return [" ".join(shlex.split(line, comments=True)) for line in block.splitlines()]


def test_the_readme_installs_the_command_the_way_the_ecosystem_installs_a_command() -> None:
    install, upgrade, watch = maintainers_lines()
    assert install.startswith(TOOL_INSTALLERS), install
    assert "[report]" not in install
    assert upgrade.startswith("cd tests/downstream && shardmatrix upgrade ") and watch.startswith("shardmatrix watch")
    # The two commands' options parse as the command parses them (the e2e test below runs both).
    for line in (upgrade.split(" && ", 1)[1], watch):
        name, *argv = shlex.split(line)[1:]
        command.check(name, argv, f"shardmatrix {name}")


def test_a_cell_staged_by_the_installed_command_gets_the_plugin_alone(installed: Path, tmp_path: Path) -> None:
    # The installed harness is `shardmatrix.harness`: the cell's copy is renamed from there to `shardmatrix_cell`.
    probe = ("import sys; from pathlib import Path; from shardmatrix.harness.host import cellplugin; "
             "print(cellplugin.staged(Path(sys.argv[1])))")
    done = outside([str(installed / "python"), "-c", probe, str(tmp_path / "staged")], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    folder = Path(done.stdout.strip())
    sources = "".join(path.read_text(encoding="utf-8") for path in folder.rglob("*.py"))
    assert "from shardmatrix_cell." in sources and "shardmatrix.harness" not in sources
    dependencies = (folder / "pyproject.toml").read_text(encoding="utf-8").split("dependencies = ", 1)[1].split("\n")[0]
    assert '"pytest>=' in dependencies and not any(f'"{name}' in dependencies for name in ("uv", "pandas", "jinja2"))


def test_a_bad_option_is_one_line_from_the_installed_command(installed: Path, tmp_path: Path) -> None:
    done = outside([str(installed / "shardmatrix"), "upgrade", "jax==0.9.0", "--cases", str(tmp_path / "none")],
                   tmp_path)
    assert done.returncode == 64 and done.stderr.strip().count("\n") == 0, done.stderr
    assert "--cases" in done.stderr and "no such folder" in done.stderr


@pytest.mark.e2e
def test_from_inside_a_project_an_upgrade_needs_no_clone_and_no_project_option(installed: Path,
                                                                                tmp_path: Path) -> None:
    # Issue 25's first promise: the wheel alone, run inside a copy of tests/downstream, answers on its own tests.
    from test_e2e_project import FIXTURE, GATHER, GATHER_WITH_OUT_SHARDING

    project = tmp_path / "trainer"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "SHARDMATRIX_RUN_ID")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # its venvs and locks, away from any checkout's .nox

    def upgrade() -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(installed / "shardmatrix"), "upgrade", "jax==0.9.2", "--out", str(tmp_path / "out")],
                              cwd=project, env=env, capture_output=True, text=True, timeout=1500, check=False)

    unsafe = upgrade()
    text = unsafe.stdout + unsafe.stderr
    assert unsafe.returncode == 1 and "\nUNSAFE\n" in text, text[-3000:]
    assert "cases: test_embed::TestEmbedding::test_lookup_gives_the_rows\n" in text
    assert "Regressions (passing → broken): 1 case(s)" in text
    assert (tmp_path / "cache" / "shardmatrix").is_dir()
    embed = project / "src" / "tinytrainer" / "embed.py"
    fixed = embed.read_text(encoding="utf-8").replace("import jax\n", "import functools\n\nimport jax\n", 1)
    embed.write_text(fixed.replace(GATHER, GATHER_WITH_OUT_SHARDING), encoding="utf-8")
    safe = upgrade()
    assert safe.returncode == 0 and "\nSAFE\n" in safe.stdout, (safe.stdout + safe.stderr)[-3000:]


#: The system's folders: interpreters (python3.11 for the downstream project's cells), bash, git; no uv.
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")


def tool_environment(home: Path) -> dict[str, str]:
    """A user's environment under a fresh HOME: the tools and their bin folder in it, PATH leading there and holding
    no uv (the command must bring its own), the package caches shared (only so that nothing is downloaded twice),
    shardmatrix's own cache apart."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "SHARDMATRIX_RUN_ID", "PYTEST_PLUGINS")}
    assert UV is not None
    cache = subprocess.run([UV, "cache", "dir"], capture_output=True, text=True, check=True).stdout.strip()
    env.update(HOME=str(home), UV_TOOL_DIR=str(home / "tools"), UV_TOOL_BIN_DIR=str(home / "bin"),
               PIPX_HOME=str(home / "pipx"), PIPX_BIN_DIR=str(home / "bin"), UV_CACHE_DIR=cache,
               PIP_CACHE_DIR=str(Path(os.environ.get("HOME", "~")).expanduser() / ".cache" / "pip"),
               XDG_CACHE_HOME=str(home.parent / "shardmatrix-cache"),
               PATH=os.pathsep.join([str(home / "bin"), *SYSTEM_PATH]))
    if shutil.which("uv", path=env["PATH"]) or not shutil.which("python3.11", path=env["PATH"]):
        pytest.skip(f"needs python3.11 and no uv in {SYSTEM_PATH}")
    return env


def readme_line(line: str, cwd: Path, env: dict[str, str], timeout: int) -> subprocess.CompletedProcess[str]:
    """One of the README's lines, run by bash as a user types it."""
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)


@contextlib.contextmanager
def index_as_of(release: str, locked: str) -> Iterator[str]:
    """A local JSON API (for $SHARDMATRIX_JSON_API) serving PyPI's documents cut to the releases up to `locked` and
    `release` (benchmarks.bench.one_release_index): the index on the day `release` came out. Its address template."""
    from benchmarks.bench import one_release_index

    fetch = one_release_index(release, locked)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the name http.server calls
            name = self.path.strip("/").split("/")[1]
            body = json.dumps(fetch(index.JSON_API.format(name=name), "application/json")).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/pypi/{{name}}/json"
    finally:
        server.shutdown()


@pytest.mark.e2e
@pytest.mark.parametrize("installer", ["readme", "pipx install ."])
def test_the_readmes_lines_give_a_command_whose_upgrade_and_watch_answer_unsafe_on_the_downstream_project(
        installer: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    # Issue 36: installed with no extra and no uv added by hand, from a fresh HOME, the README's upgrade and watch
    # lines answer, as typed, and leave the project's tree as it was.
    home = tmp_path_factory.mktemp("home")
    env = tool_environment(home)
    install, upgrade, watch = maintainers_lines()
    assert UV is not None
    if installer != "readme":
        pipx = fresh_venv(home / "pipx-venv", "pipx")
        install = installer.replace("pipx", str(pipx / "pipx"), 1)
    install = install.replace("uv ", f"{UV} ", 1)  # the user's uv installs it; the command runs with its own
    installed = readme_line(install, ROOT, env, 900)  # from this clone, as the README says
    assert installed.returncode == 0, (installed.stdout + installed.stderr)[-3000:]
    assert (home / "bin" / "shardmatrix").exists()
    clone = home / "clone"
    shutil.copytree(ROOT / "tests" / "downstream", clone / "tests" / "downstream",
                    ignore=shutil.ignore_patterns("__pycache__", ".venv", "out", "*.egg-info"))
    tree = sorted(p.relative_to(clone) for p in clone.rglob("*") if not {"__pycache__", ".pytest_cache"} & set(p.parts))
    done = readme_line(upgrade, clone, env, 1500)
    text = done.stdout + done.stderr
    assert done.returncode == 1 and "\nUNSAFE\n" in text, text[-3000:]
    assert "cases: test_embed::TestEmbedding::test_lookup_gives_the_rows\n" in text
    # The watch line, run where the upgrade ran, on the day jax 0.9.0 came out (the index served cut to the lock's
    # releases and 0.9.0): the baseline the upgrade built is reused, 0.9.0 judged, named its own first bad release.
    with index_as_of("0.9.0", "0.8.3") as api:
        watched = readme_line(watch, clone / "tests" / "downstream", {**env, index.JSON_API_ENV: api}, 1500)
    text = watched.stdout + watched.stderr
    assert watched.returncode == 1 and "1 newer release(s), 1 not judged yet" in text, text[-3000:]
    assert "jax 0.9.0: UNSAFE" in text and "first bad release: jax==0.9.0" in text, text[-3000:]
    left = sorted(p.relative_to(clone) for p in clone.rglob("*") if not {"__pycache__", ".pytest_cache"} & set(p.parts))
    assert left == tree  # no out/, watch state or build output left in the project (its own pytest's caches aside)
    # The command runs from its own tool environment: no `harness` or `reports` of ours in it at the top level.
    python = next((home / "tools" / "shardmatrix").glob("bin/python"), None) or next(
        (home / "pipx" / "venvs" / "shardmatrix").glob("bin/python"))
    probe = "import importlib.util as u; print([n for n in ('harness', 'reports') if u.find_spec(n)])"
    assert outside([str(python), "-c", probe], home).stdout.strip() == "[]"
