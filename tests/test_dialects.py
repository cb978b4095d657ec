"""Kernels written for GPUVerify parse with its specification functions declared."""

from __future__ import annotations

from pathlib import Path

from cudalint.engine import analyze_file
from cudalint.frontend.parse import gpuverify_args
from cudalint.settings import Settings

ANNOTATED = Path(__file__).parent / "data" / "gpuverify" / "annotated.cu"


def test_an_annotated_kernel_parses_and_is_checked():
    result = analyze_file(str(ANNOTATED), Settings(cuda_mode="shim", block_dims={"*": (64, 1, 1)}))
    assert [d for d in result.diagnostics if d.severity == "error"] == []
    assert [(f.rule, f.line) for f in result.findings] == [("CUDA203", 9)]


def test_files_without_annotations_are_parsed_as_they_are():
    assert gpuverify_args("__global__ void k(int* a) { a[0] = __assert_fail_count; }") == []
    assert gpuverify_args("__global__ void k(int n) {\n  __requires(n > 0);\n}")[0] == "-include"


def test_a_pinned_block_beyond_cudas_limit_is_taken_as_given(tmp_path):
    """GPUVerify's suites state shapes such as 2048 threads per block; a pinned shape is the
    user's word, not a launch to second-guess."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int* a) {\n  a[threadIdx.x % 1024] = threadIdx.x;  // threads t and t + 1024 collide\n}\n")
    pinned = analyze_file(str(src), Settings(cuda_mode="shim", block_dims={"*": (2048, 1, 1)}))
    assert [(f.rule, f.line) for f in pinned.findings] == [("CUDA203", 2)]
