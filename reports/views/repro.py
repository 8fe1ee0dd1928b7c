"""Reproducers: one self-contained script per failing (cell, case), runnable with `uv run` on any machine.

Each script carries PEP 723 inline metadata pinning the cell's exact jax, jaxlib, flax (and numpy) and its python (a
package the cell built from a source tree, wheel or VCS URL by that direct reference, commented with the content
hash it was recorded with), requests the cell's simulated devices before jax is imported, replaces the shardmatrix
decorator with a no-op, holds the case module verbatim (and the helper modules it imports from its own folder), then
runs the one case and prints the exception. The case sources are the copies the harness kept when the cell ran:
OUT/results/<run>/<cell>/cases/<module>.py (when a cell's results were reused, another run's copy of that cell).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from harness import outputs
from harness.cellrecord import CellFiles
from harness.formats import Source
from harness.vocabulary import INSTALL_ERROR, is_problem
from reports.data.tables import Matrix
from reports.data.text import as_text, first_line

FUTURE = "from __future__ import annotations"

#: (cell id, case id) -> the reproducer's path relative to the report folder.
Repros = dict[tuple[str, str], Path]

SHIM = '''
# shardmatrix's case decorator and needs, as no-ops: the case runs exactly as written.
def _case(*args, **kwargs):
    return lambda fn: fn


def _need(*args, **kwargs):
    return None


_harness, _harness_case = types.ModuleType("harness"), types.ModuleType("harness.case")
_harness_case.case = _case
# A declared change (harness.case.Change, harness.change.Change) says nothing the run needs.
_harness_case.api = _harness_case.accepts = _harness_case.version = _harness_case.Change = _need
_harness.case = _harness.change = _harness_case
sys.modules.update({"harness": _harness, "harness.case": _harness_case, "harness.change": _harness_case})

# Helper modules the case imports from its own folder, as they were when the case ran.
for _name, _text in HELPERS.items():
    _parent = _name.rpartition(".")[0]
    if _parent and _parent not in sys.modules:
        sys.modules[_parent] = types.ModuleType(_parent)
    _module = types.ModuleType(_name)
    sys.modules[_name] = _module
    exec(compile(_text, _name, "exec"), _module.__dict__)
    if _parent:
        setattr(sys.modules[_parent], _name.rpartition(".")[2], _module)
'''


def reproducible(status: object) -> bool:
    """Whether a reproducer is written for a status: every problem (harness.vocabulary.is_problem, an unknown
    status included) but install_error, where no case ran and the cell's environment is what failed."""
    return is_problem(status) and status != INSTALL_ERROR


def find_source(results_file: Path, module: str, kept: dict[tuple[Path, str], list[Path]] | None = None) -> Path | None:
    """The kept copy of `module` for this cell: this run's, else the newest other run's of the same cell. `kept`
    remembers each cell's case folders across calls (one search of every run per cell, not per module)."""
    own = CellFiles.of(results_file).sources / f"{module}.py"
    if own.exists():
        return own
    results_file = Path(results_file)
    where = (results_file.parent.parent, results_file.stem)
    folders = kept.get(where) if kept is not None else None
    if folders is None:
        folders = sorted(where[0].glob(f"*/{where[1]}/cases"), reverse=True)
        if kept is not None:
            kept[where] = folders
    return next((path for path in (folder / f"{module}.py" for folder in folders) if path.is_file()), None)


