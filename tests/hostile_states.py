"""Hostile inputs for the property test (tests/test_no_verdict_better_than_evidence.py) beside results trees: the
watcher's state (shardmatrix/watch_files.py), the stored range check (docs/data/ranges.json, harness.outputs)
and the command line's pins (harness/tools/pins.py), each generated with the defects real ones have.

A generated input is a value that knows its own evidence (`sound`, what a SAFE may stand on), and a writer that
puts it on disk the way a defect would leave it. A new file format lands here (or in a sibling module) with its
generator: CONTRIBUTING.md says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from harness import outputs
from shardmatrix import watch_files

# --- the watcher's state ---------------------------------------------------------------------------------------------

#: The lock the watch judges from, and another one (a state kept for another lock: another cell's answers).
LOCK = {"jax": "0.8.3", "jaxlib": "0.8.3", "flax": "0.12.6"}
OTHER_LOCK = {"jax": "0.8.2", "jaxlib": "0.8.2", "flax": "0.12.6"}
RELEASES = ("0.8.4", "0.9.0", "0.9.1")
#: What can be wrong with a state file as a whole: each is refused in one line before anything is judged.
STATE_DEFECTS = ("missing", "not_json", "not_utf8", "not_object", "no_schema", "newer_schema", "older_schema",
                 "bool_schema", "judged_not_list", "entry_not_object", "unknown_field", "mistyped_field",
                 "bad_verdict", "a_folder", "under_a_file")
#: Defects after which the file is still a state a watch may read (no defect, or none at all on disk).
READABLE = frozenset({"missing"})


@dataclass(frozen=True)
class Entry:
    """One remembered judgment as generated: what it says, and what its fields carry as evidence."""

    version: str
    verdict: str
    regressed: bool
    tests: int | None
    tests_judged: int | None
    report: bool
    this_lock: bool
    package: str = "jax"

    @property
    def sound(self) -> bool:
        """Whether a SAFE could stand on these fields: no regression, counted, reported, something judged."""
        return (not self.regressed and self.tests is not None and self.tests_judged is not None and self.report
                and 0 < self.tests_judged <= self.tests)

    def judgment(self) -> watch_files.Judgment:
        """The Judgment as the state would hold it."""
        return watch_files.Judgment(
            self.package, self.version, dict(LOCK if self.this_lock else OTHER_LOCK), self.verdict,
            regressed=["m::t"] if self.regressed else [], first_bad="jax==0.9.0" if self.regressed else "",
            tests=self.tests, tests_judged=self.tests_judged, report="out/report/watch/r.md" if self.report else "")


counts = st.one_of(st.none(), st.integers(min_value=0, max_value=4))
entries = st.builds(Entry, version=st.sampled_from(RELEASES), verdict=st.sampled_from(watch_files.SEVERITY),
                    regressed=st.booleans(), tests=counts, tests_judged=counts, report=st.booleans(),
                    this_lock=st.booleans(), package=st.sampled_from(("jax", "flax")))


@dataclass(frozen=True)
class State:
    """A state file as generated: its entries (one per release and lock) and what is wrong with the file."""

    entries: tuple[Entry, ...]
    defect: str | None

    @property
    def readable(self) -> bool:
        """Whether a watch may read it (no defect, or no file yet)."""
        return self.defect is None or self.defect in READABLE

    @property
    def remembered(self) -> tuple[Entry, ...]:
        """The entries a watch finds in it: none when there is no file."""
        return () if self.defect == "missing" else self.entries


states = st.builds(
    State,
    entries=st.lists(entries, max_size=4, unique_by=lambda e: (e.package, e.version, e.this_lock)).map(tuple),
    defect=st.one_of(st.none(), st.none(), st.sampled_from(STATE_DEFECTS)),
)


def write_state(path: Path, state: State) -> None:
    """Write `state` at `path` through watch_files' own writer, then break it as its defect says."""
    if state.defect == "missing":
        return
    if state.defect == "a_folder":
        path.mkdir(parents=True)
        return
    if state.defect == "under_a_file":  # --state names a file inside what is a file
        path.parent.parent.mkdir(parents=True, exist_ok=True)
        path.parent.write_text("a file", encoding="utf-8")
        return
    watch_files.write_state(path, [entry.judgment() for entry in state.entries])
    data: Any = json.loads(path.read_text(encoding="utf-8"))
    first = {"package": "jax", "version": "0.9.9", "baseline": dict(LOCK), "verdict": "SAFE"}
    broken: dict[str, Any] = {
        "no_schema": {"judged": data["judged"]},
        "newer_schema": {**data, "schema_version": watch_files.STATE_VERSION + 1},
        "older_schema": {**data, "schema_version": watch_files.STATE_VERSION - 1},
        "bool_schema": {**data, "schema_version": True},
        "judged_not_list": {**data, "judged": {"0.9.0": "SAFE"}},
        "entry_not_object": {**data, "judged": [*data["judged"], "SAFE"]},
        "unknown_field": {**data, "judged": [*data["judged"], {**first, "trusted": True}]},
        "mistyped_field": {**data, "judged": [*data["judged"], {**first, "regressed": "m::t", "tests": "3"}]},
        "bad_verdict": {**data, "judged": [*data["judged"], {**first, "verdict": "OK"}]},
        "not_object": [data],
    }
    if state.defect == "not_json":
        path.write_text(path.read_text(encoding="utf-8")[:-9], encoding="utf-8")
    elif state.defect == "not_utf8":
        path.write_bytes(path.read_bytes().replace(b'"SAFE"', b'"SAFE\xff"').replace(b"}\n", b"\xfe}\n"))
    elif state.defect in broken:
        path.write_text(json.dumps(broken[state.defect]), encoding="utf-8")


