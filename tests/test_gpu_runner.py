"""The --confirm runner on a real GPU (skipped where there is none; run on the H200 through
scripts/gpu/run_runner_tests.sh)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from cudalint.findings import Finding
from cudalint.gpu import runner
from cudalint.settings import Settings

ROOT = Path(__file__).resolve().parents[1]

_ok, _why = runner.gpu_status() if shutil.which("nvidia-smi") or Path("/dev/nvidia0").exists() else (False, "no GPU")
pytestmark = pytest.mark.skipif(not _ok, reason=f"needs a CUDA GPU with CuPy: {_why}")


def _finding(path, line, kernel, category="misaligned-access", rule="CUDA101", message="probe"):
    return Finding(rule, "probe", category, "error", str(path), line, 1, line, 1, message, kernel=kernel)


def test_saxpy_fixture_confirmed_and_clean_not():
    from cudalint.engine import analyze_file
    path = str(ROOT / "fixtures/misaligned/saxpy_float4.cu")
    res = analyze_file(path, Settings())
    assert res.findings
    clean = _finding(path, 23, "saxpy_vec4")  # an `// ok: CUDA101` line
    out = runner.confirm(res.findings + [clean], Settings(), timeout=60)
    for f in out[:-1]:
        c = f.confirmation
        # a second misaligned load after the first fault is never executed: unsupported, with the reason
        assert c.status == "confirmed" or (c.status == "unsupported" and "not reached" in c.detail), c
    assert out[-1].confirmation.status != "confirmed", out[-1].confirmation


def test_hung_kernel_is_killed_and_reported(tmp_path):
    src = tmp_path / "hang.cu"
    src.write_text(textwrap.dedent("""\
        __global__ void spin(int* flag)
        {
            if (threadIdx.x == 0) {
                while (atomicAdd(flag, 0) != 12345) { }
            }
            __syncthreads();
        }
    """))
    f = _finding(src, 6, "spin", "barrier-divergence", "CUDA204")
    out = runner.confirm([f], Settings(), timeout=15)
    c = out[0].confirmation
    assert c.status in ("confirmed", "error") and ("killed" in c.detail or "hung" in c.detail), c


def test_compile_error_is_an_error(tmp_path):
    src = tmp_path / "bad.cu"
    src.write_text("__global__ void k(float* p) { p[threadIdx.x] = undefined_name; }\n")
    out = runner.confirm([_finding(src, 1, "k")], Settings(), timeout=60)
    assert out[0].confirmation.status == "error" and "NVRTC" in out[0].confirmation.detail


@pytest.mark.skipif(not runner.tools()["ncu"], reason="needs ncu")
def test_bank_conflicts_are_judged_per_line():
    """A conflicting load and the clean stores of the same kernel: ncu's source counters tell them apart."""
    path = str(ROOT / "fixtures/bank/strides.cu")
    fs = [_finding(path, 35, "stride2_2way", "bank-conflict", "CUDA301"),
          _finding(path, 32, "stride2_2way", "bank-conflict", "CUDA301")]
    bad, clean = (f.confirmation for f in runner.confirm(fs, Settings(), timeout=120))
    assert bad.status == "confirmed" and bad.method == "ncu source counters", bad
    assert clean.status == "not-reproduced", clean


def _confirm_file(rel, timeout=60):
    from cudalint.engine import analyze_file
    res = analyze_file(str(ROOT / rel), Settings())
    return {f.line: f.confirmation for f in runner.confirm(res.findings, Settings(), timeout=timeout)}


def test_barrier_skipped_by_exiting_threads_is_counted():
    """sm_70+ neither hangs nor reports it; the per-thread arrival count shows the uneven block."""
    c = _confirm_file("fixtures/barriers/early_return.cu")[15]
    assert (c.status, c.method) == ("confirmed", "arrival count"), c
    assert "24 thread(s) never" in c.detail, c


@pytest.mark.skipif(not (runner.tools()["nvcc"] and runner.tools()["compute-sanitizer"]), reason="needs nvcc")
def test_free_of_a_device_pointer_by_its_crash():
    c = _confirm_file("fixtures/host/mismatched_free.cu", timeout=120)[64]
    assert (c.status, c.method) == ("confirmed", "crash backtrace"), c
    assert c.detail.endswith("called from device_freed_with_free"), c


def test_lost_updates_of_two_blocks_by_the_access_log():
    """`*count += 1` by every thread: the same result in every run (the atomic variant would show
    the lost updates too, tests/test_runner.py), but the log sees two blocks at `count`."""
    c = _confirm_file("fixtures/races/global_accumulate.cu")[26]
    assert (c.status, c.method) == ("confirmed", "access-log"), c
    assert "`*count += 1` (line 26)" in c.detail and "of `count`" in c.detail, c


