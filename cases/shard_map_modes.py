"""shard_map in each spelling: nnx.shard_map graph and tree modes, jax.experimental.shard_map, jax.shard_map."""

# Version facts (probed on the matrix cells; "cell" bounds are the nearest cells, not the exact release):
# - jax.shard_map, with check_vma= and axis_names=: jax 0.6.1 (absent in 0.6.0).
# - jax.experimental.shard_map.shard_map with check_rep=: in every cell, 0.4.38 to 0.12.0.1.
# - its auto= (partial manual): present up to the 0.7.2 cell, gone by the 0.8.3 cell.
# - a sharding constraint inside a check_rep shard_map: NotImplementedError before jax 0.5.0.
# - partial-manual shard_map outside jit: NotImplementedError before jax 0.7.0.
# - jax.set_mesh: absent in the 0.6.2 cell, present from the 0.7.2 cell.
# - jax.sharding.use_mesh: present in the 0.5.3 to 0.7.2 cells, gone by the 0.8.3 cell.
# - flax.nnx.shard_map: absent in flax 0.10.2, present from the 0.10.6 cell; its graph=: absent in flax 0.12.0,
#   present from the 0.12.6 cell.

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import IN_DIM, mesh_2x4
from harness.case import accepts, api, case

FAMILY = "shard_map_modes"

NNX_SHARD_MAP = api("flax.nnx.shard_map")
NNX_TREE_MODE = accepts("flax.nnx.shard_map", "graph")
EXPERIMENTAL = accepts("jax.experimental.shard_map.shard_map", "check_rep")
EXPERIMENTAL_AUTO = accepts("jax.experimental.shard_map.shard_map", "auto")
JAX_SHARD_MAP = accepts("jax.shard_map", "check_vma")


def _mesh() -> Mesh:
    return Mesh(np.array(jax.devices()[:8]), ("x",))


def _x() -> jax.Array:
    return jnp.arange(16 * IN_DIM, dtype=jnp.float32).reshape(16, IN_DIM) / 10.0


def _counting_linear():  # type: ignore[no-untyped-def]
    """An NNX Linear that also counts its calls in a BatchStat."""
    from flax import nnx

    class CountingLinear(nnx.Module):
        def __init__(self) -> None:
            self.linear = nnx.Linear(IN_DIM, IN_DIM, rngs=nnx.Rngs(0))
            self.calls = nnx.BatchStat(jnp.zeros(()))

        def __call__(self, x: jax.Array) -> jax.Array:
            self.calls.value = self.calls.value + 1
            return self.linear(x)

    return CountingLinear()


def _nnx_forward(model, **kwargs: object) -> jax.Array:  # type: ignore[no-untyped-def]
    """Run `model` under nnx.shard_map with the model replicated and the batch split over x."""
    from flax import nnx

    mapped = nnx.shard_map(lambda m, x: m(x), mesh=_mesh(), in_specs=(P(), P("x")), out_specs=P("x"), **kwargs)
    return mapped(model, _x())  # type: ignore[no-any-return]


@case(FAMILY, devices=8, needs=[NNX_SHARD_MAP])
def test_nnx_shard_map_graph_mode_matches_unsharded() -> None:
    """nnx.shard_map (default graph mode) over 8 devices gives the unsharded model's output."""
    model = _counting_linear()
    expected = np.asarray(model.linear(_x()))
    np.testing.assert_allclose(np.asarray(_nnx_forward(model)), expected, rtol=1e-6)


@case(FAMILY, devices=8, needs=[NNX_SHARD_MAP, NNX_TREE_MODE])
def test_nnx_shard_map_tree_mode_matches_graph_mode() -> None:
    """nnx.shard_map in tree mode (graph=False) gives the same output as graph mode."""
    graph_out = _nnx_forward(_counting_linear(), graph=True)
    tree_out = _nnx_forward(_counting_linear(), graph=False)
    np.testing.assert_allclose(np.asarray(tree_out), np.asarray(graph_out), rtol=1e-6)


@case(FAMILY, devices=8, needs=[NNX_SHARD_MAP])
def test_nnx_shard_map_graph_mode_updates_state() -> None:
    """A variable updated inside nnx.shard_map (graph mode) is updated on the outer model."""
    model = _counting_linear()
    _nnx_forward(model)
    assert float(model.calls[...]) == 1.0


