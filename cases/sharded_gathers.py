"""Gathers and layout changes on sharded tables: explicit-sharding meshes (out_sharding) versus auto meshes."""

# Version facts (probed on the matrix cells; "cell" bounds are the nearest cells, not the exact release):
# - jax.sharding.AxisType and jax.make_mesh(axis_types=): absent in the 0.4.38 cell, present from the 0.5.3 cell.
# - at[].get(out_sharding=) and jnp.einsum(out_sharding=): present from the 0.5.3 cell.
# - ShardingTypeError and jnp.repeat(out_sharding=): absent in the 0.5.3 cell, present from the 0.6.2 cell.
# - flax nnx.Embed.__call__(out_sharding=): absent in flax 0.12.0, present from the 0.12.6 cell.
# - explicit-mesh gathers that fail before jax 0.6.2 / 0.7.0 are listed in known_breakages.toml.

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import ambient_mesh
from harness.case import accepts, api, case

FAMILY = "sharded_gathers"

EXPLICIT = [api("jax.sharding.AxisType"), accepts("jax.make_mesh", "axis_types")]
AT_GET_OUT_SHARDING = accepts("jax._src.numpy.array_methods._IndexUpdateRef.get", "out_sharding")
SHARDING_TYPE_ERROR = api("jax._src.core.ShardingTypeError")

ROWS = np.array([3, 17, 40, 63, 0, 9, 22, 50], dtype=np.int32)


def _explicit_mesh() -> Mesh:
    from jax.sharding import AxisType

    return jax.make_mesh((8,), ("x",), axis_types=(AxisType.Explicit,))


@contextlib.contextmanager
def _in_explicit_mesh() -> Iterator[Mesh]:
    """The explicit mesh, also made the ambient mesh (jax 0.5/0.6 need one for out_sharding and type errors)."""
    mesh = _explicit_mesh()
    with ambient_mesh(mesh):
        yield mesh


def _auto_mesh() -> Mesh:
    return Mesh(np.array(jax.devices()[:8]), ("x",))


def _table() -> np.ndarray:
    return np.arange(64 * 4, dtype=np.float32).reshape(64, 4)


def _put(mesh: Mesh, value: np.ndarray, spec: P) -> jax.Array:
    return jax.device_put(value, NamedSharding(mesh, spec))


def _sharding_type_error() -> type[Exception]:
    from jax._src.core import ShardingTypeError

    return ShardingTypeError  # type: ignore[no-any-return]


@case(FAMILY, devices=8, needs=[*EXPLICIT, AT_GET_OUT_SHARDING])
def test_at_get_out_sharding_on_sharded_table() -> None:
    """table.at[idx].get(out_sharding=...) on a row-sharded explicit table gives the rows, sharded as asked."""
    with _in_explicit_mesh() as mesh:
        table = _put(mesh, _table(), P("x", None))
        idx = _put(mesh, ROWS, P())
        out = table.at[idx].get(out_sharding=NamedSharding(mesh, P("x", None)))
        np.testing.assert_array_equal(np.asarray(out), _table()[ROWS])
        assert out.sharding.spec == P("x", None)


@case(FAMILY, devices=8, needs=[*EXPLICIT, SHARDING_TYPE_ERROR])
def test_take_on_sharded_axis_raises_sharding_type_error() -> None:
    """jnp.take along the sharded axis of an explicit table raises ShardingTypeError (output ambiguous)."""
    with _in_explicit_mesh() as mesh:
        table = _put(mesh, _table(), P("x", None))
        with pytest.raises(_sharding_type_error()):
            jnp.take(table, _put(mesh, ROWS, P()), axis=0)


@case(FAMILY, devices=8, needs=[*EXPLICIT, SHARDING_TYPE_ERROR])
def test_indexing_on_sharded_axis_raises_sharding_type_error() -> None:
    """table[idx] along the sharded axis of an explicit table raises ShardingTypeError."""
    with _in_explicit_mesh() as mesh:
        table = _put(mesh, _table(), P("x", None))
        with pytest.raises(_sharding_type_error()):
            table[_put(mesh, ROWS, P())]


@case(FAMILY, devices=8, needs=[*EXPLICIT, SHARDING_TYPE_ERROR])
def test_jit_take_on_sharded_axis_raises_sharding_type_error() -> None:
    """jnp.take along the sharded axis under jit raises ShardingTypeError, as it does eagerly."""
    with _in_explicit_mesh() as mesh:
        table = _put(mesh, _table(), P("x", None))
        with pytest.raises(_sharding_type_error()):
            jax.jit(lambda t, i: jnp.take(t, i, axis=0))(table, _put(mesh, ROWS, P()))


