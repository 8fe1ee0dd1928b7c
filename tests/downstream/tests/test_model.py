from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import nnx
from tinytrainer.model import Head


class TestHead:
    def test_the_head_is_affine(self):
        head = Head(nnx.Rngs(0))
        x = jnp.arange(12.0).reshape(3, 4)
        expected = x @ head.proj.kernel[...] + head.proj.bias[...]
        np.testing.assert_allclose(np.asarray(head(x)), np.asarray(expected), rtol=1e-6)
