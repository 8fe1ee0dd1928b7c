"""Partition metadata as users spell it: `.sharding` on a Param, legacy `with mesh:`, linen<->NNX bridges, and
the legacy `flax.linen.partitioning` module, each checked by the sharding the user ends up with."""

# Transitions, dated from google/flax history and checked by running each case just before and at the release:
# - flax 0.11.2 renamed the NNX metadata key `sharding` to `sharding_names` (variablelib.py: "if 'sharding' in
#   metadata: metadata['sharding_names'] = ..."); `param.sharding` then falls through to the array's own
#   `.sharding` (a jax Sharding, not the names) without any warning.
# - flax 0.12.0 made `flax_always_shard_variable` default True: a partitioned NNX variable is sharded when it is
#   created, so building one with no mesh in context raises ValueError, through the linen<->NNX bridges too.
# - flax 0.12.1 places eagerly sharded variables with jit(out_shardings=PartitionSpec) (commit c05d004d "support
#   explicit sharding in eager sharding"), which needs jax's abstract mesh: the legacy `with mesh:` no longer
#   suffices (RuntimeError); flax 0.12.2 also dropped the physical-mesh fallback of get_global_mesh (ValueError).

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax.linen import partitioning as nn_partitioning  # the legacy module many linen trainers still import
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import ALWAYS_SHARD, ALWAYS_SHARD_FIX, FEATURES, IN_DIM, ambient_mesh, mesh_2x4
from harness.case import Change, api, case

FAMILY = "partitioned_metadata"


def _kernel_init():  # type: ignore[no-untyped-def]
    from flax import nnx

    return nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model"))


@case(FAMILY, devices=8, needs=[api("flax.nnx.with_partitioning")],
      changed=Change("flax>=0.11.2", "the NNX metadata key `sharding` is `sharding_names`: `.sharding` silently "
                     "returns the array's jax Sharding", raises="AssertionError", kind="api",
                     fix="read `.sharding_names` (or nnx.get_partition_spec of the state)"))
def test_param_sharding_attribute_names_the_axes() -> None:
    """`model.kernel.sharding` gives the partition names a trainer turns into a PartitionSpec.

    Changes in flax 0.11.2: the metadata key became `sharding_names`, so `.sharding` silently reads the array's
    jax Sharding instead (cells jax 0.6.2/flax 0.10.7 pass, jax 0.6.0/flax 0.11.2 fail)."""
    from flax import nnx

    mesh = mesh_2x4()
    with ambient_mesh(mesh):
        model = nnx.Linear(IN_DIM, FEATURES, kernel_init=_kernel_init(), rngs=nnx.Rngs(0))
    assert model.kernel.sharding == (None, "model")
    placed = jax.device_put(model.kernel[...], NamedSharding(mesh, P(*model.kernel.sharding)))
    assert placed.sharding.spec == P(None, "model")


@case(FAMILY, devices=8, needs=[api("flax.nnx.get_named_sharding")],
      changed=Change("flax>=0.12.1", "variables are placed through jax's abstract mesh: the legacy `with mesh:` no "
                     "longer counts", raises=["RuntimeError", "ValueError"], kind="behaviour",
                     fix="jax.set_mesh(mesh) (jax.sharding.use_mesh on older jax) instead of `with mesh:`"))
def test_legacy_with_mesh_builds_sharded_nnx_model() -> None:
    """A partitioned NNX Linear built under the legacy `with mesh:` and placed by its names is sharded.

    Changes in flax 0.12.1: eager sharding needs jax's abstract mesh, which `with mesh:` does not set, so creation
    raises (cells jax 0.8.1/flax 0.12.0 pass, jax 0.8.1/flax 0.12.1 fail; default cells jax 0.7.2/flax 0.12.0
    pass, jax 0.8.3/flax 0.12.3 fail)."""
    from flax import nnx

    mesh = mesh_2x4()
    with mesh:
        model = nnx.Linear(IN_DIM, FEATURES, kernel_init=_kernel_init(), rngs=nnx.Rngs(0))
        state = nnx.state(model)
        nnx.update(model, jax.device_put(state, nnx.get_named_sharding(state, mesh)))
    assert model.kernel[...].sharding.spec == P(None, "model")


@case(FAMILY, devices=8, needs=[api("flax.nnx.bridge.ToNNX"), api("flax.nnx.bridge.lazy_init")],
      changed=Change("flax>=0.12.0", ALWAYS_SHARD, raises="ValueError", kind="default", fix=ALWAYS_SHARD_FIX))
def test_linen_to_nnx_bridge_then_placed_on_mesh() -> None:
    """A linen Dense with `nn.with_partitioning`, bridged with ToNNX and placed by its names, keeps its spec.

    Changes in flax 0.12.0: `flax_always_shard_variable` defaults True, so bridging outside a mesh raises
    ValueError while building the NNX variables (cells jax 0.6.0/flax 0.11.2 pass, jax 0.7.2/flax 0.12.0 fail)."""
    from flax import nnx
    from flax.nnx import bridge

    dense = nn.Dense(FEATURES, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))
    x = jnp.ones((2, IN_DIM))
    model = bridge.lazy_init(bridge.ToNNX(dense, rngs=nnx.Rngs(0)), x)
    expected = np.asarray(model(x))
    state = nnx.state(model)
    nnx.update(model, jax.device_put(state, nnx.get_named_sharding(state, mesh_2x4())))
    assert model.kernel[...].sharding.spec == P(None, "model")
    np.testing.assert_allclose(np.asarray(model(x)), expected, rtol=1e-6)


