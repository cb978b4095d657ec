// Probe: __syncwarp whose mask leaves out the calling lane.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void warp_mask(int* out, unsigned mask) {
  __shared__ int w[32];
  int lane = threadIdx.x & 31;
  w[lane] = lane;
  __syncwarp(mask);  // expect: CUDA204
  out[lane] = w[31 - lane];
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  warp_mask<<<1, 32>>>(d, 0x0000ffffu);
  cudaError_t e = cudaDeviceSynchronize();
  printf("warp_mask: %s\n", cudaGetErrorName(e));
  cudaFree(d);
  return 0;
}
