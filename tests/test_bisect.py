"""Bisection: binary search over releases with skips, fewer probes than a linear scan, arguments."""

from __future__ import annotations

import argparse

import pytest
from packaging.version import Version

from harness.tools import bisect, pins

VERSIONS = [Version(f"0.{n}.0") for n in range(10)]


def prober(first_bad: int, skip: frozenset[int] = frozenset()) -> tuple[list[Version], bisect.Probe]:
    seen: list[Version] = []

    def probe(version: Version) -> bisect.Probe:
        seen.append(version)
        minor = version.minor
        status = "install_error" if minor in skip else "failed" if minor >= first_bad else "passed"
        return bisect.Probe(version, status, "Boom: x" if status == "failed" else "", f"cell{minor}")

    return seen, probe  # type: ignore[return-value]


def test_search_finds_the_first_bad_in_fewer_probes_than_a_linear_scan() -> None:
    seen, probe = prober(first_bad=7)
    outcome = bisect.search(VERSIONS, probe)  # type: ignore[arg-type]
    assert outcome.last_good == Version("0.6.0")
    assert outcome.first_bad is not None and outcome.first_bad.version == Version("0.7.0")
    assert len(outcome.probes) < bisect.linear_cost(outcome) == 7
    assert len(seen) == len(set(seen))  # each version built at most once


def test_search_skips_uninstallable_versions_and_says_so() -> None:
    _, probe = prober(first_bad=5, skip=frozenset({4}))
    outcome = bisect.search(VERSIONS, probe)  # type: ignore[arg-type]
    assert outcome.last_good == Version("0.3.0") and outcome.first_bad is not None
    assert outcome.first_bad.version == Version("0.5.0")
    assert [p.version for p in outcome.skipped] == [Version("0.4.0")]
    text = "\n".join(bisect.describe(outcome, "jax", "m::t"))
    assert "skipped jax==0.4.0: install_error" in text and "first bad: jax==0.5.0 (cell5): failed: Boom: x" in text


def test_search_without_a_failing_end_reports_no_first_bad() -> None:
    _, probe = prober(first_bad=99)
    outcome = bisect.search(VERSIONS, probe)  # type: ignore[arg-type]
    assert outcome.first_bad is None
    assert "no bad release found" in "\n".join(bisect.describe(outcome, "jax", "m::t"))


def test_probe_cell_holds_the_other_package_and_picks_python() -> None:
    cell = bisect.probe_cell("jax", Version("0.11.2"), {"jax": "0.10.2", "flax": "0.12.8"})
    assert (cell.jax, cell.jaxlib, cell.flax, cell.python) == ("0.11.2", "0.11.2", "0.12.8", "3.12")


def namespace(**values: str | None) -> argparse.Namespace:
    return argparse.Namespace(**{"case": "m::t", "good": "flax==0.11.0", "bad": "flax==0.12.2", "jax": None,
                                 "flax": None, **values})


def test_request_holds_jax_at_the_given_pin() -> None:
    req = bisect.request(namespace(jax="==0.7.2"), pins.make_cell("0.12.0.1", "0.12.12", "3.12"))
    assert req.package == "flax" and req.held == {"jax": "0.7.2", "flax": "0.12.12"}
    assert (req.good, req.bad) == (Version("0.11.0"), Version("0.12.2"))


def test_request_refuses_ends_of_different_packages() -> None:
    with pytest.raises(pins.PinError):
        bisect.request(namespace(bad="jax==0.7.2"), pins.make_cell("0.12.0.1", "0.12.12", "3.12"))


def test_case_node_finds_the_module_in_the_corpus() -> None:
    node = bisect.case_node("sharded_gathers::test_take", ["builtin"])
    assert str(node).endswith("cases/sharded_gathers.py::test_take")
    with pytest.raises(pins.PinError):
        bisect.case_node("no_such_module::test_x", ["builtin"])