# --- the stored range check ------------------------------------------------------------------------------------------

#: What can be wrong with a stored range check: each makes it evidence of nothing the docs may state.
RANGE_DEFECTS = ("missing", "not_json", "not_object", "newer_schema", "older_schema", "edges_not_list",
                 "edge_not_object", "edge_without_status", "edge_mistyped", "unknown_status", "counts_disagree",
                 "no_probes", "inside_uncounted", "options_mistyped", "edge_twice", "inside_contradicted",
                 VERSION_1 := "version_1")
STATUSES = ("confirmed", WRONG := "wrong", "unchecked", "bounded by the case's needs")


@dataclass(frozen=True)
class RangeCheck:
    """A stored range check as generated: each edge's status, and what is wrong with the file."""

    statuses: tuple[str, ...]
    defect: str | None

    @property
    def sound(self) -> bool:
        """Whether the file is a range check whose rows and counts agree (one of version 1, the bounds-only and the
        first inside-probing checker's, is read through its migration)."""
        return self.defect in (None, VERSION_1)


range_checks = st.builds(RangeCheck, statuses=st.lists(st.sampled_from(STATUSES), max_size=4).map(tuple),
                         defect=st.one_of(st.none(), st.sampled_from(RANGE_DEFECTS)))


def edge(number: int, status: str) -> dict[str, Any]:
    """One edge row as harness.tools.ranges writes it."""
    return {"case": f"sharded_gathers::test_{number}", "package": "jax", "declared": ">=0.9.0",
            "source": "changed since jax>=0.9.0", "status": status,
            "found": None if status == "confirmed" else ">=0.9.1", "why": "" if status == "confirmed" else "it held"}


def write_range_check(path: Path, check: RangeCheck) -> None:
    """Write `check` at `path` through harness.outputs' writer, then break it as its defect says."""
    if check.defect == "missing":
        return
    rows = [edge(number, status) for number, status in enumerate(check.statuses)]
    content: dict[str, Any] = {"probes": 3, "budget": 10, "wrong": check.statuses.count("wrong"),
                               "unchecked": check.statuses.count("unchecked"), "edges": rows,
                               "needs_without_change": [], "options": {}, "commit": "9a59988",
                               "cases": {row["case"]: {"digest": "ab12", "commit": "9a59988"} for row in rows}}
    defect = check.defect
    if defect == "edges_not_list":
        content["edges"] = {"0": rows}
    elif defect == "edge_not_object":
        content["edges"] = [*rows, "confirmed"]
    elif defect == "edge_without_status":
        content["edges"] = [*rows, {k: v for k, v in edge(9, "confirmed").items() if k != "status"}]
    elif defect == "edge_mistyped":
        content["edges"] = [*rows, {**edge(9, "confirmed"), "case": 9, "declared": None}]
    elif defect == "unknown_status":
        content["edges"] = [*rows, edge(9, "fine")]
    elif defect == "counts_disagree":
        content["wrong"] = content["wrong"] + 1
    elif defect == "no_probes":
        del content["probes"]
    elif defect == "inside_uncounted":
        content["edges"] = [*rows, {**edge(9, "confirmed"), "inside": "1 of 2 releases inside probed: 0.9.1"}]
    elif defect == "options_mistyped":
        content["options"] = {"override": "flax==0.12.4"}
    elif defect == "edge_twice":  # two documents pasted together: one edge confirmed and wrong
        content["edges"] = [*rows, edge(9, "confirmed"), edge(9, "wrong")]
        content["wrong"] = content["wrong"] + 1
    elif defect == "inside_contradicted":  # its text says a release inside was judged, its counts none
        content["edges"] = [*rows, {**edge(9, "confirmed"), "inside": "1 of 2 releases inside probed: 0.9.1",
                                    "inside_releases": 2, "inside_judged": 0}]
    path.parent.mkdir(parents=True, exist_ok=True)
    outputs.write_ranges(path.parent, content)
    written = path.parent / outputs.RANGES_JSON.name
    if written != path:
        written.replace(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if defect == "not_json":
        path.write_text(path.read_text(encoding="utf-8")[:-5], encoding="utf-8")
    elif defect == "not_object":
        path.write_text(json.dumps([data]), encoding="utf-8")
    elif defect in ("newer_schema", "older_schema"):
        # Older than any version: 0.
        version = outputs.RANGES_JSON.version + 1 if defect == "newer_schema" else 0
        path.write_text(json.dumps({**data, "schema_version": version}), encoding="utf-8")
    elif defect == VERSION_1:
        old = {k: v for k, v in data.items() if k not in ("options", "commit", "cases")}
        old["edges"] = [{**row, "inside": "1 of 2 releases inside probed: 0.9.1"} for row in data["edges"]]
        path.write_text(json.dumps({**old, "schema_version": 1}), encoding="utf-8")


# --- the command line's pins -----------------------------------------------------------------------------------------

PIN_PACKAGES = ("jax", "jaxlib", "flax", "JAX", "Flax")
pin_lists = st.lists(
    st.lists(st.builds("{}=={}".format, st.sampled_from(PIN_PACKAGES), st.sampled_from(("0.9.1", "0.9.2"))),
             min_size=1, max_size=3).map(",".join),
    min_size=1, max_size=3)


def named(specs: list[str]) -> list[str]:
    """Each package a list of pin arguments names, once per time it is named (lower case)."""
    return [spec.split("==")[0].lower() for text in specs for spec in text.split(",") if spec]
