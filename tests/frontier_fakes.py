"""Synthetic probes for the frontier's tests: a works-set over made-up jax releases, and what was asked."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from harness.tools import frontier_search

FLAX = Version("0.10.2")


def jax_versions(n: int) -> list[Version]:
    return [Version(f"0.{i // 4 + 4}.{i % 4}") for i in range(n)]


def fake(candidates: list[Version], works: set[int], install_error: bool = False) -> tuple[list[Version], Any]:
    """A probe over a synthetic works-set (indices into candidates), recording what it was asked."""
    asked: list[Version] = []

    def probe(version: Version) -> frontier_search.Probe:
        asked.append(version)
        i = candidates.index(version)
        if install_error:
            return frontier_search.Probe(version, False, "cannot be installed: no wheel for python 3.11", f"c{i}")
        return frontier_search.Probe(version, i in works, "" if i in works else f"TypeError: broken at {i}", f"c{i}")

    return asked, probe
