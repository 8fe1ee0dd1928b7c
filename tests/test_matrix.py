from __future__ import annotations

from pathlib import Path

import pytest

from harness.host import matrix

GOOD = """
[[cell]]
jax = "0.10.2"
jaxlib = "0.10.2"
flax = "0.12.8"
python = "3.11"

[[cell]]
id = "newest"
jax = "0.12.0.1"
jaxlib = "0.12.0.1"
flax = "0.12.12"
python = "3.12"
devices = 4
exclude_newer = "2026-11-01"
"""


def test_parse_valid_matrix_gives_cells_with_readable_ids() -> None:
    cells = matrix.parse(GOOD)
    assert [c.id for c in cells] == ["jax0.10.2-flax0.12.8-py3.11", "newest"]
    assert cells[0].requirements() == ["jax==0.10.2", "jaxlib==0.10.2", "flax==0.12.8"]
    assert cells[1].devices == 4 and cells[1].exclude_newer == "2026-11-01"


def test_default_matrix_file_is_valid_and_spans_history() -> None:
    cells = matrix.load(Path(__file__).parent.parent / "matrix.toml")
    assert len(cells) >= 12
    minors = {tuple(c.jax.split(".")[:2]) for c in cells}
    assert {("0", str(m)) for m in range(4, 13)} <= minors
    for c in cells:
        if c.sort_key()[0].release >= (0, 11):
            assert c.python == "3.12", c.id


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[cell]]\njax = "0.4\n', "malformed TOML"),
        ('[[cell]]\njax=0.4\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n', "jax must be a quoted version string"),
        (GOOD + '\n[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\njaxx="1"\n',
         ":17: cell #3: unknown key 'jaxx'"),
        ('[[cell]]\njax="0.4.x"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n', "'0.4.x' is not a valid version"),
        ('[[cell]]\njax=">=0.4"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n', "not a valid version"),
        ('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\n' * 2, "duplicate id"),
        ('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\n', "missing key 'python'"),
        ('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="py3"\n', "python must look like"),
        ('[cells]\n', "unknown top-level key 'cells'"),
        ('', "no [[cell]] tables"),
        ('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\nbackend="rocm"\n', "unknown backend"),
        ('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\ndevices=0\n', "devices must be"),
        ('[[cell]]\njax="0.4.38"\njaxlib="0.4.38"\nflax="0.10.2"\npython="3.11"\ndefault="no"\n',
         "default must be true or false, got 'no'"),
    ],
)
def test_parse_refuses_bad_input_with_one_line_naming_it(text: str, message: str) -> None:
    with pytest.raises(matrix.MatrixError) as info:
        matrix.parse(text, "m.toml")
    assert message in str(info.value)
    assert "\n" not in str(info.value).strip()
    assert str(info.value).startswith("m.toml")


def test_load_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(matrix.MatrixError, match=r"nope\.toml: cannot read"):
        matrix.load(tmp_path / "nope.toml")


def test_select_by_glob_and_refuse_dead_pattern() -> None:
    cells = matrix.parse(GOOD)
    assert [c.id for c in matrix.select(cells, ["jax0.10*"])] == ["jax0.10.2-flax0.12.8-py3.11"]
    assert matrix.select(cells, []) == cells
    with pytest.raises(matrix.MatrixError, match="matches no cell"):
        matrix.select(cells, ["jax9*"])


OPTIONAL = GOOD + ('\n[[cell]]\njax="0.11.2"\njaxlib="0.11.2"\nflax="0.12.10"\npython="3.12"\nbackend="cuda13"\n'
                   'default=false\n')


def test_a_cell_outside_the_default_set_runs_only_when_a_glob_names_it() -> None:
    cells = matrix.parse(OPTIONAL)
    assert [c.id for c in matrix.select(cells, [])] == ["jax0.10.2-flax0.12.8-py3.11", "newest"]
    assert [c.id for c in matrix.select(cells, ["*cuda13"])] == ["jax0.11.2-flax0.12.10-py3.12-cuda13"]
    assert len(matrix.select(cells, ["*"])) == 3


def test_a_cell_is_in_the_default_set_unless_it_says_otherwise() -> None:
    assert [c.default for c in matrix.parse(OPTIONAL)] == [True, True, False]


