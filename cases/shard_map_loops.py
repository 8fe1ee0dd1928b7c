"""Loops inside shard_map as users write them: a linen nn.scan applied in a shard_map body, its carry checked by
shard_map's replication rules (check_rep, then check_vma)."""

# Each case reproduces one public report, cut to a user's few lines; its known breakage (cases/known_breakages.toml)
# spans exactly the releases that have the bug, measured on both sides.
# Version facts: jax.shard_map from jax 0.6.1 (check_vma=); before it jax.experimental.shard_map.shard_map
# (check_rep=). linen nn.scan with length= and no scanned input: every flax of the matrix.

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

from cases._support import line_mesh, mesh_size
from harness.case import case

FAMILY = "vmap_param_shapes"

STEPS, WIDTH = 3, 4


def _checked_shard_map(body: Callable[..., Any], in_specs: Any, out_specs: Any) -> Any:
    """shard_map over a 1-D mesh "i", its replication check on (the default), in the spelling the release offers."""
    mesh = line_mesh("i")
    if hasattr(jax, "shard_map"):
        return jax.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)
    from jax.experimental.shard_map import shard_map

    return shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)


class _Clock(nn.Module):
    """One step of a learned recurrent signal: its carry comes from the parameters alone, never from the batch."""

    @nn.compact
    def __call__(self, state: jax.Array, _: None) -> tuple[jax.Array, jax.Array]:
        state = jnp.tanh(nn.Dense(WIDTH)(state))
        return state, state


class _ClockedInputs(nn.Module):
    """Adds the sum of a scanned clock's states, which start from zeros, to every input row."""

    @nn.compact
    def __call__(self, xs: jax.Array) -> jax.Array:
        clock = nn.scan(_Clock, variable_broadcast="params", split_rngs={"params": False}, length=STEPS)
        return xs + clock()(jnp.zeros((WIDTH,)), None)[1].sum(axis=0)  # type: ignore[no-any-return]


@case(FAMILY, devices=2, cites=("google/flax#4217",))
def test_linen_scan_with_a_zeros_carry_inside_a_checked_shard_map() -> None:
    """A linen nn.scan whose carry starts as zeros, applied with replicated params to a batch sharded on "i" inside a
    jitted shard_map with its replication check on, gives the unsharded apply's output."""
    model = _ClockedInputs()
    xs = jnp.arange(2.0 * mesh_size() * WIDTH).reshape(2 * mesh_size(), WIDTH) / 10.0
    params = model.init(jax.random.PRNGKey(0), xs)
    sharded = jax.jit(_checked_shard_map(model.apply, (P(), P("i")), P("i")))
    np.testing.assert_allclose(np.asarray(sharded(params, xs)), np.asarray(model.apply(params, xs)), rtol=1e-6)
