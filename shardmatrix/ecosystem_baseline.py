"""The default baseline of `shardmatrix ecosystem`: the release before the candidate, and the other package held
on both sides.

The bumped package's baseline is its newest release below the candidate out by the end of the day (a jax release
only with a jaxlib of its version: jax 0.8.3 came out after 0.9.0, so 0.9.0's day knew 0.8.2). The other package
is held at one release on both sides, so it must load on both: for a jax bump, the flax whose declared jax
requirement (shardmatrix.releases.declared_jax) admits the baseline jax and the candidate jax, and for a flax bump,
the jax both flax releases' declared requirements admit. The matrix's own partner of the candidate (a cell at the
candidate's release) is preferred when it was out that day and qualifies; otherwise the newest release out that
day that qualifies. flax declares lower bounds only, so an older flax always "admits" a newer jax on paper: the
newest qualifying flax is the one made against the newest jax (flax 0.12.0 admits jax 0.9.0 on paper, yet
cannot load on it; 0.12.2, out on 0.9.0's day, can), and for a flax bump the held jax is one out by the baseline
flax's own upload day (else the oldest qualifying, the nearest after it), never the newest jax of the day, which
the older flax was never made against. Declared ranges alone cannot prove a pairing loads: the report says the
pairing and why. None qualifying is one line naming the pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness.formats import ShardmatrixError
from harness.host.matrix import Cell
from harness.tools import index
from shardmatrix import ecosystem_sources, releases


class BaselineError(ShardmatrixError, ValueError):
    """No default baseline can be chosen as asked (no earlier release, no package that loads on both sides)."""


@dataclass(frozen=True)
class Baseline:
    """The baseline's pins (`jax==A,flax==B`) and why its held package was chosen, as the report says it."""

    pins: str
    held: str


def out_by(package: str, day: date, fetch: index.Fetch) -> set[Version]:
    """The releases of `package` uploaded by the end of `day`."""
    document = fetch(index.json_api(package), "application/json")
    end = ecosystem_sources.end_of(day)
    return {version for version, uploaded in releases.upload_dates(document).items() if uploaded < end}


def default(candidate: dict[str, str], cells: list[Cell], fetch: index.Fetch, day: date,
            pre: bool = False) -> Baseline:
    """The release before the candidate as the day knew it, with the held package that loads on both sides
    (module docstring); BaselineError in one line without one."""
    package = "jax" if "jax" in candidate else "flax" if "flax" in candidate else ""
    if not package and "jaxlib" in candidate:
        raise BaselineError(f"jaxlib=={candidate['jaxlib']}: jaxlib follows jax, so name jax=={candidate['jaxlib']} "
                            "(or give --baseline jax==A,flax==B)")
    if not package:
        raise BaselineError("a source candidate needs --baseline jax==A,flax==B")
    other = "flax" if package == "jax" else "jax"
    bumped = Version(candidate[package])
    before = release_before(package, bumped, fetch, day, pre)
    partners = sorted((c for c in cells if c.backend == "cpu" and Version(getattr(c, package)) == bumped),
                      key=Cell.sort_key, reverse=True)
    preferred = [Version(getattr(c, other)) for c in partners]
    out = out_by(other, day, fetch)
    if other == "jax":
        out &= set(index.releases("jaxlib", fetch, pre))
    held, why = (held_flax(before, bumped, preferred, out, fetch) if package == "jax"
                 else held_jax(before, bumped, preferred, out, fetch))
    if held is None:
        raise BaselineError(f"{package} {before} and {package}=={bumped}: no {other} out by {day.isoformat()} "
                            f"loads on both ({why}); give --baseline")
    return Baseline(f"{package}=={before},{other}=={held}",
                    f"{other} {held} held on both sides: {why}, out by {day.isoformat()}")


