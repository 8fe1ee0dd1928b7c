from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from lookups import IDS
from tinytrainer import lookup
from tinytrainer.embed import shard_table


class TestEmbedding:
    def test_lookup_gives_the_rows(self, mesh, table):
        out = lookup(shard_table(table, mesh), jnp.asarray(IDS))
        np.testing.assert_array_equal(np.asarray(out), table[IDS])

    def test_table_is_split_by_vocab(self, mesh, table):
        sharded = shard_table(table, mesh)
        assert len(sharded.addressable_shards) == 8
        assert sharded.addressable_shards[0].data.shape == (8, 4)
