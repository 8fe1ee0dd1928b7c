"""Placing arrays on a mesh and constraining them, as training code does: reproducers of jax fixes the census found.

Each case is the smallest user code a fix commit of jax repairs (its test, written the way a trainer writes it):
device_put between shardings under a mesh context, with_sharding_constraint of random keys or onto one device, and
what jax.typeof says of the result. Each is a known breakage (cases/known_breakages.toml) over the releases measured
to fail, and cites the fix commit, whose census row names the same transition.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding
from jax.sharding import PartitionSpec as P

from cases._support import USE_MESH_REMOVED
from harness.case import api, case

FAMILY = "partitioned_metadata"


def _grid_mesh() -> Mesh:
    """A ("x", "y") mesh over 4 devices, spelled as jax.sharding.Mesh (auto axes in every release)."""
    return Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))


@case(FAMILY, devices=8, cites=("jax-ml/jax@a96e175c76",))
def test_per_example_random_keys_constrained_to_a_two_axis_mesh() -> None:
    """Keys made inside jit from seeds split over a two-axis mesh, then constrained to that split, keep it.

    Fails before jax 0.6.1 (XlaRuntimeError: the constraint was lowered at the key's rank, not its data's); fixed by
    commit a96e175c, first in jax 0.6.1.
    """
    mesh = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("x", "y"))
    split = NamedSharding(mesh, P("x", "y"))
    seeds = jax.device_put(np.arange(32, dtype=np.uint32).reshape(8, 4), split)

    @jax.jit
    def make_keys(seeds: jax.Array) -> jax.Array:
        keys = jax.vmap(jax.vmap(jax.random.key))(seeds)
        return jax.lax.with_sharding_constraint(keys, split)

    keys = make_keys(seeds)
    assert keys.shape == (8, 4)
    expected = jax.random.key_data(jax.random.key(5))
    np.testing.assert_array_equal(np.asarray(jax.random.key_data(keys)[1, 1]), np.asarray(expected))


@case(FAMILY, devices=4, needs=[api("jax.sharding.use_mesh")], changed=USE_MESH_REMOVED,
      cites=("jax-ml/jax@8bcbf585df",))
def test_device_put_reshards_under_use_mesh() -> None:
    """Under jax.sharding.use_mesh, device_put of an array onto a NamedSharding, then onto another, lands on each.

    Fails on jax 0.5.0, the first with use_mesh (AttributeError: 'ShapedArray' object has no attribute 'sharding');
    fixed by commit 8bcbf585, first in jax 0.5.1. use_mesh is removed in jax 0.7.1 (commit 93f7bd0c; 0.7.0 exports it
    with no warning): the cells from there run the case and fail with AttributeError, as declared.
    """
    mesh = _grid_mesh()
    values = jnp.arange(16, dtype=jnp.int32).reshape(4, 4)
    with jax.sharding.use_mesh(mesh):
        both = jax.device_put(values, NamedSharding(mesh, P("x", "y")))
        rows = jax.device_put(both, NamedSharding(mesh, P("x")))
    assert both.sharding == NamedSharding(mesh, P("x", "y"))
    assert rows.sharding == NamedSharding(mesh, P("x"))
    np.testing.assert_array_equal(np.asarray(rows), np.arange(16).reshape(4, 4))


@case(FAMILY, devices=2, needs=[api("jax.sharding.AxisType"), api("jax.typeof")],
      cites=("jax-ml/jax@6093c0499f",))
def test_device_put_onto_one_device_under_an_explicit_mesh_leaves_the_mesh() -> None:
    """Under an Explicit mesh, an array device_put onto one device has a type that names no mesh, as it lives on one.

    Fails before jax 0.7.2 (AssertionError: jax.typeof still gives the context mesh's sharding); fixed by commit
    6093c049 (jax-ml/jax#31793), first in jax 0.7.2.
    """
    explicit = (jax.sharding.AxisType.Explicit,)
    mesh = jax.make_mesh((2,), ("x",), axis_types=explicit, devices=jax.devices()[:2])
    enter = getattr(jax, "set_mesh", None) or jax.sharding.use_mesh
    with enter(mesh):
        one = jax.device_put(jnp.arange(8.0), SingleDeviceSharding(jax.devices()[0]))
        assert jax.typeof(one).sharding.mesh.empty, jax.typeof(one).sharding
    assert one.sharding == SingleDeviceSharding(jax.devices()[0])


@case(FAMILY, devices=1, needs=[api("jax.typeof")], cites=("jax-ml/jax@9e74132a8e",))
def test_constraint_onto_one_device_inside_jit_leaves_the_mesh() -> None:
    """Inside jit, a value constrained onto a mesh and then onto one device has a type that names no mesh.

    Fails before jax 0.8.0 (AssertionError: jax.typeof keeps the first constraint's mesh); fixed by commit 9e74132a,
    first in jax 0.8.0.
    """
    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    one_device = SingleDeviceSharding(jax.devices()[0])
    seen = []

    @jax.jit
    def place(x: jax.Array) -> jax.Array:
        on_mesh = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("x")))
        placed = jax.lax.with_sharding_constraint(on_mesh, one_device)
        seen.append(jax.typeof(placed).sharding)
        return placed

    out = place(jax.device_put(jnp.ones((2, 2)), NamedSharding(mesh, P())))
    np.testing.assert_array_equal(np.asarray(out), np.ones((2, 2)))
    assert seen[0].mesh.empty, seen[0]
