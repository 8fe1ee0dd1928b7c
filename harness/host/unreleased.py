"""Unreleased sources (PEP 508 direct references): a source tree, a wheel file or a VCS URL in place of a release.

`flax @ file:///src/flax` is built once per content of the tree (uv build) into a wheel kept under .nox; every cell
installs that wheel. The cell id names the source by its version and a short hash of what was built (the tree's
content, the wheel's bytes, or the commit a VCS URL named), so an edited checkout is a new cell.
"""

from __future__ import annotations

import email.parser
import hashlib
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from urllib.parse import unquote, urlparse

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import parse_wheel_filename

from harness.formats import ShardmatrixError
from harness.host.matrix import Origin
from harness.host.project import tree_hash
from harness.host.shipped import workspace
from harness.host.uv import installer_message, uv_command

#: Where built sources are kept: one folder per (package, content hash), holding its wheel.
BUILT = workspace() / ".shardmatrix-sources"


class SourceError(ShardmatrixError, ValueError):
    """A direct reference that names nothing, or that does not build, phrased as one line; nothing is run."""


def is_reference(spec: str) -> bool:
    """Whether a pin is a direct reference ('flax @ file:///src/flax') rather than 'flax==0.12.6'."""
    return " @ " in spec or spec.strip().startswith(("file:", "git+", "/"))


def resolve(spec: str, built: Path | None = None) -> Origin:
    """The origin a direct reference installs from: built once per content (under `built`, default BUILT), named
    by version and hash."""
    built = built or BUILT
    try:
        requirement = Requirement(spec)
    except InvalidRequirement:
        raise SourceError(f"{spec!r} is not a direct reference like 'flax @ file:///src/flax'") from None
    if not requirement.url:
        raise SourceError(f"{spec!r} names no source (expected NAME @ URL)")
    name, url = requirement.name.lower(), requirement.url
    if url.startswith("git+"):
        return _from_vcs(name, url, built)
    parsed = urlparse(url)
    if parsed.scheme != "file":
        raise SourceError(f"{spec!r}: only file:// and git+ references are supported")
    path = Path(unquote(parsed.path))
    if not path.exists():
        raise SourceError(f"{spec!r}: no such file or folder {path}")
    if path.is_file():
        if path.suffix != ".whl":
            raise SourceError(f"{spec!r}: {path.name} is not a wheel (.whl) or a source tree")
        return _from_wheel(name, path, url)
    return _from_tree(name, path, url, "tree", tree_hash(path), built)


def requires(origin: Origin) -> list[str]:
    """The Requires-Dist lines of the wheel an origin installs (its METADATA, as built)."""
    wheel = Path(unquote(urlparse(origin.requirement.partition(" @ ")[2]).path))
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.BytesParser().parsebytes(archive.read(name))
    return [str(line) for line in metadata.get_all("Requires-Dist") or []]


def _from_wheel(name: str, wheel: Path, url: str) -> Origin:
    found, version, _, _ = parse_wheel_filename(wheel.name)
    if found.lower() != name:
        raise SourceError(f"'{name} @ {url}': the wheel is {found}, not {name}")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    return Origin(package=name, version=str(version), label=f"wheel.{digest[:8]}", where=url,
                  requirement=f"{name} @ {wheel.resolve().as_uri()}")


def _from_tree(name: str, tree: Path, where: str, kind: str, digest: str, built: Path) -> Origin:
    folder = built / f"{name}-{digest[:16]}"
    wheels = sorted(folder.glob("*.whl")) if folder.is_dir() else []
    if not wheels:
        scratch = Path(tempfile.mkdtemp(dir=_made(built)))
        done = subprocess.run([*uv_command(), "build", "--wheel", "--quiet", "--out-dir", str(scratch), str(tree)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            shutil.rmtree(scratch, ignore_errors=True)
            raise SourceError(f"'{name} @ {where}' does not build: {installer_message(done.stderr or done.stdout)}")
        try:
            scratch.rename(folder)  # atomic: cells starting at once build the same tree, and one build is kept
        except OSError:
            shutil.rmtree(scratch, ignore_errors=True)
        wheels = sorted(folder.glob("*.whl"))
    found, version, _, _ = parse_wheel_filename(wheels[0].name)
    if found.lower() != name:
        raise SourceError(f"'{name} @ {where}' builds {found}, not {name}")
    return Origin(package=name, version=str(version), label=f"{kind}.{digest[:8]}", where=where,
                  requirement=f"{name} @ {wheels[0].resolve().as_uri()}")


def _from_vcs(name: str, url: str, built: Path) -> Origin:
    """A VCS URL: cloned at the ref it names; the commit names the cell."""
    rest = url.removeprefix("git+").partition("#")[0]
    tail = rest.partition("://")[2]
    # The ref follows an @ in the path (git+https://host/org/repo@main), not the user@ of the host.
    repository, ref = rest.rsplit("@", 1) if "@" in tail.partition("/")[2] else (rest, "")
    clone = _made(built) / f".clone-{hashlib.sha256(url.encode()).hexdigest()[:16]}"
    shutil.rmtree(clone, ignore_errors=True)
    done = _checkout(repository, ref, clone)
    if done.returncode != 0:
        raise SourceError(f"'{name} @ {url}' cannot be cloned: {installer_message(done.stderr)}")
    commit = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    try:
        return _from_tree(name, clone, url, "git", commit, built)
    finally:
        shutil.rmtree(clone, ignore_errors=True)


def _checkout(repository: str, ref: str, clone: Path) -> subprocess.CompletedProcess[str]:
    """The tree at `ref` (a branch, a tag or a commit id; the default branch when empty) checked out in `clone`.
    Fetched alone where the server hands it out by name, a full commit id included; an abbreviated commit id is no
    name a server knows, so it is looked for in a whole clone."""
    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], capture_output=True, text=True, check=False)

    git("init", "--quiet", str(clone))
    fetched = git("-C", str(clone), "fetch", "--quiet", "--depth", "1", repository, ref or "HEAD")
    if fetched.returncode == 0:
        return git("-C", str(clone), "checkout", "--quiet", "FETCH_HEAD")
    if not ref:
        return fetched
    shutil.rmtree(clone, ignore_errors=True)
    cloned = git("clone", "--quiet", "--no-checkout", repository, str(clone))
    if cloned.returncode != 0:
        return cloned
    checked = git("-C", str(clone), "checkout", "--quiet", ref)
    return checked if checked.returncode == 0 else fetched  # the fetch names the ref nobody has


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder
