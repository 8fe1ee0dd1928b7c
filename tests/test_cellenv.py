"""What the command line adds to every cell: checked once, applied to each cell, renaming it when it changes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import cellenv
from harness.host.corpus import CorpusError
from harness.host.matrix import Cell, Origin
from harness.host.options import BUILTIN, Options, OptionsError, parse

FIXTURE = Path(__file__).resolve().parent / "downstream"
CELL = Cell(id="jax0.9.2-flax0.12.6-py3.11", jax="0.9.2", jaxlib="0.9.2", flax="0.12.6", python="3.11")
TREE = Origin("flax", "0.12.6", "tree.1a2b3c4d", "file:///src/flax", "flax @ file:///built/flax-0.12.6.whl")


def test_a_project_without_cases_brings_its_own_tests() -> None:
    opts = parse(["--project", str(FIXTURE)])
    additions = cellenv.prepare(opts)
    assert opts.cases == [str(FIXTURE / "tests")]
    assert additions.project is not None and additions.project.name == "tinytrainer"


def test_given_cases_stay_with_a_project_and_builtin_without_one() -> None:
    opts = parse(["--project", str(FIXTURE), "--cases", BUILTIN])
    cellenv.prepare(opts)
    assert opts.cases == [BUILTIN]
    plain = parse([])
    cellenv.prepare(plain)
    assert plain.cases == [BUILTIN]


def test_a_projects_own_harness_beside_the_shipped_corpus_is_refused_before_any_build(tmp_path: Path) -> None:
    for folder in ("harness", "tests"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "own"\nversion = "0"\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"has its own top-level package `harness`"):
        cellenv.prepare(parse(["--project", str(tmp_path), "--cases", BUILTIN]))
    opts = parse(["--project", str(tmp_path)])  # its own tests alone: its `harness` is its own in the cell
    cellenv.prepare(opts)
    assert opts.cases == [str(tmp_path / "tests")]


@pytest.mark.parametrize(("argv", "message"), [
    (["--with", "optax=>0.2"], "--with 'optax=>0.2' is not a requirement"),
    (["--override", "numpy==2.0"], "override jax, jaxlib or flax"),
    (["--override", "jax>=0.9"], "override jax, jaxlib or flax with an exact pin"),
])
def test_bad_additions_are_refused_in_one_line(argv: list[str], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        cellenv.prepare(parse(argv))


def test_extras_and_the_project_are_added_without_renaming() -> None:
    opts = Options(project=FIXTURE, extras=["orbax-checkpoint==0.12.8"], pre=True, indexes=["https://x/simple"])
    cell = cellenv.apply(CELL, cellenv.prepare(opts))
    assert cell.id == CELL.id and cell.project == str(FIXTURE)
    assert cell.requirements()[-1] == "orbax-checkpoint==0.12.8"
    assert cell.pre and cell.indexes == ("https://x/simple",)


def test_a_pin_override_renames_a_default_id_and_suffixes_a_custom_one() -> None:
    additions = cellenv.Additions(pins=(("jax", "0.9.1"),))
    cell = cellenv.apply(CELL, additions)
    assert (cell.id, cell.jax, cell.jaxlib) == ("jax0.9.1-flax0.12.6-py3.11", "0.9.1", "0.9.1")
    custom = cellenv.apply(Cell(id="mine", jax="0.9.2", jaxlib="0.9.2", flax="0.12.6", python="3.11"), additions)
    assert custom.id == "mine-jax0.9.1-flax0.12.6"


def test_a_source_names_the_cell_and_replaces_the_pin() -> None:
    cell = cellenv.apply(CELL, cellenv.Additions(origins=(TREE,)))
    assert cell.id == "jax0.9.2-flax0.12.6+tree.1a2b3c4d-py3.11"
    assert cell.requirements() == ["jax==0.9.2", "jaxlib==0.9.2", "flax @ file:///built/flax-0.12.6.whl"]


def test_pytest_reads_the_projects_configuration_only_for_its_own_tests() -> None:
    cell = cellenv.apply(CELL, cellenv.Additions(project=cellenv.projects.load(FIXTURE)))
    own = cellenv.project_settings(cell, [FIXTURE / "tests"])
    assert own is not None and own.arguments() == ["--rootdir", str(FIXTURE), "-c", str(FIXTURE / "pyproject.toml")]
    assert cellenv.project_settings(cell, [Path("cases/sharded_gathers.py")]) is None
    assert cellenv.project_settings(CELL, [FIXTURE / "tests"]) is None
