// Probe: 32-way shared-memory bank conflicts on a column read and a column
// write of a 32x32 float tile, and the padded look-alike.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void column_read(const float* in, float* out) {
  __shared__ float tile[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  tile[ty][tx] = in[ty * 32 + tx];  // ok: CUDA301
  __syncthreads();
  out[ty * 32 + tx] = tile[tx][ty];  // expect: CUDA301 "32-way"
}

__global__ void column_write(const float* in, float* out) {
  __shared__ float tile[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  tile[tx][ty] = in[ty * 32 + tx];  // expect: CUDA301 "32-way"
  __syncthreads();
  out[ty * 32 + tx] = tile[ty][tx];
}

__global__ void padded_read(const float* in, float* out) {
  __shared__ float tile[32][33];
  int tx = threadIdx.x, ty = threadIdx.y;
  tile[ty][tx] = in[ty * 32 + tx];
  __syncthreads();
  out[ty * 32 + tx] = tile[tx][ty];  // ok: CUDA301
}

int main() {
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, 1024 * sizeof(float));
  cudaMalloc(&out, 1024 * sizeof(float));
  cudaMemset(in, 0, 1024 * sizeof(float));
  dim3 block(32, 32);
  column_read<<<1, block>>>(in, out);
  column_write<<<1, block>>>(in, out);
  padded_read<<<1, block>>>(in, out);
  cudaError_t e = cudaDeviceSynchronize();
  printf("bank_probe: %s\n", cudaGetErrorName(e));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
