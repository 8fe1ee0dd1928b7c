"""NNX split / shard / merge: partition specs from metadata, device_put of the state, and the merged model."""

# Version facts (probed on the matrix cells):
# - flax.nnx split / merge / update / get_partition_spec / jit / Optimizer(wrt=): in every cell (flax 0.10.2 to
#   0.12.12).
# - flax >= 0.12.0 shards partitioned NNX variables on creation, so models are built under a mesh.

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import FEATURES, IN_DIM, ambient_mesh, mesh_2x4
from harness.case import api, case

FAMILY = "nnx_sharded_merge"

NNX = api("flax.nnx")


def _x() -> jax.Array:
    return jnp.arange(8 * IN_DIM, dtype=jnp.float32).reshape(8, IN_DIM) / 10.0


def _partitioned(names: tuple[str | None, ...]):  # type: ignore[no-untyped-def]
    from flax import nnx

    return nnx.with_partitioning(nnx.initializers.lecun_normal(), names)


def _shard(state, mesh):  # type: ignore[no-untyped-def]
    """device_put an NNX state onto `mesh` following its partition metadata."""
    from flax import nnx

    specs = nnx.get_partition_spec(state)
    return jax.device_put(state, jax.tree.map(lambda s: NamedSharding(mesh, s), specs))


@case(FAMILY, devices=8, needs=[NNX])
def test_linear_split_shard_merge() -> None:
    """A Linear split, device_put by its partition specs and merged keeps the sharding and its outputs."""
    from flax import nnx

    mesh = mesh_2x4()
    with ambient_mesh(mesh):
        model = nnx.Linear(IN_DIM, FEATURES, kernel_init=_partitioned((None, "model")), rngs=nnx.Rngs(0))
    expected = np.asarray(model(_x()))
    graphdef, state = nnx.split(model)
    specs = nnx.get_partition_spec(state)
    assert jax.tree_util.tree_structure(specs) == jax.tree_util.tree_structure(state)
    assert len(jax.tree_util.tree_leaves(specs)) == len(jax.tree_util.tree_leaves(state)) == 2
    merged = nnx.merge(graphdef, _shard(state, mesh))
    assert isinstance(merged.kernel[...].sharding, NamedSharding)
    assert merged.kernel[...].sharding.spec == P(None, "model")
    np.testing.assert_allclose(np.asarray(merged(_x())), expected, rtol=1e-6)


def _normed_linear():  # type: ignore[no-untyped-def]
    from flax import nnx

    class NormedLinear(nnx.Module):
        def __init__(self, rngs: nnx.Rngs) -> None:
            self.norm = nnx.LayerNorm(IN_DIM, rngs=rngs)
            self.linear = nnx.Linear(IN_DIM, FEATURES, kernel_init=_partitioned((None, "model")), rngs=rngs)

        def __call__(self, x: jax.Array) -> jax.Array:
            return self.linear(self.norm(x))

    with ambient_mesh(mesh_2x4()):
        return NormedLinear(nnx.Rngs(0))


@case(FAMILY, devices=8, needs=[NNX])
def test_layernorm_linear_specs_match_state() -> None:
    """Partition specs of a LayerNorm+Linear state have the state's tree structure and four leaves."""
    from flax import nnx

    _, state = nnx.split(_normed_linear())
    specs = nnx.get_partition_spec(state)
    assert jax.tree_util.tree_structure(specs) == jax.tree_util.tree_structure(state)
    assert len(jax.tree_util.tree_leaves(specs)) == 4
    assert specs["linear"]["kernel"].value == P(None, "model")
    assert specs["norm"]["scale"].value == P()


@case(FAMILY, devices=8, needs=[NNX])
def test_layernorm_linear_merge_matches_unsharded() -> None:
    """A sharded-then-merged LayerNorm+Linear gives the unsharded model's output."""
    from flax import nnx

    model = _normed_linear()
    expected = np.asarray(model(_x()))
    graphdef, state = nnx.split(model)
    merged = nnx.merge(graphdef, _shard(state, mesh_2x4()))
    assert merged.linear.kernel[...].sharding.spec == P(None, "model")
    np.testing.assert_allclose(np.asarray(merged(_x())), expected, rtol=1e-5)


@case(FAMILY, devices=8, needs=[NNX])
def test_embed_vocab_sharded_merge() -> None:
    """An Embed with a vocab-sharded table, merged back, looks up the same rows as unsharded."""
    from flax import nnx

    mesh = mesh_2x4()
    with ambient_mesh(mesh):
        model = nnx.Embed(16, FEATURES, embedding_init=_partitioned(("model", None)), rngs=nnx.Rngs(0))
    ids = jnp.array([0, 3, 7, 15])
    expected = np.asarray(model(ids))
    graphdef, state = nnx.split(model)
    merged = nnx.merge(graphdef, _shard(state, mesh))
    assert merged.embedding[...].sharding.spec == P("model", None)
    np.testing.assert_allclose(np.asarray(merged(ids)), expected, rtol=1e-6)