_CSR_BY_VALUE = """\
struct Csr { int nodes; int edges; const int* nindex; const int* nlist; };

__global__ void push_to_neighbours(const Csr g, int* label)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < g.nodes) {
        for (int i = g.nindex[v]; i < g.nindex[v + 1]; i++) {
            label[g.nlist[i]] += 1;
        }
    }
}

__global__ void pull_from_neighbours(const Csr g, const int* label, int* sum)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < g.nodes) {
        for (int i = g.nindex[v]; i < g.nindex[v + 1]; i++) {
            sum[v] += label[g.nlist[i]];
        }
    }
}
"""


def test_csr_graph_passed_by_value(tmp_path):
    """The graph goes to the kernel as one struct argument whose pointer fields point at CSR
    buffers: neighbours shared between blocks race on `label` (confirmed); the pull twin writes
    only its own vertex's `sum[v]` and is not."""
    from cudalint.engine import analyze_file
    path = tmp_path / "csr_by_value.cu"
    path.write_text(_CSR_BY_VALUE)
    found = analyze_file(str(path), Settings()).findings
    assert [(f.rule, f.line, f.kernel) for f in found] == [("CUDA203", 8, "push_to_neighbours")]
    twin = Finding("CUDA203", "probe", "data-race", "error", str(path), 18, 13, 18, 41, "probe",
                   kernel="pull_from_neighbours", properties=(("array", "sum"), ("memory_space", "global")))
    race, clean = (f.confirmation for f in runner.confirm(found + [twin], Settings(), timeout=120))
    assert race.status == "confirmed", race
    assert clean.status != "confirmed" and "cannot be synthesised" not in clean.detail, clean


def _static_then_confirmed(path, text):
    """(rule, line) of the static findings of `text` written to `path`, and their confirmations."""
    from cudalint.engine import analyze_file
    path.write_text(text)
    res = analyze_file(str(path), Settings())
    return ([(f.rule, f.line) for f in res.findings],
            [f.confirmation for f in runner.confirm(res.findings, Settings(), timeout=120)])


_LEAK_WHEN_COPY_FAILS = """\
#include <cstdio>
#include <cuda_runtime.h>
int stage(const float* h, int n) {
  float* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) return 1;
  if (cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) return 2;
  cudaFree(d);
  return 0;
}
int main() {
  static float h[256];
  printf("%d\\n", stage(h, 256));
  return 0;
}
"""


@pytest.mark.skipif(not (runner.tools()["nvcc"] and runner.tools()["compute-sanitizer"]), reason="needs nvcc")
def test_leak_on_an_error_path_by_making_the_call_fail(tmp_path):
    """The copy never fails in the program's own run; built with it made to fail, the leak check
    sees the buffer the early return loses."""
    found, (c,) = _static_then_confirmed(tmp_path / "stage.cu", _LEAK_WHEN_COPY_FAILS)
    assert found == [("CUDA401", 6)]
    assert (c.status, c.method) == ("confirmed", "compute-sanitizer --leak-check full"), c
    assert c.detail == "with `cudaMemcpy` at line 6 made to fail, 1024 bytes leaked in 1 allocation(s) made in stage", c


_STAGE_USES_A_HELPER_BESIDE_IT = _LEAK_WHEN_COPY_FAILS.replace(
    "int main() {", "float scale(float);  // defined in helper.cpp beside it\nint main() {\n  (void)scale(1.0f);")


@pytest.mark.skipif(not (runner.tools()["nvcc"] and runner.tools()["compute-sanitizer"]), reason="needs nvcc")
def test_a_program_of_several_sources_is_linked_with_the_ones_beside_it(tmp_path):
    """stage.cu alone does not link (scale() is in helper.cpp); the build adds the sources beside
    it that have no main() of their own (other.cpp has one and stays out)."""
    (tmp_path / "helper.cpp").write_text("float scale(float x) { return 2 * x; }\n")
    (tmp_path / "other.cpp").write_text("int main() { return 3; }\n")
    found, confirmed = _static_then_confirmed(tmp_path / "stage.cu", _STAGE_USES_A_HELPER_BESIDE_IT)
    assert [rule for rule, _ in found] == ["CUDA401"]
    assert confirmed[0].status == "confirmed", confirmed[0]


_ROWS_THROUGH_POINTERS = """\
#include <cuda_runtime.h>
__global__ void column_sums(float** rows, float* out) {  // float**: no arguments can be made up
  __shared__ float tile[32][32];
  tile[threadIdx.x][0] = rows[threadIdx.x][0];  // 32 lanes, one bank
  __syncthreads();
  if (threadIdx.x == 0) out[0] = tile[0][0];
}
int main() {
  float *data, **rows, *out;
  cudaMalloc(&data, 32 * sizeof(float));
  cudaMalloc(&rows, 32 * sizeof(float*));
  cudaMalloc(&out, sizeof(float));
  float* host[32];
  for (int i = 0; i < 32; i++) host[i] = data + i;
  cudaMemcpy(rows, host, sizeof host, cudaMemcpyHostToDevice);
  column_sums<<<1, 32>>>(rows, out);
  cudaDeviceSynchronize();
  cudaFree(data);
  cudaFree(rows);
  cudaFree(out);
  return 0;
}
"""


