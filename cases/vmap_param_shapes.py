"""Parameter shapes under lifted vmap: linen nn.vmap variable_axes / split_rngs / in_axes, and nnx.vmap."""

# Version facts (probed on the matrix cells):
# - flax.nnx.vmap and flax.nnx.StateAxes: in every cell (flax 0.10.2 to 0.12.12).
# - linen nn.vmap with variable_axes / split_rngs / spmd_axis_name: in every cell.

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import FEATURES, IN_DIM, mesh_2x4
from harness.case import api, case

FAMILY = "vmap_param_shapes"

BATCH = 3


def _x() -> jax.Array:
    return jnp.arange(BATCH * IN_DIM, dtype=jnp.float32).reshape(BATCH, IN_DIM) / 10.0


def _vmapped_dense(variable_axis: int | None, split: bool, **kwargs: object) -> nn.Module:
    vmapped = nn.vmap(
        nn.Dense,
        variable_axes={"params": variable_axis},
        split_rngs={"params": split},
        **kwargs,  # type: ignore[arg-type]
    )
    return vmapped(features=FEATURES)


@case(FAMILY)
def test_broadcast_params_have_no_batch_axis() -> None:
    """nn.vmap with variable_axes {"params": None} shares one (D, F) kernel across the batch."""
    model = _vmapped_dense(None, False, in_axes=0)
    variables = model.init(jax.random.PRNGKey(0), _x())
    assert variables["params"]["kernel"].shape == (IN_DIM, FEATURES)
    out = model.apply(variables, _x())
    assert out.shape == (BATCH, FEATURES)
    reference = nn.Dense(FEATURES).apply(variables, _x())
    np.testing.assert_allclose(out, reference, rtol=1e-6)


@case(FAMILY)
def test_per_example_params_get_leading_axis() -> None:
    """nn.vmap with variable_axes {"params": 0} and split rngs makes a distinct (D, F) kernel per example."""
    model = _vmapped_dense(0, True, in_axes=0)
    variables = model.init(jax.random.PRNGKey(0), _x())
    kernel = variables["params"]["kernel"]
    assert kernel.shape == (BATCH, IN_DIM, FEATURES)
    assert not np.allclose(kernel[0], kernel[1])
    assert model.apply(variables, _x()).shape == (BATCH, FEATURES)


@case(FAMILY)
def test_per_example_params_without_split_are_equal() -> None:
    """nn.vmap with variable_axes {"params": 0} but unsplit rngs stacks identical kernels."""
    model = _vmapped_dense(0, False, in_axes=0)
    kernel = model.init(jax.random.PRNGKey(0), _x())["params"]["kernel"]
    assert kernel.shape == (BATCH, IN_DIM, FEATURES)
    np.testing.assert_array_equal(kernel[0], kernel[1])


@case(FAMILY)
def test_in_axes_one_maps_over_columns() -> None:
    """nn.vmap with in_axes=1 maps over the second input axis and stacks outputs on axis 0."""
    model = _vmapped_dense(None, False, in_axes=1)
    x_t = _x().T  # (D, B)
    variables = model.init(jax.random.PRNGKey(0), x_t)
    assert variables["params"]["kernel"].shape == (IN_DIM, FEATURES)
    out = model.apply(variables, x_t)
    assert out.shape == (BATCH, FEATURES)
    np.testing.assert_allclose(out, nn.Dense(FEATURES).apply(variables, _x()), rtol=1e-6)


@case(FAMILY)
def test_out_axes_one_puts_batch_last() -> None:
    """nn.vmap with out_axes=1 returns outputs of shape (F, B)."""
    model = _vmapped_dense(None, False, in_axes=0, out_axes=1)
    variables = model.init(jax.random.PRNGKey(0), _x())
    out = model.apply(variables, _x())
    assert out.shape == (FEATURES, BATCH)
    np.testing.assert_allclose(out.T, nn.Dense(FEATURES).apply(variables, _x()), rtol=1e-6)


