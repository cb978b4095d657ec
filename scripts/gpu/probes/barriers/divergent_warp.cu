// Probe: __syncwarp with a full mask reached by half of the warp.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void divergent_warp(int* out) {
  __shared__ int w[32];
  int lane = threadIdx.x & 31;
  w[lane] = lane;
  if (lane < 16) {
    __syncwarp(0xffffffffu);  // expect: CUDA204
  }
  __syncwarp();  // ok: CUDA204
  out[threadIdx.x] = w[31 - lane];
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  divergent_warp<<<1, 32>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  printf("divergent_warp: %s\n", cudaGetErrorName(e));
  cudaFree(d);
  return 0;
}
