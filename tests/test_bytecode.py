"""harness.host.bytecode: where the shell says to write no bytecode, shardmatrix's processes and its cells keep it in
the workspace's folder, none beside a source; elsewhere nothing changes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.host import bytecode, invocation, matrix, runner

CELL = matrix.parse('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n')[0]


def test_where_the_shell_says_to_write_no_bytecode_it_is_kept_in_the_workspace(tmp_path: Path) -> None:
    env = {bytecode.NO_BYTECODE: "1"}
    bytecode.keep(env, tmp_path)
    # An empty PYTHONDONTWRITEBYTECODE is no setting: Python writes, under the folder, mirroring each source's path.
    assert env == {bytecode.NO_BYTECODE: "", bytecode.BYTECODE_FOLDER: str(tmp_path / bytecode.FOLDER)}


@pytest.mark.parametrize("shell", [{}, {bytecode.NO_BYTECODE: ""}, {bytecode.BYTECODE_FOLDER: "/elsewhere"}])
def test_where_the_shell_writes_bytecode_it_is_left_as_python_writes_it(tmp_path: Path, shell: dict[str, str]) -> None:
    env = dict(shell)
    bytecode.keep(env, tmp_path)
    assert env == shell


def test_a_process_started_so_writes_its_bytecode_in_the_folder_and_none_beside_the_source(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mod.py").write_text("VALUE = 1\n")
    env = {**os.environ, bytecode.NO_BYTECODE: "1"}
    bytecode.keep(env, tmp_path / "work")
    subprocess.run([sys.executable, "-c", "import mod"], cwd=tmp_path / "src", env=env, check=True)
    assert not (tmp_path / "src" / "__pycache__").exists()
    assert list((tmp_path / "work" / bytecode.FOLDER).rglob("mod.*.pyc"))


def test_every_cell_and_every_session_of_a_nox_invocation_keep_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(bytecode.NO_BYTECODE, "1")
    cell = runner.cell_environment(CELL, runner.devices_for(CELL, None))
    assert cell[bytecode.NO_BYTECODE] == "" and cell[bytecode.BYTECODE_FOLDER].endswith(bytecode.FOLDER)
    sessions = {bytecode.NO_BYTECODE: "1"}
    invocation.share(sessions)
    assert sessions[bytecode.BYTECODE_FOLDER] == cell[bytecode.BYTECODE_FOLDER]


def _venv(root: Path, cache: Path, shared: bool = True) -> Path:
    """A venv as uv makes one: pyvenv.cfg, and its package's source hardlinked from uv's cache (or a copy of it)."""
    site = root / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages" / "pkg"
    site.mkdir(parents=True)
    version = ".".join(map(str, sys.version_info[:3]))
    (root / "pyvenv.cfg").write_text(f"implementation = CPython\nversion_info = {version}\n")
    (site / "__init__.py").write_text("")
    if shared:
        os.link(cache, site / "mod.py")
    else:
        (site / "mod.py").write_bytes(cache.read_bytes())
    return root


def _import(venv: Path, prefix: Path) -> Path:
    """Import pkg.mod with the venv's packages as a cell's Python would, bytecode under `prefix`; its bytecode."""
    site = next((venv / "lib").glob("python3*/site-packages")).resolve()
    subprocess.run([sys.executable, "-c", "import pkg.mod"], check=True,
                   env={**os.environ, "PYTHONPATH": str(site), "PYTHONPYCACHEPREFIX": str(prefix),
                        "PYTHONDONTWRITEBYTECODE": ""})
    return Path(prefix, *site.parts[1:], "pkg", f"mod.{sys.implementation.cache_tag}.pyc")


def test_bytecode_one_venv_compiled_is_read_by_the_next_that_links_the_same_file(tmp_path: Path) -> None:
    cache = tmp_path / "uv-cache-mod.py"
    cache.write_text("VALUE = 42\n")
    prefix, store = tmp_path / "bytecode", tmp_path / "workspace"
    first, second = _venv(tmp_path / "a", cache), _venv(tmp_path / "b", cache)
    env = {bytecode.BYTECODE_FOLDER: str(prefix)}
    compiled = _import(first, prefix)
    assert bytecode.keep_shared(first, env, store) == 1  # pkg/__init__.py is the venv's own file: not kept
    assert bytecode.share(second, env, store) == 1
    linked = _import(second, prefix)
    # Python found it valid for the second venv's source and read it: the file is still the first venv's.
    assert linked.stat().st_ino == compiled.stat().st_ino


def test_a_source_no_other_venv_links_gets_no_bytecode_but_its_own(tmp_path: Path) -> None:
    cache = tmp_path / "uv-cache-mod.py"
    cache.write_text("VALUE = 42\n")
    prefix, store = tmp_path / "bytecode", tmp_path / "workspace"
    first, copied = _venv(tmp_path / "a", cache), _venv(tmp_path / "b", cache, shared=False)
    env = {bytecode.BYTECODE_FOLDER: str(prefix)}
    compiled = _import(first, prefix)
    assert bytecode.keep_shared(first, env, store) == 1
    assert bytecode.share(copied, env, store) == 0
    assert _import(copied, prefix).stat().st_ino != compiled.stat().st_ino


def test_an_edited_source_is_compiled_anew_not_given_its_old_bytecode(tmp_path: Path) -> None:
    cache = tmp_path / "uv-cache-mod.py"
    cache.write_text("VALUE = 42\n")
    prefix, store = tmp_path / "bytecode", tmp_path / "workspace"
    first = _venv(tmp_path / "a", cache)
    env = {bytecode.BYTECODE_FOLDER: str(prefix)}
    _import(first, prefix)
    bytecode.keep_shared(first, env, store)
    edited = tmp_path / "uv-cache-mod-2.py"  # a reinstall writes a new file, as uv does
    edited.write_text("VALUE = 43\n")
    assert bytecode.share(_venv(tmp_path / "b", edited), env, store) == 0


def test_a_venv_whose_python_pyvenv_cfg_does_not_name_shares_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "uv-cache-mod.py"
    cache.write_text("VALUE = 42\n")
    venv = _venv(tmp_path / "a", cache)
    (venv / "pyvenv.cfg").write_text("implementation = PyPy\nversion_info = 3.11.7\n")
    env = {bytecode.BYTECODE_FOLDER: str(tmp_path / "bytecode")}
    assert bytecode.keep_shared(venv, env, tmp_path / "store") == bytecode.share(venv, env, tmp_path / "store") == 0


def test_bytecode_beside_the_sources_is_shared_too(tmp_path: Path) -> None:
    cache = tmp_path / "uv-cache-mod.py"
    cache.write_text("VALUE = 42\n")
    first, second = _venv(tmp_path / "a", cache), _venv(tmp_path / "b", cache)
    site = next((first / "lib").glob("python3*/site-packages")).resolve()
    # Beside the sources: no prefix, even where the shell (a nox session of this project) sets one.
    shell = {name: value for name, value in os.environ.items() if name != bytecode.BYTECODE_FOLDER}
    subprocess.run([sys.executable, "-c", "import pkg.mod"], check=True,
                   env={**shell, "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": ""})
    assert bytecode.keep_shared(first, {}, tmp_path / "store") == 1
    assert bytecode.share(second, {}, tmp_path / "store") == 1
    assert next((second / "lib").glob("python3*/site-packages/pkg/__pycache__/mod.*.pyc")).stat().st_nlink == 3


def test_bytecode_kept_in_one_checkout_is_found_by_another_through_the_users_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cache = tmp_path / "uv-cache-mod.py"
    cache.write_text("VALUE = 42\n")
    first, second = _venv(tmp_path / "clone-a" / "venv", cache), _venv(tmp_path / "clone-b" / "venv", cache)
    # Each clone has a bytecode folder of its own; only the store by identity is the user's.
    compiled = _import(first, tmp_path / "clone-a" / "bytecode")
    assert bytecode.keep_shared(first, {bytecode.BYTECODE_FOLDER: str(tmp_path / "clone-a" / "bytecode")}) == 1
    assert list((tmp_path / "cache" / "shardmatrix" / bytecode.SHARED).rglob("mod.*.pyc"))
    assert bytecode.share(second, {bytecode.BYTECODE_FOLDER: str(tmp_path / "clone-b" / "bytecode")}) == 1
    assert _import(second, tmp_path / "clone-b" / "bytecode").stat().st_ino == compiled.stat().st_ino


def test_the_store_is_walked_only_where_the_venv_has_the_folder(tmp_path: Path) -> None:
    cache = tmp_path / "uv-cache-mod.py"
    cache.write_text("VALUE = 42\n")
    venv, store = _venv(tmp_path / "a", cache), tmp_path / "store"
    tag = sys.implementation.cache_tag
    # Bytecode of a package this venv lacks, and of another release of its own file: neither is linked.
    (store / bytecode.SHARED / tag / "absent").mkdir(parents=True)
    (store / bytecode.SHARED / tag / "absent" / f"mod.1-2-3-4.{tag}.pyc").write_bytes(b"")
    (store / bytecode.SHARED / tag / "pkg").mkdir()
    (store / bytecode.SHARED / tag / "pkg" / f"mod.1-2-3-4.{tag}.pyc").write_bytes(b"")
    env = {bytecode.BYTECODE_FOLDER: str(tmp_path / "bytecode")}
    assert bytecode.share(venv, env, store) == 0
    assert not (tmp_path / "bytecode").exists()


def test_a_session_venv_sharing_gets_the_bytecode_before_and_keeps_its_own_after(tmp_path: Path) -> None:
    cache, other = tmp_path / "uv-cache-mod.py", tmp_path / "uv-cache-other.py"
    cache.write_text("VALUE = 42\n")
    other.write_text("VALUE = 43\n")
    prefix, store = tmp_path / "bytecode", tmp_path / "store"
    env = {bytecode.BYTECODE_FOLDER: str(prefix)}
    cell, session = _venv(tmp_path / "cell", cache), _venv(tmp_path / "session", cache)
    os.link(other, next((session / "lib").glob("python3*/site-packages/pkg")) / "other.py")
    compiled = _import(cell, prefix)
    bytecode.keep_shared(cell, env, store)
    with bytecode.sharing(session, env, store):
        assert _import(session, prefix).stat().st_ino == compiled.stat().st_ino  # linked before the run
        subprocess.run([sys.executable, "-c", "import pkg.other"], check=True, env={
            **os.environ, "PYTHONPATH": str(next((session / "lib").glob("python3*/site-packages")).resolve()),
            "PYTHONPYCACHEPREFIX": str(prefix), "PYTHONDONTWRITEBYTECODE": ""})
    assert list(store.rglob(f"other.*.{sys.implementation.cache_tag}.pyc"))  # what it compiled is kept after


def test_no_venv_of_its_own_shares_nothing(tmp_path: Path) -> None:
    with bytecode.sharing(None, {bytecode.BYTECODE_FOLDER: str(tmp_path / "bytecode")}, tmp_path / "store"):
        pass
    assert not (tmp_path / "store").exists() and not (tmp_path / "bytecode").exists()
