"""Gathers as training code writes them: defaults left out, legacy spellings kept, values and shardings relied on."""

# Each case is written the way a trainer's own sharding code is (the SkyRL LoRA layers, a pjit-era embedding): the
# mesh built by jax.make_mesh(shape, names) alone, no mesh context unless the code has one, the spelling of the
# release it was written for. It asserts what that code relies on, so a changed default shows as passed -> failed
# at the release that changed it, and a deprecated spelling warns in the cells before it breaks. Each docstring
# names that release; the cells that show it are in the case's docstring too (probed, not believed).

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from harness.case import api, case

# Imported at the top, as pjit-era code does: from jax 0.8.0 this import is where the DeprecationWarning is raised
# (jax warns once per process, at the first access). Kept importable when it is gone so only its case fails.
try:
    from jax.experimental.pjit import pjit
except ImportError:
    pjit = None

FAMILY = "sharded_gathers"

MAKE_MESH = api("jax.make_mesh")

VOCAB, DIM = 64, 4
IDS = np.array([3, 17, 40, 63, 0, 9, 22, 50], dtype=np.int32)

# Row 0 of jax.random.normal(jax.random.PRNGKey(0), (64, 4)) as jax 0.4.38 wrote it: the checkpoint a run started
# on jax 0.4 holds, which a resumed or re-initialised run is compared against.
CHECKPOINT_ROW_0 = [1.4349451065063477, -0.12931382656097412, 1.6426585912704468, -1.0075926780700684]


def _table() -> np.ndarray:
    return np.arange(VOCAB * DIM, dtype=np.float32).reshape(VOCAB, DIM)


def _device_mesh(name: str) -> Mesh:
    """A 1-D mesh over the 8 devices spelled as jax.sharding.Mesh (auto axes in every release)."""
    return Mesh(np.array(jax.devices()[:8]), (name,))


def _vocab_sharded_table(mesh: Mesh) -> jax.Array:
    return jax.device_put(_table(), NamedSharding(mesh, P("vocab", None)))


@case(FAMILY, devices=8, needs=[MAKE_MESH])
def test_embedding_lookup_under_jit_on_make_mesh() -> None:
    """A jitted table[ids] on a vocab-sharded table of a jax.make_mesh mesh gives the rows on every device.

    Changes in jax 0.9.0: jax.make_mesh without axis_types makes Explicit axes, and the lookup raises
    ShardingTypeError ("use .at[...].get(out_sharding=)"). jax 0.8.1 to 0.8.3 warn (DeprecationWarning: "The default
    axis_types will change in JAX v0.9.0"); CHANGELOG 0.8.1 "Deprecations". Cells: warns 0.8.1 to 0.8.3, fails 0.9.2.
    """
    mesh = jax.make_mesh((8,), ("vocab",))
    out = jax.jit(lambda table, ids: table[ids])(_vocab_sharded_table(mesh), jnp.asarray(IDS))
    np.testing.assert_array_equal(np.asarray(out), _table()[IDS])
    assert out.sharding.is_fully_replicated


@case(FAMILY, devices=8, needs=[MAKE_MESH, api("jax.set_mesh")])
def test_embedding_lookup_under_set_mesh() -> None:
    """Under jax.set_mesh, a jitted jnp.take from a vocab-sharded table of a jax.make_mesh mesh gives the rows.

    Changes in jax 0.9.0: the mesh context does not restore the old behaviour; the make_mesh default is Explicit and
    the gather raises ShardingTypeError. Cells: warns 0.8.1 to 0.8.3 (make_mesh without axis_types), fails 0.9.2.
    """
    mesh = jax.make_mesh((8,), ("vocab",))
    table = _vocab_sharded_table(mesh)
    with jax.set_mesh(mesh):
        out = jax.jit(lambda t, ids: jnp.take(t, ids, axis=0))(table, jnp.asarray(IDS))
    np.testing.assert_array_equal(np.asarray(out), _table()[IDS])


