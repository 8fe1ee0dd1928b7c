"""shardmatrix.ecosystem_sources: a project's tests as they stood on a day, from local fixtures of each source kind
(an sdist, a wheel carrying tests, a git repository at a tag and at a date) and a remote that cannot be reached."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import zipfile
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from harness.host import project
from shardmatrix import ecosystem_sources
from shardmatrix.ecosystem_list import Entry
from shardmatrix.ecosystem_sources import SourceError, Unavailable

PYPROJECT = '[project]\nname = "alpha"\nversion = "{version}"\ndependencies = ["numpy"]\n'
TEST = "def test_sharded_sum():\n    assert True\n"


def entry(source: str, **given: Any) -> Entry:
    return Entry(name="alpha", why="shards", source=source, tests=given.pop("tests", ("tests",)), package="alpha",
                 **given)


def sdist(folder: Path, version: str) -> Path:
    """alpha-VERSION.tar.gz: one top folder holding its pyproject and tests/, as an sdist does."""
    path = folder / f"alpha-{version}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, text in ((f"alpha-{version}/pyproject.toml", PYPROJECT.format(version=version)),
                           (f"alpha-{version}/tests/test_mesh.py", TEST)):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def wheel(folder: Path, version: str) -> Path:
    """A pure wheel whose package carries its tests (alpha/tests/test_mesh.py)."""
    path = folder / f"alpha-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("alpha/__init__.py", "")
        archive.writestr("alpha/tests/__init__.py", "")
        archive.writestr("alpha/tests/test_mesh.py", TEST)
        archive.writestr(f"alpha-{version}.dist-info/METADATA",
                         f"Metadata-Version: 2.1\nName: alpha\nVersion: {version}\n")
    return path


def index(files: dict[str, tuple[str, Path]]) -> Any:
    """A fake PyPI JSON API answering for alpha: {version: (upload day, file)}, each file served from disk."""
    document = {"releases": {version: [{
        "filename": path.name, "url": path.as_uri(), "yanked": False,
        "packagetype": "sdist" if path.name.endswith(".tar.gz") else "bdist_wheel",
        "upload_time_iso_8601": f"{day}T12:00:00.000000Z"}] for version, (day, path) in files.items()}}

    def fetch(url: str, accept: str) -> Any:
        assert url.endswith("/alpha/json"), url
        return document
    return fetch


def test_the_release_of_the_day_is_the_newest_uploaded_by_its_end(tmp_path: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0")), "1.1": ("2026-02-10", sdist(tmp_path, "1.1"))})
    assert ecosystem_sources.release_on("alpha", date(2026, 2, 10), fetch)[0] == "1.1"  # out that day
    assert ecosystem_sources.release_on("alpha", date(2026, 2, 9), fetch)[0] == "1.0"
    with pytest.raises(SourceError, match=r"alpha: no release on the index by 2026-01-09"):
        ecosystem_sources.release_on("alpha", date(2026, 1, 9), fetch)


def test_an_sdist_is_unpacked_as_the_project_it_holds(tmp_path: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0")), "1.1": ("2026-02-10", sdist(tmp_path, "1.1"))})
    got = ecosystem_sources.fetch(entry("sdist"), date(2026, 1, 20), fetch, into=tmp_path / "fetched")
    assert got.revision == "1.0 (sdist alpha-1.0.tar.gz)"
    assert (got.root / "tests" / "test_mesh.py").is_file()
    assert project.load(got.root).name == "alpha"
    again = ecosystem_sources.fetch(entry("sdist"), date(2026, 1, 20), fetch, into=tmp_path / "fetched")
    assert again == got  # fetched once, reused


def test_an_sdist_without_the_listed_tests_is_named(tmp_path: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    with pytest.raises(SourceError, match=r"alpha: alpha 1.0's sdist has no folder 'test' \(tests in the list\)"):
        ecosystem_sources.fetch(entry("sdist", tests=("test",)), date(2026, 1, 20), fetch, into=tmp_path / "f")


def test_a_wheels_tests_become_a_project_requiring_that_release(tmp_path: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", wheel(tmp_path, "1.0"))})
    got = ecosystem_sources.fetch(entry("wheel", tests=("alpha/tests",)), date(2026, 1, 20), fetch,
                                  into=tmp_path / "fetched")
    assert got.revision == "1.0 (wheel alpha-1.0-py3-none-any.whl)"
    wrapped = project.load(got.root)
    assert wrapped.dependencies == ("alpha==1.0",)
    assert (got.root / "tests" / "alpha" / "tests" / "test_mesh.py").is_file()
    assert not (got.root / "tests" / "alpha" / "tests" / "__init__.py").exists()  # the installed alpha answers


def git(repo: Path, *args: str, when: str = "2026-01-10T12:00:00Z") -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A local repository: release 1.0 tagged v1.0 on 2026-01-10, then a commit on 2026-02-10."""
    repo = tmp_path / "alpha.git"
    (repo / "tests").mkdir(parents=True)
    git(repo, "init", "--quiet", "--initial-branch", "main")
    (repo / "pyproject.toml").write_text(PYPROJECT.format(version="1.0"))
    (repo / "tests" / "test_mesh.py").write_text(TEST)
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "1.0")
    git(repo, "tag", "v1.0")
    (repo / "tests" / "test_later.py").write_text(TEST)
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "later", when="2026-02-10T12:00:00Z")
    return repo


