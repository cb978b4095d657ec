"""Shim and toolkit modes agree on every fixture: the shim is a faithful stand-in."""

from __future__ import annotations

import pytest

from cudalint.engine import analyze_file
from cudalint.frontend.flags import find_toolkit
from cudalint.settings import Settings
from markers import FIXTURES, fixture_files

pytestmark = pytest.mark.skipif(find_toolkit(None) is None, reason="no CUDA toolkit on this machine")


def _key(f):
    return (f.rule, f.line, f.column, f.message)


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_shim_and_toolkit_agree(path):
    shim = analyze_file(str(path), Settings(cuda_mode="shim"))
    toolkit = analyze_file(str(path), Settings(cuda_mode="toolkit"))
    assert not [d for d in toolkit.diagnostics if d.severity == "error"], toolkit.diagnostics
    assert sorted(map(_key, shim.findings)) == sorted(map(_key, toolkit.findings))


GUARDED = """\
#include <cuda_runtime.h>
#include <cstdio>
#ifdef __DRIVER_TYPES_H__
#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) printf("%s\\n", cudaGetErrorName(e)); } while (0)
#endif
#ifdef __CUDA_RUNTIME_H__
inline bool usable(int dev) {
  int mode = 0;
  CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev));
  return mode != cudaComputeModeProhibited;
}
#endif
__global__ void k(float* p) {
  __shared__ float s[64];
  s[threadIdx.x] = p[threadIdx.x];
  p[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
int main() {
  if (!usable(0)) return 1;
  float* d = nullptr;
  CHECK(cudaMalloc(&d, 64 * sizeof(float)));
  k<<<1, 64>>>(d);
  return 0;
}
"""


def test_code_guarded_by_the_toolkits_header_macros(tmp_path):
    # helpers such as cuda-samples' helper_cuda.h define their checking macros only under the
    # toolkit's include guards (__DRIVER_TYPES_H__, __CUDA_RUNTIME_H__): the shim defines them too
    path = tmp_path / "guarded.cu"
    path.write_text(GUARDED)
    results = {mode: analyze_file(str(path), Settings(cuda_mode=mode)) for mode in ("shim", "toolkit")}
    for r in results.values():
        assert [d for d in r.diagnostics if d.severity == "error"] == []
    assert [(f.rule, f.line) for f in results["shim"].findings] == [("CUDA201", 16), ("CUDA401", 23)]
    assert sorted(map(_key, results["shim"].findings)) == sorted(map(_key, results["toolkit"].findings))