@case(FAMILY, devices=8, needs=[MAKE_MESH])
def test_adapter_indices_repeated_per_token() -> None:
    """Per-sequence LoRA adapter indices, batch-sharded, repeated per token with jnp.repeat under jit.

    Changes in jax 0.9.0: on the (now Explicit) make_mesh mesh, jnp.repeat of a sharded array raises ValueError
    ("Please pass sharding to jnp.repeat via out_sharding"). Cells: warns 0.8.1 to 0.8.3 (make_mesh without
    axis_types), fails 0.9.2.
    """
    mesh = jax.make_mesh((8,), ("dp",))
    adapters = np.array([0, 1, 2, 0, 1, 2, 0, 1], dtype=np.int32)
    per_sequence = jax.device_put(adapters, NamedSharding(mesh, P("dp")))
    tokens_per_sequence = 4
    per_token = jax.jit(
        lambda a: jnp.repeat(a, tokens_per_sequence, total_repeat_length=adapters.size * tokens_per_sequence)
    )(per_sequence)
    np.testing.assert_array_equal(np.asarray(per_token), np.repeat(adapters, tokens_per_sequence))


@case(FAMILY, devices=8)
def test_lookup_output_spec_compared_to_a_tuple() -> None:
    """Rows gathered by batch-sharded ids come out sharded over the batch, checked as `spec == ("x", None)`.

    Changes in jax 0.10.0: PartitionSpec no longer compares equal to a tuple (CHANGELOG 0.10.0 "Breaking changes"),
    so the user's check fails though the sharding is the same; no warning before. Cells: passes 0.9.2, fails 0.10.0.
    """
    mesh = _device_mesh("x")
    table = jax.device_put(_table(), NamedSharding(mesh, P("x", None)))
    ids = jax.device_put(IDS, NamedSharding(mesh, P("x")))
    out = jax.jit(lambda t, i: t[i])(table, ids)
    np.testing.assert_array_equal(np.asarray(out), _table()[IDS])
    assert out.sharding.spec == ("x", None)


@case(FAMILY, devices=8)
def test_sharded_init_matches_checkpoint() -> None:
    """A vocab-sharded embedding initialised from PRNGKey(0) under jit matches the checkpoint of the first run.

    Changes in jax 0.5.0: jax_threefry_partitionable defaults to True (CHANGELOG 0.5.0 "Breaking changes"), so the
    same seed draws other values and a resumed run no longer matches what jax 0.4 wrote. Cells: passes 0.4.38,
    fails 0.5.3.
    """
    mesh = _device_mesh("vocab")
    init = jax.jit(
        lambda key: jax.random.normal(key, (VOCAB, DIM)), out_shardings=NamedSharding(mesh, P("vocab", None))
    )
    table = init(jax.random.PRNGKey(0))
    assert table.sharding.spec == P("vocab", None)
    np.testing.assert_allclose(np.asarray(table[0]), CHECKPOINT_ROW_0, rtol=1e-6)


@case(FAMILY, devices=8)
def test_optimizer_moments_follow_table_with_tree_map() -> None:
    """Adam moments built with jax.tree_map(jnp.zeros_like, params) are zeros sharded like the embedding table.

    Changes in jax 0.6.0: jax.tree_map is removed (AttributeError); deprecated since jax 0.4.26 (CHANGELOG).
    Cells: warns 0.4.30 to 0.5.3 (DeprecationWarning), fails 0.6.0.
    """
    params = {"embedding": _vocab_sharded_table(_device_mesh("vocab"))}
    moments = jax.tree_map(jnp.zeros_like, params)  # type: ignore[attr-defined]
    assert moments["embedding"].sharding.spec == P("vocab", None)
    np.testing.assert_array_equal(np.asarray(moments["embedding"]), np.zeros((VOCAB, DIM), np.float32))


