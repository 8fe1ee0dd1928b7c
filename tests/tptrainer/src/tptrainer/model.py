"""The model: an embedding table sharded by vocab over the model axis, and a head sharded by its outputs."""

from __future__ import annotations

from typing import NamedTuple

import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


class Params(NamedTuple):
    """The embedding table (vocab x width) and the head (width x classes)."""

    table: jax.Array
    head: jax.Array


def init(seed: int = 0, vocab: int = 64, width: int = 16, classes: int = 8) -> Params:
    """Parameters drawn from N(0, 1), the head scaled by 1/sqrt(width)."""
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((vocab, width), dtype=np.float32)
    head = rng.standard_normal((width, classes), dtype=np.float32) / np.float32(np.sqrt(width))
    return Params(jax.numpy.asarray(table), jax.numpy.asarray(head))


def shard(params: Params, mesh: jax.sharding.Mesh) -> Params:
    """The table split by vocab rows, the head by its output columns, both over the model axis."""
    return Params(jax.device_put(params.table, NamedSharding(mesh, P("model", None))),
                  jax.device_put(params.head, NamedSharding(mesh, P(None, "model"))))


@jax.jit
def embed(table: jax.Array, ids: jax.Array) -> jax.Array:
    """The rows of `ids`: on a vocab-sharded table under Explicit axes this gather needs an out_sharding."""
    return table[ids]


@jax.jit
def forward(params: Params, ids: jax.Array) -> jax.Array:
    """The logits of each token: its embedding times the head."""
    return embed(params.table, ids) @ params.head


@jax.jit
def layers(x: jax.Array, weights: list[jax.Array]) -> jax.Array:
    """Stacked matmul layers, no nonlinearity between them: x @ w1 @ w2 @ ..."""
    for w in weights:
        x = x @ w
    return x


def shard_layers(weights: list[np.ndarray], mesh: jax.sharding.Mesh) -> list[jax.Array]:
    """The hidden layers replicated, the last split by its output columns over the model axis."""
    specs = [P()] * (len(weights) - 1) + [P(None, "model")]
    return [jax.device_put(w, NamedSharding(mesh, spec)) for w, spec in zip(weights, specs, strict=True)]
