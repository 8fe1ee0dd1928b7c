"""A listed project's tests as a project folder `upgrade --project` can build, as the project stood on a day.

The revision is the project's release on the index on that day (its newest final release uploaded by the end of
it), then: its sdist unpacked (`source = "sdist"`); its wheel's test folders in a small wrapper project that
requires that release (`"wheel"`: a wheel holds no pyproject of its own); or its git repository at the release's
tag, or when the list says `at = "date"` at the commit its default branch pointed at by the day's end (its
first-parent history: a branch merged later is not yet there) (`"git"`). Each is fetched once into the
workspace (`.nox/.shardmatrix-ecosystem/`) and reused (a tag by the commit it names now, so a tag moved upstream
is fetched again, and offline the tag's clone fetched last is taken "from cache"); its lockfiles are set aside, as
the day's index decides its other packages (`upgrade --exclude-newer`). A source that needs the network beyond the
package index and cannot reach it (a git host, here) raises Unavailable: the command skips that project with its
line.
$SHARDMATRIX_GIT_MIRROR points git sources at local mirrors instead (`mirror_of`); a project without one is fetched
from its repository as before.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from http import HTTPStatus
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name
from packaging.version import Version

from harness.formats import ShardmatrixError
from harness.host.project import LOCKFILES
from harness.host.shipped import workspace
from harness.tools import index
from shardmatrix import releases
from shardmatrix.ecosystem_list import Entry

#: Where fetched sources are kept, one folder per project and revision.
FETCHED = workspace() / ".shardmatrix-ecosystem"
#: Seconds a git command may take before the source is called unreachable.
GIT_TIMEOUT_S = 600
#: A folder pattern of local git mirrors, {host}, {owner} and {name} filled from a repository's https address
#: (e.g. /srv/mirrors/{owner}+{name}/repo); a repository whose folder does not exist is fetched from its address.
MIRROR_ENV = "SHARDMATRIX_GIT_MIRROR"


def mirror_of(repository: str) -> str:
    """Where a git source is cloned from: its local mirror ($SHARDMATRIX_GIT_MIRROR, as a file:// address, so that a
    shallow clone stays shallow) when that folder exists, else the repository's own address."""
    pattern = os.environ.get(MIRROR_ENV, "")
    found = re.fullmatch(r"https?://([^/]+)/([^/]+)/([^/]+?)(?:\.git)?/?", repository)
    if not pattern or found is None:
        return repository
    host, owner, name = found.groups()
    folder = Path(pattern.format(host=host, owner=owner, name=name)).expanduser()
    return folder.resolve().as_uri() if folder.is_dir() else repository


class SourceError(ShardmatrixError, ValueError):
    """A project whose source is not what the list says (no release that day, no sdist, no tag), in one line."""


class Unavailable(ShardmatrixError, RuntimeError):
    """A source that needs a network this machine cannot reach (a git host beyond the package index), in one line."""


@dataclass(frozen=True)
class Fetched:
    """A project's tests ready for `upgrade --project`: the folder, and the revision it holds, as reports name it."""

    root: Path
    revision: str


def end_of(day: date) -> datetime:
    """The last instant of a day, UTC: a release uploaded that day counts as out on it."""
    return datetime.combine(day + timedelta(days=1), time(), tzinfo=timezone.utc)


def index_document(package: str, fetch: index.Fetch = index.fetch_json) -> dict[str, Any]:
    """The index's JSON document of a package's releases; SourceError in one line when the index says it has no such
    package (HTTP 404: it did answer) or does not answer."""
    try:
        document: dict[str, Any] = fetch(index.json_api(package), "application/json")
    except urllib.error.HTTPError as exc:
        if exc.code == HTTPStatus.NOT_FOUND:
            raise SourceError(f"{package}: no such package on the index ({exc})") from None
        raise SourceError(f"{package}: the index does not answer ({exc})") from None
    except (OSError, ValueError) as exc:
        raise SourceError(f"{package}: the index does not answer ({exc})") from None
    # One odd answer makes this project unjudged, never the whole run an internal error.
    releases_of = document.get("releases") if isinstance(document, dict) else None
    if not (isinstance(releases_of, dict) and all(isinstance(files, list) and all(isinstance(f, dict) for f in files)
                                                  for files in releases_of.values())):
        raise SourceError(f"{package}: the index's answer for {package} is not a JSON API document (no 'releases' "
                          "table of file lists)")
    return document


