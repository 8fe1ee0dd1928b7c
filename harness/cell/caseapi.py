"""The corpus's case API under the name its cases import it by (`from harness.case import case`), bound on request.

In a cell the plugin's package is `shardmatrix_cell` (harness.host.cellplugin), so a project's own top-level `harness`
is its own. The corpus's cases (and a case folder written like them) still import `harness.case` and `harness.change`:
when the runner says the cases do (--shardmatrix-case-api), these names are bound to the plugin's own modules before
any conftest or case is imported, whatever other `harness` the path holds (a checkout's, the folder pytest runs from),
so a case's `@case` and `Change` are the very objects the plugin reads. Nothing else answers under `harness`.
Its names are read by the host too (harness.host.corpus), so at import it needs nothing but the standard library.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from types import ModuleType

#: The package the cases import the case API from.
PUBLIC = "harness"
#: Its modules a case may import.
MODULES = ("case", "change")


def bind() -> ModuleType:
    """Answer `harness.case` and `harness.change` with the plugin's own modules, under a `harness` with nothing else
    in it; the package that answers them. Where the plugin's package is `harness` itself, that is already so."""
    # Imported here: the host reads PUBLIC and MODULES, and the case API needs pytest, which the host has not.
    from harness import case, change

    if case.__name__ == f"{PUBLIC}.case":
        return sys.modules[PUBLIC]
    # A package with no folder: `import harness.cell` (or any module but these) finds nothing of ours.
    package = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(PUBLIC, None, is_package=True))
    package.__doc__ = f"shardmatrix's case API, answered by {case.__name__.rpartition('.')[0]}."
    for name, module in zip(MODULES, (case, change), strict=True):
        setattr(package, name, module)
        sys.modules[f"{PUBLIC}.{name}"] = module
    sys.modules[PUBLIC] = package
    return package
