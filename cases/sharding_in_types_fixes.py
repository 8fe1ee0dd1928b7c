"""The `sharding` jax put into its primitives and types, as user code meets it: the census's sharded_gathers rows
on convert_element_type's new `sharding` parameter (jax 0.4.31) and jnp.where between Explicit-split operands.

Each case is the report's code written the way a user's is (a jitted step, a jaxpr interpreter of their own),
asserts values and shardings, and cites the report; its range is a known breakage (cases/known_breakages.toml) or a
declared change whose edge is the report's own release, measured on both sides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from cases._support import ambient_mesh, explicit_mesh, line_mesh
from harness.case import Change, accepts, api, case

FAMILY = "sharded_gathers"

EXPLICIT = [api("jax.sharding.AxisType"), accepts("jax.make_mesh", "axis_types")]


@case(FAMILY, devices=2, cites=("jax-ml/jax@0426388d31",))
def test_jnp_array_onto_a_sharding_inside_jit() -> None:
    """jnp.array(x, dtype=..., device=sharding) inside jit, of a traced argument and of a constant, gives the
    values cast and laid out on that sharding (jnp.array took no device= before jax 0.4.31: commit 0426388d, which
    fixes jax-ml/jax#17422).

    Cells: fails 0.4.30 (TypeError), passes 0.4.31 (jax releases, measured).
    """
    mesh = line_mesh("x")
    sharding = NamedSharding(mesh, P("x"))
    values = np.arange(16).reshape(8, 2)
    from_argument = jax.jit(lambda x: jnp.array(x, dtype=np.float32, device=sharding))(values)
    from_constant = jax.jit(lambda: jnp.array(values, dtype=np.float32, device=sharding))()
    for out in (from_argument, from_constant):
        assert out.dtype == np.float32
        assert out.sharding.is_equivalent_to(sharding, 2)
        np.testing.assert_array_equal(np.asarray(out), values.astype(np.float32))


def _convert(x: Any, *, new_dtype: Any, weak_type: bool) -> Any:
    return np.asarray(x).astype(new_dtype)


#: A user's interpreter rules, one per primitive, each taking the parameters it knows of (as jax-scalify's did).
_RULES: dict[str, Callable[..., Any]] = {"convert_element_type": _convert, "mul": lambda a, b: np.multiply(a, b)}


def _interpret(closed: Any, *args: Any) -> list[Any]:
    """Evaluate a closed jaxpr with _RULES, passing each equation's parameters as keywords."""
    env: dict[Any, Any] = dict(zip(closed.jaxpr.invars, args, strict=True))
    env.update(zip(closed.jaxpr.constvars, closed.consts, strict=True))

    def read(var: Any) -> Any:
        return var.val if hasattr(var, "val") else env[var]

    for eqn in closed.jaxpr.eqns:
        rule = _RULES[eqn.primitive.name]
        env[eqn.outvars[0]] = rule(*[read(var) for var in eqn.invars], **eqn.params)
    return [read(var) for var in closed.jaxpr.outvars]


@case(FAMILY, cites=("graphcore-research/jax-scalify#132",),
      changed=Change("jax>=0.4.31", "convert_element_type (and other primitives) carry a new `sharding` parameter, "
                     "so an interpreter rule that takes only the parameters it knew raises TypeError",
                     raises="TypeError", kind="api",
                     fix="accept the new `sharding` parameter in each primitive rule (or **params)"))
def test_own_jaxpr_interpreter_of_a_cast() -> None:
    """A jaxpr interpreter of the user's own, whose convert_element_type rule takes new_dtype and weak_type, runs a
    cast and a product (jax 0.4.31 gives convert_element_type a `sharding` parameter, and the rule raises TypeError).

    Changes in jax 0.4.31 (commit 0426388d; graphcore-research/jax-scalify#132). Cells: passes 0.4.30, fails 0.4.31
    (jax releases, measured).
    """
    closed = jax.make_jaxpr(lambda x: x.astype(jnp.float16) * 2)(np.ones(4, np.float32))
    (out,) = _interpret(closed, np.ones(4, np.float32))
    np.testing.assert_array_equal(np.asarray(out), np.full(4, 2.0, np.float16))


def _masked_blend(mesh: Any, reshard_mask: bool) -> tuple[jax.Array, np.ndarray]:
    """A jitted jnp.where of a replicated (4, 2) mask between two row-split operands; with `reshard_mask`, the mask
    is first resharded like the operands (the report's workaround)."""
    a, b = np.arange(8.0).reshape(4, 2), -np.arange(8.0).reshape(4, 2)
    mask = np.array([[True, False]] * 4)
    split = NamedSharding(mesh, P("x", None))

    def blend(m: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
        if reshard_mask:
            m = jax.sharding.reshard(m, P("x", None))
        return jnp.where(m, x, y)

    with ambient_mesh(mesh):
        out = jax.jit(blend)(jnp.asarray(mask), jax.device_put(a, split), jax.device_put(b, split))
    assert out.sharding.is_equivalent_to(split, 2)
    return out, np.where(mask, a, b)


@case(FAMILY, devices=2, needs=EXPLICIT, cites=("jax-ml/jax#37853",))
def test_where_with_a_replicated_mask_between_explicit_split_operands() -> None:
    """A jitted three-argument jnp.where with a replicated mask between two operands split on their rows over an
    Explicit axis gives the blend split like the operands, as jnp.add combines the same three.

    Cells: passes 0.5.3 to 0.10.0, fails 0.10.1 to 0.12.0.1 ("select `which` must be scalar or have the same
    sharding as cases"; jax releases, measured): no release fixes it yet (jax-ml/jax#37853).
    """
    out, expected = _masked_blend(explicit_mesh((2,), ("x",)), reshard_mask=False)
    np.testing.assert_array_equal(np.asarray(out), expected)


@case(FAMILY, devices=2, needs=[*EXPLICIT, api("jax.sharding.reshard")], cites=("jax-ml/jax#37853",))
def test_where_with_a_mask_resharded_like_its_explicit_split_operands() -> None:
    """The twin of the replicated-mask jnp.where: the mask resharded like the operands first (the workaround), the
    jitted blend is split like them.

    Cells: passes wherever jax.sharding.reshard exists (0.7.0 on; jax releases, measured).
    """
    out, expected = _masked_blend(explicit_mesh((2,), ("x",)), reshard_mask=True)
    np.testing.assert_array_equal(np.asarray(out), expected)
