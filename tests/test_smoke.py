"""The smoke subset: cases marked smoke=True, read from source; one per family, linen and nnx.jit among them."""

from __future__ import annotations

from pathlib import Path

import pytest

from shardmatrix import smoke


def test_the_smoke_subset_has_a_case_of_every_family_and_covers_linen_and_nnx_jit() -> None:
    nodes = smoke.smoke_nodes(["builtin"])
    families = {case_id.split("::")[0] for case_id in nodes}
    assert families == {"partitioned_metadata", "nnx_sharded_merge", "vmap_param_shapes", "shard_map_modes",
                        "sharded_gathers"}
    assert "nnx_sharded_merge::test_nnx_jit_on_sharded_model" in nodes
    assert "partitioned_metadata::test_dense_kernel_with_partitioning" in nodes  # linen


def test_smoke_reads_only_a_literal_true_flag(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        "@case('f', smoke=True)\ndef test_in(): ...\n@case('f', smoke=False)\ndef test_out(): ...\n"
        "@case('f')\ndef test_plain(): ...\n", encoding="utf-8")
    assert smoke.smoke_tests(tmp_path / "test_x.py") == ["test_in"]
    assert list(smoke.smoke_nodes([str(tmp_path)])) == ["test_x::test_in"]


def test_a_corpus_without_smoke_cases_is_refused(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text("def test_a(): ...\n", encoding="utf-8")
    with pytest.raises(smoke.SmokeError, match="no smoke case in --cases"):
        smoke.smoke_nodes([str(tmp_path)])


@pytest.mark.parametrize("content", [b"\xff\xfe", b"def test_(:\n", b"x = 1\x00\n"])
def test_a_case_file_that_is_not_python_text_is_one_line_naming_it(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "test_bad.py").write_bytes(content)
    with pytest.raises(smoke.SmokeError, match=r"test_bad\.py: not a Python module"):
        smoke.smoke_tests(tmp_path / "test_bad.py")
