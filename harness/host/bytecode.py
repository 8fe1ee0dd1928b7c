"""Where shardmatrix's processes and its cells keep their bytecode when the shell says to write none.

With PYTHONDONTWRITEBYTECODE set (as in the shell the speed page's figures were measured in), every cell process
compiled each module it imported (jax, flax, pytest, the plugin, the cases) on every run, and every nox session, a
process of its own, the checkout's harness: about 1 s of an idle cell's start and collection, three times that under
load. The bytecode is kept instead in one folder of the workspace (PYTHONPYCACHEPREFIX, under which Python mirrors each
source's absolute path), so none is written beside a source: in a checkout, a project's tree or a user's interpreter.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from pathlib import Path

from harness.host.shipped import user_cache, workspace

#: Python's variable that keeps it from writing bytecode (an empty one is no setting), and the one that puts bytecode
#: in a folder of its own.
NO_BYTECODE, BYTECODE_FOLDER = "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"
#: The workspace's folder of bytecode.
FOLDER = ".shardmatrix-bytecode"


def keep(env: MutableMapping[str, str], where: Path | None = None) -> None:
    """Where `env` says to write no bytecode, have the processes started with it keep their bytecode in the folder
    FOLDER of `where` (default: the workspace) instead; elsewhere leave `env` as it is."""
    if env.get(NO_BYTECODE):
        env[NO_BYTECODE] = ""
        env[BYTECODE_FOLDER] = str((where or workspace()) / FOLDER)


# --- bytecode shared between venvs ------------------------------------------------------------------------------------
# uv hardlinks each installed file from its cache, so the cells that install one release of a package hold the very
# same source files, yet each cell's Python compiled them again under its own venv's path (about 4 s of CPU a cell
# from a fresh clone, three times its warm collection). The bytecode Python wrote for a source file is kept under the
# file's identity (device, inode, mtime, size: a hardlinked file's are the same in every venv) and linked into the next
# venv's place for it, where Python checks it against the source's mtime and size as ever.
# The identity is that of a file in uv's cache, which every checkout of this user links: the store is kept in the
# user's cache beside uv's (harness.host.shipped.user_cache), not in one checkout's workspace, so a fresh clone or
# another worktree compiles only what no cell of this user compiled before (measured: `import jax, flax, flax.nnx` of
# jax 0.9.2 took 5.5 s of CPU with no bytecode, 1.6 s with it).

#: The user's cache's folder of bytecode kept by the identity of its source.
SHARED = ".shardmatrix-bytecode-shared"


def share(venv: Path, env: Mapping[str, str], where: Path | None = None) -> int:
    """Before a cell's run: link into `venv`'s places the bytecode kept for its very source files (`env`: the cell
    process's environment, which says where its Python writes bytecode); how many were linked. The store holds every
    release any cell of this user linked, so it is walked only into the folders the venv has too, and each source is
    looked at once however many releases' bytecode the store keeps for its path."""
    found = _layout(venv, env, where)
    if found is None:
        return 0
    site, tag, store, root = found
    suffix = f".{tag}.pyc"
    identities: dict[Path, str | None] = {}
    linked = 0
    for folder, folders, names in os.walk(store):
        here = site / Path(folder).relative_to(store)
        folders[:] = [name for name in folders if (here / name).is_dir()]
        for name in names:
            stem, _, identity = name[: -len(suffix)].rpartition(".") if name.endswith(suffix) else ("", "", "")
            source = here / f"{stem}.py"
            if not stem or identities.setdefault(source, _identity(source)) != identity:
                continue
            place = _place(root, site, source, tag)
            if not place.exists():
                linked += _link(Path(folder, name), place)
    return linked


def keep_shared(venv: Path, env: Mapping[str, str], where: Path | None = None) -> int:
    """After a cell's run: keep the bytecode its Python wrote for hardlinked source files; how many were kept."""
    found = _layout(venv, env, where)
    if found is None:
        return 0
    site, tag, store, root = found
    kept_now = 0
    for place in (root.rglob(f"*.{tag}.pyc") if root.is_dir() else ()):
        if root == site and place.parent.name != "__pycache__":
            continue  # beside its source, Python keeps bytecode in __pycache__ only
        folder = place.parent if root != site else place.parent.parent
        source = site / folder.relative_to(root) / f"{place.name[: -len(f'.{tag}.pyc')]}.py"
        identity = _identity(source)
        kept = store / source.parent.relative_to(site) / f"{source.stem}.{identity}.{tag}.pyc"
        if identity is not None and not kept.exists():
            kept_now += _link(place, kept)
    return kept_now


@contextmanager
def sharing(venv: Path | None, env: Mapping[str, str], where: Path | None = None) -> Iterator[None]:
    """Around the run of a process of `venv` (a nox session's: the report, upgrade): the bytecode kept for its files
    linked in before, what it compiled kept after. The matrix's report imports pandas and jinja2 in a session venv
    made anew in a fresh clone: 3.9 s of CPU compiling, 1.4 s with the bytecode (measured 2026-11-28). None: no
    venv of its own (nox's `none` backend), nothing to share."""
    if venv is not None:
        share(venv, env, where)
    try:
        yield
    finally:
        if venv is not None:
            keep_shared(venv, env, where)


def _layout(venv: Path, env: Mapping[str, str], where: Path | None) -> tuple[Path, str, Path, Path] | None:
    """The venv's site-packages, its Python's cache tag, the store of kept bytecode for that tag, and the folder
    under which the venv's Python writes its site-packages' bytecode; None where the venv's Python is not a CPython
    that pyvenv.cfg names, or has no site-packages."""
    tag = _cache_tag(venv)
    sites = sorted((venv / "lib").glob("python3*/site-packages"))
    if tag is None or not sites:
        return None
    site = sites[0].resolve()
    prefix = env.get(BYTECODE_FOLDER) or None
    root = Path(prefix, *site.parts[1:]) if prefix else site
    return site, tag, (where or user_cache()) / SHARED / tag, root


def _identity(source: Path) -> str | None:
    """A hardlinked file's identity, the same in every venv that links it; None for a file only one venv holds."""
    try:
        found = source.stat()
    except OSError:
        return None
    if found.st_nlink < 2:  # not uv's hardlink: no other venv holds this file
        return None
    return f"{found.st_dev}-{found.st_ino}-{found.st_mtime_ns}-{found.st_size}"


def _link(existing: Path, new: Path) -> int:
    """1 when `new` now names `existing`'s file; 0 when it could not (a concurrent cell linked it first, or another
    file system): the bytecode is then compiled as before."""
    try:
        new.parent.mkdir(parents=True, exist_ok=True)
        os.link(existing, new)
    except OSError:
        return 0
    return 1


def _place(root: Path, site: Path, source: Path, tag: str) -> Path:
    """Where CPython reads and writes a source's bytecode (importlib.util.cache_from_source, for a tag of its own):
    mirrored under the prefix folder, else in __pycache__ beside it."""
    name = f"{source.stem}.{tag}.pyc"
    if root != site:
        return root / source.parent.relative_to(site) / name
    return source.parent / "__pycache__" / name


def _cache_tag(venv: Path) -> str | None:
    """The venv's Python's cache tag (cpython-311), from its pyvenv.cfg; None when it does not say."""
    try:
        config = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return None
    implementation = re.search(r"^implementation\s*=\s*(\S+)", config, re.MULTILINE)
    version = re.search(r"^version_info\s*=\s*(\d+)\.(\d+)", config, re.MULTILINE)
    if implementation is None or implementation.group(1).lower() != "cpython" or version is None:
        return None
    return f"cpython-{version.group(1)}{version.group(2)}"
