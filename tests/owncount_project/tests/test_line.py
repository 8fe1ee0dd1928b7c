from __future__ import annotations

import jax
import jax.numpy as jnp
import meshlib
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def test_the_tests_run_on_the_two_devices_they_were_written_for():
    assert jax.device_count() == 2


def test_rows_split_over_the_line():
    # jax 0.8.1 warns in make_mesh (DeprecationWarning: the default axis_types will change): an error here.
    mesh = meshlib.line()
    rows = jax.device_put(jnp.ones((4, 3)), NamedSharding(mesh, P("x")))
    assert rows.sharding.spec == P("x") and len(rows.addressable_shards) == 2
