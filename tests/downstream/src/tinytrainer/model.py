"""The model's output head, a flax nnx module."""

from __future__ import annotations

import jax
from flax import nnx


class Head(nnx.Module):
    """Projects 4 features to 2 scores."""

    def __init__(self, rngs: nnx.Rngs) -> None:
        self.proj = nnx.Linear(4, 2, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.proj(x)
