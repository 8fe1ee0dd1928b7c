"""How the host reads uv's reasons (harness/host/uv.py)."""

from __future__ import annotations

from harness.host import uv


def test_uvs_reason_for_not_taking_a_lock_is_read_and_none_without_one() -> None:
    said = ("Resolving despite existing lockfile due to change in pre-release mode: `allow` vs. `if-necessary`\n"
            "Resolved 3 packages in 87ms\nerror: The lockfile at `uv.lock` needs to be updated, but `--check` was "
            "provided.\n")
    assert uv.stale_reason(said) == ("Resolving despite existing lockfile due to change in pre-release mode: `allow` "
                                     "vs. `if-necessary`")
    assert uv.stale_reason("error: The lockfile at `uv.lock` needs to be updated, but `--check` was provided.") is None