class _DenseDropout(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        return nn.Dropout(0.5, deterministic=False)(nn.Dense(FEATURES)(x))


@case(FAMILY)
def test_per_example_dropout_with_shared_params() -> None:
    """Split dropout rngs with broadcast params give one kernel but different masks per example."""
    model = nn.vmap(
        _DenseDropout,
        variable_axes={"params": None},
        split_rngs={"params": False, "dropout": True},
        in_axes=0,
    )()
    x = jnp.ones((BATCH, IN_DIM))
    rngs = {"params": jax.random.PRNGKey(0), "dropout": jax.random.PRNGKey(1)}
    variables = model.init(rngs, x)
    assert variables["params"]["Dense_0"]["kernel"].shape == (IN_DIM, FEATURES)
    out = model.apply(variables, x, rngs={"dropout": jax.random.PRNGKey(2)})
    assert out.shape == (BATCH, FEATURES)
    masks = np.asarray(out) == 0
    assert not (np.array_equal(masks[0], masks[1]) and np.array_equal(masks[1], masks[2]))


@case(FAMILY, needs=[api("flax.nnx.vmap"), api("flax.nnx.StateAxes")])
def test_nnx_vmap_broadcast_model_with_state_axes() -> None:
    """nnx.vmap with StateAxes({Param: None}) shares the model's kernel and maps the input."""
    from flax import nnx

    model = nnx.Linear(IN_DIM, FEATURES, rngs=nnx.Rngs(0))
    forward = nnx.vmap(lambda m, x: m(x), in_axes=(nnx.StateAxes({nnx.Param: None}), 0))
    out = forward(model, _x())
    assert model.kernel[...].shape == (IN_DIM, FEATURES)
    np.testing.assert_allclose(np.asarray(out), np.asarray(model(_x())), rtol=1e-6)


@case(FAMILY, needs=[api("flax.nnx.vmap")])
def test_nnx_vmap_creates_stacked_ensemble() -> None:
    """nnx.vmap over split keys builds an ensemble whose kernel has a leading member axis."""
    from flax import nnx

    @nnx.vmap(in_axes=0, out_axes=0)
    def create(key: jax.Array) -> nnx.Linear:
        return nnx.Linear(IN_DIM, FEATURES, rngs=nnx.Rngs(key))

    ensemble = create(jax.random.split(jax.random.PRNGKey(0), BATCH))
    kernel = np.asarray(ensemble.kernel[...])
    assert kernel.shape == (BATCH, IN_DIM, FEATURES)
    assert not np.allclose(kernel[0], kernel[1])


@case(FAMILY, devices=8)
def test_spmd_axis_name_shards_mapped_axis() -> None:
    """nn.vmap with spmd_axis_name shards the mapped axis of a constrained intermediate over that mesh axis."""

    class Constrained(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> jax.Array:
            y = nn.Dense(FEATURES)(x)
            return jax.lax.with_sharding_constraint(y, NamedSharding(mesh_2x4(), P("model")))

    model = nn.vmap(
        Constrained,
        variable_axes={"params": None},
        split_rngs={"params": False},
        in_axes=0,
        spmd_axis_name="data",
    )()
    x = jnp.ones((2, IN_DIM))
    variables = model.init(jax.random.PRNGKey(0), x)
    out = jax.jit(model.apply)(variables, x)
    assert out.shape == (2, FEATURES)
    assert out.sharding.spec == P("data", "model")


class _SingleExample(nn.Module):
    """A layer written for one example: it refuses anything but a 1-D input."""

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        assert x.ndim == 1, f"expected one example of shape (D,), got {x.shape}"
        return jnp.tanh(nn.Dense(FEATURES)(x))


@case(FAMILY)
def test_vmap_single_example_module_with_shared_params() -> None:
    """nn.vmap of a 1-D-only module over a (B, D) batch shares one kernel and matches a loop over examples."""
    model = nn.vmap(_SingleExample, variable_axes={"params": None}, split_rngs={"params": False}, in_axes=0)()
    variables = model.init(jax.random.PRNGKey(0), _x())
    assert variables["params"]["Dense_0"]["kernel"].shape == (IN_DIM, FEATURES)
    assert variables["params"]["Dense_0"]["bias"].shape == (FEATURES,)
    out = model.apply(variables, _x())
    assert out.shape == (BATCH, FEATURES)
    looped = np.stack([np.asarray(_SingleExample().apply(variables, example)) for example in _x()])
    np.testing.assert_allclose(np.asarray(out), looped, rtol=1e-6)
