from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from tptrainer import forward, init, shard

IDS = np.array([[3, 17, 40, 63], [0, 9, 22, 50]], dtype=np.int32)


class TestInit:
    def test_the_shapes(self):
        params = init(vocab=64, width=16, classes=8)
        assert params.table.shape == (64, 16) and params.head.shape == (16, 8)


@pytest.mark.parametrize("mesh", [1, 2], indirect=True)
class TestForward:
    def test_logits_are_embeddings_times_the_head(self, mesh, params):
        logits = forward(shard(params, mesh), jnp.asarray(IDS))
        expected = np.asarray(params.table)[IDS] @ np.asarray(params.head)
        assert logits.shape == (2, 4, 8)
        # Loose: this test is about the sharded program, not about matmul precision (test_numerics is).
        np.testing.assert_allclose(np.asarray(logits), expected, rtol=1e-2, atol=1e-2)