def release_on(package: str, day: date, fetch: index.Fetch = index.fetch_json) -> tuple[str, dict[str, Any]]:
    """The newest final release of `package` uploaded by the end of `day`, and the index's JSON document of it;
    SourceError when none was out yet."""
    document = index_document(package, fetch)
    out = [version for version, uploaded in releases.upload_dates(document).items() if uploaded < end_of(day)]
    if not out:
        raise SourceError(f"{package}: no release on the index by {day.isoformat()}")
    return str(max(out)), document


def fetch(entry: Entry, day: date, get: index.Fetch = index.fetch_json, into: Path | None = None) -> Fetched:
    """The entry's tests as they stood on `day` (module docstring); SourceError or Unavailable in one line."""
    folder = FETCHED if into is None else into
    if entry.source == "git" and entry.at == "date":
        return _git_on(entry, day, folder)
    version, document = release_on(entry.package, day, get)
    if entry.source == "git":
        return _git_at(entry, entry.tag.format(version=version), version, folder)
    files = [{**file, "package": entry.package} for file in document["releases"][version]]
    if entry.source == "sdist":
        return _sdist(entry, version, files, folder)
    return _wheel(entry, version, files, folder)


def _sdist(entry: Entry, version: str, files: list[dict[str, Any]], folder: Path) -> Fetched:
    chosen = [f for f in files if f.get("packagetype") == "sdist"]
    if not chosen:
        raise SourceError(f"{entry.name}: {entry.package} {version} has no sdist on the index")
    # Kept by the package as well: the same name listed for another package is never read from this one's folder.
    dest = folder / entry.name / f"sdist-{canonicalize_name(entry.package)}-{version}"
    if not (dest / ".fetched").is_file():
        shutil.rmtree(dest, ignore_errors=True)
        _unpack(entry, _download(entry, chosen[0], dest.with_name(dest.name + ".part")), dest)
        (dest / ".fetched").write_text(chosen[0]["filename"] + "\n")
    tops = [p for p in dest.iterdir() if p.is_dir()]
    root = tops[0] if len(tops) == 1 and not (dest / "pyproject.toml").is_file() else dest
    _check_tests(entry, root, f"{entry.package} {version}'s sdist")
    set_aside_locks(root)
    return Fetched(root, f"{version} (sdist {chosen[0]['filename']})")


def _wheel(entry: Entry, version: str, files: list[dict[str, Any]], folder: Path) -> Fetched:
    wheels = sorted((f for f in files if f.get("packagetype") == "bdist_wheel"),
                    key=lambda f: not str(f["filename"]).endswith("-none-any.whl"))
    if not wheels:
        raise SourceError(f"{entry.name}: {entry.package} {version} has no wheel on the index")
    dest = folder / entry.name / f"wheel-{canonicalize_name(entry.package)}-{version}"
    if not (dest / ".fetched").is_file():
        shutil.rmtree(dest, ignore_errors=True)
        unpacked = dest / "unpacked"
        _unpack(entry, _download(entry, wheels[0], dest.with_name(dest.name + ".part")), unpacked)
        _wrap(entry, version, unpacked, dest / "project")
        (dest / ".fetched").write_text(wheels[0]["filename"] + "\n")
    return Fetched(dest / "project", f"{version} (wheel {wheels[0]['filename']})")


