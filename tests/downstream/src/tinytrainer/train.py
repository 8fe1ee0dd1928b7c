"""One optimiser step with optax."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax


def sgd_step(params: jax.Array, learning_rate: float = 0.1) -> tuple[jax.Array, jax.Array]:
    """One SGD step on sum(params**2); returns the new params and the loss before the step."""
    optimizer = optax.sgd(learning_rate)
    state = optimizer.init(params)
    loss, grads = jax.value_and_grad(lambda p: jnp.sum(p**2))(params)
    updates, _ = optimizer.update(grads, state, params)
    return optax.apply_updates(params, updates), loss
