"""A package index for resolution tests, offline: a folder of stub wheels (metadata only) that uv reads as
`--find-links`, with a cell's pins offered beside releases that do not match them.

`offer(folder, cell)` writes what an accelerator cell resolves: jax with its backend extra (a range of plugins, as
an index whose jax does not pin one to its own release would offer; or libtpu as PyPI's jax pins it), jaxlib, flax,
the plugin and pjrt of the cell's jaxlib and of the releases on either side, libtpu of jax's pin and a newer one,
and the harness's own requirements. `use(monkeypatch, folder)` points uv at the folder alone.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from harness.host import cellplugin
from harness.host.matrix import Cell

#: jax's own [tpu] pin, as PyPI's metadata declares it (uv pip compile 'jax[tpu]==0.11.2' on 2026-11-26), the
#: libtpu it resolves to, and a newer libtpu the fake index offers beside it.
LIBTPU = {"0.11.2": ("0.0.48.*", "0.0.48.1", "0.0.49")}


def wheel(folder: Path, name: str, version: str, requires: tuple[str, ...] = (), extras: tuple[str, ...] = ()) -> Path:
    """A py3-none-any wheel of `name` `version` whose metadata declares `requires` and `extras`, and nothing else."""
    stem = f"{name.replace('-', '_')}-{version}"
    metadata = [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                *(f"Provides-Extra: {extra}\n" for extra in extras), *(f"Requires-Dist: {r}\n" for r in requires)]
    path = folder / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{stem}.dist-info/METADATA", "".join(metadata))
        archive.writestr(f"{stem}.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{stem}.dist-info/RECORD", "")
    return path


def neighbours(version: str) -> list[str]:
    """The release itself and one on either side of it (0.11.2 -> 0.11.1, 0.11.2, 0.11.3)."""
    *head, last = Version(version).release
    return [".".join(map(str, (*head, last + step))) for step in (-1, 0, 1) if last + step >= 0]


def offer(folder: Path, cell: Cell, *, as_pypi: bool = False) -> None:
    """Stub wheels for everything `cell` resolves, its runtime offered at mismatched releases too; `as_pypi`: jax's
    extra pins the plugin to jax's own release, as PyPI's jax does."""
    folder.mkdir(parents=True, exist_ok=True)
    plugin, pjrt = f"jax-{cell.backend}-plugin", f"jax-{cell.backend}-pjrt"
    lowest = neighbours(cell.jaxlib)[0]
    # Any plugin from an older release up (PyPI's jax pins its own): the resolver alone would take the newest.
    plugins = f"=={cell.jax}" if as_pypi else f">={lowest}"
    declared = {"cuda12": f"{plugin}[with-cuda]{plugins}", "cuda13": f"{plugin}[with-cuda]{plugins}",
                "tpu": f"libtpu=={LIBTPU[cell.jax][0]}" if cell.backend == "tpu" else ""}
    wheel(folder, "jax", cell.jax, (f"jaxlib>={lowest}", f"{declared[cell.backend]}; extra == '{cell.backend}'",
                                    f"jaxlib=={cell.jaxlib}; extra == '{cell.backend}'"), (cell.backend,))
    for version in neighbours(cell.jaxlib):
        wheel(folder, "jaxlib", version)
        if cell.backend.startswith("cuda"):
            wheel(folder, plugin, version, (f"{pjrt}=={version}",), ("with-cuda",))
            wheel(folder, pjrt, version)
    if cell.backend == "tpu":
        for version in LIBTPU[cell.jax][1:]:
            wheel(folder, "libtpu", version)
    wheel(folder, "flax", cell.flax)
    for line in cellplugin.dependencies():
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate({"python_version": cell.python}):
            floor = next((s.version for s in requirement.specifier if s.operator in (">=", "==")), "1.0")
            wheel(folder, requirement.name, floor)


def use(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Resolve from `folder` alone: no index, no network, no interpreter download."""
    for name, value in {"UV_NO_INDEX": "1", "UV_FIND_LINKS": str(folder), "UV_OFFLINE": "1",
                        "UV_PYTHON_DOWNLOADS": "never", "UV_NO_CACHE": "1"}.items():
        monkeypatch.setenv(name, value)
