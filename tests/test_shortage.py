"""harness.cell.shortage: jax's too-few-devices errors, each pattern tested on the messages jax itself raised.

The messages are quoted from real runs: the H200 trainer records (shared/gpu/h200-2026-11-26/trainer, jax 0.11.2 on
one GPU), and jax 0.4.38, 0.8.3, 0.10.2 and 0.12.0.1 on 2 CPU devices (make_mesh((2, 2)), create_device_mesh((2, 4)),
pmap over 4 rows). The same patterns were checked in cells (a class-based project whose conftest.py builds a
make_mesh((1, tp)) fixture, a body calling create_device_mesh((2,)), a pmap over 2 rows, on 1 and 2 devices): on jax
0.4.38 all three read "needs 2 devices, cell has 1" on one device and pass on two; on jax 0.10.2 and 0.12.0.1 the
mesh ones do, and the pmap keeps failing with the countless "cannot select an axis to squeeze out" error.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.cell import shortage
from harness.formats import ShardmatrixError

#: (jax version, message) of make_mesh asked for more devices than there are.
MAKE_MESH = [
    ("0.11.2 (H200)", "Number of devices 1 must be >= the product of mesh_shape (1, 2)"),
    ("0.4.38", "Number of devices 2 must be >= the product of mesh_shape (2, 2)"),
    ("0.12.0.1", "Number of devices 2 must be >= the product of mesh_shape (2, 2)"),
]
#: create_device_mesh, which also raises this when there are more devices than the shape uses.
CREATE_DEVICE_MESH_SHORT = [
    ("0.4.38", "Number of devices 2 must equal the product of mesh_shape (2, 4)"),
    ("0.12.0.1", "Number of devices 2 must equal the product of mesh_shape (2, 4)"),
    ("0.12.0.1", "Number of devices 1 must equal the product of mesh_shape (8,)"),
]
CREATE_DEVICE_MESH_SURPLUS = ("0.12.0.1", "Number of devices 2 must equal the product of mesh_shape (1, 1)")
#: pmap before jax 0.8 (from 0.8.3 on, a short pmap raises "cannot select an axis to squeeze out ...", no count).
PMAP = [
    ("0.4.38", "compiling computation that requires 4 logical devices, but only 2 XLA devices are available "
               "(num_replicas=4)"),
    ("0.4.38", "compiling computation `step` that requires 8 replicas, but only 1 XLA devices are available."),
]


@pytest.mark.parametrize(("jax", "message"), MAKE_MESH)
def test_make_mesh_asks_for_the_product_of_its_shape(jax: str, message: str) -> None:
    expected = 2 if "(1, 2)" in message else 4
    assert shortage.devices_asked("ValueError", message) == expected


@pytest.mark.parametrize(("jax", "message"), CREATE_DEVICE_MESH_SHORT)
def test_create_device_mesh_asks_for_the_product_of_its_shape(jax: str, message: str) -> None:
    assert shortage.devices_asked("ValueError", message) == 8


def test_create_device_mesh_with_devices_to_spare_asks_for_fewer_than_there_are() -> None:
    """The same error with a smaller shape: the count it asks for is no more than the cell has (outcomes then
    leaves it a failure)."""
    assert shortage.devices_asked("ValueError", CREATE_DEVICE_MESH_SURPLUS[1]) == 1
    assert shortage.devices_asked("ValueError", "Number of devices 2 must equal the product of mesh_shape (1,)") == 1


@pytest.mark.parametrize(("jax", "message"), PMAP)
def test_pmap_asks_for_its_replicas(jax: str, message: str) -> None:
    assert shortage.devices_asked("ValueError", message) in (4, 8)


@pytest.mark.parametrize(("error_type", "message"), [
    ("ValueError", "cannot select an axis to squeeze out which has size not equal to one, got shape=(2, 3) and "
                   "dimensions=(0,)"),
    ("ValueError", "Received incompatible devices for jitted computation"),
    ("AssertionError", "Number of devices 1 must be >= the product of mesh_shape (1, 2)"),
    (None, ""),
])
def test_other_errors_ask_for_nothing(error_type: str | None, message: str) -> None:
    """Not one of jax's too-few-devices errors, or the right words raised as another exception (a test's own)."""
    assert shortage.devices_asked(error_type, message) is None


def test_the_patterns_are_one_data_file_with_a_count_in_each() -> None:
    loaded = shortage.patterns()
    assert {p.name for p in loaded} == {"make_mesh", "create_device_mesh", "pmap"}
    assert all({"asked", "shape"} & set(p.regex.groupindex) for p in loaded)
    assert shortage.PATTERNS == Path(shortage.__file__).with_name("shortage.toml")


def test_a_patterns_file_that_is_not_toml_is_named_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "shortage.toml"
    broken.write_text("[[pattern]\n")
    with pytest.raises(ShardmatrixError, match=rf"^{broken}: malformed TOML \("):
        shortage.patterns(broken)


@pytest.mark.parametrize("message", [
    "compiling computation that requires 9 logical devices, but only 8 XLA devices are available (num_replicas=9, "
    "num_partitions=1)",
    "compiling a primitive computation `while` that requires 4 replicas, but only 2 XLA devices are available on "
    "backend cpu.",
])
def test_pmap_in_its_other_wordings_asks_for_its_replicas(message: str) -> None:
    assert shortage.devices_asked("ValueError", message) in (4, 9)


@pytest.mark.parametrize("message", [
    # A test's own ValueError quoting jax's words inside its message: a failure, never a device shortage.
    "expected the sharded result; got: Number of devices 1 must be >= the product of mesh_shape (1, 8)",
    "Number of devices 1 must be >= the product of mesh_shape (1, 8) was not raised by my_fixture",
    "bad config (requires 8 replicas, but only 1 XLA devices are available)",
    "note: compiling computation that requires 8 replicas, but only 1 XLA devices are available.",
])
def test_jaxs_words_inside_another_valueerror_ask_for_nothing(message: str) -> None:
    assert shortage.devices_asked("ValueError", message) is None
    assert not any(re.search(p.as_raised(), f"ValueError: {message}") for p in shortage.patterns())


def test_only_the_first_line_of_the_exception_is_read() -> None:
    jax_said = "Number of devices 1 must be >= the product of mesh_shape (1, 2)"
    assert shortage.devices_asked("ValueError", f"{jax_said}\nmore context") == 2
    assert shortage.devices_asked("ValueError", f"my own error\n{jax_said}") is None


@pytest.mark.parametrize(("jax", "message"), MAKE_MESH + CREATE_DEVICE_MESH_SHORT + PMAP)
def test_each_error_as_raised_is_matched_by_one_pattern(jax: str, message: str) -> None:
    """As pytest-rerunfailures writes an exception ('ValueError: <message>'), which the runner does not retry."""
    assert sum(bool(re.search(p.as_raised(), f"ValueError: {message}")) for p in shortage.patterns()) == 1


@pytest.mark.parametrize(("jax", "message"), MAKE_MESH + PMAP)
def test_the_same_words_raised_as_another_exception_are_matched_by_none(jax: str, message: str) -> None:
    assert not any(re.search(p.as_raised(), f"AssertionError: {message}") for p in shortage.patterns())
