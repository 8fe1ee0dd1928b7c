"""shard_map as training code writes it: the mesh from jax.make_mesh, the batch as the loader gives it, old imports."""

# Each case is written the way a trainer's data-parallel step is: defaults left out (axis types, check_rep /
# check_vma, the input's sharding), the spelling of the release it was written for. It asserts the values the step
# relies on, so a changed default shows as passed -> failed at the release that changed it, and a deprecated
# spelling warns in the cells before it breaks. Each docstring names that release and the cells that show it.

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from harness.case import Change, accepts, api, case

# Imported at the top, as code written for jax 0.4 to 0.7 does: from jax 0.8.0 this import is where the
# DeprecationWarning is raised (jax warns once per process, at the first access). Kept importable when it is gone so
# that only the cases using it fail.
try:
    from jax.experimental.shard_map import shard_map as experimental_shard_map
except ImportError:
    experimental_shard_map = None

# Code of the jax 0.4 era counts devices through jax.lib.xla_bridge. From jax 0.8.0 importing the module warns ("will be
# removed in JAX v0.9.0"); from 0.9.0 it is gone, and only the case using it fails.
try:
    from jax.lib import xla_bridge
except ImportError:
    xla_bridge = None

FAMILY = "shard_map_modes"

JAX_SHARD_MAP = accepts("jax.shard_map", "check_vma")

BATCH, DIM = 16, 4


def _batch() -> np.ndarray:
    """A batch as a data loader hands it over: a host array, sharded by nobody yet."""
    return np.arange(BATCH * DIM, dtype=np.float32).reshape(BATCH, DIM) / 10.0


def _device_mesh() -> Mesh:
    return Mesh(np.array(jax.devices()[:8]), ("data",))


def _experimental_shard_map():  # type: ignore[no-untyped-def]
    """jax.experimental.shard_map.shard_map, or a failure that says it is gone (a break, not "not applicable")."""
    assert experimental_shard_map is not None, "jax.experimental.shard_map.shard_map is gone"
    return experimental_shard_map


@case(FAMILY, devices=8, needs=[api("jax.make_mesh"), JAX_SHARD_MAP],
      changed=Change("jax>=0.9.1", "on an Explicit mesh jax.shard_map checks, no longer reshards, its inputs",
                     raises="ValueError", kind="behaviour", warned="jax>=0.8.1,<0.9.0",
                     fix="jax.device_put the batch with NamedSharding(mesh, P('data')) first, or make the mesh "
                         "with axis_types=(jax.sharding.AxisType.Auto,)"))
def test_data_parallel_loss_on_make_mesh() -> None:
    """jax.shard_map over a jax.make_mesh mesh sums per-device losses of a batch straight from the loader.

    Changes in jax 0.9.1: on an Explicit mesh (the jax.make_mesh default since 0.9.0) shard_map asserts that the input
    is already sharded as in_specs instead of resharding it (CHANGELOG 0.9.1 "Changes"): ValueError "in_specs ... does
    not match the specs of the input". Cells: warns 0.8.1 to 0.8.3 (make_mesh without axis_types),
    fails 0.9.2; exactly: passes 0.9.0, fails 0.9.1.
    """
    mesh = jax.make_mesh((8,), ("data",))
    step = jax.shard_map(lambda x: jax.lax.psum(jnp.sum(x * x), "data"), mesh=mesh, in_specs=P("data"), out_specs=P())
    loss = step(jnp.asarray(_batch()))
    np.testing.assert_allclose(np.asarray(loss), np.sum(_batch() ** 2), rtol=1e-5)


@case(FAMILY, devices=8,
      changed=Change("jax>=0.6.0", "jax_varying_axes_in_types is on by default: shard_map types a loop carry as "
                     "varying or invariant", raises="TypeError", kind="default",
                     fix="make the carry varying (jax.lax.pvary(jnp.zeros(...), 'data')), or check_vma=False"))
def test_experimental_shard_map_gradient_accumulation_loop() -> None:
    """A fori_loop accumulating into jnp.zeros inside jax.experimental.shard_map gives the accumulated blocks.

    Changes in jax 0.6.0: jax_varying_axes_in_types defaults to True (commit 75e4279e32, not in the CHANGELOG), so
    check_rep (on by default) types the loop carry: an invariant zeros carry plus a per-device block raises TypeError
    ("scan body function carry input and carry output must have equal types") where the rewrite used to insert the
    broadcast. Cells: passes 0.5.3, fails 0.6.0.
    """
    shard_map = _experimental_shard_map()

    def accumulate(block: jax.Array) -> jax.Array:
        return jax.lax.fori_loop(0, 3, lambda _, acc: acc + block, jnp.zeros(block.shape))

    out = shard_map(accumulate, _device_mesh(), in_specs=P("data"), out_specs=P("data"))(_batch())
    np.testing.assert_allclose(np.asarray(out), 3 * _batch(), rtol=1e-6)


