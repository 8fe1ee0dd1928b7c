"""Synthetic probes for the frontier's tests: a works-set of the core over made-up jax releases, the releases where
each non-core case fails, and what was asked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from packaging.version import Version

from shardmatrix import frontier_search

FLAX = Version("0.10.2")


def jax_versions(n: int) -> list[Version]:
    return [Version(f"0.{i // 4 + 4}.{i % 4}") for i in range(n)]


def fake(candidates: list[Version], works: set[int], install_error: bool = False,
         fails: Mapping[str, set[int]] | None = None,
         known: Mapping[str, set[int]] | None = None) -> tuple[list[Version], Any]:
    """A probe over a synthetic works-set (indices into candidates) of the core, where each case of `fails` also
    fails at its indices when every case runs, and each case of `known` fails there as a declared known upstream bug
    (reports.verdicts.frontier_judge: works_except_known_bugs, the bug named by a link made of the case); it records
    what it was asked (`asked`; whole-corpus probes as ('corpus', version))."""
    asked: list[Any] = []
    fails, known = fails or {}, known or {}

    def probe(version: Version, corpus: bool = False) -> frontier_search.Probe:
        asked.append(("corpus", version) if corpus else version)
        i = candidates.index(version)
        if install_error:
            return frontier_search.Probe(version, False, "cannot be installed: no wheel for python 3.11", f"c{i}",
                                         verdict="not_built", corpus=corpus)
        if i not in works:
            return frontier_search.Probe(version, False, f"TypeError: broken at {i}", f"c{i}", verdict="broken",
                                         corpus=corpus, failing={"core::test_smoke": f"failed: TypeError: {i}"})
        failing = {case: f"failed: ValueError: {case} at {i}" for case, bad in fails.items() if corpus and i in bad}
        if failing:
            first = min(failing)
            return frontier_search.Probe(version, False, f"{first}: {failing[first]}", f"c{i}", verdict="partial",
                                         corpus=True, failing=failing)
        bugs = {case: f"https://example.org/{case}" for case, bad in known.items() if corpus and i in bad}
        return frontier_search.Probe(version, True, "", f"c{i}", verdict="works_except_known_bugs" if bugs else "works",
                                     corpus=corpus, known=bugs)

    return asked, probe


def core_asked(asked: list[Any]) -> list[Version]:
    """The core probes of what a fake was asked, in order."""
    return [v for v in asked if not isinstance(v, tuple)]