@case(FAMILY, devices=8, needs=[*EXPLICIT, AT_GET_OUT_SHARDING])
def test_jit_at_get_matches_eager() -> None:
    """A jitted at[].get(out_sharding=...) gives the same rows and sharding as the eager call."""
    with _in_explicit_mesh() as mesh:
        table = _put(mesh, _table(), P("x", None))
        idx = _put(mesh, ROWS, P())
        sharding = NamedSharding(mesh, P("x", None))
        out = jax.jit(lambda t, i: t.at[i].get(out_sharding=sharding))(table, idx)
        np.testing.assert_array_equal(np.asarray(out), _table()[ROWS])
        assert out.sharding.spec == P("x", None)


@case(FAMILY, devices=8, needs=[*EXPLICIT, AT_GET_OUT_SHARDING, api("jax.set_mesh")])
def test_at_get_partition_spec_under_set_mesh() -> None:
    """Under jax.set_mesh a bare PartitionSpec is accepted as the gather's out_sharding."""
    mesh = _explicit_mesh()
    table = _put(mesh, _table(), P("x", None))
    with jax.set_mesh(mesh):
        out = table.at[_put(mesh, ROWS, P())].get(out_sharding=P("x", None))
    np.testing.assert_array_equal(np.asarray(out), _table()[ROWS])
    assert out.sharding.spec == P("x", None)


@case(FAMILY, devices=8, needs=[*EXPLICIT, AT_GET_OUT_SHARDING, api("jax.sharding.use_mesh")])
def test_at_get_partition_spec_under_use_mesh() -> None:
    """Under jax.sharding.use_mesh a bare PartitionSpec is accepted as the gather's out_sharding."""
    mesh = _explicit_mesh()
    table = _put(mesh, _table(), P("x", None))
    with jax.sharding.use_mesh(mesh):
        out = table.at[_put(mesh, ROWS, P())].get(out_sharding=P("x", None))
    np.testing.assert_array_equal(np.asarray(out), _table()[ROWS])
    assert out.sharding.spec == P("x", None)


@case(FAMILY, devices=8, needs=EXPLICIT)
def test_take_along_unsharded_axis_keeps_column_sharding() -> None:
    """jnp.take along an unsharded axis of an explicit table works and keeps the column sharding."""
    with _in_explicit_mesh() as mesh:
        table = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)
        rows = ROWS % 16
        out = jnp.take(_put(mesh, table, P(None, "x")), _put(mesh, rows, P()), axis=0)
        np.testing.assert_array_equal(np.asarray(out), table[rows])
        assert out.sharding.spec == P(None, "x")


@case(FAMILY, devices=8)
def test_auto_mesh_take_on_sharded_table() -> None:
    """On an auto (unannotated) mesh, jnp.take from a row-sharded table just works."""
    table = _put(_auto_mesh(), _table(), P("x", None))
    np.testing.assert_array_equal(np.asarray(jnp.take(table, ROWS, axis=0)), _table()[ROWS])


@case(FAMILY, devices=8)
def test_auto_mesh_jit_indexing_on_sharded_table() -> None:
    """On an auto mesh, jitted table[idx] from a row-sharded table gives the rows."""
    table = _put(_auto_mesh(), _table(), P("x", None))
    out = jax.jit(lambda t, i: t[i])(table, jnp.asarray(ROWS))
    np.testing.assert_array_equal(np.asarray(out), _table()[ROWS])


@case(FAMILY, devices=8, needs=[*EXPLICIT, accepts("jax.numpy.einsum", "out_sharding")])
def test_einsum_out_sharding() -> None:
    """jnp.einsum on explicit operands returns the asked out_sharding and the right values."""
    with _in_explicit_mesh() as mesh:
        a, b = np.arange(64, dtype=np.float32).reshape(16, 4), np.ones((4, 8), np.float32)
        out = jnp.einsum(
            "ij,jk->ik", _put(mesh, a, P("x", None)), _put(mesh, b, P()), out_sharding=NamedSharding(mesh, P(None, "x"))
        )
        np.testing.assert_allclose(np.asarray(out), a @ b)
        assert out.sharding.spec == P(None, "x")