def helpers(text: str, folder: Path) -> dict[str, str]:
    """Modules imported by `text` (absolutely) whose file is in `folder`, dependencies first, by module name."""
    found: dict[str, str] = {}

    def visit(source: str) -> None:
        for node in ast.walk(ast.parse(source)):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else (
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                file = folder / f"{name.rpartition('.')[2]}.py"
                if name != "harness.case" and name not in found and file.exists():
                    body = file.read_text(encoding="utf-8")
                    found[name] = ""  # mark first: a cycle must not recurse forever
                    visit(body)
                    found.pop(name)
                    found[name] = body
    visit(text)
    return found


def script(row: Mapping[Any, Any], module_text: str, helper_texts: dict[str, str],
           sources: Mapping[str, Source] | None = None) -> str:
    """The reproducer for one collapsed result row, holding `module_text` and its helpers; a package the cell built
    from a source (`sources`, by package) is required by its direct reference, not by its version."""
    module, _, name = str(row["case_id"]).partition("::")
    python = ".".join(as_text(row.get("python")).split(".")[:2]) or "3.12"
    sources = sources or {}
    pins = [_pin(package, as_text(row.get(package)), sources.get(package)) for package in ("jax", "jaxlib", "flax",
            "numpy") if as_text(row.get(package)) or package in sources]
    function = _plain_function(module_text, name)
    if function is None or "pytest" in module_text:
        pins.append("pytest")
    devices = _devices(row)
    error = ": ".join(t for t in (first_line(row.get("error_type")), first_line(row.get("error_message"))) if t)
    body = "\n".join(line for line in module_text.splitlines() if line.strip() != FUTURE)
    run = _main_block(function, name)
    if sources:  # one per line, each source-built one with the content it was recorded with (a TOML comment)
        dependencies = "\n" + "".join(f'#   "{pin}",{_recorded(pin, sources)}\n' for pin in pins) + "# "
    else:
        dependencies = ", ".join(f'"{pin}"' for pin in pins)
    built = "".join(f"\n{s.package} came from {s.where}, built as {s.tag}: this script builds it from there as it is "
                    "now, so an edit since is not what ran." for _, s in sorted(sources.items()))
    return f'''# /// script
# requires-python = "=={python}.*"
# dependencies = [{dependencies}]
# ///
"""Reproduces {row["case_id"]} as shardmatrix recorded it in cell {row["cell_id"]} (run {row["run_id"]}):

    {row["status"]}: {error or first_line(row.get("reason"))}

Run it with `uv run <this file>` in any folder; the cell's full environment is in its .freeze.txt.{built}
"""

{FUTURE}

import os
import sys
import traceback
import types

# Devices must be requested before jax is imported, and only the CPU is used, as in the cell.
_flag = "--xla_force_host_platform_device_count={devices}"
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + _flag).strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

HELPERS = {{{", ".join(f"{key!r}: {value!r}" for key, value in helper_texts.items())}}}
{SHIM}
# ---- {module}.py, verbatim ----
{body}
# ---- end of {module}.py ----


if __name__ == "__main__":
{run}'''


def _devices(row: Mapping[Any, Any]) -> int:
    """The device count the cell ran with (8 where the row does not say)."""
    try:
        return int(float(as_text(row.get("device_count")) or 8))
    except ValueError:
        return 8


def _main_block(function: str | None, name: str) -> str:
    """The body of the script's `if __name__ == "__main__":`: call the plain case function and say whether it
    reproduced, or (parametrized, fixtures or a class: `function` None) let pytest pick the one case."""
    if function is not None:
        return (f"    try:\n        {function}()\n    except BaseException as exc:\n"
                "        traceback.print_exc()\n"
                "        print(f\"reproduced: {type(exc).__name__}: {exc}\")\n        sys.exit(1)\n"
                "    print(\"not reproduced: the case passed\")\n")
    return ("    import pytest\n\n"
            f"    sys.exit(pytest.main([f\"{{__file__}}::{name}\", \"-p\", \"no:cacheprovider\", \"-q\"]))\n")


def _pin(package: str, version: str, source: Source | None) -> str:
    """'flax==0.12.6' for a release; the direct reference it was built from for a source ('flax @ file:///src/flax')."""
    return f"{package} @ {source.where}" if source is not None else f"{package}=={version}"


def _recorded(pin: str, sources: Mapping[str, Source]) -> str:
    """The TOML comment after a source-built pin: the version and content hash the cell recorded."""
    source = sources.get(pin.partition(" @ ")[0]) if " @ " in pin else None
    return f"  # recorded as {source.version}, content hash {source.label}" if source else ""


def _plain_function(text: str, name: str) -> str | None:
    """`name` when it is a module-level function taking no arguments and not parametrized, else None."""
    if not re.fullmatch(r"\w+", name):
        return None
    return name if _plain_functions(text).get(name) else None


@functools.lru_cache(maxsize=64)  # a module's cases share one parse: a report writes hundreds of reproducers
def _plain_functions(text: str) -> dict[str, bool]:
    """Each module-level function of a module's source: whether it takes no arguments and is not parametrized."""
    found: dict[str, bool] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name not in found:
            params = node.args
            takes = params.args or params.kwonlyargs or params.vararg or params.kwarg
            found[node.name] = not takes and "parametrize" not in ast.unparse(node)
    return found


def path_for(target: Path, cell_id: str, case_id: str) -> Path:
    """OUT/report/repro/<cell>/<case>.py, the case id made file-safe."""
    return Path(target) / outputs.REPRO_DIR / cell_id / (re.sub(r"[^\w.-]+", "_", case_id.replace("::", "__")) + ".py")


def write_reproducers(results: pd.DataFrame, report_dir: Path, cells: pd.DataFrame | None = None) -> Repros:
    """Write a script for every reproducible (cell, case) of collapsed results whose source was kept; returns
    (cell id, case id) -> path, relative to `report_dir`. `cells` (Matrix.cells) says which packages each cell
    built from a source (its `sources`), which the script then installs from there."""
    written: Repros = {}
    built: dict[tuple[str, str], dict[str, Source]] = {}
    if cells is not None and "sources" in cells:
        built = {(str(run), str(cell)): found for run, cell, found in zip(
            cells["run_id"], cells["cell_id"], cells["sources"], strict=True) if isinstance(found, dict) and found}
    # One look per (results file, module), not per case: each may search every other run's folder.
    sources: dict[tuple[str, str], Path | None] = {}
    kept: dict[tuple[Path, str], list[Path]] = {}
    statuses = results["status"]
    # A status's verdict once per distinct status, and a row's fields only for a row with a kept source: most
    # problems of a big tree have none, and DataFrame.to_dict of every one cost more than the rest together.
    wanted = statuses.map({status: bool(reproducible(status)) for status in statuses.unique()}).to_numpy(dtype=bool)
    chosen = results[wanted]
    found_at: list[tuple[int, Path]] = []
    for number, (case_id, origin) in enumerate(zip(chosen["case_id"].tolist(), chosen["source"].tolist(),
                                                   strict=True)):
        module, sep, _ = str(case_id).partition("::")
        if not (sep and origin):
            continue
        where = (str(origin), module)
        if where not in sources:
            sources[where] = find_source(Path(where[0]), module, kept)
        source = sources[where]
        if source is not None:
            found_at.append((number, source))
    rows = chosen.iloc[[number for number, _ in found_at]].to_dict("records")
    # Each kept module is read and its helpers found once, however many of its cases have a reproducer.
    prepared: dict[Path, tuple[str, dict[str, str]] | None] = {}
    for row, (_, source) in zip(rows, found_at, strict=True):
        if source not in prepared:
            try:
                text = source.read_text(encoding="utf-8")
                prepared[source] = (text, helpers(text, source.parent))
            except (SyntaxError, ValueError, OSError):  # a kept source that is not Python text (bytes, NUL): no script
                prepared[source] = None
        ready = prepared[source]
        if ready is None:
            continue
        try:
            content = script(row, *ready, built.get((str(row["run_id"]), str(row["cell_id"]))))
        except SyntaxError:
            continue
        path = path_for(report_dir, str(row["cell_id"]), str(row["case_id"]))
        outputs.write_atomically(path, content)
        written[(str(row["cell_id"]), str(row["case_id"]))] = path.relative_to(report_dir)
    return written


def problem_links(matrix: Matrix, keys: list[str], case: str, repros: Repros) -> list[tuple[str, Path]]:
    """(column key, script) for each cell of a problems row that has a reproducer of `case`."""
    cells = matrix.cells["cell_id"]
    found = [(key, repros.get((str(cells.get(key)), case))) for key in keys]
    return [(key, path) for key, path in found if path is not None]
