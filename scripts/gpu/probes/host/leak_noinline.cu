// Probe: leaks from helpers that the compiler may not inline, so that
// leak-check's allocation backtrace names them.
#include <cstdio>
#include <cuda_runtime.h>

__attribute__((noinline)) int leak_on_error(size_t n) {
  float* d = nullptr;
  cudaMalloc(&d, n);
  if (n > 1000) {
    return 1;  // expect: CUDA401
  }
  cudaFree(d);
  return 0;
}

__attribute__((noinline)) int free_on_all_paths(size_t n) {
  float* d = nullptr;
  cudaMalloc(&d, n);
  if (n > 1000) {
    cudaFree(d);
    return 1;  // ok: CUDA401
  }
  cudaFree(d);
  return 0;
}

int main() {
  printf("%d %d\n", leak_on_error(4096), free_on_all_paths(4096));
  printf("%d\n", leak_on_error(2048));
  return 0;
}
