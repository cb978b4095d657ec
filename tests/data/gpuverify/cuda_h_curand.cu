// Written against GPUVerify's cuda.h, which declares device-side cuRAND.
#include <cuda.h>

__global__ void shared_state(curandState* state, float* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = curand_uniform(state);  // every thread advances one state
}

__global__ void own_state(curandState* states, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = curand_uniform(&states[i]);
}

__global__ void block_generator(curandStateMtgp32_t* states, unsigned* out) {
  // one MTGP32 state per block, drawn by the whole block together: cuRAND's contract
  out[blockIdx.x * blockDim.x + threadIdx.x] = curand(&states[blockIdx.x]);
}

__global__ void one_generator_for_all_blocks(curandStateMtgp32_t* state, unsigned* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = curand(state);  // blocks share one state
}
