// Probe: __syncthreads() reached by only part of the block.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void divergent_block(int* out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = t;
  if (t < 16) {
    s[t] += 1;
    __syncthreads();  // expect: CUDA204
  }
  __syncthreads();  // synccheck flags this one too (mismatched with line 11)
  out[t] = s[63 - t];
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  divergent_block<<<1, 64>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  printf("divergent_block: %s\n", cudaGetErrorName(e));
  cudaFree(d);
  return 0;
}
