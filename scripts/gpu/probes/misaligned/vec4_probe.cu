// Probe: a float4 load through a pointer that is 4 bytes past a 16-byte boundary.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vec4_load(const float* in, float* out, int offset) {
  const float4* p = reinterpret_cast<const float4*>(in + offset);
  float4 v = p[threadIdx.x];  // expect: CUDA101
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

__global__ void vec4_aligned(const float* in, float* out) {
  const float4* p = reinterpret_cast<const float4*>(in);
  float4 v = p[threadIdx.x];  // ok: CUDA101
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

int main() {
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, 1024 * sizeof(float));
  cudaMalloc(&out, 1024 * sizeof(float));
  cudaMemset(in, 0, 1024 * sizeof(float));
  vec4_aligned<<<1, 4>>>(in, out);
  cudaError_t e1 = cudaDeviceSynchronize();
  vec4_load<<<1, 4>>>(in, out, 1);
  cudaError_t e2 = cudaDeviceSynchronize();
  printf("vec4_aligned: %s\n", cudaGetErrorName(e1));
  printf("vec4_load: %s\n", cudaGetErrorName(e2));
  return e2 == cudaSuccess ? 0 : 1;
}
