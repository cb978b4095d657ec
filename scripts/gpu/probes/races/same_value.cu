// racecheck's hazard mode on stores that agree and stores that do not: every thread stores one
// pointer to a shared word and reads it back (`agree`), or its own index (`differ`). Captured as
// tests/data/gpu/racecheck_hazard_same_value.txt by scripts/gpu/capture_values.sh.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void agree(const float* in, float* out) {
  __shared__ float tile[64];
  __shared__ float* row;
  row = tile;
  row[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = tile[63 - threadIdx.x];
}

__global__ void differ(const float* in, float* out) {
  __shared__ int who;
  who = threadIdx.x;
  out[blockIdx.x * 64 + threadIdx.x] = in[who];
}

int main(int argc, char** argv) {
  float *in, *out;
  cudaMalloc(&in, 256 * sizeof(float));
  cudaMalloc(&out, 256 * sizeof(float));
  cudaMemset(in, 0, 256 * sizeof(float));
  if (argc < 2 || argv[1][0] == 'a') agree<<<2, 64>>>(in, out);
  if (argc < 2 || argv[1][0] == 'd') differ<<<2, 64>>>(in, out);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
