// Probe: a leaked cudaMalloc on an early return, a double free and a mismatched free.
#include <cstdio>
#include <cuda_runtime.h>

int leaky_fill(size_t n) {
  float* d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  if (n > 100) {
    return 1;  // expect: CUDA401
  }
  cudaFree(d);
  return 0;
}

int careful_fill(size_t n) {
  float* d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemset(d, 0, n * sizeof(float));
  cudaFree(d);
  return 0;  // ok: CUDA401
}

void free_twice() {
  int* d = nullptr;
  cudaMalloc(&d, 64);
  cudaFree(d);
  cudaError_t e = cudaFree(d);  // expect: CUDA402
  printf("double free: %s\n", cudaGetErrorName(e));
}

void free_pinned_wrong() {
  float* h = nullptr;
  cudaMallocHost(&h, 256);
  cudaError_t e = cudaFree(h);  // expect: CUDA403
  printf("mismatched free: %s\n", cudaGetErrorName(e));
  cudaFreeHost(h);
}

int main(int argc, char** argv) {
  printf("leaky_fill: %d\n", leaky_fill(256));
  printf("careful_fill: %d\n", careful_fill(256));
  free_twice();
  free_pinned_wrong();
  if (argc > 1) cudaDeviceReset();  // "reset": tear the context down before exit
  return 0;
}
