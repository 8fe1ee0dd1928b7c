"""Release data from the index: dates, the jax bound a flax release declares, the Pythons a pair installs on."""

from __future__ import annotations

import io
import zipfile
from datetime import datetime, timezone
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness.tools import index
from shardmatrix import releases

FLAX = Version("0.10.2")


# --- the index -------------------------------------------------------------------------------------------------------

def document(dates: dict[str, str], wheel: bool = True) -> dict[str, Any]:
    return {"releases": {v: [{"filename": f"flax-{v}-py3-none-any.whl" if wheel else f"flax-{v}.tar.gz",
                              "url": f"../../packages/flax-{v}.whl", "yanked": False,
                              "upload_time_iso_8601": f"{d}T00:00:00.000000Z"}] for v, d in dates.items()}}


def wheel_with(requires: list[str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        wheel.writestr("flax-0.10.2.dist-info/METADATA",
                       "Metadata-Version: 2.1\nName: flax\n" + "".join(f"Requires-Dist: {r}\n" for r in requires))
    return buffer.getvalue()


def no_release_json(url: str, accept: str) -> Any:
    raise OSError("404")


def test_the_declared_bound_is_read_from_the_wheel_metadata_when_the_release_json_is_missing() -> None:
    fetched: list[str] = []

    def download(url: str) -> bytes:
        fetched.append(url)
        return wheel_with(["jax >=0.4.27", "numpy >=1.23 ; python_version >= '3.11'", "jax[tpu] ; extra == 'tpu'"])

    declared = releases.declared_jax(FLAX, document({"0.10.2": "2024-11-20"}), no_release_json, download)
    assert declared == SpecifierSet(">=0.4.27")
    assert fetched == ["https://pypi.org/packages/flax-0.10.2.whl"]  # a mirror's relative address, resolved


def test_the_declared_bound_comes_from_the_release_json_when_there_is_one() -> None:
    def fetch(url: str, accept: str) -> Any:
        assert url == "https://pypi.org/pypi/flax/0.10.2/json"
        return {"info": {"requires_dist": ["jax>=0.4.27", "msgpack"]}}

    assert releases.declared_jax(FLAX, {}, fetch) == SpecifierSet(">=0.4.27")


def test_a_release_without_a_wheel_is_named() -> None:
    with pytest.raises(releases.ReleaseError, match=r"flax 0\.10\.2: no wheel"):
        releases.declared_jax(FLAX, document({"0.10.2": "2024-11-20"}, wheel=False), no_release_json)


def test_the_contemporary_jax_is_the_newest_released_before_the_flax_release_else_the_oldest() -> None:
    def day(text: str) -> datetime:
        return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)

    jax_dates = {Version("0.4.35"): day("2024-10-22"), Version("0.4.36"): day("2024-12-05"),
                 Version("0.7.0"): day("2025-07-22")}
    candidates = sorted(jax_dates)
    assert releases.contemporary(day("2024-11-20"), jax_dates, candidates) == Version("0.4.35")
    assert releases.contemporary(day("2024-11-20"), jax_dates, candidates[2:]) == Version("0.7.0")


def test_releases_keep_only_jax_with_a_jaxlib_of_the_same_version_and_refuse_an_empty_selection() -> None:
    docs = {"flax": document({"0.10.2": "2024-11-20", "0.10.3": "2025-01-01"}),
            "jax": document({"0.4.36": "2024-12-05", "0.4.37": "2024-12-10"}),
            "jaxlib": document({"0.4.36": "2024-12-05"})}

    def fetch(url: str, accept: str) -> Any:
        return docs[url.split("/")[-2]]

    found = releases.releases(SpecifierSet("<0.10.3"), SpecifierSet(), fetch)
    assert found.flax == [Version("0.10.2")] and found.jax == [Version("0.4.36")]
    with pytest.raises(releases.ReleaseError, match="--flax >1 selects no flax release"):
        releases.releases(SpecifierSet(">1"), SpecifierSet(), fetch)


def test_releases_are_read_from_the_index_the_variable_names_else_pypi(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = {"flax": document({"0.10.2": "2024-11-20"}), "jax": document({"0.4.36": "2024-12-05"}),
            "jaxlib": document({"0.4.36": "2024-12-05"})}
    asked: list[str] = []

    def fetch(url: str, accept: str) -> Any:
        asked.append(url)
        return docs[url.split("/")[-2]]

    monkeypatch.delenv(index.JSON_API_ENV, raising=False)
    releases.releases(SpecifierSet(), SpecifierSet(), fetch)
    monkeypatch.setenv(index.JSON_API_ENV, "http://127.0.0.1:8000/pypi/{name}/json")
    releases.releases(SpecifierSet(), SpecifierSet(), fetch)
    assert asked == [*(f"https://pypi.org/pypi/{name}/json" for name in ("flax", "jax", "jaxlib")),
                     *(f"http://127.0.0.1:8000/pypi/{name}/json" for name in ("flax", "jax", "jaxlib"))]


# --- which Pythons a pair installs on ----------------------------------------------------------------------------

def files(version: str, names: list[str], requires_python: str | None = None) -> dict[str, Any]:
    return {"releases": {version: [{"filename": name, "url": name, "requires_python": requires_python,
                                    "yanked": False} for name in names]}}


JAXLIB_0_4_30 = files("0.4.30", [
    "jaxlib-0.4.30-cp310-cp310-manylinux2014_x86_64.whl", "jaxlib-0.4.30-cp311-cp311-manylinux2014_x86_64.whl",
    "jaxlib-0.4.30-cp312-cp312-manylinux2014_aarch64.whl", "jaxlib-0.4.30-cp312-cp312-macosx_11_0_arm64.whl",
    "jaxlib-0.4.30.tar.gz"], ">=3.9")


def test_a_compiled_release_installs_on_the_pythons_its_linux_wheels_name_for_this_machine() -> None:
    version = Version("0.4.30")
    assert releases.wheel_pythons(JAXLIB_0_4_30, version, machine="x86_64") == {"3.10", "3.11"}
    assert releases.wheel_pythons(JAXLIB_0_4_30, version, machine="aarch64") == {"3.12"}
    pure = files("0.10.2", ["flax-0.10.2-py3-none-any.whl"])
    assert releases.wheel_pythons(pure, Version("0.10.2")) is None  # no CPython tag: no constraint


def test_requires_python_is_the_strictest_any_file_states() -> None:
    assert releases.requires_python(files("0.11.0", ["jax-0.11.0-py3-none-any.whl"], ">=3.12"),
                                    Version("0.11.0")) == SpecifierSet(">=3.12")
    assert releases.requires_python(files("1", ["x-1-py3-none-any.whl"]), Version("1")) == SpecifierSet()


def test_installable_pythons_meet_every_constraint_and_the_pairs_choice_is_tried_first() -> None:
    admitted = releases.installable_pythons(["3.10", "3.11", "3.12", "3.13"], SpecifierSet(">=3.10"), {"3.11", "3.12",
                                            "3.13"}, None)
    assert admitted == ["3.11", "3.12", "3.13"]
    assert releases.preferred_order(["3.10", "3.11", "3.12", "3.13"], "3.12") == ["3.12", "3.13", "3.11", "3.10"]


def test_a_pair_is_tried_on_every_python_its_three_packages_have_files_for() -> None:
    found = releases.Releases(
        flax=[], jax=[], flax_dates={}, jax_dates={},
        flax_document=files("0.12.9", ["flax-0.12.9-py3-none-any.whl"], ">=3.11"),
        jax_document=files("0.4.30", ["jax-0.4.30-py3-none-any.whl"], ">=3.9"),
        jaxlib_document=JAXLIB_0_4_30)
    pythons = found.pythons(Version("0.4.30"), Version("0.12.9"), ["3.10", "3.11", "3.12", "3.13"])
    assert pythons == (["3.11"] if releases.platform.machine() == "x86_64" else [])
