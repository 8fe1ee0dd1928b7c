"""NNX state on a mesh the way trainers use it: restore a state onto a mesh, an optimizer whose state follows
the params, a train step written with `.value`, and a pure-dict checkpoint restored onto a sharded model."""

# Transitions, dated from google/flax history and checked by running each case just before and at the release:
# - flax 0.11.0: nnx.Optimizer requires `wrt=` ("Missing required argument `wrt`. As of Flax 0.11.0 ...") and
#   update takes (model, grads); 0.10.x raised no warning first.
# - flax 0.12.0: `flax_always_shard_variable` defaults True, so a partitioned model built with no mesh (as a
#   checkpoint-conversion script does) raises ValueError before its state can be placed.
# - flax 0.12.1 deprecates `Variable.value` (DeprecationWarning "'.value' access is now deprecated").
# - flax 0.10.6 (measured: absent in 0.10.2) warns that `nnx.State` methods (to_pure_dict, flat_state ...) will
#   be replaced by the built-in dict.

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import FEATURES, IN_DIM, ambient_mesh, mesh_2x4
from harness.case import Change, api, case

FAMILY = "nnx_sharded_merge"

# The flax 0.12.0 change cases in this file and partitioned_metadata_user.py document, worded the same in both.
ALWAYS_SHARD = "flax_always_shard_variable is on by default: a partitioned model built with no mesh raises"
ALWAYS_SHARD_FIX = ("build the model under jax.set_mesh(mesh), or set flax.config.update('flax_always_shard_variable', "
                    "False)")


def _x() -> jax.Array:
    return jnp.arange(8 * IN_DIM, dtype=jnp.float32).reshape(8, IN_DIM) / 10.0


def _mlp():  # type: ignore[no-untyped-def]
    """A column- then row-sharded two-layer MLP, written the way model code declares its partitioning."""
    from flax import nnx

    column = nnx.with_partitioning(nnx.initializers.lecun_normal(), (None, "model"))
    row = nnx.with_partitioning(nnx.initializers.lecun_normal(), ("model", None))

    class MLP(nnx.Module):
        def __init__(self, rngs: nnx.Rngs) -> None:
            self.up = nnx.Linear(IN_DIM, FEATURES, kernel_init=column, rngs=rngs)
            self.down = nnx.Linear(FEATURES, IN_DIM, kernel_init=row, rngs=rngs)

        def __call__(self, x: jax.Array) -> jax.Array:
            return self.down(jax.nn.relu(self.up(x)))

    return MLP(nnx.Rngs(0))


def _sharded_mlp():  # type: ignore[no-untyped-def]
    """The MLP built under the mesh and placed by its partition names."""
    from flax import nnx

    mesh = mesh_2x4()
    with ambient_mesh(mesh):
        model = _mlp()
    state = nnx.state(model)
    nnx.update(model, jax.device_put(state, nnx.get_named_sharding(state, mesh)))
    return model


@case(FAMILY, devices=8, needs=[api("flax.nnx.get_named_sharding")],
      changed=Change("flax>=0.12.0", ALWAYS_SHARD, raises="ValueError", kind="default", fix=ALWAYS_SHARD_FIX))
def test_restore_state_onto_mesh() -> None:
    """A model built with no mesh, its state placed with get_named_sharding and nnx.update, is sharded.

    Changes in flax 0.12.0: `flax_always_shard_variable` defaults True, so building the partitioned model with
    no mesh in context raises ValueError (cells jax 0.6.0/flax 0.11.2 pass, jax 0.7.2/flax 0.12.0 fail)."""
    from flax import nnx

    model = _mlp()
    expected = np.asarray(model(_x()))
    state = nnx.state(model)
    nnx.update(model, jax.device_put(state, nnx.get_named_sharding(state, mesh_2x4())))
    assert model.up.kernel[...].sharding.spec == P(None, "model")
    assert model.down.kernel[...].sharding.spec == P("model", None)
    np.testing.assert_allclose(np.asarray(model(_x())), expected, rtol=1e-5)


@case(FAMILY, devices=8, needs=[api("flax.nnx.Optimizer"), api("flax.nnx.get_named_sharding")],
      changed=Change("flax>=0.11.0", "nnx.Optimizer needs wrt=, and update takes (model, grads)", raises="TypeError",
                     kind="api", fix="nnx.Optimizer(model, tx, wrt=nnx.Param) and optimizer.update(model, grads)"))