def test_a_git_source_is_taken_at_the_tag_of_the_days_release(tmp_path: Path, repository: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    got = ecosystem_sources.fetch(entry("git", repository=str(repository)), date(2026, 3, 1), fetch,
                                  into=tmp_path / "fetched")
    assert got.revision.startswith("1.0 (git v1.0, ")
    assert (got.root / "tests" / "test_mesh.py").is_file() and not (got.root / "tests" / "test_later.py").exists()


def test_a_tag_moved_upstream_is_fetched_again_at_the_commit_it_names_now(tmp_path: Path, repository: Path) -> None:
    """The fetched clone is kept by the tag's commit: re-tagged at the later commit (a release re-tagged after a fix),
    the next run takes the later tree, not the clone of where the tag pointed; an unmoved tag reuses its clone."""
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    listed = entry("git", repository=str(repository))
    first = ecosystem_sources.fetch(listed, date(2026, 3, 1), fetch, into=tmp_path / "fetched")
    assert first.revision == f"1.0 (git v1.0, {git(repository, 'rev-parse', 'HEAD~1')[:12]})"
    assert ecosystem_sources.fetch(listed, date(2026, 3, 1), fetch, into=tmp_path / "fetched").root == first.root
    git(repository, "tag", "--force", "--annotate", "-m", "1.0, fixed", "v1.0", "HEAD")
    moved = ecosystem_sources.fetch(listed, date(2026, 3, 1), fetch, into=tmp_path / "fetched")
    assert moved.revision == f"1.0 (git v1.0, {git(repository, 'rev-parse', 'HEAD')[:12]})"
    assert (moved.root / "tests" / "test_later.py").is_file() and moved.root != first.root


def test_offline_a_tag_the_workspace_holds_is_taken_from_cache_and_one_it_lacks_is_skipped(tmp_path: Path,
                                                                                          repository: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    first = ecosystem_sources.fetch(entry("git", repository=str(repository)), date(2026, 3, 1), fetch,
                                    into=tmp_path / "fetched")
    offline = entry("git", repository="https://git.invalid/alpha")  # the same project, its host out of reach
    again = ecosystem_sources.fetch(offline, date(2026, 3, 1), fetch, into=tmp_path / "fetched")
    assert again.root == first.root
    assert again.revision == f"1.0 (git v1.0, {git(repository, 'rev-parse', 'HEAD~1')[:12]}, from cache)"
    later = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0")), "1.1": ("2026-02-10", sdist(tmp_path, "1.1"))})
    with pytest.raises(Unavailable, match=r"alpha: https://git.invalid/alpha cannot be reached from here"):
        ecosystem_sources.fetch(offline, date(2026, 3, 1), later, into=tmp_path / "fetched")  # v1.1: never fetched


def test_a_git_source_at_a_date_is_its_last_commit_of_that_day(tmp_path: Path, repository: Path) -> None:
    first = git(repository, "rev-parse", "HEAD~1")
    got = ecosystem_sources.fetch(entry("git", repository=str(repository), at="date"), date(2026, 1, 31),
                                  index({}), into=tmp_path / "fetched")
    assert got.revision == f"{first[:12]} (git, committed 2026-01-10)"  # the commit's own day, not the one asked
    assert not (got.root / "tests" / "test_later.py").exists()
    later = ecosystem_sources.fetch(entry("git", repository=str(repository), at="date"), date(2026, 2, 10),
                                    index({}), into=tmp_path / "fetched")
    assert (later.root / "tests" / "test_later.py").is_file()
    assert later.revision == f"{git(repository, 'rev-parse', 'HEAD')[:12]} (git, committed 2026-02-10)"


def test_a_clone_killed_part_way_is_never_taken_for_a_finished_one(tmp_path: Path, repository: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, the `.git` a killed clone left was taken for a finished clone, and every later run of the project was
    # INCONCLUSIVE: "git cannot fetch rev-parse: fatal: not a git repository".
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    fetched, real = tmp_path / "fetched", ecosystem_sources._git

    def killed(entry: Entry, arguments: list[str], what: str) -> str:
        if arguments[0] == "clone":
            (Path(arguments[-1]) / ".git").mkdir(parents=True)  # git made its folder, then the run was stopped
            raise KeyboardInterrupt
        return real(entry, arguments, what)

    for listed in (entry("git", repository=str(repository)), entry("git", repository=str(repository), at="date")):
        monkeypatch.setattr(ecosystem_sources, "_git", killed)
        with pytest.raises(KeyboardInterrupt):
            ecosystem_sources.fetch(listed, date(2026, 3, 1), fetch, into=fetched)
        monkeypatch.setattr(ecosystem_sources, "_git", real)
        got = ecosystem_sources.fetch(listed, date(2026, 3, 1), fetch, into=fetched)  # the next run
        assert (got.root / "tests" / "test_mesh.py").is_file()
    assert not list((fetched / "alpha").glob("*.part"))


def test_a_tag_that_does_not_exist_is_a_source_error_not_a_skip(tmp_path: Path, repository: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    with pytest.raises(SourceError, match=r"alpha: git cannot fetch .* at tag release-1.0"):
        ecosystem_sources.fetch(entry("git", repository=str(repository), tag="release-{version}"),
                                date(2026, 3, 1), fetch, into=tmp_path / "fetched")


def test_a_git_host_out_of_reach_is_unavailable_so_the_project_is_skipped(tmp_path: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    with pytest.raises(Unavailable, match=r"alpha: https://git.invalid/alpha cannot be reached from here"):
        ecosystem_sources.fetch(entry("git", repository="https://git.invalid/alpha"), date(2026, 3, 1), fetch,
                                into=tmp_path / "fetched")


def test_the_upload_day_of_a_release_and_a_release_the_index_lacks(tmp_path: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    assert ecosystem_sources.upload_day("alpha", "1.0", fetch) == date(2026, 1, 10)
    with pytest.raises(SourceError, match=r"alpha==2.0: no upload date on the index \(give --as-of DAY\)"):
        ecosystem_sources.upload_day("alpha", "2.0", fetch)
    with pytest.raises(SourceError, match=r"--as-of '2026-1-1': not a YYYY-MM-DD day"):
        ecosystem_sources.parse_day("2026-1-1")


@pytest.mark.parametrize("mirror", ["", "https://mirror.example/pypi/{name}/json"])
def test_the_index_asked_is_the_one_shardmatrix_json_api_names_else_pypi(mirror: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # The workflow tests' offline index is such a mirror; the ecosystem read PyPI's address whatever it was told.
    monkeypatch.setenv("SHARDMATRIX_JSON_API", mirror)
    asked: dict[str, Any] = {}
    ecosystem_sources.index_document("alpha", lambda url, accept: asked.setdefault(url, {"releases": {}}))
    assert list(asked) == [(mirror or "https://pypi.org/pypi/{name}/json").format(name="alpha")]


def test_a_file_address_relative_to_the_index_is_read_from_the_index(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # A mirror of PyPI answers its JSON API with addresses like '../../packages/.../alpha-1.0.tar.gz'.
    served = tmp_path / "mirror" / "packages" / "ab"
    served.mkdir(parents=True)
    made = sdist(served, "1.0")
    monkeypatch.setattr(ecosystem_sources.index, "JSON_API", (tmp_path / "mirror" / "pypi").as_uri() + "/{name}/json")
    document = {"releases": {"1.0": [{"filename": made.name, "url": "../../packages/ab/alpha-1.0.tar.gz",
                                      "packagetype": "sdist", "upload_time_iso_8601": "2026-01-10T12:00:00Z"}]}}
    got = ecosystem_sources.fetch(entry("sdist"), date(2026, 1, 20), lambda url, accept: document,
                                  into=tmp_path / "fetched")
    assert (got.root / "tests" / "test_mesh.py").is_file()


def test_a_fetched_projects_lock_is_set_aside_so_the_days_index_decides(tmp_path: Path) -> None:
    (tmp_path / "uv.lock").write_text("stale\n")
    (tmp_path / "requirements.txt").write_text("numpy>=1\n")  # no lock at all, which project.load would refuse
    assert ecosystem_sources.set_aside_locks(tmp_path) == ["uv.lock", "requirements.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt.unused", "uv.lock.unused"]
    assert ecosystem_sources.set_aside_locks(tmp_path) == []


def test_a_git_source_is_cloned_from_its_local_mirror_where_one_exists(tmp_path: Path, repository: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    mirrors = tmp_path / "mirrors"
    git(tmp_path, "clone", "--quiet", "--bare", str(repository), str(mirrors / "example+alpha" / "repo"))
    monkeypatch.setenv(ecosystem_sources.MIRROR_ENV, str(mirrors / "{owner}+{name}" / "repo"))
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    got = ecosystem_sources.fetch(entry("git", repository="https://git.invalid/example/alpha"), date(2026, 3, 1),
                                  fetch, into=tmp_path / "fetched")
    assert got.revision.startswith("1.0 (git v1.0, ") and (got.root / "tests" / "test_mesh.py").is_file()


def test_a_git_source_without_a_mirror_is_fetched_from_its_address_and_skipped_out_of_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ecosystem_sources.MIRROR_ENV, str(tmp_path / "no-mirrors" / "{owner}+{name}"))
    assert ecosystem_sources.mirror_of("https://git.invalid/example/alpha") == "https://git.invalid/example/alpha"
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    with pytest.raises(Unavailable, match=r"alpha: https://git.invalid/example/alpha cannot be reached from here"):
        ecosystem_sources.fetch(entry("git", repository="https://git.invalid/example/alpha"), date(2026, 3, 1),
                                fetch, into=tmp_path / "fetched")


def test_a_repository_that_reads_as_a_git_option_runs_nothing(tmp_path: Path) -> None:
    """The list refuses such an address (tests/test_ecosystem_list.py); git is told where its options end anyway."""
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    planted = tmp_path / "planted"
    for at in ("tag", "date"):
        with pytest.raises(SourceError):
            ecosystem_sources.fetch(entry("git", repository=f"--upload-pack=touch {planted}", at=at),
                                    date(2026, 3, 1), fetch, into=tmp_path / "fetched")
    assert not planted.exists()


def escaping_sdist(folder: Path) -> Path:
    """alpha-1.0.tar.gz with a member that would write outside the folder it is unpacked into."""
    path = folder / "alpha-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("../../escape.txt")
        info.size = 1
        archive.addfile(info, io.BytesIO(b"x"))
    return path


@pytest.mark.parametrize("made", ["not gzip", "escaping"])
def test_a_release_file_that_cannot_be_unpacked_is_a_source_error_naming_it(tmp_path: Path, made: str) -> None:
    """The project is then INCONCLUSIVE naming its file, and the run goes on (before: an internal error, exit 3)."""
    (tmp_path / "index").mkdir()
    if made == "escaping":
        path = escaping_sdist(tmp_path / "index")
    else:
        path = tmp_path / "index" / "alpha-1.0.tar.gz"
        path.write_bytes(b"this is no archive")
    with pytest.raises(SourceError, match=r"^alpha: alpha-1.0.tar.gz cannot be unpacked \("):
        ecosystem_sources.fetch(entry("sdist"), date(2026, 3, 1), index({"1.0": ("2026-01-10", path)}),
                                into=tmp_path / "fetched")
    assert not (tmp_path / "escape.txt").exists()


def test_a_release_file_the_index_lists_but_cannot_serve_is_a_source_error_not_a_skip(tmp_path: Path) -> None:
    """A file of the index itself that cannot be had leaves the project unjudged, never skipped (a skipped project
    counts in no verdict: were it the one UNSAFE, the run would read SAFE)."""
    gone = tmp_path / "alpha-1.0.tar.gz"  # listed, never written
    with pytest.raises(SourceError, match=r"^alpha: alpha-1.0.tar.gz cannot be downloaded from the index"):
        ecosystem_sources.fetch(entry("sdist"), date(2026, 3, 1), index({"1.0": ("2026-01-10", gone)}),
                                into=tmp_path / "fetched")


@pytest.mark.parametrize(("code", "said"), [(404, "ghost: no such package on the index (HTTP Error 404: Not Found)"),
                                            (503, "ghost: the index does not answer (HTTP Error 503: Not Found)")])
def test_a_package_the_index_does_not_know_is_named_so_and_one_it_cannot_serve_is_not(code: int, said: str) -> None:
    import urllib.error
    from email.message import Message

    def refusing(url: str, accept: str) -> object:
        raise urllib.error.HTTPError(url, code, "Not Found", Message(), None)

    with pytest.raises(ecosystem_sources.SourceError) as refused:
        ecosystem_sources.release_on("ghost", date(2026, 1, 20), refusing)
    assert str(refused.value) == said


def test_a_git_source_at_a_date_is_what_its_default_branch_held_never_a_branch_merged_later(tmp_path: Path,
                                                                                             repository: Path) -> None:
    """Attack 39b's B5: a fix made on a branch before the day and merged after it is not yet on the default branch on
    the day, although its commit is older than the day's end."""
    main = git(repository, "rev-parse", "HEAD~1")  # 1.0, 2026-01-10
    git(repository, "checkout", "--quiet", "-b", "fix", main)
    (repository / "tests" / "test_fix.py").write_text(TEST)
    git(repository, "add", "-A")
    git(repository, "commit", "--quiet", "-m", "fix", when="2026-01-18T12:00:00Z")
    git(repository, "checkout", "--quiet", "main")
    git(repository, "merge", "--quiet", "--no-ff", "-m", "merge fix", "fix", when="2026-02-20T12:00:00Z")
    got = ecosystem_sources.fetch(entry("git", repository=str(repository), at="date"), date(2026, 1, 20),
                                  index({}), into=tmp_path / "fetched")
    assert got.revision == f"{main[:12]} (git, committed 2026-01-10)"
    assert not (got.root / "tests" / "test_fix.py").exists()


def test_a_git_source_at_a_date_is_never_read_from_the_clone_of_another_repository(tmp_path: Path,
                                                                                    repository: Path) -> None:
    """Attack 39b's B9: the same name listed with another repository (or another mirror) is cloned from it."""
    other = tmp_path / "other.git"
    (other / "tests").mkdir(parents=True)
    git(other, "init", "--quiet", "--initial-branch", "main")
    (other / "tests" / "test_other.py").write_text(TEST)
    git(other, "add", "-A")
    git(other, "commit", "--quiet", "-m", "other")
    fetched = tmp_path / "fetched"
    first = ecosystem_sources.fetch(entry("git", repository=str(repository), at="date"), date(2026, 1, 20),
                                    index({}), into=fetched)
    second = ecosystem_sources.fetch(entry("git", repository=str(other), at="date"), date(2026, 1, 20),
                                     index({}), into=fetched)
    assert (first.root / "tests" / "test_mesh.py").is_file() and not (first.root / "tests" / "test_other.py").exists()
    assert (second.root / "tests" / "test_other.py").is_file() and not (second.root / "tests" / "test_mesh.py").exists()
    assert second.revision.startswith(git(other, "rev-parse", "HEAD")[:12])


def cut_sdist(folder: Path) -> Path:
    """alpha-1.0.tar.gz cut short, as a connection closed early leaves it: gzip raises EOFError, no TarError."""
    whole = sdist(folder, "1.0")
    whole.write_bytes(whole.read_bytes()[:len(whole.read_bytes()) // 2])
    return whole


def stored_zip(folder: Path) -> Path:
    """A wheel whose member names a compression method zipfile does not support (NotImplementedError)."""
    path = wheel(folder, "1.0")
    data = bytearray(path.read_bytes())
    for marker in (b"PK\x03\x04", b"PK\x01\x02"):  # each header's compression method: 99, unknown
        at = data.find(marker)
        while at != -1:
            offset = at + (8 if marker == b"PK\x03\x04" else 10)
            data[offset:offset + 2] = (99).to_bytes(2, "little")
            at = data.find(marker, at + 4)
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("made", [cut_sdist, stored_zip])
def test_any_fault_of_an_archive_is_a_one_line_source_error_never_an_internal_error(tmp_path: Path, made: Any
                                                                                    ) -> None:
    """Attack 39b's B6: EOFError, NotImplementedError, RuntimeError, zlib.error each ended the run (exit 3)."""
    (tmp_path / "index").mkdir()
    path = made(tmp_path / "index")
    source = "sdist" if path.name.endswith(".tar.gz") else "wheel"
    with pytest.raises(SourceError, match=rf"^alpha: {path.name} cannot be unpacked \([^\n]*\)$"):
        ecosystem_sources.fetch(entry(source), date(2026, 3, 1), index({"1.0": ("2026-01-10", path)}),
                                into=tmp_path / "fetched")


def test_a_download_unlike_the_index_s_size_or_sha256_is_named_before_it_is_unpacked(tmp_path: Path) -> None:
    path = sdist(tmp_path, "1.0")
    for described, said in (({"size": 100000}, rf"downloaded {path.stat().st_size} of 100000 bytes"),
                            ({"digests": {"sha256": "0" * 64}}, r"its sha256 differs from the index's")):
        fetch = index({"1.0": ("2026-01-10", path)})
        fetch("https://pypi.org/pypi/alpha/json", "")["releases"]["1.0"][0].update(described)
        with pytest.raises(SourceError, match=rf"^alpha: alpha-1.0.tar.gz: {said}"):
            ecosystem_sources.fetch(entry("sdist"), date(2026, 3, 1), fetch, into=tmp_path / "fetched")


@pytest.mark.parametrize("answer", [
    [], {"info": {}}, {"releases": []}, {"releases": {"1.0": None}}, {"releases": {"1.0": ["x"]}}])
def test_an_index_answer_of_the_wrong_shape_is_a_source_error_naming_the_package(answer: Any) -> None:
    """Attack 39b's B10: KeyError, TypeError, AttributeError ended the run (exit 3); now the project is unjudged."""
    with pytest.raises(SourceError, match=r"^alpha: the index's answer for alpha is not a JSON API document"):
        ecosystem_sources.release_on("alpha", date(2026, 3, 1), lambda url, accept: answer)


def test_a_legacy_version_or_an_unreadable_upload_time_on_the_index_is_passed_over(tmp_path: Path) -> None:
    fetch = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0")), "1.1": ("yesterday", sdist(tmp_path, "1.1")),
                   "1.0-legacy_build!": ("2026-01-11", sdist(tmp_path, "1.0"))})
    assert ecosystem_sources.release_on("alpha", date(2026, 3, 1), fetch)[0] == "1.0"
    assert ecosystem_sources.upload_day("alpha", "1.0", fetch) == date(2026, 1, 10)
    without_url = index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))})
    del without_url("https://pypi.org/pypi/alpha/json", "")["releases"]["1.0"][0]["url"]
    with pytest.raises(SourceError, match=r"^alpha: the index lists a file of alpha without a filename and url"):
        ecosystem_sources.fetch(entry("sdist"), date(2026, 3, 1), without_url, into=tmp_path / "fetched")


def test_an_sdist_is_never_read_from_the_folder_of_another_package_listed_under_the_same_name(tmp_path: Path
                                                                                              ) -> None:
    """Attack 39b's B9, smaller: the folder was keyed by name and version only."""
    first = ecosystem_sources.fetch(entry("sdist"), date(2026, 3, 1),
                                    index({"1.0": ("2026-01-10", sdist(tmp_path, "1.0"))}), into=tmp_path / "fetched")
    other = tmp_path / "other"
    other.mkdir()
    answer = index({"1.0": ("2026-01-10", sdist(other, "1.0"))})
    renamed = Entry(name="alpha", why="shards", source="sdist", tests=("tests",), package="beta")
    second = ecosystem_sources.fetch(renamed, date(2026, 3, 1), lambda url, accept: answer(
        url.replace("/beta/", "/alpha/"), accept), into=tmp_path / "fetched")
    assert second.root != first.root
