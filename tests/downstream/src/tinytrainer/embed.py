"""The embedding lookup, written as training code writes it: a default jax.make_mesh, the table sharded by vocab."""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def vocab_mesh() -> jax.sharding.Mesh:
    """A 1-D mesh over 8 devices, axis types left to jax's default."""
    return jax.make_mesh((8,), ("vocab",))


def shard_table(table: np.ndarray, mesh: jax.sharding.Mesh) -> jax.Array:
    """The table with its rows split across the vocab axis."""
    return jax.device_put(table, NamedSharding(mesh, P("vocab", None)))


@jax.jit
def lookup(table: jax.Array, ids: jax.Array) -> jax.Array:
    """The rows of `ids`: jax 0.9 makes make_mesh axes Explicit, and this gather then needs an out_sharding."""
    return table[ids]