def _wrap(entry: Entry, version: str, unpacked: Path, project: Path) -> None:
    """A project requiring the release, whose tests/ are the wheel's test folders (the tests import the installed
    package, as its own CI's do)."""
    _check_tests(entry, unpacked, f"{entry.package} {version}'s wheel")
    module = "ecosystem_" + re.sub(r"\W", "_", entry.name.lower())
    (project / "src" / module).mkdir(parents=True)
    (project / "src" / module / "__init__.py").write_text(f'"""{entry.name} {version}: its wheel\'s tests."""\n')
    for test in entry.tests:
        shutil.copytree(unpacked / test, project / "tests" / test, ignore=shutil.ignore_patterns("__pycache__"))
        for init in (project / "tests" / test).rglob("__init__.py"):
            init.unlink()  # the tests import the installed package, never a copy of its folders
    (project / "pyproject.toml").write_text(
        f'[build-system]\nrequires = ["uv_build>=0.8,<0.14"]\nbuild-backend = "uv_build"\n\n'
        f'[project]\nname = "{module.replace("_", "-")}"\nversion = "0"\nrequires-python = ">=3.10"\n'
        f'dependencies = ["{entry.package}=={version}"]\n\n'
        f'[tool.pytest.ini_options]\ntestpaths = ["tests"]\npython_files = ["test_*.py", "*_test.py"]\n'
        f'addopts = "--import-mode=importlib"\n')


def _git_at(entry: Entry, tag: str, version: str, folder: Path) -> Fetched:
    # Kept by the commit the tag names now: a tag moved upstream (re-tagged after a fix) is fetched again, never
    # answered by the clone of where it pointed before.
    try:
        resolved = tag_commit(entry, tag)
    except Unavailable:
        cached = cached_tag(entry, tag, folder)
        if cached is None:
            raise
        # Offline, the tag cannot be asked where it points now: the clone of where it pointed when last fetched
        # is taken, and the revision says so.
        _check_tests(entry, cached, f"{entry.repository} at {tag}")
        set_aside_locks(cached)
        return Fetched(cached, f"{version} (git {tag}, {_head(cached)[:12]}, from cache)")
    dest = folder / entry.name / f"{_tag_prefix(tag)}{resolved[:12]}"
    if not (dest / ".git").is_dir():
        part = _part(dest)
        _git(entry, ["clone", "--quiet", "--depth", "1", "--branch", tag, "--", mirror_of(entry.repository),
                     str(part)],
             f"{mirror_of(entry.repository)} at tag {tag}")
        _done(part, dest)
    commit = _git(entry, ["-C", str(dest), "rev-parse", "HEAD"], "rev-parse").strip()
    _check_tests(entry, dest, f"{entry.repository} at {tag}")
    set_aside_locks(dest)
    return Fetched(dest, f"{version} (git {tag}, {commit[:12]})")


def _tag_prefix(tag: str) -> str:
    """The start of the folder names of a tag's clones: `git-<tag>-`, then the commit the tag named."""
    return "git-" + re.sub(r"[^\w.-]", "_", tag) + "-"


def _head(clone: Path) -> str:
    """The commit a clone has checked out ("" when git cannot say)."""
    done = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def cached_tag(entry: Entry, tag: str, folder: Path) -> Path | None:
    """The finished clone of `tag` fetched last (a tag moved upstream leaves one per commit), whose checkout is the
    commit its own copy of the tag names; None when the workspace holds none."""
    clones = [p for p in (folder / entry.name).glob(_tag_prefix(tag) + "*")
              if not p.name.endswith(".part") and (p / ".git").is_dir()]
    for clone in sorted(clones, key=lambda p: p.stat().st_mtime, reverse=True):
        tagged = subprocess.run(["git", "-C", str(clone), "rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{}}"],
                                capture_output=True, text=True, check=False).stdout.strip()
        if tagged and tagged == _head(clone):
            return clone
    return None


def tag_commit(entry: Entry, tag: str) -> str:
    """The commit a tag of the entry's repository names now (an annotated tag's commit, not the tag object);
    SourceError when there is no such tag, Unavailable when the repository cannot be reached."""
    where = mirror_of(entry.repository)
    listed = _git(entry, ["ls-remote", "--tags", "--", where, f"refs/tags/{tag}", f"refs/tags/{tag}^{{}}"],
                  f"{where} at tag {tag}")
    named = {ref: commit for commit, _, ref in (line.partition("\t") for line in listed.splitlines()) if ref}
    commit = named.get(f"refs/tags/{tag}^{{}}") or named.get(f"refs/tags/{tag}")
    if not commit:
        raise SourceError(f"{entry.name}: git cannot fetch {where} at tag {tag}: the repository has no such tag")
    return commit


