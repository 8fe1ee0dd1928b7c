"""The mesh, built as trainers built it before jax 0.9: axis types left to jax's default."""

from __future__ import annotations

import jax


def make_mesh(tp: int) -> jax.sharding.Mesh:
    """A (data, model) mesh of 1 x `tp` devices: jax 0.9 makes these axes Explicit, which the gather then feels."""
    return jax.make_mesh((1, tp), ("data", "model"))
