from __future__ import annotations

import jax.numpy as jnp
from tinytrainer import sgd_step


class TestTrain:
    def test_a_step_lowers_the_loss(self):
        params = jnp.ones((4,))
        new, loss = sgd_step(params)
        _, after = sgd_step(new)
        assert float(after) < float(loss)