def _git_on(entry: Entry, day: date, folder: Path) -> Fetched:
    source = mirror_of(entry.repository)
    # Kept by the address cloned, not the project's name: a list whose entry now names another repository (or a run
    # with or without SHARDMATRIX_GIT_MIRROR) must never be judged from the clone of the one before.
    clone = folder / entry.name / f"git-clone-{hashlib.sha256(source.encode()).hexdigest()[:12]}"
    if not (clone / ".git").is_dir():
        part = _part(clone)
        _git(entry, ["clone", "--quiet", "--no-checkout", "--", source, str(part)], source)
        _done(part, clone)
    else:
        _git(entry, ["-C", str(clone), "fetch", "--quiet", "origin"], entry.repository)
    # The default branch's own history (--first-parent): what it pointed at by the day's end, never a commit of a
    # branch merged into it later, however early that commit was made. (A branch force-pushed since is not seen.)
    before = end_of(day).isoformat()
    commit = _git(entry, ["-C", str(clone), "rev-list", "-1", "--first-parent", f"--before={before}", "origin/HEAD"
                          if _has_origin_head(clone) else "HEAD"], "rev-list").strip()
    if not commit:
        raise SourceError(f"{entry.name}: {entry.repository} has no commit by {day.isoformat()}")
    dest = folder / entry.name / f"git-{commit[:12]}"
    if not (dest / ".git").is_dir():
        part = _part(dest)
        _git(entry, ["clone", "--quiet", "--shared", "--no-checkout", "--", str(clone), str(part)], "a local clone")
        _git(entry, ["-C", str(part), "checkout", "--quiet", commit], f"commit {commit[:12]}")
        _done(part, dest)
    _check_tests(entry, dest, f"{entry.repository} at {commit[:12]}")
    set_aside_locks(dest)
    # Named by the commit taken and its own day, not the day asked for: a repository quiet for months is not
    # "as of" the day in any other sense, and two days that resolve to one commit are one revision.
    committed = _git(entry, ["-C", str(dest), "show", "-s", "--format=%cs", commit], "the commit's date").strip()
    return Fetched(dest, f"{commit[:12]} (git, committed {committed})")


def _part(dest: Path) -> Path:
    """An empty sibling of `dest` to build it in: a clone killed part way is left there, never at `dest`, where its
    `.git` would be taken for a finished clone on every later run (and git then refuses it)."""
    part = dest.with_name(dest.name + ".part")
    shutil.rmtree(part, ignore_errors=True)
    part.parent.mkdir(parents=True, exist_ok=True)
    return part


def _done(part: Path, dest: Path) -> None:
    """`part` becomes `dest`, whole, in one rename."""
    shutil.rmtree(dest, ignore_errors=True)
    part.rename(dest)


def set_aside_locks(root: Path) -> list[str]:
    """Rename a fetched project's lockfiles (harness.host.project.LOCKFILES) to `<name>.unused`, returning their
    names: its packages are resolved as of the day, not as its developers last locked them (penzai 0.2.5's sdist
    ships a uv.lock that no longer matches its pyproject, and a root requirements.txt is often no lock at all)."""
    moved = []
    for name in LOCKFILES:
        if (root / name).is_file():
            (root / name).replace(root / f"{name}.unused")
            moved.append(name)
    return moved


def _has_origin_head(clone: Path) -> bool:
    done = subprocess.run(["git", "-C", str(clone), "rev-parse", "--verify", "--quiet", "origin/HEAD"],
                          capture_output=True, text=True, check=False)
    return done.returncode == 0


