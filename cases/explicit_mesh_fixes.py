"""More jax fixes of array operations on sharded arrays, as model code calls them: the census's sharded_gathers rows
that branch c_gather measured in cells but left without a case (a sort's gradient, a select's condition).

Each case is the fix's own reproducer written the way a user's code is (a jitted step, the mesh its code builds),
asserts values and output shardings, and cites the report; its range is a known breakage
(cases/known_breakages.toml) whose end is the fix's first release, measured on both sides.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import ambient_mesh, explicit_mesh
from harness.case import accepts, api, case

FAMILY = "sharded_gathers"

EXPLICIT = [api("jax.sharding.AxisType"), accepts("jax.make_mesh", "axis_types")]


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax@e50b7439e7",))
def test_gradient_through_argsort_of_an_explicit_sharded_batch() -> None:
    """jax.grad of sum(argsort(x) * x) over rows split on an Explicit axis gives the sort indices as the gradient,
    split like x (from jax 0.8.2 sort demands equal shardings, and its JVP built the iota operand with none, a
    ShardingTypeError; fixed in jax 0.11.0).

    Cells: fails 0.5.3 to 0.6.2 (the JVP's gather had no Explicit rule), passes 0.7.0 to 0.8.1, fails 0.8.2 to
    0.10.2, passes 0.11.0 and 0.12.0.1 (jax releases, measured; 0.11 needs Python >= 3.12).
    """
    mesh = explicit_mesh((2,), ("x",))
    rows = np.tile(np.arange(8, dtype=np.float32)[::-1], (8, 1))
    with ambient_mesh(mesh):
        x = jax.device_put(rows, NamedSharding(mesh, P("x")))
        grad = jax.jit(jax.grad(lambda v: jnp.sum(jnp.argsort(v, axis=1) * v)))(x)
    np.testing.assert_array_equal(np.asarray(grad), np.argsort(rows, axis=1).astype(np.float32))
    assert grad.sharding.is_equivalent_to(NamedSharding(mesh, P("x", None)), 2)


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax#37853",))
def test_where_of_a_mask_made_under_the_mesh_and_an_explicit_sharded_vector() -> None:
    """Under set_mesh, a jitted jnp.where(mask, x, -x) of a boolean mask made by jnp and a vector split over an
    Explicit axis gives the elementwise choice (from jax 0.10.1 the mask is typed replicated on the mesh, and select
    refuses it beside split operands, a ShardingTypeError; not fixed in a release yet).

    Cells: passes 0.5.3 to 0.10.0, fails 0.10.1 to 0.12.0.1 (jax releases, measured).
    """
    mesh = explicit_mesh((2,), ("x",))
    values, mask = np.arange(8, dtype=np.float32), np.arange(8) % 2 == 0
    with ambient_mesh(mesh):
        x = jax.device_put(values, NamedSharding(mesh, P("x")))
        out = jax.jit(lambda keep, v: jnp.where(keep, v, -v))(jnp.asarray(mask), x)
    np.testing.assert_array_equal(np.asarray(out), np.where(mask, values, -values))

