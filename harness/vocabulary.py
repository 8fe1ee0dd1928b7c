"""The vocabulary every part of shardmatrix speaks: statuses and their classes, the reasons a record's status is read
by, and how a path reads in a report (the record itself, its schema, migrations and paths, is harness.cellrecord's).

Imported by the harness inside every cell (any jax, the cell's Python), by the host, and by reports/, which
imports nothing else of the harness. So it imports nothing but the standard library: a report can be
rebuilt from files with this module and pandas alone.

Every consumer asks this module what a status means (`status_class`, `is_passing`, ...) instead of keeping its
own list, so a status added here and left out of the classes fails a test, and a status read from a file that
this module does not know is UNKNOWN: never passing, never safe.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# --- statuses ---------------------------------------------------------------------------------------------------

PASSED = "passed"
FAILED = "failed"
ERROR = "error"
NOT_APPLICABLE = "not_applicable"
XFAILED = "xfailed"
XPASSED = "xpassed"
CRASHED = "crashed"
TIMEOUT = "timeout"
INSTALL_ERROR = "install_error"

#: Every status, in the order reports list them, with the one-line meaning the README repeats.
MEANINGS: dict[str, str] = {
    PASSED: "the case ran and every assertion held",
    FAILED: "the case ran and an assertion failed, the API under test raised, or a name it uses is missing",
    ERROR: "the case could not run: the cell's jax or flax do not import, its backend does not start, or setup "
           "failed",
    NOT_APPLICABLE: "the API or device count the case needs is absent in this cell (the reason names it)",
    XFAILED: "a known upstream breakage, declared as data, failed as expected (with the exception it declares)",
    XPASSED: "a known upstream breakage no longer fails: the known-breakage entry is stale",
    CRASHED: "the process running the case died (signal or exit code recorded)",
    TIMEOUT: "the case ran past its time limit and was stopped",
    INSTALL_ERROR: "the cell's environment could not be built, or its CI job produced no results",
}

ALL: tuple[str, ...] = tuple(MEANINGS)

# --- classes: what a status means for a verdict -------------------------------------------------------------------

#: The case works in this cell.
PASSING = "passing"
#: The case does not work in this cell: an answer, and a regression when it passed before.
BROKEN = "broken"
#: The case does not apply to this cell: an API or the devices it needs are absent.
ABSENT = "absent"
#: The harness could not give an answer for the case: it never ran to an end.
INFRASTRUCTURE = "infrastructure"
#: A status this vocabulary does not know (a newer writer, a corrupt file): never counted as good.
UNKNOWN = "unknown"

#: Each status belongs to exactly one class (tests/test_vocabulary.py checks it).
CLASSES: dict[str, frozenset[str]] = {
    PASSING: frozenset({PASSED, XPASSED}),
    BROKEN: frozenset({FAILED, ERROR, XFAILED}),
    ABSENT: frozenset({NOT_APPLICABLE}),
    INFRASTRUCTURE: frozenset({CRASHED, TIMEOUT, INSTALL_ERROR}),
}

_CLASS_OF: dict[str, str] = {status: name for name, members in CLASSES.items() for status in members}

#: Classes after which nothing is known about the case: a verdict that meets one is inconclusive.
INCONCLUSIVE: frozenset[str] = frozenset({INFRASTRUCTURE, UNKNOWN})


def status_class(status: object) -> str:
    """The class of a status; UNKNOWN for anything not in the vocabulary (None, a typo, a newer status)."""
    return _CLASS_OF.get(status, UNKNOWN) if isinstance(status, str) else UNKNOWN


def is_passing(status: object) -> bool:
    """Whether the case works (passed, or a known breakage that no longer breaks)."""
    return status_class(status) == PASSING


def is_broken(status: object) -> bool:
    """Whether the case ran to an answer and does not work."""
    return status_class(status) == BROKEN


def is_absent(status: object) -> bool:
    """Whether the case does not apply to the cell."""
    return status_class(status) == ABSENT


def is_inconclusive(status: object) -> bool:
    """Whether the status leaves the case's behaviour unknown (infrastructure, or a status nobody knows)."""
    return status_class(status) in INCONCLUSIVE


def is_problem(status: object) -> bool:
    """Whether a report lists the status among its problems: anything that neither passes nor is absent."""
    return status_class(status) not in (PASSING, ABSENT)


#: The reasons every case of a cell records when the cell cannot run cases at all (harness.cell.health): its jax
#: or flax do not import, or jax's backend does not start. A report calls such a cell broken.
PACKAGES_FAILED = "the cell's packages failed to import"
BACKEND_FAILED = "backend failed to start"
CELL_UNUSABLE_REASONS = (PACKAGES_FAILED, BACKEND_FAILED)


