// Preconditions say which arguments may come: a kernel races if any of them makes two threads
// collide (GPUVerify's reading), not only if every value does.
__global__ void window(int* data, int shift) {
  __requires(shift > 0);
  __requires(shift < 64);
  data[threadIdx.x] = data[threadIdx.x + shift];  // thread t reads what thread t + shift writes
}

__global__ void far_window(int* data, int shift) {
  __requires(shift >= 1024);
  data[threadIdx.x] = data[threadIdx.x + shift];  // no reader of 1024 threads meets a writer
}

__global__ void unstated(int* data, int shift) {
  data[threadIdx.x] = data[threadIdx.x + shift];  // shift may be 0 or past the block: quiet
}
