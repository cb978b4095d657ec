"""Kernels written for GPUVerify parse with its specification functions declared."""

from __future__ import annotations

from pathlib import Path

import pytest

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


GPUVERIFY_DATA = ANNOTATED.parent


@pytest.mark.parametrize("mode", ["shim", "toolkit"])
def test_kernels_written_against_gpuverifys_cuda_h_are_checked(mode):
    """GPUVerify's cuda.h declares cooperative groups (`synchronize(g)`) and device cuRAND: both
    parse, a barrier half a block reaches is divergent, and a generator state shared by threads
    is a race (an MTGP32 state is one block's, for up to 256 of its threads)."""
    settings = Settings(cuda_mode=mode, block_dims={"*": (32, 1, 1)}, grid_dims={"*": (2, 1, 1)})
    found = []
    for name in ("cuda_h_groups.cu", "cuda_h_curand.cu"):
        result = analyze_file(str(GPUVERIFY_DATA / name), settings)
        assert [d for d in result.diagnostics if d.severity == "error"] == []
        found += [(name, f.rule, f.line) for f in result.findings]
    assert found == [("cuda_h_groups.cu", "CUDA204", 11),
                     ("cuda_h_curand.cu", "CUDA203", 5), ("cuda_h_curand.cu", "CUDA203", 19)]


def test_an_mtgp32_state_serves_at_most_256_threads_of_a_block():
    result = analyze_file(str(GPUVERIFY_DATA / "cuda_h_curand.cu"),
                          Settings(cuda_mode="shim", block_dims={"*": (512, 1, 1)}, grid_dims={"*": (1, 1, 1)}))
    assert [(f.rule, f.line) for f in result.findings] == [("CUDA203", 5), ("CUDA203", 15), ("CUDA203", 19)]


def test_cuda_h_alone_is_the_toolkits_when_the_file_includes_what_it_uses():
    own = '#include <cuda.h>\n#include <curand_kernel.h>\n__global__ void k(curandState* s) {}\n'
    assert gpuverify_args(own) == []
    assert gpuverify_args(own.replace("#include <curand_kernel.h>\n", ""))[-1].endswith("gpuverify_cuda.h")


def test_stated_preconditions_make_a_race_for_some_allowed_argument_a_race():
    result = analyze_file(str(GPUVERIFY_DATA / "preconditions.cu"),
                          Settings(cuda_mode="shim", block_dims={"*": (1024, 1, 1)}, grid_dims={"*": (1, 1, 1)}))
    assert [d for d in result.diagnostics if d.severity == "error"] == []
    assert [(f.rule, f.line) for f in result.findings] == [("CUDA203", 6)]
