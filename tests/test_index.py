"""Listing releases: the JSON API, the simple index fallback, pre-releases and yanked files left out."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness.tools import index

JSON_DOC = {"releases": {
    "0.6.0": [{"yanked": False}], "0.6.1": [{"yanked": True}], "0.6.2": [{"yanked": False}],
    "0.7.0rc1": [{"yanked": False}], "0.7.0": [{"yanked": False}], "0.7.1": [], "0.10.0": [{"yanked": False}],
}}
SIMPLE_DOC = {"files": [
    {"filename": "jax-0.6.0-py3-none-any.whl"}, {"filename": "jax-0.6.1.tar.gz", "yanked": "broken"},
    {"filename": "jax-0.7.0-py3-none-any.whl"}, {"filename": "jax-0.7.1.dev1-py3-none-any.whl"},
]}


def test_json_api_skips_prereleases_yanked_and_fileless_releases_in_version_order() -> None:
    assert index.from_json_api(JSON_DOC) == [Version(v) for v in ("0.6.0", "0.6.2", "0.7.0", "0.10.0")]


def test_simple_index_is_the_fallback_when_the_json_api_fails() -> None:
    def fetch(url: str, accept: str) -> Any:
        if "/pypi/" in url:
            raise OSError("503")
        return SIMPLE_DOC

    assert index.releases("jax", fetch) == [Version("0.6.0"), Version("0.7.0")]


def test_pre_releases_and_dev_releases_are_listed_only_when_asked() -> None:
    assert Version("0.7.0rc1") in index.from_json_api(JSON_DOC, pre=True)
    assert Version("0.7.0rc1") not in index.from_json_api(JSON_DOC)
    assert index.from_simple_api(SIMPLE_DOC, "jax", pre=True) == [Version(v) for v in ("0.6.0", "0.7.0", "0.7.1.dev1")]


def test_an_extra_index_is_read_as_a_simple_index_and_a_failure_names_it() -> None:
    asked: list[tuple[str, str]] = []

    def fetch(url: str, accept: str) -> Any:
        asked.append((url, accept))
        return SIMPLE_DOC

    assert index.extra_releases("https://nightly.example/simple/", "jax", fetch, pre=True)[-1] == Version("0.7.1.dev1")
    assert asked == [("https://nightly.example/simple/jax/", index.SIMPLE_JSON)]

    def offline(url: str, accept: str) -> Any:
        raise OSError("offline")

    with pytest.raises(index.IndexError_, match=r"^cannot list releases of jax on https://n\.example/jax/: offline$"):
        index.extra_releases("https://n.example", "jax", offline)


def test_both_apis_failing_is_one_error() -> None:
    def fetch(url: str, accept: str) -> Any:
        raise OSError("offline")

    with pytest.raises(index.IndexError_, match="offline"):
        index.releases("jax", fetch)


def test_between_includes_both_ends_in_search_order() -> None:
    versions = [Version(v) for v in ("0.5.3", "0.6.0", "0.6.2", "0.7.0", "0.7.2")]
    assert index.between(versions, Version("0.6.0"), Version("0.7.0")) == versions[1:4]
    assert index.between(versions, Version("0.7.0"), Version("0.6.0")) == versions[1:4][::-1]


def test_the_json_api_is_pypis_unless_the_variable_names_another(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def fetch(url: str, accept: str) -> Any:
        asked.append(url)
        return JSON_DOC

    monkeypatch.delenv(index.JSON_API_ENV, raising=False)
    index.releases("jax", fetch)
    monkeypatch.setenv(index.JSON_API_ENV, "http://127.0.0.1:8000/pypi/{name}/json")
    index.releases("jax", fetch)
    assert asked == ["https://pypi.org/pypi/jax/json", "http://127.0.0.1:8000/pypi/jax/json"]


def test_a_release_s_json_is_pypis_unless_the_variable_names_another_index(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def fetch(url: str, accept: str) -> Any:
        asked.append(url)
        return {"info": {"requires_dist": ["jaxlib>=0.5.1"]}}

    monkeypatch.delenv(index.JSON_API_ENV, raising=False)
    assert index.requires_dist("jax", Version("0.5.2"), {}, fetch) == ["jaxlib>=0.5.1"]
    monkeypatch.setenv(index.JSON_API_ENV, "http://127.0.0.1:8000/pypi/{name}/json")
    assert index.requires_dist("jax", Version("0.5.2"), {}, fetch) == ["jaxlib>=0.5.1"]
    assert asked == ["https://pypi.org/pypi/jax/0.5.2/json", "http://127.0.0.1:8000/pypi/jax/0.5.2/json"]


def _wheel(requires: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        lines = "".join(f"Requires-Dist: {requirement}\n" for requirement in requires)
        wheel.writestr("jax-0.5.2.dist-info/METADATA", "Name: jax\n" + lines)
    return buffer.getvalue()


def test_a_release_s_requirements_are_read_from_its_wheel_where_the_index_serves_no_release_json(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(index.JSON_API_ENV, raising=False)
    document = {"releases": {"0.5.2": [{"filename": "jax-0.5.2-py3-none-any.whl", "url": "../../p/jax-0.5.2.whl"}]}}
    fetched: list[str] = []

    def no_release_json(url: str, accept: str) -> object:
        raise OSError("404")

    def download(url: str) -> bytes:
        fetched.append(url)
        return _wheel(["jaxlib<=0.5.2,>=0.5.1"])

    assert index.requires_dist("jax", Version("0.5.2"), document, no_release_json, download) == [
        "jaxlib<=0.5.2,>=0.5.1"]
    assert fetched == ["https://pypi.org/p/jax-0.5.2.whl"]


def test_a_release_with_no_wheel_to_read_is_named_in_one_line() -> None:
    def no_release_json(url: str, accept: str) -> object:
        raise OSError("404")

    with pytest.raises(index.IndexError_, match=r"jax 0\.5\.2: no wheel on the index"):
        index.requires_dist("jax", Version("0.5.2"), {"releases": {"0.5.2": []}}, no_release_json, lambda url: b"")


def test_upload_dates_pass_over_a_legacy_version_and_an_unreadable_time() -> None:
    """A legacy key (old projects' documents carry them) crashed every caller with InvalidVersion (attack 39b's B10)."""
    def file(when: object) -> dict[str, Any]:
        return {"filename": "x", "upload_time_iso_8601": when}
    document = {"releases": {"0.8.2": [file("2026-01-10T12:00:00Z")], "1.0-legacy_build!": [file("2026-01-11")],
                             "0.9.0": [file("yesterday"), file(None)], "0.9.1": [file("2026-02-01T00:00:00Z")]}}
    assert sorted(map(str, index.upload_dates(document))) == ["0.8.2", "0.9.1"]


def test_a_requirement_joins_the_unconditional_lines_naming_the_package() -> None:
    lines = ["jaxlib>=0.5.1", "jaxlib<=0.5.2", "jax>=0.5", "not a requirement ((", 'jaxlib==0.6; extra == "cuda"']
    assert index.requirement_of(lines, "jaxlib") == SpecifierSet(">=0.5.1,<=0.5.2")
    assert index.requirement_of(lines, "jax") == SpecifierSet(">=0.5")


def test_a_requirement_no_unconditional_line_names_is_none() -> None:
    assert index.requirement_of(['jaxlib>=0.6; extra == "minimum-jaxlib"', "numpy"], "jaxlib") is None