def test_the_shipped_accelerator_cells_are_one_per_backend_outside_the_default_set() -> None:
    cells = matrix.load(Path(__file__).parent.parent / "matrix.toml")
    accelerated = [c for c in cells if c.accelerated]
    assert sorted(c.backend for c in accelerated) == ["cuda12", "cuda13", "tpu"]
    assert matrix.select(cells, []) == [c for c in cells if not c.accelerated]
    cpu = {(c.jax, c.flax, c.python) for c in cells if not c.accelerated}
    assert all((c.jax, c.flax, c.python) in cpu for c in accelerated)  # each beside the CPU cell of its pins


def test_cells_sort_by_release_not_by_string() -> None:
    cells = matrix.parse(GOOD.replace('"0.10.2"', '"0.4.38"', 2).replace('"0.12.8"', '"0.10.2"'))
    assert sorted(cells, key=lambda c: c.sort_key())[0].jax == "0.4.38"
    assert "0.4.38" > "0.12.0.1"  # why string order would be wrong


def test_accelerator_cell_installs_jax_extra_and_names_backend_in_id() -> None:
    text = '[[cell]]\njax="0.8.3"\njaxlib="0.8.3"\nflax="0.12.3"\npython="3.11"\nbackend="cuda13"\n'
    (cell,) = matrix.parse(text)
    assert cell.id == "jax0.8.3-flax0.12.3-py3.11-cuda13" and cell.accelerated
    assert cell.requirements() == ["jax[cuda13]==0.8.3", "jaxlib==0.8.3", "flax==0.12.3", "jax-cuda13-plugin==0.8.3",
                                   "jax-cuda13-pjrt==0.8.3"]


def test_cpu_cell_installs_plain_jax_under_the_plain_id() -> None:
    (cell,) = matrix.parse('[[cell]]\njax="0.8.3"\njaxlib="0.8.3"\nflax="0.12.3"\npython="3.11"\nbackend="cpu"\n')
    assert cell.id == "jax0.8.3-flax0.12.3-py3.11" and not cell.accelerated
    assert cell.requirements()[0] == "jax==0.8.3"


def test_backend_extra_older_than_the_pinned_jax_is_refused() -> None:
    text = '[[cell]]\njax="0.6.2"\njaxlib="0.6.2"\nflax="0.10.7"\npython="3.11"\nbackend="cuda13"\n'
    with pytest.raises(matrix.MatrixError, match=r"jax 0.6.2 has no \[cuda13\] extra"):
        matrix.parse(text)


@pytest.mark.parametrize(("jax", "refused"), [("0.7.1", True), ("0.7.2", False)])
def test_a_cuda13_cell_needs_a_jaxlib_with_a_published_plugin(jax: str, refused: bool) -> None:
    text = f'[[cell]]\njax="{jax}"\njaxlib="{jax}"\nflax="0.12.0"\npython="3.11"\nbackend="cuda13"\n'
    if not refused:
        assert matrix.parse(text)[0].backend == "cuda13"
        return
    with pytest.raises(matrix.MatrixError, match=r"jaxlib 0.7.1 has no jax-cuda13-plugin release on PyPI \(first "
                                                 r"0.7.2\)"):
        matrix.parse(text)


def test_with_adds_requirements_to_every_cell_and_a_bad_one_is_refused() -> None:
    cells = matrix.parse('with = ["optax==0.2.5", "orbax-checkpoint"]\n' + GOOD)
    assert all(c.extras == ("optax==0.2.5", "orbax-checkpoint") for c in cells)
    assert cells[0].requirements()[-2:] == ["optax==0.2.5", "orbax-checkpoint"]
    with pytest.raises(matrix.MatrixError, match="with: 'optax=>1' is not a requirement"):
        matrix.parse('with = ["optax=>1"]\n' + GOOD)
    with pytest.raises(matrix.MatrixError, match="with must be a list"):
        matrix.parse('with = "optax"\n' + GOOD)


def test_a_matrix_file_that_is_not_text_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "matrix.toml"
    path.write_bytes(b"\xff\xfe[[cell]]\n")
    with pytest.raises(matrix.MatrixError, match=r"matrix\.toml: not UTF-8 text \(byte 0\)$"):
        matrix.load(path)
