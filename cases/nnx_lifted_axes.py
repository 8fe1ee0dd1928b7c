"""nnx.vmap and nnx.scan as flax 0.9 rewrote them (google/flax#4107): a layer stack built by vmap and run through
jax.lax.scan, and a stack whose vmap axes are given as integers, placed by its names."""

# Transitions, measured by running each case body in plain venvs (8 CPU devices) on the releases either side:
# - flax 0.9.0 moved rng splitting out of nnx.vmap into nnx.split_rngs (google/flax#4107): nnx.vmap(create,
#   axis_size=3)(nnx.Rngs(0)) builds a stack on flax 0.8.5 (jax 0.4.30 and 0.4.31) and raises IndexError on flax
#   0.9.0 (jax 0.4.31) and 0.10.0 (jax 0.4.35); google/flax#4153 is the report, closed as the design.
# - nnx.vmap's integer in_axes/out_axes moved no sharding metadata on flax 0.9.0 (jax 0.4.31: the stacked kernel
#   keeps ("din", "dout")); commit 93c06270 ("enable sharding transformation on integer prefixes", first in flax
#   0.10.0) prepends transform_metadata's PARTITION_NAME (jax 0.4.35: ("layers", "din", "dout")).
# flax 0.8.x and 0.9.x's nnx does not import on jax >= 0.4.36 (jax.core has no MainTrace): the range checker holds
# these edges at the jax out on each flax release's day.

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from cases._support import IN_DIM, ambient_mesh
from harness.case import Change, api, case

FAMILY = "vmap_param_shapes"
LAYERS = 3


def _stack_mesh() -> Mesh:
    """One device under the three names the stacked kernel's metadata uses: flax >= 0.12 places a named variable
    where it is made, and needs a mesh holding its names."""
    return Mesh(np.array(jax.devices()[:1]).reshape(1, 1, 1), ("layers", "din", "dout"))


@case(family=FAMILY, needs=[api("flax.nnx.vmap")], cites=("google/flax#4153",),
      changed=Change("flax>=0.9.0", "nnx.vmap no longer splits the rngs it is given: the axis_size stack of a module "
                     "made from nnx.Rngs fails", raises=("IndexError", "ValueError"), kind="api",
                     fix="wrap the vmapped constructor in nnx.split_rngs(splits=n) with nnx.vmap(in_axes=0)"))
def test_vmap_of_a_constructor_from_rngs_stacks_layers_for_lax_scan() -> None:
    """nnx.vmap(create, axis_size=3)(nnx.Rngs(0)) builds three distinct Linear layers that jax.lax.scan runs over,
    layer by layer, from their split state.

    Changed in flax 0.9.0: IndexError there (flax 0.9.0 to 0.12.0), ValueError on 0.12.6 and 0.12.7."""
    from flax import nnx

    def create(rngs: nnx.Rngs) -> nnx.Linear:
        return nnx.Linear(IN_DIM, IN_DIM, rngs=rngs)

    stack = nnx.vmap(create, axis_size=LAYERS)(nnx.Rngs(0))
    graphdef, state = nnx.split(stack)

    def layer(x: jax.Array, layer_state: nnx.State) -> tuple[jax.Array, None]:
        return nnx.merge(graphdef, layer_state)(x), None

    x = jnp.ones((2, IN_DIM))
    y, _ = jax.lax.scan(layer, x, state)
    kernels = np.asarray(stack.kernel.value)
    assert kernels.shape == (LAYERS, IN_DIM, IN_DIM)
    assert not np.allclose(kernels[0], kernels[1])
    expected = x
    for i in range(LAYERS):
        expected = expected @ kernels[i] + np.asarray(stack.bias.value)[i]
    np.testing.assert_allclose(y, expected, rtol=1e-5)


@case(family=FAMILY, needs=[api("flax.nnx.split_rngs"), api("flax.nnx.PARTITION_NAME")],
      cites=("google/flax@93c06270c8",))
def test_integer_vmap_axes_prepend_the_stack_name_to_a_partitioned_kernel() -> None:
    """nnx.split_rngs(splits=3) around nnx.vmap(in_axes=0, out_axes=0, transform_metadata={PARTITION_NAME: "layers"})
    of a Linear whose kernel is partitioned ("din", "dout") gives the stacked kernel the spec ("layers", "din",
    "dout")."""
    from flax import nnx

    init = nnx.with_partitioning(nnx.initializers.lecun_normal(), ("din", "dout"))

    @nnx.split_rngs(splits=LAYERS)
    @nnx.vmap(in_axes=0, out_axes=0, transform_metadata={nnx.PARTITION_NAME: "layers"})
    def create(rngs: nnx.Rngs) -> nnx.Linear:
        return nnx.Linear(IN_DIM, IN_DIM, kernel_init=init, rngs=rngs)

    with ambient_mesh(_stack_mesh()):
        stack = create(nnx.Rngs(0))
    assert stack.kernel.value.shape == (LAYERS, IN_DIM, IN_DIM)
    specs = jax.tree_util.tree_leaves(nnx.get_partition_spec(nnx.state(stack)), is_leaf=lambda s: isinstance(s, P))
    assert P("layers", "din", "dout") in specs, specs
