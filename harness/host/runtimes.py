"""An accelerator cell's runtime: the packages its backend adds beside jaxlib, and the check that a lock holds them.

jax uses a plugin only with the jaxlib of its own release, yet jax's `[cuda12]`/`[cuda13]` extra pins the plugin to
jax's version (on PyPI) and the plugin declares no jaxlib: where a cell's jaxlib is not its jax's release (an older
jaxlib, an unreleased jax, another index's metadata, a project's `--with`), a resolver left alone may lock a plugin
of another release than jaxlib's. A cuda cell therefore pins its plugin and pjrt to its jaxlib, and every lock is
checked before it is kept. libtpu has versions of its own: jax's `[tpu]` extra pins the one its release needs, so a
tpu lock must hold libtpu, at the version the resolver took from jax.
"""

from __future__ import annotations

import re

from packaging.utils import canonicalize_name

from harness.formats import ShardmatrixError

#: The packages of each backend released together with jaxlib, under jaxlib's own version number.
LOCKSTEP: dict[str, tuple[str, ...]] = {
    "cuda12": ("jax-cuda12-plugin", "jax-cuda12-pjrt"),
    "cuda13": ("jax-cuda13-plugin", "jax-cuda13-pjrt"),
    "tpu": (),
}
#: The package without which a backend's lock cannot start its accelerator.
RUNTIME: dict[str, str] = {"cuda12": "jax-cuda12-plugin", "cuda13": "jax-cuda13-plugin", "tpu": "libtpu"}
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;#\\]+)")


class RuntimeMismatch(ShardmatrixError, ValueError):
    """A lock whose accelerator runtime is not the one its jaxlib was released with, in one line."""


def pins(backend: str, jaxlib: str) -> list[str]:
    """The lockstep packages of `backend`, pinned to `jaxlib` (none for cpu and tpu)."""
    return [f"{name}=={jaxlib}" for name in LOCKSTEP.get(backend, ())]


def locked(text: str) -> dict[str, str]:
    """{canonical name: version} of the `name==version` lines of a uv/pip lock (comments and options skipped)."""
    found = {}
    for line in text.splitlines():
        pin = _PIN.match(line.strip())
        if pin:
            found[str(canonicalize_name(pin.group(1)))] = pin.group(2)
    return found


def check(text: str, backend: str) -> None:
    """Refuse a lock of a `backend` cell that lacks its runtime or holds a lockstep package of another release than
    its jaxlib: RuntimeMismatch names both versions. A cpu lock passes untouched."""
    if backend not in RUNTIME:
        return
    versions = locked(text)
    if RUNTIME[backend] not in versions:
        raise RuntimeMismatch(f"the {backend} lock holds no {RUNTIME[backend]}: it could not start the accelerator")
    jaxlib = versions.get("jaxlib")
    if jaxlib is None:
        raise RuntimeMismatch(f"the {backend} lock holds no jaxlib: its {RUNTIME[backend]} has nothing to match")
    for name in LOCKSTEP[backend]:
        if versions.get(name, jaxlib) != jaxlib:
            raise RuntimeMismatch(f"the {backend} lock pairs {name} {versions.get(name)} with jaxlib {jaxlib}: "
                                  f"a plugin runs only with the jaxlib of its own release; pin {name}=={jaxlib}")
