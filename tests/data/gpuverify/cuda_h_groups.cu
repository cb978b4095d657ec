// Written against GPUVerify's cuda.h, which declares cooperative groups and `synchronize(g)`.
#include <cuda.h>

using namespace cooperative_groups;

__global__ void halves(float* data) {
  thread_block block = this_thread_block();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float mine = data[i];
  if (threadIdx.x < 16) {
    synchronize(block);  // only half the block arrives
  }
  data[i] = mine * 2.0f;
}

__global__ void rotate(float* data) {
  grid_group grid = this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float next = data[(i + 1) % (gridDim.x * blockDim.x)];
  synchronize(grid);  // every thread of the grid has read before anyone writes
  data[i] = next;
}
