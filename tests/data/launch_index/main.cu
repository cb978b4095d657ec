// Launches the kernels of kernels.cu (compiled separately, linked with -rdc).
#include <cuda_runtime.h>

__global__ void warp_stage(const float* in, float* out);
__global__ void wide_stage(const float* in, float* out);
__global__ void tail_stage(float* data, int len);

int main() {
  float *in, *out;
  cudaMalloc(&in, 4096 * sizeof(float));
  cudaMalloc(&out, 4096 * sizeof(float));
  warp_stage<<<8, 32>>>(in, out);
  wide_stage<<<8, 512>>>(in, out);
  tail_stage<<<16, 256>>>(in, 4096);
  cudaDeviceSynchronize();
  cudaFree(in);
  cudaFree(out);
  return 0;
}