@case(FAMILY, devices=8, needs=[NNX_SHARD_MAP, NNX_TREE_MODE])
def test_nnx_shard_map_tree_mode_updates_state() -> None:
    """A variable updated inside nnx.shard_map in tree mode (graph=False) is updated on the outer model."""
    model = _counting_linear()
    _nnx_forward(model, graph=False)
    assert float(model.calls[...]) == 1.0


def _experimental_shard_map():  # type: ignore[no-untyped-def]
    from jax.experimental.shard_map import shard_map

    return shard_map


@case(FAMILY, devices=8, needs=[EXPERIMENTAL], smoke=True)
def test_experimental_shard_map_psum() -> None:
    """jax.experimental.shard_map.shard_map with a psum returns the replicated global sum."""
    shard_map = _experimental_shard_map()
    total = shard_map(lambda a: jax.lax.psum(a.sum(), "x"), mesh=_mesh(), in_specs=P("x"), out_specs=P())(_x())
    np.testing.assert_allclose(np.asarray(total), np.asarray(_x()).sum(), rtol=1e-6)


@case(FAMILY, devices=8, needs=[EXPERIMENTAL])
def test_experimental_shard_map_check_rep_rejects_unreplicated() -> None:
    """jax.experimental.shard_map with check_rep rejects an unreplicated value declared replicated."""
    shard_map = _experimental_shard_map()
    with pytest.raises(ValueError):
        shard_map(lambda a: a, mesh=_mesh(), in_specs=P("x"), out_specs=P())(_x())


@case(FAMILY, devices=8, needs=[EXPERIMENTAL])
def test_experimental_shard_map_check_rep_off() -> None:
    """jax.experimental.shard_map with check_rep=False returns one block for an out_spec of P()."""
    shard_map = _experimental_shard_map()
    out = shard_map(lambda a: a, mesh=_mesh(), in_specs=P("x"), out_specs=P(), check_rep=False)(_x())
    assert out.shape == (2, IN_DIM)


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP], smoke=True)
def test_jax_shard_map_psum_explicit_mesh() -> None:
    """jax.shard_map with an explicit mesh and a psum returns the replicated global sum."""
    total = jax.shard_map(lambda a: jax.lax.psum(a.sum(), "x"), mesh=_mesh(), in_specs=P("x"), out_specs=P())(_x())
    np.testing.assert_allclose(np.asarray(total), np.asarray(_x()).sum(), rtol=1e-6)


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP, api("jax.set_mesh")])
def test_jax_shard_map_mesh_from_set_mesh() -> None:
    """jax.shard_map without mesh= takes the mesh from jax.set_mesh."""
    with jax.set_mesh(_mesh()):
        total = jax.shard_map(lambda a: jax.lax.psum(a.sum(), "x"), in_specs=P("x"), out_specs=P())(_x())
    np.testing.assert_allclose(np.asarray(total), np.asarray(_x()).sum(), rtol=1e-6)


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP, api("jax.sharding.use_mesh")])
def test_jax_shard_map_mesh_from_use_mesh() -> None:
    """jax.shard_map without mesh= takes the mesh from jax.sharding.use_mesh."""
    with jax.sharding.use_mesh(_mesh()):
        total = jax.shard_map(lambda a: jax.lax.psum(a.sum(), "x"), in_specs=P("x"), out_specs=P())(_x())
    np.testing.assert_allclose(np.asarray(total), np.asarray(_x()).sum(), rtol=1e-6)


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP])
def test_jax_shard_map_all_gather() -> None:
    """A tiled all_gather inside jax.shard_map gives every device the whole array."""
    # all_gather's result still counts as device-varying for check_vma, so each device returns its copy.
    gathered = jax.shard_map(
        lambda a: jax.lax.all_gather(a, "x", tiled=True), mesh=_mesh(), in_specs=P("x"), out_specs=P("x")
    )(_x())
    copies = np.asarray(gathered).reshape(8, *_x().shape)
    for copy in copies:
        np.testing.assert_array_equal(copy, np.asarray(_x()))


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP])
def test_jax_shard_map_check_vma_rejects_unreplicated() -> None:
    """jax.shard_map with check_vma rejects an unreplicated value declared replicated."""
    with pytest.raises(ValueError):
        jax.shard_map(lambda a: a, mesh=_mesh(), in_specs=P("x"), out_specs=P())(_x())


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP])
def test_jax_shard_map_check_vma_off() -> None:
    """jax.shard_map with check_vma=False returns one block for an out_spec of P()."""
    out = jax.shard_map(lambda a: a, mesh=_mesh(), in_specs=P("x"), out_specs=P(), check_vma=False)(_x())
    assert out.shape == (2, IN_DIM)


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP])
def test_jax_shard_map_indivisible_input_raises() -> None:
    """jax.shard_map rejects an input whose sharded axis does not divide over the mesh axis."""
    with pytest.raises(ValueError):
        jax.shard_map(lambda a: a, mesh=_mesh(), in_specs=P("x"), out_specs=P("x"))(jnp.ones((12, IN_DIM)))


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP])
def test_jax_shard_map_in_specs_arity_mismatch_raises() -> None:
    """jax.shard_map rejects in_specs whose tree does not match the arguments."""
    with pytest.raises(ValueError):
        jax.shard_map(lambda a: a, mesh=_mesh(), in_specs=(P("x"), P("x")), out_specs=P("x"))(_x())


