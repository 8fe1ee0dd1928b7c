"""Lifted vmap as model code uses it: NNX ensembles from forked rngs placed on a mesh, a partitioned ensemble
placed by its names, and a shared linen Dense over a data-sharded batch with vmap's defaults."""

# Transitions, dated from google/flax history and checked by running each case just before and at the release:
# - flax 0.12.6 deprecates `rngs.fork(split=n)` (commit 696328ab "Add split method to RngStream": DeprecationWarning
#   "The 'split' argument of 'fork' is deprecated"); it still works in flax 0.12.12.
# - flax 0.12.0 shards partitioned variables as they are created (flax_always_shard_variable), also inside
#   nnx.vmap; the ensemble below is built under the mesh so that it builds in every cell.

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import FEATURES, IN_DIM, ambient_mesh, mesh_2x4
from harness.case import accepts, api, case

FAMILY = "vmap_param_shapes"

MEMBERS = 4  # one ensemble member per device of the "model" axis


def _x() -> jax.Array:
    return jnp.arange(8 * IN_DIM, dtype=jnp.float32).reshape(8, IN_DIM) / 10.0


@case(FAMILY, devices=8, needs=[api("flax.nnx.vmap"), accepts("flax.nnx.Rngs.fork", "split")])
def test_ensemble_from_forked_rngs_placed_per_member() -> None:
    """An nnx.vmap ensemble made from rngs.fork(split=4) has distinct members, one per "model" device.

    Deprecated in flax 0.12.6: `fork(split=...)` raises DeprecationWarning (cells jax 0.8.3/flax 0.12.3 silent,
    jax 0.9.2/flax 0.12.6 and later warn)."""
    from flax import nnx

    @nnx.vmap(in_axes=0, out_axes=0)
    def create(rngs: nnx.Rngs) -> nnx.Linear:
        return nnx.Linear(IN_DIM, FEATURES, rngs=rngs)

    ensemble = create(nnx.Rngs(0).fork(split=MEMBERS))
    kernel = jax.device_put(ensemble.kernel[...], NamedSharding(mesh_2x4(), P("model")))
    assert kernel.shape == (MEMBERS, IN_DIM, FEATURES)
    assert not np.allclose(kernel[0], kernel[1])
    assert {shard.data.shape for shard in kernel.addressable_shards} == {(1, IN_DIM, FEATURES)}


@case(FAMILY, devices=8, needs=[api("flax.nnx.vmap"), api("flax.nnx.split_rngs"), api("flax.nnx.PARTITION_NAME")])
def test_partitioned_ensemble_placed_by_its_names() -> None:
    """A partitioned ensemble placed by get_named_sharding shards members on "data" and features on "model".

    nnx.vmap with transform_metadata={PARTITION_NAME: "data"}; each member still computes its own Linear."""
    from flax import nnx

    init = nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model"))

    @nnx.split_rngs(splits=2)
    @nnx.vmap(in_axes=(0,), out_axes=0, transform_metadata={nnx.PARTITION_NAME: "data"})
    def create(rngs: nnx.Rngs) -> nnx.Linear:
        return nnx.Linear(IN_DIM, FEATURES, kernel_init=init, rngs=rngs)

    mesh = mesh_2x4()
    with ambient_mesh(mesh):
        ensemble = create(nnx.Rngs(0))
    state = nnx.state(ensemble)
    nnx.update(ensemble, jax.device_put(state, nnx.get_named_sharding(state, mesh)))
    kernel = ensemble.kernel[...]
    assert kernel.shape == (2, IN_DIM, FEATURES)
    assert kernel.sharding.spec == P("data", None, "model")
    out = nnx.vmap(lambda m, x: m(x), in_axes=(0, None))(ensemble, _x())
    kernels, biases = np.asarray(kernel), np.asarray(ensemble.bias[...])
    expected = np.stack([np.asarray(_x()) @ kernels[i] + biases[i] for i in range(2)])
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5)


@case(FAMILY, devices=8)
def test_shared_dense_over_data_sharded_batch() -> None:
    """nn.vmap of a Dense with shared params over a "data"-sharded batch keeps the batch sharding under jit."""
    model = nn.vmap(nn.Dense, variable_axes={"params": None}, split_rngs={"params": False})(FEATURES)
    x = jax.device_put(_x(), NamedSharding(mesh_2x4(), P("data")))
    variables = model.init(jax.random.PRNGKey(0), x)
    assert variables["params"]["kernel"].shape == (IN_DIM, FEATURES)
    out = jax.jit(model.apply)(variables, x)
    assert out.sharding.is_equivalent_to(NamedSharding(mesh_2x4(), P("data")), out.ndim)
    np.testing.assert_allclose(np.asarray(out), np.asarray(nn.Dense(FEATURES).apply(variables, _x())), rtol=1e-5)