def release_before(package: str, bumped: Version, fetch: index.Fetch, day: date, pre: bool) -> Version:
    """The newest release of `package` below `bumped` out by the end of `day` (jax with a jaxlib of its version)."""
    listed = set(index.releases(package, fetch, pre)) & out_by(package, day, fetch)
    if package == "jax":
        listed &= set(index.releases("jaxlib", fetch, pre))
    earlier = sorted(v for v in listed if v < bumped)
    if not earlier:
        raise BaselineError(f"{package}=={bumped}: no earlier release on the index by {day.isoformat()} "
                            "(give --baseline)")
    return earlier[-1]


def _order(preferred: list[Version], out: set[Version]) -> list[tuple[Version, bool]]:
    """The releases to try, each once: the matrix's partners out that day first, then every release newest first;
    each with whether it is a matrix partner."""
    tried = [(v, True) for v in dict.fromkeys(preferred) if v in out]
    return tried + [(v, False) for v in sorted(out, reverse=True) if v not in preferred]


def held_flax(before: Version, bumped: Version, preferred: list[Version], out: set[Version],
              fetch: index.Fetch) -> tuple[Version | None, str]:
    """The flax whose declared jax requirement admits both jax releases, and why (or None, and what was looked
    at)."""
    document = fetch(index.json_api("flax"), "application/json")
    for flax, partner in _order(preferred, out):
        declared = _declared(flax, document, fetch)
        if declared is not None and all(declared.contains(v, prereleases=True) for v in (before, bumped)):
            chosen = "the matrix's partner of jax " + str(bumped) if partner else "the newest flax"
            return flax, f"{chosen} whose declared jax{declared or ' (any)'} admits jax {before} and {bumped}"
    return None, f"no flax's declared jax requirement admits both jax {before} and {bumped}"


def held_jax(before: Version, bumped: Version, preferred: list[Version], out: set[Version],
             fetch: index.Fetch) -> tuple[Version | None, str]:
    """The jax both flax releases' declared requirements admit, and why (or None, and what was looked at): of those,
    the matrix's partner or the newest out by the baseline flax's own upload day, else the oldest after it. flax
    declares lower bounds only, so the newest jax admitted on paper is the one most likely to break the older flax
    (flax 0.12.0 admits jax 0.9.0, yet cannot `import flax.nnx` on it)."""
    document = fetch(index.json_api("flax"), "application/json")
    ranges = [_declared(flax, document, fetch) for flax in (before, bumped)]
    if any(spec is None for spec in ranges):
        return None, f"flax {before} or {bumped} declares no jax requirement the index can tell"
    both = " and ".join(f"flax {flax}'s jax{spec or ' (any)'}"
                        for flax, spec in zip((before, bumped), ranges, strict=True))
    admitted = [(jax, partner) for jax, partner in _order(preferred, out)
                if all(spec is not None and spec.contains(jax, prereleases=True) for spec in ranges)]
    if not admitted:
        return None, f"no jax admitted by {both}"
    made = releases.upload_dates(document).get(before)
    jax_days = releases.upload_dates(fetch(index.json_api("jax"), "application/json"))
    by_then = [(jax, partner) for jax, partner in admitted
               if made is not None and jax in jax_days and jax_days[jax].date() <= made.date()]
    if by_then and made is not None:
        jax, partner = by_then[0]
        chosen = "the matrix's partner of flax " + str(bumped) if partner else "the newest jax"
        return jax, f"{chosen} out by flax {before}'s own day ({made.date().isoformat()}) admitted by {both}"
    jax = min(jax for jax, _ in admitted)
    since = f" (none was out by its own day, {made.date().isoformat()})" if made is not None else ""
    return jax, f"the oldest jax admitted by {both}, the nearest to flax {before}'s own day{since}"


def _declared(flax: Version, document: dict[str, Any], fetch: index.Fetch) -> SpecifierSet | None:
    """A flax release's declared jax requirement; None when the index cannot tell it (unknown is never good)."""
    try:
        return releases.declared_jax(flax, document, fetch)
    except ShardmatrixError:
        return None
