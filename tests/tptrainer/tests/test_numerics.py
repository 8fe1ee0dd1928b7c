from __future__ import annotations

import jax
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P
from tptrainer import layers
from tptrainer.model import shard_layers


@pytest.mark.parametrize("mesh", [1, 2], indirect=True)
class TestNumerics:
    def test_stacked_layers_match_a_float32_numpy_reference(self, mesh):
        rng = np.random.default_rng(0)
        x = rng.standard_normal((512, 1024), dtype=np.float32)
        # The first layer at unit scale, the others at 1/sqrt(1024): activations stay about 32 in size, where float32
        # errs by about 1e-4 but TF32 (a GPU's default float32 matmul precision: a 10-bit mantissa) by about 1e-2.
        # Measured on one H200 (jax 0.11.2, 2026-11-26): 145473 of 524288 elements (27.7 %) off, by up to 0.079, at
        # the default precision; none with JAX_DEFAULT_MATMUL_PRECISION=highest. On the CPU, at most 1.4e-4.
        weights = [rng.standard_normal((1024, 1024), dtype=np.float32) * np.float32(scale)
                   for scale in (1.0, 1 / 32, 1 / 32)]
        expected = x
        for w in weights:
            expected = expected @ w
        assert expected.dtype == np.float32
        got = layers(jax.device_put(x, NamedSharding(mesh, P("data", None))), shard_layers(weights, mesh))
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-3, atol=1e-3)
