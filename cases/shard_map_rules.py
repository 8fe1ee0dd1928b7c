"""shard_map's replication (check_rep / check_vma) rules, met by code users write inside and around it: collectives,
linear solves, checkify, custom derivatives, vmap and grad of shard_map, loops, callbacks and nested shard_maps."""

# Each case reproduces one public report, with the code its thread or fix commit shows cut to a user's few lines; its
# known breakage (cases/known_breakages.toml) spans exactly the releases that have the bug, measured on both sides.
# Version facts (probed on every release from jax 0.4.30 to 0.10.2):
# - jax.shard_map: from jax 0.6.1; before it the cases call jax.experimental.shard_map.shard_map (check_rep=).
# - jax.experimental.shard_map.shard_map's auto= (partial manual): up to jax 0.7.2, removed in 0.8.0
#   (EXPERIMENTAL_AUTO_REMOVED, cases/_support.py).

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import EXPERIMENTAL_AUTO_REMOVED, ambient_mesh, config_on, data_model_shape, line_mesh, mesh_size
from harness.case import accepts, api, case, version

FAMILY = "shard_map_modes"

EXPERIMENTAL_AUTO = accepts("jax.experimental.shard_map.shard_map", "auto")
JAX_SHARD_MAP = accepts("jax.shard_map", "axis_names")
AXIS_TYPE = api("jax.sharding.AxisType")
MAKE_MESH_AXIS_TYPES = accepts("jax.make_mesh", "axis_types")


def _shard_map(body: Callable[..., Any], mesh: Mesh, in_specs: Any, out_specs: Any, check: bool = True) -> Any:
    """shard_map in the spelling the release offers, its replication check on unless `check` is False: user code
    written across these releases switches the same way."""
    if hasattr(jax, "shard_map"):
        return jax.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check)
    from jax.experimental.shard_map import shard_map

    return shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_rep=check)


def _mesh() -> Mesh:
    return line_mesh("i")


@case(FAMILY, devices=2, cites=("jax-ml/jax@f7cef92ed7",))
def test_psum_of_a_psum_inside_shard_map() -> None:
    """psum of an already summed value inside shard_map sums again (each device holds the total times the count)."""
    x = jnp.arange(8.0)
    total = _shard_map(lambda b: jax.lax.psum(jax.lax.psum(b, "i"), "i"), _mesh(), P("i"), P())(x)
    np.testing.assert_allclose(np.asarray(total), np.asarray(x).reshape(mesh_size(), -1).sum(0) * mesh_size())


@case(FAMILY, devices=1, cites=("jax-ml/jax@173794bcef",))
def test_linalg_solve_inside_shard_map() -> None:
    """jnp.linalg.solve of per-device systems inside shard_map (custom_linear_solve) solves each block."""
    n = mesh_size()
    a = jnp.tile(jnp.eye(2) * 2.0, (n, 1, 1))
    b = jnp.ones((n, 2, 1))
    x = jax.jit(_shard_map(jnp.linalg.solve, _mesh(), (P("i"), P("i")), P("i")))(a, b)
    np.testing.assert_allclose(np.asarray(x), np.full((n, 2, 1), 0.5))


@case(FAMILY, devices=4, cites=("jax-ml/jax@9500bd451a",))
def test_grad_with_an_integer_input_through_shard_map_under_lax_map() -> None:
    """grad(allow_int=True) through shard_maps called from lax.map, an integer input's cotangent a float0, runs."""

    @jax.custom_vjp
    def keep(x: jax.Array, _: jax.Array) -> jax.Array:
        return x

    @jax.custom_vjp
    def both(x: jax.Array, y: jax.Array) -> tuple[jax.Array, jax.Array]:
        return x, y

    keep.defvjp(lambda x, y: (x, jnp.zeros(y.shape, np.int32)), lambda res, g: (g, res))
    # A backward rule that hands the integer input's float0 cotangent back through jax.vjp.
    both.defvjp(lambda x, y: jax.vjp(lambda x, y: (x, y), x, y), lambda vjp, g: vjp(g))
    mesh = line_mesh("x")
    summed = _shard_map(lambda x, y: jax.lax.psum(keep(x, y).sum(), "x"), mesh, (P("x"), P()), P())
    passed = _shard_map(both, mesh, P("x"), (P("x"), P()), check=False)

    def loss(x: jax.Array, y: jax.Array) -> jax.Array:
        x, y = jax.lax.map(lambda xs: passed(*xs), (x, y))
        return jax.lax.map(lambda xs: summed(*xs), (x, y)).sum()

    # Inputs and output placed by jit, as a training step's are: without them no float0 reaches the transpose.
    step = jax.jit(jax.grad(loss, argnums=(0, 1), allow_int=True), in_shardings=NamedSharding(mesh, P(None, "x")),
                   out_shardings=NamedSharding(mesh, P()))
    grad_x, _ = step(np.ones((8, 16), np.float32), np.zeros((8, 16), np.int32))
    np.testing.assert_allclose(np.asarray(grad_x), np.ones((8, 16)))


