"""Array operations a user's code gives an output sharding on an Explicit mesh (matmul, random draws, top_k): the jax
commits of the census's sharded_gathers rows that added such a keyword or changed what an op accepts.

Each case calls the op the way model code does (a jitted step under the mesh its code builds) and asserts values and
output shardings. Where a keyword is an addition, the case does not need it: it is written as the code that uses it
is, so a release without it fails the case (TypeError, a known breakage ending at the keyword's first release) and
the report tells a user pinned below that release that their code needs it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import ambient_mesh, config_on, explicit_mesh
from harness.case import Change, accepts, api, case

FAMILY = "sharded_gathers"

EXPLICIT = [api("jax.sharding.AxisType"), accepts("jax.make_mesh", "axis_types")]


def _on(mesh: Mesh, value: np.ndarray, spec: P) -> jax.Array:
    return jax.device_put(value, NamedSharding(mesh, spec))


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax@57ce8fb617",))
def test_matmul_contracting_an_explicit_axis_with_out_sharding() -> None:
    """A jitted jnp.matmul(a, b, out_sharding=P('x', None)) contracting the axis both operands split over an
    Explicit axis gives numpy's product split on its rows (jnp.matmul takes out_sharding from jax 0.7.0, commit
    57ce8fb617 for jax-ml/jax#29754; before, TypeError).

    Cells: fails 0.5.3 to 0.6.2, passes 0.7.0 (jax releases, measured).
    """
    mesh = explicit_mesh((2,), ("x",))
    a = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    b = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    with ambient_mesh(mesh):
        step = jax.jit(lambda u, v: jnp.matmul(u, v, out_sharding=P("x", None)))
        out = step(_on(mesh, a, P(None, "x")), _on(mesh, b, P("x", None)))
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("x", None)), 2)
    np.testing.assert_allclose(np.asarray(out), a @ b)


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax@af1a08d5c4",))
def test_random_triangular_with_out_sharding() -> None:
    """jax.random.triangular(key, 0, 0.5, 1, shape=(8, 4), out_sharding=P('x', None)) on an Explicit mesh draws a
    float32 (8, 4) array in [0, 1] split on its rows (triangular takes out_sharding from jax 0.10.2, commit
    af1a08d5c4, which also fixed its dtype and shape; before, TypeError).

    Cells: fails 0.5.3 to 0.10.1, passes 0.10.2 (jax releases, measured).
    """
    mesh = explicit_mesh((2,), ("x",))
    with ambient_mesh(mesh):
        draws = jax.random.triangular(jax.random.key(0), 0.0, 0.5, 1.0, shape=(8, 4), out_sharding=P("x", None))
    assert draws.shape == (8, 4) and draws.dtype == jnp.float32
    assert draws.sharding.is_equivalent_to(NamedSharding(mesh, P("x", None)), 2)
    values = np.asarray(draws)
    assert ((values >= 0.0) & (values <= 1.0)).all()


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax@521fa8b94e",),
      changed=Change("jax>=0.10.0", "lax.top_k of an array split over an Explicit axis along the axis it ranks "
                     "raises ShardingTypeError (it gathered that axis before)", raises="ShardingTypeError",
                     kind="behaviour", fix="reshard the array so the ranked axis is unsplit first "
                     "(jax.sharding.reshard(x, P(..., None))), then top_k"))
def test_top_k_along_an_explicit_sharded_axis() -> None:
    """A jitted jax.lax.top_k(x, 2) of a (4, 8) array split on its last axis over an Explicit axis gives each row's
    two largest values.

    Changes in jax 0.10.0: top_k's sharding rule refuses an input split along the axis it ranks (ShardingTypeError;
    commit 521fa8b94e, "Fix top_k's sharding rule to error out ... because that will lead to comms").
    Cells: passes 0.5.3 to 0.9.2, fails 0.10.0 (jax releases, measured).
    """
    mesh = explicit_mesh((2,), ("x",))
    rows = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    with ambient_mesh(mesh):
        values, indices = jax.jit(lambda x: jax.lax.top_k(x, 2))(_on(mesh, rows, P(None, "x")))
    np.testing.assert_array_equal(np.asarray(values), rows[:, [7, 6]])
    np.testing.assert_array_equal(np.asarray(indices), np.tile([7, 6], (4, 1)))


@case(FAMILY, devices=4, needs=EXPLICIT, cites=("jax-ml/jax#29839",))
def test_scatter_set_under_two_vmaps_of_an_explicit_sharded_batch() -> None:
    """A jitted x.at[idx].set(1) under two nested vmaps (over a batch split on its rows over an Explicit axis, and
    over the indices) sets one column of every row and keeps the batch split (jax 0.6.1 and 0.6.2 raised 'PartitionSpec
    passed to broadcast_in_dim cannot contain axis names that are of type Auto or Manual'; fixed in 0.7.0 by commit
    274117d29c; 0.5.3 and 0.6.0 had no sharding rule for scatter).

    Cells: fails 0.5.3 to 0.6.2 (the report's error on 0.6.1 and 0.6.2), passes 0.7.0 (jax releases, measured).
    """
    mesh = explicit_mesh((4,), ("S",))
    set_column = jax.vmap(jax.vmap(lambda row, idx: row.at[idx].set(1), in_axes=(None, 0)), in_axes=(0, None))
    with ambient_mesh(mesh):
        batch = _on(mesh, np.zeros((20, 6), np.int8), P("S", None))
        out = jax.jit(set_column)(batch, jnp.array([[3]], dtype=jnp.int32))
    expected = np.zeros((20, 1, 6), np.int8)
    expected[:, :, 3] = 1
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("S", None, None)), 3)


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax@5371d6b765",))
def test_random_key_resharded_inside_jit_under_shardy() -> None:
    """With Shardy switched on, as users did before jax 0.7.0 made it the default, a jitted reshard of a new-style
    jax.random.key to a replicated spec on an Explicit mesh lowers and gives a replicated key (the lowering failed
    verification before 0.7.0; fixed by commit 5371d6b765).

    Cells: fails 0.5.3 to 0.6.2, passes 0.7.0 (jax releases, measured; Shardy the default from 0.7.0).
    """
    try:
        from jax.sharding import reshard
    except ImportError:  # before jax 0.7.0 it lived in jax.experimental.shard, where code of then imports it
        from jax.experimental.shard import reshard

    mesh = explicit_mesh((2,), ("x",))
    with config_on("jax_use_shardy_partitioner"), ambient_mesh(mesh):
        key = jax.random.key(12)
        out = jax.jit(lambda: reshard(key, P()))()
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P()), 0)


@case(FAMILY, devices=4, needs=[*EXPLICIT, api("jax.sharding.reshard")], cites=("jax-ml/jax@a9ae2439a4",))
def test_reduce_sum_into_an_unreduced_output() -> None:
    """A jitted lax.reduce_sum over the rows of an array split on rows and columns over Explicit axes, into an output
    left unreduced over the row axis (out_sharding=P('y', None, unreduced={'x'})), then resharded, gives numpy's sum
    (lax.reduce_sum takes out_sharding from jax 0.8.0, commit a9ae2439a4 for jax-ml/jax#31889; before, TypeError).

    Cells: fails 0.7.0 to 0.7.2, passes 0.8.0 (jax releases, measured; jax.sharding.reshard first in 0.7.0).
    """
    mesh = explicit_mesh((2, 2), ("x", "y"))
    values = np.arange(16.0, dtype=np.float32).reshape(4, 2, 2)
    with ambient_mesh(mesh):
        step = jax.jit(lambda a: jax.lax.reduce_sum(a, axes=(0,), out_sharding=P("y", None, unreduced={"x"})))
        out = jax.sharding.reshard(step(_on(mesh, values, P("x", "y", None))), P("y", None))
    assert out.sharding.is_equivalent_to(NamedSharding(mesh, P("y", None)), 2)
    np.testing.assert_allclose(np.asarray(out), values.sum(0))