def _git(entry: Entry, arguments: list[str], what: str) -> str:
    """git's output; Unavailable when a remote cannot be reached, SourceError for anything else it refuses."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(["git", *arguments], capture_output=True, text=True, check=False, env=env,
                              timeout=GIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Unavailable(f"{entry.name}: git {arguments[0]} of {what} took over {GIT_TIMEOUT_S} s") from None
    if done.returncode == 0:
        return done.stdout
    reason = " ".join((done.stderr or done.stdout).split()) or f"exit {done.returncode}"
    if _remote(entry.repository) and re.search(r"resolve host|unable to access|Connection|network|timed out|"
                                               r"Could not read from remote", reason, re.IGNORECASE):
        raise Unavailable(f"{entry.name}: {entry.repository} cannot be reached from here (only the package index "
                          f"is): {reason}")
    raise SourceError(f"{entry.name}: git cannot fetch {what}: {reason}")


def _remote(url: str) -> bool:
    return bool(re.match(r"^(https?|ssh|git)://|^[\w.-]+@[\w.-]+:", url))


def _download(entry: Entry, file: dict[str, Any], dest: Path) -> Path:
    """The file downloaded into a folder of its own, `dest`, which _unpack removes; SourceError when the index's own
    file cannot be had (the project is then unjudged, never skipped: the index is what this machine reaches)."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    if not (isinstance(file.get("filename"), str) and isinstance(file.get("url"), str)):
        raise SourceError(f"{entry.name}: the index lists a file of {entry.package} without a filename and url")
    target = dest / file["filename"]
    # An index may answer with addresses relative to its JSON API (a mirror of PyPI does).
    url = urllib.parse.urljoin(index.json_api(file.get("package", "")), file["url"])
    try:
        with urllib.request.urlopen(url, timeout=120) as response, target.open("wb") as out:
            shutil.copyfileobj(response, out)
    except (OSError, ValueError) as exc:
        raise SourceError(f"{entry.name}: {file['filename']} cannot be downloaded from the index ({exc})") from None
    _check_download(entry, file, target)
    return target


def _check_download(entry: Entry, file: dict[str, Any], target: Path) -> None:
    """SourceError when the file is not the one the index describes: a connection closed early is no error to
    urllib, and a cut archive would otherwise fail only as it unpacks."""
    size, digests = file.get("size"), file.get("digests")
    got = target.stat().st_size
    if isinstance(size, int) and not isinstance(size, bool) and got != size:
        raise SourceError(f"{entry.name}: {file['filename']}: downloaded {got} of {size} bytes")
    expected = digests.get("sha256") if isinstance(digests, dict) else None
    if isinstance(expected, str) and hashlib.sha256(target.read_bytes()).hexdigest() != expected.lower():
        raise SourceError(f"{entry.name}: {file['filename']}: its sha256 differs from the index's")


def _unpack(entry: Entry, archive: Path, dest: Path) -> None:
    """The archive unpacked into `dest` (tar members through the data filter); SourceError naming the project for
    one that is corrupt or would write outside `dest`: that project is unjudged, and the run goes on."""
    dest.mkdir(parents=True, exist_ok=True)
    try:
        if archive.name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as opened:
                opened.extractall(dest)
        else:
            with tarfile.open(archive) as opened:
                opened.extractall(dest, filter="data")
    except Exception as exc:  # any archive's fault (a cut gzip: EOFError, zlib.error, ...) is this one
        shutil.rmtree(dest, ignore_errors=True)
        said = " ".join(str(exc).split())  # tarfile's ReadError spans lines
        raise SourceError(f"{entry.name}: {archive.name} cannot be unpacked ({type(exc).__name__}: {said})") from None
    finally:
        shutil.rmtree(archive.parent, ignore_errors=True)  # the download's own folder (_download)


def _check_tests(entry: Entry, root: Path, what: str) -> None:
    missing = [test for test in entry.tests if not (root / test).is_dir()]
    if missing:
        raise SourceError(f"{entry.name}: {what} has no folder {missing[0]!r} (tests in the list)")


def parse_day(text: str) -> date:
    """A YYYY-MM-DD day; SourceError naming it otherwise."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise SourceError(f"--as-of {text!r}: not a YYYY-MM-DD day") from None


def upload_day(package: str, version: str, get: index.Fetch = index.fetch_json) -> date:
    """The day (UTC) a release was first uploaded; SourceError when the index does not list it."""
    document = index_document(package, get)
    dates = releases.upload_dates(document)
    if Version(version) not in dates:
        raise SourceError(f"{package}=={version}: no upload date on the index (give --as-of DAY)")
    return dates[Version(version)].date()
