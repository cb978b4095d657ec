// Probe: a read-modify-write of one global word by every thread (no atomics).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void count_hits(int* counter) {
  counter[0] = counter[0] + 1;  // expect: CUDA203
}

__global__ void count_hits_atomic(int* counter) {
  atomicAdd(&counter[1], 1);  // ok: CUDA203
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, 2 * sizeof(int));
  cudaMemset(d, 0, 2 * sizeof(int));
  count_hits<<<1024, 256>>>(d);
  count_hits_atomic<<<1024, 256>>>(d);
  int h[2] = {0, 0};
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("global_race: racy=%d atomic=%d\n", h[0], h[1]);
  cudaFree(d);
  return 0;
}
