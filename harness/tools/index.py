"""Released versions of a package on the package index: the PyPI JSON API, else the simple index (PEP 691).

`$SHARDMATRIX_JSON_API` names another JSON API to list releases from (a mirror that serves PyPI's
`/pypi/{name}/json`, or the index as it stood on a day, as the installed command's e2e test of `watch` serves it);
the cells still install from the index uv is configured with."""

from __future__ import annotations

import email.parser
import io
import json
import os
import re
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from datetime import datetime
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import InvalidSdistFilename, InvalidWheelFilename, parse_sdist_filename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from harness.formats import ShardmatrixError

JSON_API = "https://pypi.org/pypi/{name}/json"
#: The variable naming another JSON API address, with `{name}` where the package's name goes.
JSON_API_ENV = "SHARDMATRIX_JSON_API"
SIMPLE_API = "https://pypi.org/simple/{name}/"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
RELEASE_API = "https://pypi.org/pypi/{name}/{version}/json"

Fetch = Callable[[str, str], Any]
#: A file's bytes from its address (a wheel, to read its METADATA).
Download = Callable[[str], bytes]


class IndexError_(ShardmatrixError, RuntimeError):
    """The index could not be read by either API."""


def fetch_json(url: str, accept: str = "application/json") -> Any:
    """GET a JSON document."""
    request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "shardmatrix"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def json_api(name: str) -> str:
    """The JSON API address of a package's releases: $SHARDMATRIX_JSON_API's, else PyPI's."""
    return (os.environ.get(JSON_API_ENV) or JSON_API).format(name=name)


def release_api(name: str, version: Version | str) -> str:
    """The JSON API address of one release: beside $SHARDMATRIX_JSON_API's project address, laid out as PyPI lays
    them (`/pypi/{name}/json`, `/pypi/{name}/{version}/json`), else PyPI's."""
    template = os.environ.get(JSON_API_ENV)
    if not template:
        return RELEASE_API.format(name=name, version=version)
    return template.replace("{name}", "{name}/{version}", 1).format(name=name, version=version)


def releases(name: str, fetch: Fetch = fetch_json, pre: bool = False) -> list[Version]:
    """Final, non-yanked releases of `name` that have files, oldest first (with `pre`, pre-releases and dev
    releases too)."""
    try:
        return from_json_api(fetch(json_api(name), "application/json"), pre)
    except (OSError, ValueError, KeyError, TypeError) as first:
        try:
            return from_simple_api(fetch(SIMPLE_API.format(name=name), SIMPLE_JSON), name, pre)
        except (OSError, ValueError, KeyError, TypeError) as second:
            raise IndexError_(f"cannot list releases of {name}: {first}; simple index: {second}") from None


def extra_releases(url: str, name: str, fetch: Fetch = fetch_json, pre: bool = False) -> list[Version]:
    """The releases of `name` on an extra simple index (`--index URL`, e.g. nightly wheels), read as PEP 691 JSON;
    IndexError_ naming the index when it cannot be read."""
    address = f"{url.rstrip('/')}/{name}/"
    try:
        return from_simple_api(fetch(address, SIMPLE_JSON), name, pre)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise IndexError_(f"cannot list releases of {name} on {address}: {error}") from None


def from_json_api(document: dict[str, Any], pre: bool = False) -> list[Version]:
    """Versions from a PyPI JSON API document: a release counts when it has a file and not every file is yanked
    (a pre-release or dev release only with `pre`)."""
    found = []
    for text, files in document["releases"].items():
        version = _final(text, pre)
        if version is not None and files and not all(file.get("yanked") for file in files):
            found.append(version)
    return sorted(found)


def from_simple_api(document: dict[str, Any], name: str, pre: bool = False) -> list[Version]:
    """Versions from a PEP 691 simple index document, read from its file names; yanked files do not count (a
    pre-release or dev release only with `pre`)."""
    found: set[Version] = set()
    for file in document["files"]:
        if file.get("yanked"):
            continue
        version = _version_of(str(file["filename"]), name, pre)
        if version is not None:
            found.add(version)
    return sorted(found)


