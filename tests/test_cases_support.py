"""cases/_support.py and the corpus's device declarations: meshes scale to the devices a cell has, a jax flag
turned on for a block is back as it was after it, and every family's smoke case applies on one device (read from
source; jax is faked, the tests' venv has none)."""

from __future__ import annotations

import ast
import importlib
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cell.source import case_files

CORPUS = Path(__file__).resolve().parents[1] / "cases"


class _FakeMesh:
    def __init__(self, devices: object, names: tuple[str, ...]) -> None:
        self.devices, self.axis_names = devices, names


class _FakeConfig:
    """jax.config as the cases use it: flags read as attributes, set with update()."""

    def __init__(self) -> None:
        self.jax_use_shardy_partitioner = False

    def update(self, name: str, value: object) -> None:
        setattr(self, name, value)


def _support(monkeypatch: pytest.MonkeyPatch, count: int) -> types.ModuleType:
    """cases._support imported afresh against a fake jax with `count` devices."""
    jax = types.ModuleType("jax")
    sharding = types.ModuleType("jax.sharding")
    sharding.Mesh = _FakeMesh  # type: ignore[attr-defined]
    jax.sharding = sharding  # type: ignore[attr-defined]
    jax.Device = object  # type: ignore[attr-defined]
    jax.config = _FakeConfig()  # type: ignore[attr-defined]
    jax.devices = lambda: [f"d{i}" for i in range(count)]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jax", jax)
    monkeypatch.setitem(sys.modules, "jax.sharding", sharding)
    monkeypatch.delitem(sys.modules, "cases._support", raising=False)
    return importlib.import_module("cases._support")


@pytest.fixture(autouse=True)
def _forget_the_fake() -> Iterator[None]:
    yield
    sys.modules.pop("cases._support", None)


@pytest.mark.parametrize(("count", "size"), [(1, 1), (2, 2), (3, 2), (4, 4), (6, 4), (8, 8), (16, 8)])
def test_a_mesh_spans_the_largest_power_of_two_the_cell_has_up_to_8(monkeypatch: pytest.MonkeyPatch, count: int,
                                                                      size: int) -> None:
    support = _support(monkeypatch, count)
    assert support.mesh_size() == size
    assert support.mesh_devices() == [f"d{i}" for i in range(size)]
    assert support.line_mesh("x").devices.shape == (size,)


@pytest.mark.parametrize(("count", "shape"), [(1, (1, 1)), (2, (1, 2)), (4, (2, 2)), (6, (2, 2)), (8, (2, 4))])
def test_the_data_model_mesh_is_2x4_on_8_devices_and_keeps_model_split_on_fewer(monkeypatch: pytest.MonkeyPatch,
                                                                                count: int,
                                                                                shape: tuple[int, int]) -> None:
    support = _support(monkeypatch, count)
    mesh = support.data_model_mesh()
    assert support.data_model_shape() == shape and mesh.devices.shape == shape
    assert mesh.axis_names == ("data", "model")


def test_a_flag_turned_on_for_a_block_is_back_as_it_was_after_it(monkeypatch: pytest.MonkeyPatch) -> None:
    support = _support(monkeypatch, 1)
    config = sys.modules["jax"].config
    with support.config_on("jax_use_shardy_partitioner"):
        assert config.jax_use_shardy_partitioner is True
    assert config.jax_use_shardy_partitioner is False


def test_a_flag_turned_on_for_a_block_that_raises_is_back_as_it_was_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # The cell's next case must not run under a flag a failed case left on.
    support = _support(monkeypatch, 1)
    config = sys.modules["jax"].config
    with pytest.raises(ValueError, match="the case failed"), support.config_on("jax_use_shardy_partitioner"):
        raise ValueError("the case failed")
    assert config.jax_use_shardy_partitioner is False


def _declared(source: str) -> list[tuple[str, int, bool]]:
    """(test name, devices declared, smoke) of each @case-decorated test of a module's source."""
    found: list[tuple[str, int, bool]] = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "case":
                words = {kw.arg: kw.value for kw in decorator.keywords}
                devices, smoke = words.get("devices"), words.get("smoke")
                count = int(devices.value) if isinstance(devices, ast.Constant) else 1  # type: ignore[arg-type]
                found.append((node.name, count, isinstance(smoke, ast.Constant) and smoke.value is True))
    return found


def _smoke_cases_needing_more_than_one_device(source: str) -> list[str]:
    return [name for name, devices, smoke in _declared(source) if smoke and devices > 1]


def test_a_smoke_case_on_one_device_passes_the_rule() -> None:
    assert _smoke_cases_needing_more_than_one_device("@case(F, devices=1, smoke=True)\ndef test_a(): ...\n") == []


def test_a_smoke_case_needing_8_devices_is_named() -> None:
    source = "@case(F, devices=8, smoke=True)\ndef test_a(): ...\n@case(F, devices=8)\ndef test_b(): ...\n"
    assert _smoke_cases_needing_more_than_one_device(source) == ["test_a"]


@pytest.mark.parametrize("path", case_files(CORPUS, builtin=True), ids=lambda p: p.name)
def test_every_smoke_case_of_the_corpus_applies_on_one_device(path: Path) -> None:
    assert _smoke_cases_needing_more_than_one_device(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", case_files(CORPUS, builtin=True), ids=lambda p: p.name)
def test_every_case_declares_a_device_count_its_meshes_can_have(path: Path) -> None:
    """Meshes span a power of two up to 8 devices (mesh_size), so a case can only need one of those counts."""
    assert {devices for _, devices, _ in _declared(path.read_text(encoding="utf-8"))} <= {1, 2, 4, 8}
