// Probe: a block-level shared-memory race (error), a warp-level exchange
// without __syncwarp (racecheck warning) and a synchronised look-alike.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void shift_race(int* out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = t * 3;
  out[t] = s[(t + 32) % 256];  // expect: CUDA201
}

__global__ void warp_exchange(int* out) {
  __shared__ int w[32];
  int lane = threadIdx.x;
  w[lane] = lane * 2;
  out[lane] = w[(lane + 1) & 31];  // expect: CUDA202
}

__global__ void shift_synced(int* out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = t * 3;
  __syncthreads();
  out[t] = s[(t + 32) % 256];  // ok: CUDA201
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 256 * sizeof(int));
  shift_race<<<1, 256>>>(d);
  warp_exchange<<<1, 32>>>(d);
  shift_synced<<<1, 256>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  int h[4];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("race_probe: %s %d %d %d %d\n", cudaGetErrorName(e), h[0], h[1], h[2], h[3]);
  cudaFree(d);
  return 0;
}
