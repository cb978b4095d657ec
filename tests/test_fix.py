"""`--fix` / `--diff`: CUDA301's row padding, applied only where it is safe, and only when asked."""

from __future__ import annotations

from cudalint import fix
from workflow_helpers import run, work  # noqa: F401

COLUMN_READ = """#define TILE 32
__global__ void transpose(float* out, const float* in) {
  __shared__ float tile[TILE][TILE];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * TILE + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * TILE + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  float *a = nullptr, *b = nullptr;
  transpose<<<1, dim3(32, 32)>>>(a, b);
  return 0;
}
"""

DIFF = """--- a/t.cu
+++ b/t.cu
@@ -1,6 +1,6 @@
 #define TILE 32
 __global__ void transpose(float* out, const float* in) {
-  __shared__ float tile[TILE][TILE];
+  __shared__ float tile[TILE][TILE + 1];
   tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * TILE + threadIdx.x];
   __syncthreads();
   out[threadIdx.y * TILE + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
"""


def test_diff_shows_the_padding_and_writes_nothing(work, capsys):
    (work / "t.cu").write_text(COLUMN_READ)
    code, out, _ = run(capsys, "--diff", "t.cu")
    assert (code, out) == (1, DIFF)
    assert (work / "t.cu").read_text() == COLUMN_READ


def test_fix_writes_it_and_the_conflict_is_gone(work, capsys):
    (work / "t.cu").write_text(COLUMN_READ)
    code, out, err = run(capsys, "--fix", "t.cu")
    assert code == 0 and "cudalint: fixed 1 finding in 1 file" in err and "CUDA301" not in out
    assert (work / "t.cu").read_text() == COLUMN_READ.replace("tile[TILE][TILE];", "tile[TILE][TILE + 1];")
    code, out, _ = run(capsys, "t.cu")
    assert code == 0 and "CUDA301" not in out
    code, out, _ = run(capsys, "--diff", "t.cu")
    assert (code, out) == (0, "")


def test_no_fix_where_a_pointer_walks_the_array(work, capsys):
    """A flat walk through `&tile[0][0]` assumes rows of TILE floats: padding would move its elements."""
    src = COLUMN_READ.replace("  __syncthreads();\n",
                              "  __syncthreads();\n  float* flat = &tile[0][0];\n  out[1024] = flat[threadIdx.x * 33];\n")
    (work / "t.cu").write_text(src)
    code, out, _ = run(capsys, "t.cu")
    assert code == 1 and "CUDA301" in out
    code, out, _ = run(capsys, "--diff", "t.cu")
    assert (code, out) == (0, "")
    code, _, err = run(capsys, "--fix", "t.cu")
    assert code == 1 and "fixed" not in err and (work / "t.cu").read_text() == src


def test_padding_a_declaration():
    pads = {(1, 3, "b"): 1, (2, 1, "s"): 2}
    text = "  __shared__ float a[32][32], b[8][32];\ns[4][WIDTH]; int x;"
    assert fix.fixed_text(text, pads) == "  __shared__ float a[32][32], b[8][33];\ns[4][WIDTH + 2]; int x;"
