"""What a launch's blockDim is where the host source sets a dim3's members after declaring it
(cudalint.frontend.fold.Folder.dim3_members)."""

from __future__ import annotations

from cudalint.engine import file_model
from cudalint.settings import Settings

SOURCE = """
#include <cuda_runtime.h>
__global__ void k() {}
int main(int argc, char** argv) {
  dim3 a;
  a.x = 128;
  k<<<1, a>>>();                  // 7: declared (1,1,1), x set to 128
  dim3 b(256);
  b.x = 64;
  k<<<1, b>>>();                  // 10: the later store wins
  dim3 c(256);
  if (argc > 1) c.x = 64;
  k<<<1, c>>>();                  // 13: a store in a branch the launch is not in: unknown
  dim3 d(32);
  for (int i = 0; i < 3; i++) {
    k<<<1, d>>>();                // 16: the loop doubles it after the launch: unknown
    d.x *= 2;
  }
  dim3 e(32, 4);
  e.y = 8;
  k<<<1, e>>>();                  // 21
  e.y = 2;
  k<<<1, e>>>();                  // 23: each launch sees the store before it
  dim3 f(16, 16);
  f = dim3(8, 8);
  k<<<1, f>>>();                  // 26: the whole variable assigned: unknown
  dim3 g(256);
  if (argc > 2) {
    g.x = 64;
    k<<<1, g>>>();                // 30: a store in the same branch as the launch
  }
  return 0;
}
"""


def test_members_set_after_the_declaration_give_the_launch_its_shape(tmp_path):
    path = tmp_path / "shapes.cu"
    path.write_text(SOURCE)
    model = file_model(str(path), Settings(cuda_mode="shim"))
    assert [(launch.loc.line, launch.block) for launch in model.launches] == [
        (7, (128, 1, 1)), (10, (64, 1, 1)), (13, (None, 1, 1)), (16, (None, 1, 1)),
        (21, (32, 8, 1)), (23, (32, 2, 1)), (26, (None, None, None)), (30, (64, 1, 1))]