@case(FAMILY, devices=8,
      changed=Change(None, "jax.experimental.shard_map is deprecated", kind="deprecation", warned="jax>=0.8.0",
                     fix="jax.shard_map(f, mesh=mesh, in_specs=..., out_specs=...)"))
def test_experimental_shard_map_positional_mesh_psum() -> None:
    """jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs) with a psum gives the global loss.

    Deprecated in jax 0.8.0: the import warns (DeprecationWarning "jax.experimental.shard_map is deprecated in
    v0.8.0", CHANGELOG 0.8.0 "Deprecations"); still works in jax 0.12.0.1. Cells: silent in 0.7.2, warns from 0.8.1.
    """
    shard_map = _experimental_shard_map()
    step = shard_map(lambda x: jax.lax.psum(jnp.sum(x * x), "data"), _device_mesh(), P("data"), P())
    np.testing.assert_allclose(np.asarray(step(_batch())), np.sum(_batch() ** 2), rtol=1e-5)


@case(FAMILY, devices=8,
      changed=Change("jax>=0.8.0", "jax.lib.xla_bridge.get_backend is removed (the module itself in 0.9.0)",
                     raises=["AttributeError", "AssertionError"], kind="removal", warned="jax>=0.4.32,<0.8.0",
                     fix="jax.device_count(), or jax.extend.backend.get_backend()"))
def test_mesh_sized_by_xla_bridge_device_count() -> None:
    """A data mesh sized by jax.lib.xla_bridge.get_backend().device_count() runs a psum loss step over the batch.

    Changes in jax 0.8.0: jax.lib.xla_bridge.get_backend is removed (AttributeError naming
    jax.extend.backend.get_backend; CHANGELOG 0.8.0 "Breaking changes"), the module itself in 0.9.0. Deprecated in jax
    0.4.32 (commit 3551fcc077; CHANGELOG 0.4.32 "Deprecations"). Cells: silent in 0.4.30, warns 0.4.38 to 0.7.2, fails
    from 0.8.1.
    """
    assert xla_bridge is not None, "jax.lib.xla_bridge is gone"
    devices = xla_bridge.get_backend().device_count()
    mesh = Mesh(np.array(jax.devices()[:devices]), ("data",))
    shard_map = _experimental_shard_map()
    step = shard_map(lambda x: jax.lax.psum(jnp.sum(x), "data"), mesh, in_specs=P("data"), out_specs=P())
    loss = step(_batch())
    np.testing.assert_allclose(np.asarray(loss), np.sum(_batch()), rtol=1e-5)
    assert len(loss.sharding.device_set) == devices and loss.sharding.is_fully_replicated


@case(FAMILY, devices=8, changed=None)  # pmap-era data parallelism; no upstream change declared
def test_pmap_step_on_state_from_jax_utils_replicate() -> None:
    """Params put on every device with flax.jax_utils.replicate take a pmapped SGD step (gradients pmean-ed over the
    batch) that equals the step on the whole batch, and jax_utils.unreplicate gives them back.

    Cells: passes jax 0.4.38 to 0.12.0.1 with the flax released beside each; flax's replicate called
    jax.device_put_replicated (removed in jax 0.10.0) up to flax 0.12.3, so an older flax on a newer jax fails here."""
    from flax import jax_utils

    params = {"w": jnp.ones((DIM, 2), jnp.float32)}
    replicated = jax_utils.replicate(params, devices=jax.devices()[:8])
    batch = jnp.asarray(_batch())

    def loss(p: dict[str, jax.Array], x: jax.Array) -> jax.Array:
        return jnp.mean((x @ p["w"]) ** 2)

    def step(p: dict[str, jax.Array], x: jax.Array) -> dict[str, jax.Array]:
        grads = jax.lax.pmean(jax.grad(loss)(p, x), "batch")
        return jax.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads)

    stepped = jax.pmap(step, axis_name="batch")(replicated, batch.reshape(8, BATCH // 8, DIM))
    assert stepped["w"].shape == (8, DIM, 2)
    expected = params["w"] - 0.1 * jax.grad(loss)(params, batch)["w"]
    np.testing.assert_allclose(np.asarray(jax_utils.unreplicate(stepped)["w"]), np.asarray(expected), rtol=1e-5)