def _mlp():  # type: ignore[no-untyped-def]
    from flax import nnx

    class MLP(nnx.Module):
        def __init__(self, rngs: nnx.Rngs) -> None:
            self.up = nnx.Linear(IN_DIM, FEATURES, kernel_init=_partitioned((None, "model")), rngs=rngs)
            self.down = nnx.Linear(FEATURES, IN_DIM, kernel_init=_partitioned(("model", None)), rngs=rngs)

        def __call__(self, x: jax.Array) -> jax.Array:
            return self.down(jax.nn.relu(self.up(x)))

    with ambient_mesh(mesh_2x4()):
        return MLP(nnx.Rngs(0))


@case(FAMILY, devices=8, needs=[NNX])
def test_mlp_merge_matches_unsharded() -> None:
    """A two-layer MLP sharded column-then-row and merged gives the unsharded output."""
    from flax import nnx

    model = _mlp()
    expected = np.asarray(model(_x()))
    graphdef, state = nnx.split(model)
    merged = nnx.merge(graphdef, _shard(state, mesh_2x4()))
    assert merged.up.kernel[...].sharding.spec == P(None, "model")
    assert merged.down.kernel[...].sharding.spec == P("model", None)
    np.testing.assert_allclose(np.asarray(merged(_x())), expected, rtol=1e-5)


@case(FAMILY, devices=8, needs=[NNX])
def test_update_places_sharded_state() -> None:
    """nnx.update with a sharded state places that sharding on the existing model's variables."""
    from flax import nnx

    model = _mlp()
    expected = np.asarray(model(_x()))
    nnx.update(model, _shard(nnx.state(model), mesh_2x4()))
    assert model.up.kernel[...].sharding.spec == P(None, "model")
    np.testing.assert_allclose(np.asarray(model(_x())), expected, rtol=1e-5)


@case(FAMILY, devices=8, needs=[NNX])
def test_state_param_filter_leaves_batch_stats() -> None:
    """nnx.state(model, nnx.Param) selects only params; their specs shard while BatchStats stay out."""
    from flax import nnx

    class Net(nnx.Module):
        def __init__(self, rngs: nnx.Rngs) -> None:
            self.linear = nnx.Linear(IN_DIM, FEATURES, kernel_init=_partitioned((None, "model")), rngs=rngs)
            self.bn = nnx.BatchNorm(FEATURES, rngs=rngs)

    with ambient_mesh(mesh_2x4()):
        model = Net(nnx.Rngs(0))
    params = nnx.state(model, nnx.Param)
    stats = nnx.state(model, nnx.BatchStat)
    assert len(jax.tree_util.tree_leaves(params)) == 4  # linear kernel+bias, bn scale+bias
    assert len(jax.tree_util.tree_leaves(stats)) == 2  # bn mean+var
    kernels = [leaf for leaf in jax.tree_util.tree_leaves(_shard(params, mesh_2x4())) if leaf.ndim == 2]
    assert [kernel.sharding.spec for kernel in kernels] == [P(None, "model")]


@case(FAMILY, devices=8, needs=[api("flax.nnx.jit")])
def test_nnx_jit_on_sharded_model() -> None:
    """nnx.jit of a forward pass on a sharded model matches the unsharded eager output."""
    from flax import nnx

    model = _mlp()
    expected = np.asarray(model(_x()))
    graphdef, state = nnx.split(model)
    merged = nnx.merge(graphdef, _shard(state, mesh_2x4()))
    out = nnx.jit(lambda m, x: m(x))(merged, _x())
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-5)


@case(FAMILY, devices=8, needs=[api("flax.nnx.Optimizer")])
def test_optimizer_state_follows_param_sharding() -> None:
    """An Adam optimizer built on a sharded model keeps its moments sharded like the params."""
    import optax
    from flax import nnx

    model = _mlp()
    graphdef, state = nnx.split(model)
    merged = nnx.merge(graphdef, _shard(state, mesh_2x4()))
    with ambient_mesh(mesh_2x4()):
        optimizer = nnx.Optimizer(merged, optax.adam(1e-3), wrt=nnx.Param)
    # Leaves are arrays or (flax 0.10) OptVariables; [...] reads either as an array.
    moments = [leaf[...] for leaf in jax.tree_util.tree_leaves(optimizer.opt_state)]
    up_moments = [m for m in moments if m.shape == (IN_DIM, FEATURES)]
    assert len(up_moments) == 2  # mu and nu of up.kernel
    for moment in up_moments:
        assert moment.sharding.spec == P(None, "model")
