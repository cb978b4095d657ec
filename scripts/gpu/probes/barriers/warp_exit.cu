// Probe: __syncwarp with a full mask after half of the warp has returned.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void warp_exit(int* out) {
  int lane = threadIdx.x & 31;
  if (lane >= 16) return;
  __syncwarp(0xffffffffu);  // expect: CUDA204
  out[lane] = lane;
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  warp_exit<<<1, 32>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  printf("warp_exit: %s\n", cudaGetErrorName(e));
  cudaFree(d);
  return 0;
}