def _version_of(filename: str, name: str, pre: bool = False) -> Version | None:
    try:
        if filename.endswith(".whl"):
            return _final(str(parse_wheel_filename(filename)[1]), pre)
        return _final(str(parse_sdist_filename(filename)[1]), pre)
    except (InvalidWheelFilename, InvalidSdistFilename):
        match = re.match(rf"{re.escape(name)}-(.+?)\.(tar\.gz|zip)$", filename, re.IGNORECASE)
        return _final(match.group(1), pre) if match else None


def _final(text: str, pre: bool = False) -> Version | None:
    try:
        version = Version(text)
    except InvalidVersion:
        return None
    return None if (version.is_prerelease or version.is_devrelease) and not pre else version


def between(versions: list[Version], first: Version, last: Version) -> list[Version]:
    """Versions from `first` to `last` inclusive, in the order from first to last (either may be the larger)."""
    low, high = sorted((first, last))
    inside = sorted({v for v in versions if low <= v <= high} | {first, last})
    return inside if first <= last else inside[::-1]


def upload_dates(document: dict[str, Any]) -> dict[Version, datetime]:
    """The first upload time of every final release in a PyPI JSON document."""
    dates: dict[Version, datetime] = {}
    versions = set(from_json_api(document))
    for text, files in document["releases"].items():
        # A legacy version (from_json_api skips it) or a time that does not parse dates nothing: skipped alike.
        version = _final(text)
        times = [when for when in map(_uploaded, files) if when is not None]
        if times and version in versions:
            dates[version] = min(times)
    return dates


def _uploaded(file: dict[str, Any]) -> datetime | None:
    try:
        return datetime.fromisoformat(str(file["upload_time_iso_8601"]).replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return None


def requires_dist(name: str, version: Version, document: dict[str, Any], fetch: Fetch = fetch_json,
                  download: Download | None = None) -> list[str]:
    """The Requires-Dist lines of a release: from PyPI's JSON of that release, else from its wheel's METADATA
    (`document` is the project's JSON, which lists the wheel; a mirror may serve no per-release JSON)."""
    try:
        lines = fetch(release_api(name, version), "application/json")["info"]["requires_dist"]
        return [str(line) for line in lines or []]
    except (OSError, ValueError, KeyError, TypeError):
        return _wheel_requires(name, version, document, download or get)


def requirement_of(lines: list[str], name: str) -> SpecifierSet | None:
    """The requirement on `name` of Requires-Dist lines, unconditional ones only (not an extra's: cuda,
    minimum-jaxlib), several lines joined; None where no such line names it."""
    found: SpecifierSet | None = None
    for line in lines:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.name.lower() == name and (requirement.marker is None
                                                 or requirement.marker.evaluate({"extra": ""})):
            found = requirement.specifier if found is None else found & requirement.specifier
    return found


def _wheel_requires(name: str, version: Version, document: dict[str, Any], download: Download) -> list[str]:
    wheels = [f for f in document["releases"].get(str(version), []) if f["filename"].endswith(".whl")]
    if not wheels:
        raise IndexError_(f"{name} {version}: no wheel on the index to read its requirements from")
    # A mirror lists files by relative address: they are relative to the project's JSON document.
    url = urllib.parse.urljoin(json_api(name), wheels[0]["url"])
    try:
        with zipfile.ZipFile(io.BytesIO(download(url))) as wheel:
            found = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            metadata = email.parser.BytesParser().parsebytes(wheel.read(found))
    except (OSError, StopIteration, zipfile.BadZipFile) as error:
        raise IndexError_(f"{name} {version}: cannot read the wheel's METADATA at {url}: {error}") from None
    return [str(line) for line in metadata.get_all("Requires-Dist") or []]


def get(url: str) -> bytes:
    """The bytes at an address."""
    request = urllib.request.Request(url, headers={"User-Agent": "shardmatrix"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return bytes(response.read())