def is_cell_unusable(reason: object) -> bool:
    """Whether a case's reason says its whole cell could not run cases."""
    return isinstance(reason, str) and reason.startswith(CELL_UNUSABLE_REASONS)


#: The reason of an `error` case that ran out of device memory (harness.cell.outcomes): a fact about how the cell was
#: run (several processes on one device), not about the case, so never a regression.
OUT_OF_MEMORY = ("out of device memory (RESOURCE_EXHAUSTED): says nothing of the case; run it with fewer processes "
                 "on the device")


def is_out_of_memory(reason: object) -> bool:
    """Whether a case's reason says it ran out of device memory."""
    return isinstance(reason, str) and reason.startswith(OUT_OF_MEMORY)


#: pytest's report text for a strict xfail that passed: the start of a `failed` record's error message (its last error
#: line, harness.cell.recording) when a project's own strict xfail passed.
STRICT_XPASS_MARK = "[XPASS(strict)]"


def is_strict_xpass(status: object, error_type: object, error_message: object) -> bool:
    """Whether a record is a project's strict xfail that passed: `failed` with no exception, its message pytest's
    '[XPASS(strict)] ...'. That fails its CI, so after an xfail it is a regression (reports.verdicts.compare)."""
    return (status == FAILED and not (isinstance(error_type, str) and error_type)
            and isinstance(error_message, str) and error_message.lstrip().startswith(STRICT_XPASS_MARK))


#: The setting of an accelerator cell's re-run at the highest matmul precision (harness.host.precision): a
#: precision file (harness.results) that does not record it explains nothing.
MATMUL_PRECISION_SETTING = ("JAX_DEFAULT_MATMUL_PRECISION", "highest")
#: What a failed tolerance check raises (numpy.testing's assert_allclose, a plain assert).
ASSERTION = "AssertionError"


def is_precision_candidate(status: object, error_type: object) -> bool:
    """Whether a final record is one the re-run at the highest matmul precision takes: a failed assertion, the only
    failure a lower matmul precision can explain (harness.host.precision re-runs these, reports.verdicts.divergence
    names a divergence by the re-run only for these)."""
    return status == FAILED and error_type == ASSERTION


def plugin_mismatches(distributions: Mapping[str, object]) -> list[str]:
    """The plugin and pjrt distributions ('jax-cuda12-plugin') whose version is not jaxlib's, computed from the
    versions themselves (a machine file's own list of them is never trusted); libtpu versions differently: left
    out. A jaxlib that is not named makes every such distribution a mismatch: nothing shows it is jaxlib's."""
    jaxlib = distributions.get("jaxlib")
    return sorted(str(name) for name, version in distributions.items()
                  if str(name).startswith("jax-") and (not isinstance(jaxlib, str) or version != jaxlib))


#: How a frontier probe's cause starts when its pair could not be installed: written by the probe's judge
#: (reports.verdicts.frontier_judge), read by the search (shardmatrix.frontier_search), which tries another Python.
INSTALL_CAUSE = "cannot be installed"


#: The end of a declared known breakage's xfail reason: its ranges in brackets, then its link.
_BREAKAGE_REASON = re.compile(r"\[[^\]]*\] \S+$")


def breakage_reason(why: str, ranges: str, link: str) -> str:
    """The xfail reason of a declared known breakage: 'why [ranges] link' (the link last, where reports find it)."""
    return f"{why} [{ranges}] {link}".strip()


def is_breakage_reason(reason: object) -> bool:
    """Whether an xfail reason is a declared known breakage's ('why [ranges] link', breakage_reason())."""
    return isinstance(reason, str) and _BREAKAGE_REASON.search(reason) is not None


def is_known_breakage(status: object, known_breakage: object) -> bool:
    """Whether a result is a declared known upstream bug failing as declared: xfailed, and its record says a declared
    breakage applied (a test's own xfail mark is no known upstream bug: nothing checked its range or its link)."""
    return status == XFAILED and known_breakage is True


# --- devices --------------------------------------------------------------------------------------------------------

#: The reason of a case not applicable because the cell has too few devices (the plugin's gate and the shortage
#: patterns of a project's tests write it; the migration to schema 4 reads it back).
_DEVICES_REASON = re.compile(r"^needs (\d+) devices, cell has (\d+)")


def devices_reason(needed: int, have: int) -> str:
    """The reason of a case short of devices: 'needs 8 devices, cell has 1'."""
    return f"needs {needed} devices, cell has {have}"