@case(FAMILY, devices=2, cites=("jax-ml/jax#23946",))
def test_checkify_check_on_a_shard_map_output() -> None:
    """checkify.check on a shard_map's output in the same checkified function passes a valid value through."""
    from jax.experimental import checkify

    def doubled(x: jax.Array) -> jax.Array:
        y = _shard_map(lambda b: b * 2, _mesh(), P("i"), P("i"))(x)
        checkify.check(jnp.all(y >= 0), "negative")
        return y

    err, y = checkify.checkify(doubled)(jnp.arange(8.0))
    err.throw()
    np.testing.assert_allclose(np.asarray(y), 2 * np.arange(8.0))


@case(FAMILY, devices=2, cites=("jax-ml/jax#26887",))
def test_checkify_index_checks_of_a_jitted_shard_map() -> None:
    """checkify with index_checks of a jitted shard_map whose body sorts by p[argsort(p)] sorts each block."""
    from jax.experimental import checkify

    sort = jax.jit(_shard_map(lambda p: p[jnp.argsort(p)], _mesh(), P("i"), P("i")))
    p = jnp.arange(8.0, 0.0, -1.0)
    err, y = checkify.checkify(sort, errors=checkify.index_checks)(p)
    err.throw()
    blocks = np.split(np.asarray(p), mesh_size())
    np.testing.assert_allclose(np.asarray(y), np.concatenate([np.sort(b) for b in blocks]))


@case(FAMILY, devices=8, needs=[EXPERIMENTAL_AUTO], changed=EXPERIMENTAL_AUTO_REMOVED, cites=("jax-ml/jax@97b1faacdd",))
def test_random_keys_through_a_partial_auto_shard_map() -> None:
    """Typed random keys pass through a jitted partial-auto shard_map (manual over 'i', auto over 'j') unchanged.

    auto= is removed in jax 0.8.0 (commit dfadef7e; 0.7.2 takes it with no warning): the cells from there run the
    case and fail with TypeError, as declared."""
    from jax.experimental.shard_map import shard_map

    mesh = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("i", "j"))
    keys = jax.random.split(jax.random.key(0), 8)
    same = jax.jit(shard_map(lambda k: k, mesh=mesh, in_specs=P("i"), out_specs=P("i"), check_rep=False,
                             auto=frozenset({"j"})))(keys)
    np.testing.assert_array_equal(np.asarray(jax.random.key_data(same)), np.asarray(jax.random.key_data(keys)))


