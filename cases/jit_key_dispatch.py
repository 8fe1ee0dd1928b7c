"""Random keys carried through a jitted training step with out_shardings, as an RNG-threading loop does.

Each case is user code a jax fix commit repairs, cited by that commit's census row; its range is a known breakage
(cases/known_breakages.toml) over the releases measured to fail.
"""

from __future__ import annotations

import jax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import line_mesh
from harness.case import case

FAMILY = "partitioned_metadata"


@case(FAMILY, devices=2, cites=("jax-ml/jax@9120bf895b",))
def test_keys_fed_back_through_jit_with_out_shardings_reuse_one_executable() -> None:
    """Keys split by a jit with out_shardings and fed back into it, step after step, run one compiled executable.

    Fails before jax 0.11.0 (AssertionError: 2 cache entries): the C++ fast path stamps its key outputs with the
    logical sharding instead of the physical one, so the third call, fed a fast-path key, misses the cache and
    compiles again (jax-ml/jax#39089); fixed by commit 9120bf89, first in jax 0.11.0.
    """
    split = NamedSharding(line_mesh("batch"), P("batch"))
    step = jax.jit(jax.vmap(lambda key: jax.random.split(key)[0]), out_shardings=split)
    keys = jax.device_put(jax.random.split(jax.random.key(0), 8), split)
    for _ in range(4):
        keys = step(keys)
    assert keys.sharding == split
    assert step._cache_size() == 1, f"{step._cache_size()} cache entries for one input type"