@case(FAMILY, devices=8, needs=[api("flax.nnx.bridge.ToLinen"), api("flax.nnx.with_partitioning")],
      changed=Change("flax>=0.12.0", ALWAYS_SHARD, raises="ValueError", kind="default", fix=ALWAYS_SHARD_FIX))
def test_nnx_to_linen_bridge_init_gives_partition_spec() -> None:
    """An NNX Linear with a partitioned kernel, wrapped in ToLinen and initialised, yields its PartitionSpec.

    Changes in flax 0.12.0: `flax_always_shard_variable` defaults True, so `init` outside a mesh raises
    ValueError (cells jax 0.6.0/flax 0.11.2 pass, jax 0.7.2/flax 0.12.0 fail)."""
    from flax import nnx
    from flax.nnx import bridge

    module = bridge.ToLinen(nnx.Linear, args=(IN_DIM, FEATURES), kwargs={"kernel_init": _kernel_init()})
    variables = module.init(jax.random.PRNGKey(0), jnp.ones((2, IN_DIM)))
    spec = nn.get_partition_spec(variables)["params"]["kernel"]
    assert spec == P(None, "model")
    kernel = jax.device_put(nn.unbox(variables)["params"]["kernel"], NamedSharding(mesh_2x4(), spec))
    assert kernel.sharding.spec == P(None, "model")


class _AxesDense(nn.Module):
    """A Dense written with the legacy nn_partitioning.param_with_axes, as T5X-era code does."""

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        init = nn.initializers.lecun_normal()
        kernel = nn_partitioning.param_with_axes("kernel", init, (IN_DIM, FEATURES), axes=("embed", "mlp"))
        return x @ kernel


@case(FAMILY, devices=8, changed=None)  # no upstream change known: a guard of the T5X-era path
def test_legacy_param_with_axes_under_axis_rules() -> None:
    """param_with_axes names map to mesh axes with nn_partitioning.axis_rules and place the kernel."""
    variables = _AxesDense().init(jax.random.PRNGKey(0), jnp.ones((2, IN_DIM)))
    axes = nn_partitioning.get_axis_names(variables["params_axes"])
    with nn_partitioning.axis_rules((("embed", None), ("mlp", "model"))):
        spec = nn_partitioning.logical_to_mesh_axes(axes["kernel"])
    assert spec == P(None, "model")
    kernel = jax.device_put(variables["params"]["kernel"], NamedSharding(mesh_2x4(), spec))
    assert kernel.sharding.spec == P(None, "model")


class _Mlp(nn.Module):
    """A column- then row-partitioned linen MLP, written as the flax sharding guide writes one."""

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        init = nn.initializers.lecun_normal()
        x = nn.Dense(FEATURES, kernel_init=nn.with_partitioning(init, (None, "model")))(x)
        return nn.Dense(IN_DIM, kernel_init=nn.with_partitioning(init, ("model", None)))(jax.nn.relu(x))


@case(FAMILY, devices=8, changed=None)  # no upstream change known: a guard of the linen sharded-training recipe
def test_linen_train_state_sharded_by_get_sharding_trains() -> None:
    """A TrainState made under jit with out_shardings=nn.get_sharding(eval_shape(...)) keeps its kernels and Adam
    moments sharded through a jitted apply_gradients step, and the loss goes down.

    Cells: passes jax 0.4.38 to 0.12.0.1 with the flax beside each; jax 0.12.0.1 with flax 0.11.2 fails (flax's linen
    calls jax.core.get_opaque_trace_state, gone)."""
    import optax
    from flax.training import train_state

    mesh, model, tx = mesh_2x4(), _Mlp(), optax.adam(1e-2)
    x = jax.device_put(jnp.arange(8 * IN_DIM, dtype=jnp.float32).reshape(8, IN_DIM) / 10.0,
                       NamedSharding(mesh, P("data")))

    def init(key: jax.Array, batch: jax.Array) -> train_state.TrainState:
        params = model.init(key, batch)["params"]
        return train_state.TrainState.create(apply_fn=model.apply, params=params, tx=tx)

    shardings = nn.get_sharding(jax.eval_shape(init, jax.random.PRNGKey(0), x), mesh)
    state = jax.jit(init, out_shardings=shardings)(jax.random.PRNGKey(0), x)

    def loss(params: object, batch: jax.Array) -> jax.Array:
        return jnp.mean(model.apply({"params": params}, batch) ** 2)

    @jax.jit
    def step(state: train_state.TrainState, batch: jax.Array) -> train_state.TrainState:
        return state.apply_gradients(grads=jax.grad(loss)(state.params, batch))

    before = float(loss(state.params, x))
    state = step(state, x)
    kernel = nn.unbox(state.params)["Dense_0"]["kernel"]
    assert kernel.sharding.spec == P(None, "model")
    moments = [m for m in jax.tree_util.tree_leaves(nn.unbox(state.opt_state)) if m.shape == kernel.shape]
    assert len(moments) == 2 and all(m.sharding.is_equivalent_to(kernel.sharding, kernel.ndim) for m in moments)
    assert float(loss(state.params, x)) < before