def test_optimizer_without_wrt_follows_param_sharding() -> None:
    """nnx.Optimizer(model, tx) and optimizer.update(grads) keep Adam's moments sharded like the params.

    Changes in flax 0.11.0 (API, no warning first): `wrt=` is required and update takes (model, grads), so this
    spelling raises TypeError (cells jax 0.6.2/flax 0.10.7 pass, jax 0.6.0/flax 0.11.2 fail)."""
    import optax
    from flax import nnx

    model = _sharded_mlp()
    optimizer = nnx.Optimizer(model, optax.adam(1e-2))

    @nnx.jit
    def train_step(model, optimizer, x):  # type: ignore[no-untyped-def]
        grads = nnx.grad(lambda m: jnp.mean(m(x) ** 2))(model)
        optimizer.update(grads)

    train_step(model, optimizer, _x())
    kernels = {k.shape: k.sharding for k in (model.up.kernel[...], model.down.kernel[...])}
    # Leaves are arrays or (flax 0.10) OptVariables; [...] reads either as an array.
    moments = [leaf[...] for leaf in jax.tree_util.tree_leaves(optimizer.opt_state)]
    moments = [m for m in moments if m.shape in kernels]
    assert len(moments) == 4  # mu and nu of both kernels
    for moment in moments:
        assert moment.sharding.is_equivalent_to(kernels[moment.shape], moment.ndim)
    assert model.up.kernel[...].sharding.spec == P(None, "model")


@case(FAMILY, devices=8, needs=[api("flax.nnx.get_named_sharding")],
      changed=Change(None, "Variable.value is deprecated", kind="deprecation", warned="flax>=0.12.1",
                     fix="read and write variable[...] (or variable.get_value() / set_value())"))
def test_sgd_step_with_value_access_keeps_sharding() -> None:
    """A hand-written SGD step reading and writing `.value` keeps the kernel's sharding and moves it downhill.

    Deprecated in flax 0.12.1: `.value` raises DeprecationWarning from then on (cells jax 0.8.1/flax 0.12.1 and
    later warn, jax 0.7.2/flax 0.12.0 does not); it still works in flax 0.12.12."""
    from flax import nnx

    model = _sharded_mlp()
    loss = lambda m: jnp.mean(m(_x()) ** 2)  # noqa: E731
    before = float(loss(model))
    grads = nnx.grad(loss)(model)
    model.up.kernel.value = model.up.kernel.value - 0.1 * grads["up"]["kernel"].value
    model.down.kernel.value = model.down.kernel.value - 0.1 * grads["down"]["kernel"].value
    assert model.up.kernel.value.sharding.spec == P(None, "model")
    assert model.down.kernel.value.sharding.spec == P("model", None)
    assert float(loss(model)) < before


@case(FAMILY, devices=8, needs=[api("flax.nnx.State.to_pure_dict"), api("flax.nnx.get_named_sharding")],
      changed=Change(None, "nnx.State methods are deprecated: State will be the built-in dict", kind="deprecation",
                     warned="flax>=0.10.6", fix="nnx.to_pure_dict(state) and nnx.replace_by_pure_dict(state, d)"))
def test_pure_dict_checkpoint_restored_onto_mesh() -> None:
    """A checkpoint saved with state.to_pure_dict() and loaded with replace_by_pure_dict lands sharded on the mesh.

    Deprecation: `nnx.State` methods warn from flax 0.10.6 (measured: 0.10.2 is silent) that State will be
    replaced by the built-in dict; they still work in flax 0.12.12."""
    from flax import nnx

    mesh = mesh_2x4()
    model = _sharded_mlp()
    expected = np.asarray(model(_x()))
    checkpoint = jax.tree.map(np.asarray, nnx.state(model).to_pure_dict())  # what an orbax/msgpack restore hands back
    with ambient_mesh(mesh):
        fresh = _mlp()
    state = nnx.state(fresh)
    state.replace_by_pure_dict(checkpoint)
    nnx.update(fresh, jax.device_put(state, nnx.get_named_sharding(state, mesh)))
    assert isinstance(fresh.up.kernel[...].sharding, NamedSharding)
    assert fresh.up.kernel[...].sharding.spec == P(None, "model")
    np.testing.assert_allclose(np.asarray(fresh(_x())), expected, rtol=1e-5)