@case(FAMILY, devices=2, cites=("jax-ml/jax@8383af0145",))
def test_jnp_insert_inside_shard_map() -> None:
    """jnp.insert on each block inside shard_map gives each block one more element."""
    out = jax.jit(_shard_map(lambda b: jnp.insert(b, 0, 0.0)[None], _mesh(), P("i"), P("i")))(jnp.arange(1.0, 65.0))
    assert out.shape == (mesh_size(), 64 // mesh_size() + 1)
    np.testing.assert_allclose(np.asarray(out)[:, 0], 0.0)


@case(FAMILY, devices=2, cites=("jax-ml/jax@05ca023391",))
def test_jnp_split_of_a_replicated_input_inside_shard_map() -> None:
    """jnp.split (a primitive of several results) of a replicated input inside eager shard_map returns each half."""
    xs = jnp.arange(20.0).reshape(2, 10)
    # in_specs None, not P(): a None spec is what the report passed, and what the replication rule mishandled.
    halves = _shard_map(lambda x: jnp.split(x.squeeze(), 2), _mesh(), (None,), P("i"))(xs)
    np.testing.assert_allclose(np.asarray(halves[0]), np.tile(np.asarray(xs)[:1], (mesh_size(), 1)))


@case(FAMILY, devices=2, cites=("jax-ml/jax@3a3c145039",))
def test_matrix_exponential_of_a_replicated_input_inside_shard_map() -> None:
    """jax.scipy.linalg.expm of a replicated matrix (a loop inside) times a sharded input gives the unsharded
    result."""

    def scaled(v: jax.Array, xs: jax.Array) -> jax.Array:
        return jax.scipy.linalg.expm(v).sum() * xs.sum(axis=-1)

    v = jnp.eye(4) * 0.1
    xs = jnp.ones((8, 4))
    out = jax.jit(_shard_map(scaled, _mesh(), (P(), P("i")), P("i")))(v, xs)
    np.testing.assert_allclose(np.asarray(out), np.asarray(scaled(v, xs)), rtol=1e-5)


@case(FAMILY, devices=4, cites=("jax-ml/jax@2b3839d248",))
def test_jvp_of_a_custom_jvp_with_symbolic_zeros_inside_shard_map() -> None:
    """jax.jvp through shard_map of a custom_jvp rule that takes symbolic zeros gives the tangent of its input."""
    from jax.custom_derivatives import SymbolicZero

    @jax.custom_jvp
    def add(a: jax.Array, b: jax.Array) -> jax.Array:
        return a + b

    def add_jvp(primals: tuple[jax.Array, ...], tangents: tuple[Any, ...]) -> tuple[jax.Array, jax.Array]:
        y = add(*primals)
        return y, sum((t for t in tangents if not isinstance(t, SymbolicZero)), jnp.zeros_like(y))

    add.defjvp(add_jvp, symbolic_zeros=True)
    x, a = jnp.ones((mesh_size(), 4)), jnp.ones((mesh_size(), 4))
    sharded = _shard_map(add, _mesh(), P("i"), P("i"))
    _, tangent = jax.jvp(lambda x: sharded(x, a), (x,), (x,))
    np.testing.assert_allclose(np.asarray(tangent), np.asarray(x))


@case(FAMILY, devices=2, cites=("jax-ml/jax@18fcf917cb",))
def test_inspect_array_sharding_inside_shard_map() -> None:
    """jax.debug.inspect_array_sharding inside a checked shard_map reports the block's sharding and runs on."""
    seen: list[object] = []

    def doubled(b: jax.Array) -> jax.Array:
        jax.debug.inspect_array_sharding(b, callback=seen.append)
        return b * 2

    out = jax.jit(_shard_map(doubled, _mesh(), P("i"), P("i")))(jnp.arange(8.0))
    np.testing.assert_allclose(np.asarray(out), 2 * np.arange(8.0))
    assert seen


# Direct linearize of a shard_map works from jax 0.5.3 on (before, the opt-in flag is absent or fails otherwise).
@case(FAMILY, devices=2, needs=[version("jax>=0.5.3")], cites=("jax-ml/jax@c8ae45bf39",))
def test_grad_of_shard_map_with_direct_linearize() -> None:
    """grad of a shard_map whose residuals are its own inputs (x * w) is right with direct linearize on."""
    x, w = jnp.arange(8.0), jnp.float32(2.0)
    loss = _shard_map(lambda x, w: jax.lax.psum(jnp.sum(x * w), "i"), _mesh(), (P("i"), P()), P())
    # Direct linearize on, as code opting in sets it (the default from jax 0.7.0; an opt-in flag before).
    with config_on("jax_use_direct_linearize"):
        grad_x, grad_w = jax.grad(loss, argnums=(0, 1))(x, w)
    np.testing.assert_allclose(np.asarray(grad_x), np.full(8, 2.0))
    np.testing.assert_allclose(float(grad_w), float(np.arange(8.0).sum()))


@case(FAMILY, devices=2, cites=("jax-ml/jax@1237f5a86e",))
def test_pure_callback_of_two_results_inside_shard_map() -> None:
    """jax.pure_callback returning two arrays inside shard_map gives both, block by block."""

    def per_block(b: jax.Array) -> Any:
        spec = jax.ShapeDtypeStruct(b.shape, b.dtype)
        return jax.pure_callback(lambda a: (a + 1, a * 2), (spec, spec), b)

    x = np.arange(32, dtype=np.float32).reshape(16, 2)
    plus, times = _shard_map(per_block, _mesh(), P("i"), (P("i"), P("i")))(x)
    np.testing.assert_allclose(np.asarray(plus), x + 1)
    np.testing.assert_allclose(np.asarray(times), x * 2)


@case(FAMILY, devices=4, needs=[JAX_SHARD_MAP, AXIS_TYPE, MAKE_MESH_AXIS_TYPES], cites=("jax-ml/jax@255c517849",))
def test_jit_vmap_grad_of_shard_map_on_an_explicit_mesh() -> None:
    """jit(vmap(grad(f))) over rows sharded on one Explicit axis, f a shard_map over the other, gives -sin."""
    from jax.sharding import AxisType

    mesh = jax.make_mesh(data_model_shape(), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    rows = np.arange(6 * 24, dtype=np.float32).reshape(6, 24) / 100
    with ambient_mesh(mesh):
        arr = jax.device_put(rows, NamedSharding(mesh, P("x", "y")))
        cosines = jax.shard_map(jnp.cos, in_specs=P("y"), out_specs=P("y"))
        out = jax.jit(jax.vmap(jax.grad(lambda r: cosines(r).sum())))(arr)
    np.testing.assert_allclose(np.asarray(out), -np.sin(rows), rtol=1e-5)


@case(FAMILY, devices=4, cites=("jax-ml/jax@a9e948ef1c",))
def test_jit_vmap_spmd_axis_name_of_shard_map_times_a_scalar() -> None:
    """jit(vmap(shard_map(x * 2), spmd_axis_name='x')) over a 2-D mesh doubles the array."""
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    arr = jax.device_put(jnp.ones((2, 4)), NamedSharding(mesh, P("x", "y")))
    doubled = jax.jit(jax.vmap(_shard_map(lambda b: b * 2, mesh, P("y"), P("y")), spmd_axis_name="x"))(arr)
    np.testing.assert_allclose(np.asarray(doubled), 2.0)


@case(FAMILY, devices=8, needs=[JAX_SHARD_MAP, AXIS_TYPE, MAKE_MESH_AXIS_TYPES], cites=("jax-ml/jax@6feb29fa59",))
def test_nested_shard_maps_innermost_over_every_axis_left() -> None:
    """Three nested jax.shard_maps, the innermost naming no axis_names (all axes left), double under jit."""
    from jax.sharding import AxisType

    mesh = jax.make_mesh((2, 2, 2), ("x", "y", "z"), axis_types=(AxisType.Auto,) * 3)
    inner = jax.shard_map(lambda y: y * 2, in_specs=P(), out_specs=P())
    middle = jax.shard_map(inner, in_specs=P(), out_specs=P(), axis_names={"y"})
    outer = jax.shard_map(middle, in_specs=P(), out_specs=P(), axis_names={"x"})
    with ambient_mesh(mesh):
        out = jax.jit(outer)(jnp.ones((4,)))
    np.testing.assert_allclose(np.asarray(out), 2.0)


@case(FAMILY, devices=2, needs=[AXIS_TYPE, MAKE_MESH_AXIS_TYPES], cites=("markean/aimz#145",))
def test_shard_map_body_closing_over_explicit_sharded_rng_keys() -> None:
    """A jitted shard_map body that closes over rng keys split over an Explicit axis (as aimz's sampler did, before it
    passed them through in_specs) noises every block with the first key, as the same code outside shard_map does."""
    from jax.sharding import AxisType

    count = mesh_size()
    mesh = jax.make_mesh((count,), ("i",), axis_types=(AxisType.Explicit,))
    with ambient_mesh(mesh):
        keys = jax.device_put(jax.random.split(jax.random.key(0), count), NamedSharding(mesh, P("i")))
        x = jax.device_put(jnp.zeros((2 * count, 3)), NamedSharding(mesh, P("i", None)))
        noised = jax.jit(_shard_map(lambda b: b + jax.random.normal(keys[0], b.shape), mesh, P("i", None),
                                    P("i", None)))(x)
    expected = np.asarray(jax.random.normal(jax.random.split(jax.random.key(0), count)[0], (2, 3)))
    np.testing.assert_allclose(np.asarray(noised), np.tile(expected, (count, 1)), rtol=1e-6)
