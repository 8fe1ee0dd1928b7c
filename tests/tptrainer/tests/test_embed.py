from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest
from tptrainer import embed, shard

IDS = np.array([3, 17, 40, 63, 0, 9, 22, 50], dtype=np.int32)


@pytest.mark.parametrize("mesh", [1, 2], indirect=True)
class TestEmbedding:
    def test_gather_gives_the_rows(self, mesh, params):
        sharded = shard(params, mesh)
        out = embed(sharded.table, jnp.asarray(IDS))
        np.testing.assert_array_equal(np.asarray(out), np.asarray(params.table)[IDS])