@case(FAMILY, devices=8, needs=[*EXPLICIT, SHARDING_TYPE_ERROR])
def test_einsum_sharded_contraction_needs_out_sharding() -> None:
    """jnp.einsum contracting a sharded dimension without out_sharding raises ShardingTypeError."""
    with _in_explicit_mesh() as mesh:
        c = _put(mesh, np.ones((4, 16), np.float32), P(None, "x"))
        d = _put(mesh, np.ones((16, 8), np.float32), P("x", None))
        with pytest.raises(_sharding_type_error()):
            jnp.einsum("ij,jk->ik", c, d)


@case(FAMILY, devices=8, needs=EXPLICIT)
def test_reshape_merging_sharded_major_axis() -> None:
    """Reshaping an explicit (8, 4) row-sharded array to (32,) keeps it sharded over x."""
    with _in_explicit_mesh() as mesh:
        x = np.arange(32, dtype=np.float32)
        out = _put(mesh, x.reshape(8, 4), P("x", None)).reshape(32)
        np.testing.assert_array_equal(np.asarray(out), x)
        assert out.sharding.spec == P("x")


@case(FAMILY, devices=8, needs=[*EXPLICIT, accepts("jax.numpy.repeat", "out_sharding")])
def test_repeat_on_sharded_axis_with_out_sharding() -> None:
    """jnp.repeat along an explicit sharded axis with out_sharding gives the repeated values, sharded as asked."""
    with _in_explicit_mesh() as mesh:
        x = np.arange(8, dtype=np.float32)
        out = jnp.repeat(_put(mesh, x, P("x")), 2, out_sharding=NamedSharding(mesh, P("x")))
        np.testing.assert_array_equal(np.asarray(out), np.repeat(x, 2))
        assert out.sharding.spec == P("x")


def _embed_on_sharded_table(mesh: Mesh):  # type: ignore[no-untyped-def]
    """An NNX Embed(64, 4) whose table is then placed row-sharded over x on `mesh`."""
    from flax import nnx

    embed = nnx.Embed(64, 4, rngs=nnx.Rngs(0))
    nnx.update(embed, jax.device_put(nnx.state(embed), NamedSharding(mesh, P("x", None))))
    return embed


@case(FAMILY, devices=8, needs=[api("flax.nnx.Embed")])
def test_nnx_embed_on_vocab_sharded_table_auto_mesh() -> None:
    """An NNX Embed whose table is vocab-sharded on an auto mesh looks up the right rows."""
    embed = _embed_on_sharded_table(_auto_mesh())
    table = np.asarray(embed.embedding[...])
    np.testing.assert_allclose(np.asarray(embed(jnp.asarray(ROWS))), table[ROWS], rtol=1e-6)


@case(FAMILY, devices=8, needs=[*EXPLICIT, accepts("flax.nnx.Embed.__call__", "out_sharding")])
def test_nnx_embed_out_sharding_on_explicit_mesh() -> None:
    """NNX Embed(ids, out_sharding=...) on a vocab-sharded explicit table gives the rows, sharded as asked."""
    with _in_explicit_mesh() as mesh:
        embed = _embed_on_sharded_table(mesh)
        table = np.asarray(embed.embedding[...])
        out = embed(_put(mesh, ROWS, P()), out_sharding=NamedSharding(mesh, P("x", None)))
        np.testing.assert_allclose(np.asarray(out), table[ROWS], rtol=1e-6)
        assert out.sharding.spec == P("x", None)


@case(FAMILY, devices=8, needs=[*EXPLICIT, AT_GET_OUT_SHARDING])
def test_at_get_out_sharding_without_mesh_context() -> None:
    """at[].get(out_sharding=NamedSharding) works on an explicit table with no ambient mesh."""
    mesh = _explicit_mesh()
    table = _put(mesh, _table(), P("x", None))
    out = table.at[_put(mesh, ROWS, P())].get(out_sharding=NamedSharding(mesh, P("x", None)))
    np.testing.assert_array_equal(np.asarray(out), _table()[ROWS])
    assert out.sharding.spec == P("x", None)


@case(FAMILY, devices=8, needs=[*EXPLICIT, SHARDING_TYPE_ERROR])
def test_take_without_mesh_context_raises_sharding_type_error() -> None:
    """jnp.take along the sharded axis of an explicit table raises ShardingTypeError with no ambient mesh."""
    mesh = _explicit_mesh()
    table = _put(mesh, _table(), P("x", None))
    with pytest.raises(_sharding_type_error()):
        jnp.take(table, _put(mesh, ROWS, P()), axis=0)
