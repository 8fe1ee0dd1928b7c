from __future__ import annotations

import platform

from harness.cell import environment


def test_package_versions_from_metadata_none_when_absent() -> None:
    versions = environment.package_versions()
    assert set(versions) == set(environment.PACKAGES)
    assert all(v is None or v[0].isdigit() for v in versions.values())


def test_interpreter() -> None:
    info = environment.interpreter()
    assert info["python"] == platform.python_version()
    assert info["platform"].startswith(platform.system())