def _partial_x() -> np.ndarray:
    return np.arange(8 * 16, dtype=np.float32).reshape(8, 16)


def _placed_partial_x(mesh: Mesh) -> jax.Array:
    """The (8, 16) input, rows over "data" and columns over "model"."""
    return jax.device_put(_partial_x(), NamedSharding(mesh, P("data", "model")))


def _blocks_summed_over_data() -> np.ndarray:
    return _partial_x().reshape(2, 4, 16).sum(0)


def _sum_over_data(a: jax.Array) -> jax.Array:
    """Sum the blocks over the manual "data" axis and pin the columns to the auto "model" axis."""
    # The constraint names only the auto axis, so the output's placement is fixed rather than left to the compiler.
    return jax.lax.with_sharding_constraint(jax.lax.psum(a, "data"), NamedSharding(mesh_2x4(), P(None, "model")))


@case(FAMILY, devices=8, needs=[EXPERIMENTAL_AUTO])
def test_experimental_shard_map_partial_manual_auto() -> None:
    """jax.experimental.shard_map with auto={"model"} is manual over "data" only; "model" stays compiler-sharded."""
    shard_map = _experimental_shard_map()
    mesh = mesh_2x4()
    mapped = shard_map(_sum_over_data, mesh=mesh, in_specs=P("data"), out_specs=P(), auto=frozenset({"model"}))
    out = jax.jit(mapped)(_placed_partial_x(mesh))
    np.testing.assert_allclose(np.asarray(out), _blocks_summed_over_data(), rtol=1e-6)
    assert out.sharding.spec == P(None, "model")


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP])
def test_jax_shard_map_partial_manual_axis_names() -> None:
    """jax.shard_map with axis_names={"data"} is manual over "data" only; "model" stays compiler-sharded."""
    mesh = mesh_2x4()
    mapped = jax.shard_map(_sum_over_data, mesh=mesh, in_specs=P("data"), out_specs=P(), axis_names={"data"})
    out = jax.jit(mapped)(_placed_partial_x(mesh))
    np.testing.assert_allclose(np.asarray(out), _blocks_summed_over_data(), rtol=1e-6)
    assert out.sharding.spec == P(None, "model")


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP])
def test_jax_shard_map_partial_manual_eager() -> None:
    """jax.shard_map with axis_names={"data"}, called eagerly without jit, sums the blocks over "data"."""
    mesh = mesh_2x4()
    sum_blocks = jax.shard_map(
        lambda a: jax.lax.psum(a, "data"), mesh=mesh, in_specs=P("data"), out_specs=P(), axis_names={"data"}
    )
    out = sum_blocks(_placed_partial_x(mesh))
    np.testing.assert_allclose(np.asarray(out), _blocks_summed_over_data(), rtol=1e-6)
