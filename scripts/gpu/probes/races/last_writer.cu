// Probe: every thread stores its id into one global word; the last writer wins.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void last_writer(int* out) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  out[0] = id;  // expect: CUDA203
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, sizeof(int));
  cudaMemset(d, 0, sizeof(int));
  last_writer<<<4096, 256>>>(d);
  int h = -1;
  cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("last_writer: %d\n", h);
  cudaFree(d);
  return 0;
}
