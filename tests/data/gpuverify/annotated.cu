// A kernel annotated for GPUVerify: its specification calls are not CUDA, the kernel is.
__axiom(blockDim.x == 64);

__global__ void shift_left(int* A, int n) {
  __requires(n == 64);
  int t = threadIdx.x;
  for (int i = 0; i < 2; i++) {
    __invariant(__implies(__write(A), __write_offset_bytes(A) / sizeof(int) < n));
    A[t] = A[t + 1];
  }
}
