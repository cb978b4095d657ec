// Probe: a float2 load from shared memory at an odd float offset.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void shared_float2(float* out, int offset) {
  __shared__ float s[128];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  float2 v = *reinterpret_cast<const float2*>(&s[2 * threadIdx.x + offset]);  // expect: CUDA101
  out[threadIdx.x] = v.x + v.y;
}

int main() {
  float* d = nullptr;
  cudaMalloc(&d, 128 * sizeof(float));
  shared_float2<<<1, 32>>>(d, 1);
  cudaError_t e = cudaDeviceSynchronize();
  printf("shared_float2: %s\n", cudaGetErrorName(e));
  return 0;
}
