"""Shim and toolkit modes agree on every fixture: the shim is a faithful stand-in."""

from __future__ import annotations

import pytest

from cudalint.engine import analyze_file
from cudalint.frontend.flags import find_toolkit
from cudalint.settings import Settings
from markers import FIXTURE_BUDGET_S, FIXTURE_SOLVER_TIMEOUT_MS, FIXTURES, fixture_files

pytestmark = pytest.mark.skipif(find_toolkit(None) is None, reason="no CUDA toolkit on this machine")


def _key(f):
    return (f.rule, f.line, f.column, f.message)


def _in_both_modes(tmp_path, name: str, text: str) -> dict:
    """`text` checked in shim and toolkit mode: both parse without errors and agree."""
    path = tmp_path / name
    path.write_text(text)
    results = {mode: analyze_file(str(path), Settings(cuda_mode=mode)) for mode in ("shim", "toolkit")}
    for mode, r in results.items():
        assert [d for d in r.diagnostics if d.severity == "error"] == [], mode
    assert sorted(map(_key, results["shim"].findings)) == sorted(map(_key, results["toolkit"].findings))
    return results


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_shim_and_toolkit_agree(path):
    budgets = dict(file_budget_s=FIXTURE_BUDGET_S, solver_timeout_ms=FIXTURE_SOLVER_TIMEOUT_MS)
    shim = analyze_file(str(path), Settings(cuda_mode="shim", **budgets))
    toolkit = analyze_file(str(path), Settings(cuda_mode="toolkit", **budgets))
    assert not [d for d in toolkit.diagnostics if d.severity == "error"], toolkit.diagnostics
    assert sorted(map(_key, shim.findings)) == sorted(map(_key, toolkit.findings))


def test_thread_ids_behind_macros_are_coordinates_in_toolkit_mode():
    """`#define tidy threadIdx.y`: the toolkit's headers give the member no name, and the text at
    the cursor is the macro's; the macro's definition says the axis."""
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    from cudalint.model import Access, syms
    model = build_model(parse(str(FIXTURES / "races" / "macro_ids.cu"), Settings(cuda_mode="toolkit")))
    names = {s.name for k in model.kernels for e in k.events if isinstance(e, Access) for s in syms(e.offset)}
    assert names == {"threadIdx.x", "threadIdx.y"}


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
    results = _in_both_modes(tmp_path, "guarded.cu", GUARDED)
    assert [(f.rule, f.line) for f in results["shim"].findings] == [("CUDA201", 16), ("CUDA401", 23)]


TEXTURES = """\
#include <cuda_runtime.h>

__global__ void blur(cudaTextureObject_t tex, cudaSurfaceObject_t surf, float* out, int w) {
  __shared__ float row[64];
  int x = threadIdx.x;
  row[x] = tex2D<float>(tex, x + 0.5f, blockIdx.y + 0.5f);
  float v;
  surf2Dread(&v, surf, x * 4, blockIdx.y, cudaBoundaryModeClamp);
  out[blockIdx.y * w + x] = row[(x + 1) % 64] + v;
}

cudaResourceDesc g_res;

cudaTextureObject_t make(int w, int h) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  cudaMallocArray(&arr, &d, w, h, cudaArraySurfaceLoadStore | cudaArrayTextureGather);
  memset(&g_res, 0, sizeof(cudaResourceDesc));
  g_res.resType = cudaResourceTypeArray;
  g_res.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t = 0;
  cudaCreateTextureObject(&t, &g_res, &td, nullptr);
  return t;
}

void leaky(int w) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  cudaMallocArray(&arr, &d, w, 1);
  cudaMemcpyToArray(arr, 0, 0, &w, sizeof(int), cudaMemcpyHostToDevice);
}

int main() {
  cudaTextureObject_t t = make(64, 4);
  cudaSurfaceObject_t s = 0;
  cudaCreateSurfaceObject(&s, &g_res);
  float* out = nullptr;
  cudaMalloc(&out, 256 * sizeof(float));
  blur<<<dim3(1, 4), 64>>>(t, s, out, 64);
  leaky(8);
  cudaDestroySurfaceObject(s);
  cudaDestroyTextureObject(t);
  cudaFree(out);
  return 0;
}
"""


def test_texture_and_surface_objects(tmp_path):
    # tex2D<T>, surf2Dread, cudaResourceDesc, cudaCreateTextureObject, cudaArray flags: the shim
    # lacked them, so a kernel that fetches through a texture object went unchecked in shim
    # mode only, and a CUDA array stored in a global resource descriptor looked leaked
    results = _in_both_modes(tmp_path, "tex.cu", TEXTURES)
    assert [(f.rule, f.line) for f in results["shim"].findings] == [("CUDA201", 9), ("CUDA401", 35)]


PARTITIONS = """\
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <unsigned int B>
__global__ void sums(const int* in, int* out) {
  __shared__ cg::block_tile_memory<B> scratch;
  cg::thread_block cta = cg::this_thread_block(scratch);
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cta);
  __shared__ int part[B / 32];
  int v = in[cta.thread_rank()];
  cg::coalesced_group same = cg::binary_partition(warp, v & 1);
  int s = cg::reduce(same, v, cg::plus<int>());
  if (same.thread_rank() == 0) part[warp.meta_group_rank()] = s;
  cta.sync();
  if (cta.thread_rank() == 0) out[blockIdx.x] = part[0] + part[1];
}

int main() { sums<256><<<4, 256>>>(0, 0); }
"""


def test_warp_partitions_and_block_tile_memory(tmp_path):
    # cg::binary_partition and cg::block_tile_memory / this_thread_block(scratch) were missing
    # from the shim: such kernels had parse errors (and went unchecked) in shim mode only
    results = _in_both_modes(tmp_path, "part.cu", PARTITIONS)
    assert [r.kernels for r in results.values()] == [1, 1]


HOST_MINMAX = """\
#include <cuda_runtime.h>
__global__ void clamp_all(int* d, int n) { d[threadIdx.x] = max(d[threadIdx.x], n); }
int host_reference(const int* d, int n, unsigned cap) {
    int best = 0;
    for (int i = 0; i < n; i++) best = max(best, d[i]);
    return min(best, cap) + (int)max(1.5, 2.0f);
}
"""


def test_host_code_calls_the_global_min_and_max_as_nvcc_allows(tmp_path):
    """nvcc declares min/max for the host too; clang's CUDA headers only for the device."""
    _in_both_modes(tmp_path, "minmax.cu", HOST_MINMAX)


def test_a_builtins_axis_behind_a_macro_is_read_where_it_is_spelled(tmp_path, monkeypatch):
    """The toolkit's `blockIdx.y` is a property with no name of its own: its axis is read where
    it is written, inside the macro's definition (it was read from the macro's use, as
    blockIdx.x), without reading the macro expansion's whole range of tokens (thousands in
    logic-rewrite)."""
    import clang.cindex as ci

    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    src = tmp_path / "k.cu"
    src.write_text("#define TID (blockIdx.y * blockDim.y + threadIdx.x)\n"
                   "__global__ void k(float* p) { p[TID] = blockDim.z; }\n")
    wide = []
    real = ci.Cursor.get_tokens
    monkeypatch.setattr(ci.Cursor, "get_tokens", lambda c: wide.append(c) or real(c))
    for mode in ("shim", "toolkit"):
        (kernel,) = build_model(parse(str(src), Settings(cuda_mode=mode))).kernels
        assert sorted(kernel.builtins_read) == ["blockDim.y", "blockDim.z", "blockIdx.y", "threadIdx.x"], mode
    assert wide == []
