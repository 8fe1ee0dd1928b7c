"""Hostile files the tool reads beside a cell's results, as Hypothesis strategies (issue 37): each draws a sound file
or one with a defect a skeptical maintainer would craft (missing, malformed, a newer or older schema, another cell's,
contradicting the records), so the property "no verdict better than its evidence" (tests/test_no_verdict_better_
than_evidence.py) can state over them what it states over results trees.

- precision_files: `<cell>.precision.json` (harness.celldocuments.write_precision), the accelerator's re-run at the
  highest matmul precision. Only a sound file may label a divergence "default matmul precision".
- machine_files: `<cell>.machine.json` (harness.celldocuments.write_machine), the stack the cell ran on. A defective one
  leaves no cell reading a works tier and no compare SAFE.
- collection_files: `<cell>.collected.json` (harness.celldocuments.write_collection), the cases the cell was to run.
- one_sided_sides and strict_xpass_sides: the two sides of a compare, across device counts or runs, where a case
  could not run on one side and fails on the other (never a plain SAFE, never silent), or a project's strict xfail
  that passes on the candidate (a regression).

Each file strategy takes the facts of the cell it is written beside, and yields a Hostile whose `defect` is empty
only when the file is sound; `write()` puts it beside a results file through the path harness.cellrecord names.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from harness import celldocuments, cellrecord, vocabulary

#: A cell id no file of the cell under test names.
OTHER_CELL = "jax0.9.2-flax0.12.8-py3.11"


@dataclass(frozen=True)
class Hostile:
    """One file beside a cell's results: its suffix (harness.cellrecord's name for it), its text (None: left absent),
    and what is wrong with it ('' when sound; 'missing' is sound for a file a cell may lack)."""

    suffix: str
    text: str | None
    defect: str = ""

    @property
    def sound(self) -> bool:
        """Whether a verdict may stand on this file as it is (absent counts as sound: a cell may have none)."""
        return self.defect in ("", "missing")

    def write(self, results_file: Path) -> Path:
        """Write (or, for an absent file, remove) the file beside `results_file`; its path."""
        path = Path(results_file).with_suffix(self.suffix)
        if self.text is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.text, encoding="utf-8")
        return path


def _broken(suffix: str, document: dict[str, Any], newest: int) -> dict[str, Hostile]:
    """The defects every versioned file can have, made from its sound document."""
    return {
        "missing": Hostile(suffix, None, "missing"),
        "not_json": Hostile(suffix, json.dumps(document)[:-7], "not_json"),
        "not_an_object": Hostile(suffix, json.dumps([document]), "not_an_object"),
        "newer_schema": Hostile(suffix, json.dumps({**document, "schema_version": newest + 1}), "newer_schema"),
        "older_schema": Hostile(suffix, json.dumps({**document, "schema_version": 0}), "older_schema"),
        "no_schema": Hostile(suffix, json.dumps({k: v for k, v in document.items() if k != "schema_version"}),
                             "no_schema"),
        "other_cell": Hostile(suffix, json.dumps({**document, "cell_id": OTHER_CELL}), "other_cell"),
    }


def precision_files(cell_id: str, cases: Sequence[str]) -> st.SearchStrategy[Hostile]:
    """A precision re-run file of `cell_id` whose re-run of each of `cases` passed (what would name their divergence
    'default matmul precision'), sound or with a defect: the common ones, no record of the precision it ran at, a
    lower precision, or a case that is not an outcome. Whether a sound file may explain a case also depends on the
    records: only a case whose default-precision failure was a failed assertion was re-run."""
    setting, value = vocabulary.MATMUL_PRECISION_SETTING
    document: dict[str, Any] = {
        "schema_version": celldocuments.PRECISION_SCHEMA_VERSION, "cell_id": cell_id, "settings": {setting: value},
        "cases": {case: {"status": vocabulary.PASSED, "error_type": None, "error_message": None} for case in cases}}
    suffix = cellrecord.PRECISION_SUFFIX
    defects = {
        "": Hostile(suffix, json.dumps(document)),
        **_broken(suffix, document, celldocuments.PRECISION_SCHEMA_VERSION),
        "no_setting": Hostile(suffix, json.dumps({**document, "settings": {}}), "no_setting"),
        "other_precision": Hostile(suffix, json.dumps({**document, "settings": {setting: "default"}}),
                                   "other_precision"),
        "case_not_outcome": Hostile(suffix, json.dumps({**document, "cases": dict.fromkeys(cases, "passed")}),
                                    "case_not_outcome"),
    }
    return st.sampled_from(sorted(defects.values(), key=lambda hostile: hostile.defect))


def machine_files(cell_id: str, jax: str, jaxlib: str, backend: str = "cpu",
                  device_kind: str = "cpu") -> st.SearchStrategy[Hostile]:
    """A machine file of `cell_id` whose stack agrees with the cell (the versions its id and freeze name, the backend
    and device kind its records ran on), or one that disagrees: the common defects, another jax or jaxlib, a plugin
    of another version than jaxlib that the writer's own `mismatched` list hides, another backend or device kind,
    or a `jax` entry not shaped as written."""
    def stack(**jax_fields: Any) -> dict[str, Any]:
        asked = {"backend": backend, "devices": [{"kind": device_kind, "compute_capability": None,
                                                  "memory_stats": None}],
                 "distributions": {"jax": jax, "jaxlib": jaxlib}, "mismatched": [], **jax_fields}
        return {"schema_version": celldocuments.MACHINE_SCHEMA_VERSION, "cell_id": cell_id, "jax": asked,
                "nvidia_smi": None, "settings": {}, "x64": False, "matmul_precision": None}

    suffix = cellrecord.MACHINE_SUFFIX
    document = stack()
    defects = {
        "": Hostile(suffix, json.dumps(document)),
        **_broken(suffix, document, celldocuments.MACHINE_SCHEMA_VERSION),
        "other_jax": Hostile(suffix, json.dumps(stack(distributions={"jax": "0.0.1", "jaxlib": jaxlib})),
                             "other_jax"),
        "other_jaxlib": Hostile(suffix, json.dumps(stack(distributions={"jax": jax, "jaxlib": "0.0.1"})),
                                "other_jaxlib"),
        "hidden_plugin_mismatch": Hostile(suffix, json.dumps(stack(distributions={
            "jax": jax, "jaxlib": jaxlib, "jax-cuda12-plugin": "0.0.1"}, mismatched=[])), "hidden_plugin_mismatch"),
        "other_backend": Hostile(suffix, json.dumps(stack(backend="tpu" if backend != "tpu" else "cpu")),
                                 "other_backend"),
        "other_device_kind": Hostile(suffix, json.dumps(stack(devices=[{"kind": f"not {device_kind}"}])),
                                     "other_device_kind"),
        "not_shaped": Hostile(suffix, json.dumps({**document, "jax": "cpu"}), "not_shaped"),
    }
    return st.sampled_from(sorted(defects.values(), key=lambda hostile: hostile.defect))


def collection_files(cell_id: str, recorded: Sequence[str]) -> st.SearchStrategy[Hostile]:
    """A collection of `cell_id` naming exactly the `recorded` cases, or one with a defect: the common ones (a
    missing collection is a defect here: which cases the cell was to run is unknown), a case id that is not text,
    cases that are not a list, or a case the records do not hold (contradicting them)."""
    suffix = cellrecord.COLLECTION_SUFFIX
    document: dict[str, Any] = {"schema_version": celldocuments.COLLECTION_SCHEMA_VERSION, "cell_id": cell_id,
                                "cases": list(recorded)}
    broken = _broken(suffix, document, celldocuments.COLLECTION_SCHEMA_VERSION)
    defects = {
        "": Hostile(suffix, json.dumps(document)),
        **{name: found for name, found in broken.items() if name != "older_schema"},
        "missing": Hostile(suffix, None, "missing collection"),
        "case_not_text": Hostile(suffix, json.dumps({**document, "cases": [*recorded, 7]}), "case_not_text"),
        "cases_not_a_list": Hostile(suffix, json.dumps({**document, "cases": "all"}), "cases_not_a_list"),
        "unrecorded_case": Hostile(suffix, json.dumps({**document, "cases": [*recorded, "fam::test_never_ran"]}),
                                   "unrecorded_case"),
    }
    return st.sampled_from(sorted(defects.values(), key=lambda hostile: hostile.defect))


@dataclass(frozen=True)
class Sides:
    """The final statuses (and record fields) of one case on the two sides of a compare, beside steady passing
    cases: `before` and `after` are record field overrides; `left_out` says the case was judged by neither side (the
    verdict must carry a coverage and list it), `regression` that it is one (UNSAFE, listed)."""

    before: dict[str, Any]
    after: dict[str, Any]
    left_out: bool = False
    regression: bool = False
    devices: tuple[int, int] = (8, 8)
    steady: tuple[str, ...] = field(default=("fam::test_steady",))


def _short(needed: int, have: int) -> dict[str, Any]:
    return {"status": vocabulary.NOT_APPLICABLE, "reason": vocabulary.devices_reason(needed, have),
            "devices_needed": needed, "device_count": have}


def one_sided_sides() -> st.SearchStrategy[Sides]:
    """A case not applicable on one side (short of devices, the side's device count below what it needs, or an API
    the side lacks) that fails on the other, or one passing on the baseline that the candidate's devices leave out:
    across device counts (two cells of other counts) or across runs (one cell, two nights)."""
    absent = {"status": vocabulary.NOT_APPLICABLE, "reason": "jax.shard_map is absent"}
    failed = {"status": vocabulary.FAILED, "error_type": "AssertionError", "error_message": "values differ"}

    def build(needed: int, have: int, failing: dict[str, Any], api: bool, baseline_short: bool,
              passing_before: bool) -> Sides:
        lacking = absent if api else _short(needed, have)
        if passing_before:
            return Sides({"status": vocabulary.PASSED}, _short(needed, have), left_out=True, devices=(needed, have))
        if baseline_short:
            return Sides(lacking, failing, left_out=True, devices=(have, needed) if not api else (needed, needed))
        return Sides(failing, lacking, left_out=True, devices=(needed, have) if not api else (needed, needed))

    return st.builds(build, needed=st.sampled_from([2, 4, 8]), have=st.sampled_from([1]),
                     failing=st.sampled_from([failed, {**failed, "status": vocabulary.XFAILED}]),
                     api=st.booleans(), baseline_short=st.booleans(), passing_before=st.booleans())


def strict_xpass_sides() -> st.SearchStrategy[Sides]:
    """A project's strict xfail, xfailed on the baseline, that passes on the candidate: pytest fails it
    '[XPASS(strict)]', as its CI does: a regression. Its decoy, the same words quoted inside a real exception's
    message, is no regression."""
    xfailed = {"status": vocabulary.XFAILED, "error_type": "AssertionError", "error_message": "known bug"}
    strict = {"status": vocabulary.FAILED, "error_type": None,
              "error_message": f"{vocabulary.STRICT_XPASS_MARK} waits for an upstream fix"}
    decoy = {"status": vocabulary.FAILED, "error_type": "ValueError",
             "error_message": f"{vocabulary.STRICT_XPASS_MARK} quoted in a message"}
    return st.sampled_from([Sides(xfailed, strict, regression=True), Sides(xfailed, decoy)])