@pytest.mark.skipif(not (runner.tools()["nvcc"] and runner.tools()["ncu"]), reason="needs nvcc and ncu")
def test_a_kernel_whose_arguments_cannot_be_made_up_runs_in_its_own_program(tmp_path):
    found, confirmed = _static_then_confirmed(tmp_path / "rows.cu", _ROWS_THROUGH_POINTERS)
    assert ("CUDA301", 4) in found
    c = confirmed[found.index(("CUDA301", 4))]
    assert (c.status, c.method) == ("confirmed", "ncu source counters (the program's own run)"), c


_HOST_TYPE_AT_FILE_SCOPE = """\
#include <string>
#include <cstdio>
struct Label { std::string name; };  // a host type at file scope: NVRTC has no std::string
__global__ void shift(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
int main() {
  Label l{"x"};
  int* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  shift<<<1, 64>>>(d);
  cudaFree(d);
  return (int)l.name.size();
}
"""


@pytest.mark.skipif(not (runner.tools()["nvcc"] and runner.tools()["compute-sanitizer"]), reason="needs nvcc")
def test_a_kernel_nvrtc_cannot_compile_is_built_with_nvcc(tmp_path):
    """NVRTC fails on `std::string`; nvcc builds the same lines with host code kept, and racecheck
    sees the missing barrier."""
    found, (c,) = _static_then_confirmed(tmp_path / "shift.cu", _HOST_TYPE_AT_FILE_SCOPE)
    assert found == [("CUDA201", 7)]
    assert (c.status, c.method) == ("confirmed", "compute-sanitizer racecheck"), c


def test_a_plain_read_beside_a_shared_atomic_by_the_access_log():
    """racecheck does not track atomics; the log sees two warps of one block at `claimed`
    between the same barriers, one reading it plainly, one updating it atomically."""
    c = _confirm_file("fixtures/races/shared_counter_poll.cu")[14]
    assert (c.status, c.method) == ("confirmed", "access-log"), c
    assert "two warps of one block" in c.detail and "updates atomically `atomicAdd(&claimed, 1u)`" in c.detail, c


def test_a_cooperative_groups_sync_skipped_by_the_tail_is_counted():
    """`block.sync()` (no `__syncthreads()` in the text): the call itself is counted."""
    c = _confirm_file("fixtures/barriers/tail_block_sync.cu")[18]
    assert (c.status, c.method) == ("confirmed", "arrival count"), c


def test_a_divergence_runs_with_the_scalars_of_its_witness(tmp_path):
    """No launch gives `n`: the default (4 x threads) would take every thread through the guard;
    the witness's n = 1 leaves all but one thread of the block out."""
    from cudalint.engine import analyze_file
    src = tmp_path / "tail.cu"
    src.write_text("__global__ void tail(float *x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i < n) {\n    x[i] += 1.0f;\n    __syncthreads();\n  }\n}\n")
    fs = analyze_file(str(src), Settings()).findings
    (c,) = [f.confirmation for f in runner.confirm(fs, Settings(), timeout=60) if f.line == 5]
    assert (c.status, c.method) == ("confirmed", "arrival count"), c


@pytest.mark.skipif(not (runner.tools()["nvcc"] and runner.tools()["compute-sanitizer"]), reason="needs nvcc")
def test_a_check_macro_is_made_to_fail_where_it_expands():
    """`CHECK_LAST` holds the cudaGetLastError() call: it fails at line 22 only, so the first
    check passes and the program leaks `a` at the second."""
    c = _confirm_file("fixtures/host/last_error_macro.cu", timeout=120)[22]
    assert (c.status, c.method) == ("confirmed", "compute-sanitizer --leak-check full"), c
    assert c.detail.startswith("with `cudaGetLastError` at line 22 made to fail"), c


@pytest.mark.skipif(not runner.tools()["compute-sanitizer"], reason="needs compute-sanitizer")
def test_shared_hazards_of_stores_that_agree_or_of_the_runners_repeated_data_are_not_confirmed():
    """racecheck reports hazards at every probed line; hazard mode shows every thread storing one
    pointer (reread_own_store.cu:9), a rerun with distinct `ranks` none at benign_and_data.cu:40.
    `who = threadIdx.x` (line 17) and its read (line 18, racecheck's second "and" line) stay races."""
    def probe(rel, line, kernel):
        return Finding("CUDA201", "probe", "data-race", "error", str(ROOT / rel), line, 1, line, 1, "probe",
                       kernel=kernel)

    fs = [probe("fixtures/races/reread_own_store.cu", 9, "pick_tile"),
          probe("fixtures/races/reread_own_store.cu", 17, "last_writer"),
          probe("fixtures/races/reread_own_store.cu", 18, "last_writer"),
          probe("fixtures/races/benign_and_data.cu", 40, "place")]
    agree, differ, read, ranks = [f.confirmation for f in runner.confirm(fs, Settings(), timeout=120)]
    assert agree.status == "not-reproduced" and "are reads of a value every thread stores" in agree.detail, agree
    assert differ.status == "confirmed" and read.status == "confirmed", (differ, read)
    assert ranks.status == "not-reproduced" and "distinct values in `ranks`" in ranks.detail, ranks
