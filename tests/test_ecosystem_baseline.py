"""shardmatrix.ecosystem_baseline: the release before the candidate, with the other package held at a release that
loads on both sides (its declared requirement admits both), never a pairing that cannot load."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from harness.formats import ShardmatrixError
from harness.host import matrix
from shardmatrix import ecosystem_baseline

CELLS = matrix.load(Path(__file__).resolve().parent.parent / "matrix.toml")

#: Upload days as PyPI has them: jax 0.8.3 came out after 0.9.0 (a patch of the older line).
DAYS = {"jax": {"0.7.2": "2025-09-16", "0.8.1": "2025-11-18", "0.8.2": "2025-12-18", "0.8.3": "2026-01-29",
                "0.9.0": "2026-01-20"},
        "flax": {"0.10.7": "2025-06-20", "0.11.2": "2025-08-28", "0.12.0": "2025-09-25", "0.12.2": "2025-12-18",
                 "0.12.3": "2026-01-27"}}
#: What each flax release declares of jax, as PyPI has it (flax declares lower bounds only).
DECLARED = {"0.10.7": ">=0.6.0", "0.11.2": ">=0.6.0", "0.12.0": ">=0.7.1", "0.12.2": ">=0.8.1", "0.12.3": ">=0.8.1"}


def jax_index(day: str = "", declared: dict[str, str] | None = None) -> Any:
    """A fake index of jax, jaxlib and flax with DAYS' upload days (jax 0.9.0's moved to `day` if given) and each
    flax release's JSON declaring DECLARED's jax (or `declared`'s)."""
    said = {**DECLARED, **(declared or {})}

    def document(package: str) -> dict[str, Any]:
        days = {**DAYS[package], **({"0.9.0": day} if day and package == "jax" else {})}
        return {"releases": {v: [{"filename": f"{package}-{v}.tar.gz", "yanked": False,
                                  "upload_time_iso_8601": f"{when}T10:00:00Z"}] for v, when in days.items()}}

    def fetch(url: str, accept: str) -> Any:
        parts = url.rstrip("/").split("/")
        if parts[-3] == "flax":  # one release's JSON: pypi/flax/<version>/json
            return {"info": {"requires_dist": [f"jax{said[parts[-2]]}", "numpy>=1.23"]}}
        return document({"jaxlib": "jax"}.get(parts[-2], parts[-2]))
    return fetch


def test_a_jax_bump_holds_the_newest_flax_that_loads_on_both_sides() -> None:
    # 0.9.0's day knew jax 0.8.2 (0.8.3 came later). flax 0.12.0 declares jax>=0.7.1 but cannot load on 0.9.0;
    # 0.12.2 was out that day and is newer: it is held, and the report says why.
    chosen = ecosystem_baseline.default({"jax": "0.9.0"}, CELLS, jax_index(), date(2026, 1, 20))
    assert chosen.pins == "jax==0.8.2,flax==0.12.2"
    assert chosen.held == ("flax 0.12.2 held on both sides: the newest flax whose declared jax>=0.8.1 admits jax "
                           "0.8.2 and 0.9.0, out by 2026-01-20")


def test_a_jax_bump_prefers_the_matrixs_partner_of_the_candidate_when_it_was_out_and_qualifies() -> None:
    # By 2026-02-10 the matrix's jax 0.9.0 cell's flax (0.12.3) was out, and declares jax>=0.8.1.
    chosen = ecosystem_baseline.default({"jax": "0.9.0"}, CELLS, jax_index(), date(2026, 2, 10))
    assert chosen.pins == "jax==0.8.3,flax==0.12.3"
    assert "the matrix's partner of jax 0.9.0" in chosen.held


def test_the_matrixs_partner_that_does_not_admit_the_baseline_jax_is_passed_over() -> None:
    # Were 0.12.3 to declare jax>=0.9.0, it would not load at the baseline's 0.8.3: the newest that does is held.
    chosen = ecosystem_baseline.default({"jax": "0.9.0"}, CELLS, jax_index(declared={"0.12.3": ">=0.9.0"}),
                                        date(2026, 2, 10))
    assert chosen.pins == "jax==0.8.3,flax==0.12.2"


def test_a_flax_bump_holds_the_jax_both_flax_releases_declare() -> None:
    # flax 0.12.0 needs jax>=0.7.1, 0.11.2 jax>=0.6.0: the newest jax out that day both admit, 0.7.2.
    chosen = ecosystem_baseline.default({"flax": "0.12.0"}, CELLS, jax_index(), date(2025, 9, 25))
    assert chosen.pins == "flax==0.11.2,jax==0.7.2"
    assert "flax 0.11.2's jax>=0.6.0 and flax 0.12.0's jax>=0.7.1" in chosen.held


def test_no_held_package_that_loads_on_both_sides_is_one_line_naming_the_pair() -> None:
    nothing = {version: ">=9.0" for version in DECLARED}
    with pytest.raises(ecosystem_baseline.BaselineError, match=r"^jax 0.8.2 and jax==0.9.0: no flax out by "
                       r"2026-01-20 loads on both \(no flax's declared jax requirement admits both jax 0.8.2 and "
                       r"0.9.0\); give --baseline$") as refused:
        ecosystem_baseline.default({"jax": "0.9.0"}, CELLS, jax_index(declared=nothing), date(2026, 1, 20))
    assert isinstance(refused.value, ShardmatrixError)
    with pytest.raises(ecosystem_baseline.BaselineError, match=r"no jax admitted by flax 0.11.2's jax>=9.0"):
        ecosystem_baseline.default({"flax": "0.12.0"}, CELLS, jax_index(declared=nothing), date(2025, 9, 25))


def test_a_flax_whose_requirement_the_index_cannot_tell_is_never_held() -> None:
    def unreadable(url: str, accept: str) -> Any:
        if url.rstrip("/").split("/")[-3] == "flax" and "0.12.2" in url:
            raise OSError("no per-release JSON")  # and the fake's document names no wheel to read it from
        return jax_index()(url, accept)
    assert ecosystem_baseline.default({"jax": "0.9.0"}, CELLS, unreadable, date(2026, 1, 20)).pins == (
        "jax==0.8.2,flax==0.12.0")


def test_no_earlier_release_or_a_source_candidate_is_refused_in_one_line() -> None:
    with pytest.raises(ecosystem_baseline.BaselineError, match=r"jax==0.7.2: no earlier release on the index by "
                       r"2026-01-20"):
        ecosystem_baseline.default({"jax": "0.7.2"}, CELLS, jax_index(), date(2026, 1, 20))
    with pytest.raises(ecosystem_baseline.BaselineError, match=r"a source candidate needs --baseline"):
        ecosystem_baseline.default({}, CELLS, jax_index(), date(2026, 1, 20))


def test_a_jaxlib_alone_is_named_as_such_not_called_a_source() -> None:
    with pytest.raises(ecosystem_baseline.BaselineError, match=r"^jaxlib==0.9.0: jaxlib follows jax, so name "
                       r"jax==0.9.0 \(or give --baseline jax==A,flax==B\)$"):
        ecosystem_baseline.default({"jaxlib": "0.9.0"}, CELLS, jax_index(), date(2026, 1, 20))


def test_a_flax_bump_holds_a_jax_of_the_baseline_flaxs_own_day_never_the_newest_of_the_candidates() -> None:
    """Attack 39b's B3: flax==0.12.3 as of 2026-02-01 held jax 0.9.0 with flax 0.12.2 on paper-only grounds; a jax
    out by the baseline flax's own day that both admit is held instead."""
    chosen = ecosystem_baseline.default({"flax": "0.12.3"}, CELLS, jax_index(), date(2026, 2, 1))
    assert chosen.pins == "flax==0.12.2,jax==0.8.2"
    assert "out by flax 0.12.2's own day (2025-12-18)" in chosen.held
    # Were 0.12.3 to need jax>=0.9.0, no jax out by 0.12.2's day qualifies: the oldest that does, said so.
    chosen = ecosystem_baseline.default({"flax": "0.12.3"}, CELLS, jax_index(declared={"0.12.3": ">=0.9.0"}),
                                        date(2026, 2, 1))
    assert chosen.pins == "flax==0.12.2,jax==0.9.0"
    assert "the oldest jax admitted by" in chosen.held and "none was out by its own day, 2025-12-18" in chosen.held
