"""harness.host.shipped: the corpus, the default matrix and pyproject found by one function, checkout or wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import shipped

ROOT = Path(__file__).resolve().parent.parent


def test_from_a_checkout_the_shipped_files_are_the_checkouts() -> None:
    assert shipped.shipped("cases") == ROOT / "cases"
    assert shipped.shipped("cases/known_breakages.toml").is_file()
    assert shipped.shipped("matrix.toml") == ROOT / "matrix.toml"
    assert shipped.in_checkout() and shipped.workspace() == ROOT / ".nox"


def test_a_file_that_is_not_shipped_is_refused() -> None:
    with pytest.raises(ValueError, match=r"noxfile\.py is not shipped"):
        shipped.shipped("noxfile.py")


def test_every_shipped_name_is_carried_by_the_wheel_where_the_installed_harness_looks(tmp_path: Path) -> None:
    from hatch_build import PACKAGE, stage

    targets = set(stage(ROOT, tmp_path).values())
    for name in shipped.SHIPPED:
        inside = f"{PACKAGE}/{shipped.FOLDER}/{name}"
        assert inside in targets or any(target.startswith(f"{inside}/") for target in targets), name
    # shipped() looks beside the installed harness: shardmatrix/harness/host/shipped.py's grandparent.
    assert f"{PACKAGE}/harness/host/shipped.py" in targets
