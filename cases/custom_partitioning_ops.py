"""custom_partitioning ops as a library (jaxDecomp, an FFT or transpose kernel) defines them: a Shardy sharding rule,
a partition callback that builds its shardings from the mesh it is handed, jitted on arrays split over a mesh.

Each case is a report's own reproducer written the way the library's code is, asserts values, output shardings and
what the callback was told, and cites the report; its range is a known breakage (cases/known_breakages.toml),
measured on both sides. The ops are built inside the cases: def_partition takes sharding_rule= from jax 0.5.0 only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import config_on, explicit_mesh, line_mesh
from harness.case import accepts, api, case

FAMILY = "sharded_gathers"

SHARDING_RULE = accepts("jax.experimental.custom_partitioning.custom_partitioning.def_partition", "sharding_rule")
EXPLICIT = [api("jax.sharding.AxisType"), accepts("jax.make_mesh", "axis_types")]

ROWS, COLUMNS = 8, 32


def _partitioned(body: Callable[[jax.Array], jax.Array], rule: str, seen: list[Any] | None = None) -> Any:
    """`body` as a custom_partitioning op whose partition callback runs it on each block, keeping the shardings it
    is handed (and noting the mesh's axis types in `seen`)."""
    from jax.experimental.custom_partitioning import custom_partitioning

    op = custom_partitioning(body)

    def partition(mesh, arg_shapes, result_shape):  # type: ignore[no-untyped-def]
        if seen is not None:
            seen.append(tuple(mesh.axis_types))
        return mesh, body, result_shape.sharding, tuple(arg.sharding for arg in arg_shapes)

    def infer(mesh, arg_shapes, result_shape):  # type: ignore[no-untyped-def]
        # GSPMD's callback (Shardy reads the rule): the rows stay split as the input's are.
        return NamedSharding(mesh, P(arg_shapes[0].sharding.spec[0], None))

    op.def_partition(partition=partition, infer_sharding_from_operands=infer, sharding_rule=rule)
    return op


def _pair_sums(block: jax.Array) -> jax.Array:
    return block[:, ::2] + block[:, 1::2]


@case(FAMILY, devices=2, needs=[SHARDING_RULE], cites=("jax-ml/jax#31678",))
def test_shardy_rule_naming_one_factor_for_two_sizes() -> None:
    """A custom_partitioning op whose Shardy rule "i k -> i k" names k for 32 columns in and 16 out, jitted on rows
    split over a mesh, gives each row's pairwise column sums, still split by rows."""
    mesh = line_mesh("rows")
    x = np.arange(ROWS * COLUMNS, dtype=np.float32).reshape(ROWS, COLUMNS)
    # Shardy on, as code moving to it sets it (the default from jax 0.7.0).
    with config_on("jax_use_shardy_partitioner"):
        out = jax.jit(_partitioned(_pair_sums, "i k -> i k"))(jax.device_put(x, NamedSharding(mesh, P("rows", None))))
    np.testing.assert_array_equal(np.asarray(out), x[:, ::2] + x[:, 1::2])
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("rows", None)), 2)


@case(FAMILY, devices=2, needs=[SHARDING_RULE, *EXPLICIT], cites=("jax-ml/jax#35299",))
def test_partition_callback_is_handed_the_explicit_mesh() -> None:
    """A custom_partitioning op jitted on rows split over an Explicit mesh doubles them, and its partition callback
    is handed that mesh with its axis Explicit, as the library's sharding logic reads it."""
    from jax.sharding import AxisType

    mesh = explicit_mesh((2,), ("x",))
    x = np.arange(4 * 4, dtype=np.float32).reshape(4, 4)
    seen: list[Any] = []
    # Shardy on, as code moving to it sets it (the default from jax 0.7.0).
    with config_on("jax_use_shardy_partitioner"):
        out = jax.jit(_partitioned(lambda block: 2 * block, "i j -> i j", seen))(
            jax.device_put(x, NamedSharding(mesh, P("x", None))))
    np.testing.assert_array_equal(np.asarray(out), 2 * x)
    assert seen == [(AxisType.Explicit,)], f"the partition callback saw axis types {seen}"