def devices_needed(status: object, reason: object) -> int | None:
    """The devices a not-applicable case needed, read from its reason; None for any other status or reason."""
    if status != NOT_APPLICABLE or not isinstance(reason, str):
        return None
    found = _DEVICES_REASON.match(reason)
    return int(found.group(1)) if found else None


def is_short_of_devices(status: object, needed: object, have: object) -> bool:
    """Whether a record says its case did not apply because it needs more devices than its cell has: not
    applicable, with `devices_needed` above the cell's `device_count` (both whole numbers)."""
    counts = [value for value in (needed, have) if isinstance(value, int) and not isinstance(value, bool)]
    return status == NOT_APPLICABLE and len(counts) == 2 and counts[0] > counts[1]


# --- documented changes ---------------------------------------------------------------------------------------------

#: The keys of a record's `change` object (harness.case.Change writes it, reports/verdicts/documented.py reads it):
#: `since`, the requirement the change holds in ("jax>=0.9.0"; null for a deprecation that broke nothing yet);
#: `what` changed; `raises`, the exception class names a case written the old way fails with there; `warned`, the
#: requirement that warned (or null); `fix`; `kind`; `warning`, a part of the text it warned with inside `warned` (or
#: null); `error`, a part of the first line of the exception it raises inside `since` (or null). A record written
#: before `warning` or `error` existed lacks that key, which reads as null: no schema bump for an optional key.
CHANGE_KEYS: tuple[str, ...] = ("since", "what", "raises", "warned", "fix", "kind", "warning", "error")

#: The kind of a change that warns and has broken nothing yet: it has no `since` and no `raises`.
DEPRECATION = "deprecation"

#: Each kind of change, with how a report words it.
CHANGE_KINDS: dict[str, str] = {
    "default": "changed default",
    "removal": "removal after a warning",
    "api": "API change",
    "behaviour": "changed behaviour",
    DEPRECATION: "deprecated, not removed yet",
}

#: The packages a change's `since` may name: the releases a report and `nox -s upgrade` compare.
CHANGE_PACKAGES: tuple[str, ...] = ("jax", "flax")


# --- collection ------------------------------------------------------------------------------------------------

#: The name a collection failure is recorded under when a module yields no case at all.
COLLECTION_CASE = "<collection>"


# --- paths in what a report shows ------------------------------------------------------------------------------------

#: An absolute path up to and including a site-packages folder: what follows is the package-relative path.
_SITE_PACKAGES = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][^\s'\"()\[\]<>,:;]+)*?[\\/](?:site|dist)-packages[\\/]")
#: An interpreter's own library folder (the standard library of a venv's base Python).
_STDLIB = re.compile(r"(?:[\\/][^\s'\"()\[\]<>,:;]+)*?[\\/]lib[\\/]python\d+(?:\.\d+)?[\\/]")
#: Any other absolute path of two or more parts (a checkout, a temporary folder): its last part is kept. Not the
#: path of a URL (after ':' or '//'): a link in a reason must stay whole.
_ABSOLUTE = re.compile(r"(?<![\w.:/])(?:/[^\s'\"()\[\]<>,:;/]+){2,}")


def relative_paths(text: str) -> str:
    """Text with venv and interpreter paths made package-relative ('jax/_src/core.py'), other absolute paths cut to
    their last part; nothing else changes. Every report file shows paths so (the report's and the frontier's)."""
    if "/" not in text and "\\" not in text:
        return text
    found = _SITE_PACKAGES.sub("", text)
    found = _STDLIB.sub("", found)
    return _ABSOLUTE.sub(lambda match: match.group(0).rsplit("/", 1)[-1], found)



#: A GitHub issue or pull request link: its repository's name and number name it in a report.
_GITHUB_ITEM = re.compile(r"https://github\.com/[^/\s]+/([^/\s]+)/(?:issues|pull)/(\d+)")
_GITHUB_COMMIT = re.compile(r"https://github\.com/[^/\s]+/([^/\s]+)/commit/([0-9a-f]{7,40})$")


def link_name(link: str) -> str:
    """How a report names a link (a known breakage's, say): 'jax#40907' for a GitHub issue or pull request of
    jax-ml/jax, 'jax@4ab810b483' for a commit (as the census names one), anything else as itself. The grid
    (reports/views/verdict_text.py) and the frontier's table agree."""
    match = _GITHUB_ITEM.match(link)
    if match:
        return f"{match[1]}#{match[2]}"
    commit = _GITHUB_COMMIT.match(link)
    return f"{commit[1]}@{commit[2][:10]}" if commit else link