@case(FAMILY, devices=8)
def test_lookup_on_table_from_device_put_replicated() -> None:
    """A table copied to every device with jax.device_put_replicated gives each device's rows in a vmapped lookup.

    Changes in jax 0.10.0: jax.device_put_replicated is removed (AttributeError); deprecated in jax 0.8.1 (CHANGELOG
    0.8.1 "Deprecations"). Cells: warns 0.8.1 to 0.9.2, fails 0.10.0.
    """
    replicas = jax.device_put_replicated(_table(), jax.devices()[:8])  # type: ignore[attr-defined]
    ids_per_device = IDS.reshape(8, 1)
    out = jax.vmap(lambda table, ids: table[ids])(replicas, jnp.asarray(ids_per_device))
    np.testing.assert_array_equal(np.asarray(out), _table()[ids_per_device])
    assert len(replicas.sharding.device_set) == 8


@case(FAMILY, devices=8)
def test_lookup_with_positional_sharding() -> None:
    """Ids placed with PositionalSharding over the devices gather rows of a replicated table, sharded by the ids.

    Changes in jax 0.7.0: jax.sharding.PositionalSharding is removed (AttributeError; commit 4aa1db4f8b); deprecated in
    jax 0.6.0 (commit 6efcf44b1a, DeprecationWarning "jax.sharding.PositionalSharding is deprecated. Use
    jax.NamedSharding instead."). Cells: silent in 0.5.3, warns in 0.6.0 and 0.6.2, fails 0.7.2.
    """
    positional = jax.sharding.PositionalSharding(jax.devices()[:8])  # type: ignore[attr-defined]
    ids = jax.device_put(IDS, positional)
    table = jax.device_put(_table(), positional.reshape(8, 1).replicate())
    out = jax.jit(lambda t, i: t[i])(table, ids)
    np.testing.assert_array_equal(np.asarray(out), _table()[IDS])
    assert out.sharding.shard_shape(out.shape) == (1, DIM)


@case(FAMILY, devices=8)
def test_lookup_with_pjit_under_mesh_context() -> None:
    """pjit with a bare PartitionSpec out_shardings inside `with mesh:` returns the rows sharded as asked.

    Deprecated, not yet broken (works in jax 0.12.0.1): pjit warns from jax 0.8.0 (CHANGELOG 0.8.0 "Deprecations":
    "jax.experimental.pjit.pjit is deprecated"), and `with mesh:` warns from jax 0.10.1 (CHANGELOG 0.10.1). Cells:
    silent in 0.7.2, warns from 0.8.1; the second warning from 0.10.2.
    """
    assert pjit is not None, "jax.experimental.pjit.pjit is gone"
    mesh = _device_mesh("vocab")
    table = _vocab_sharded_table(mesh)
    with mesh:
        out = pjit(lambda t, ids: t[ids], out_shardings=P("vocab", None))(table, jnp.asarray(IDS))
    np.testing.assert_array_equal(np.asarray(out), _table()[IDS])
    assert out.sharding.spec == P("vocab", None)


@case(FAMILY, devices=8)
def test_gather_constraint_visible_in_lowered_module() -> None:
    """A sharding constraint on gathered rows shows in the lowered module as an `mhlo.sharding` annotation.

    Changes in jax 0.7.0: the Shardy partitioner is the default (jax_use_shardy_partitioner; CHANGELOG 0.7.0
    "Breaking changes"), and the lowered module carries `sdy.sharding` instead. Cells: passes 0.6.2, fails 0.7.2.
    """
    mesh = _device_mesh("vocab")

    def lookup(table: jax.Array, ids: jax.Array) -> jax.Array:
        return jax.lax.with_sharding_constraint(table[ids], NamedSharding(mesh, P("vocab", None)))

    text = jax.jit(lookup).lower(_vocab_sharded_table(mesh), jnp.asarray(IDS)).as_text()
    assert "mhlo.sharding" in text
