// reduction.cu: sum a large array with a shared-memory tree reduction per block.
//
// reduce_sum is the textbook version. The three variants below it each carry one of the
// mistakes people make when writing it by hand; cudalint reports each of them.
//
// Build: nvcc -arch=sm_90 -o reduction reduction.cu
// Run:   ./reduction            (the correct kernel only)
//        ./reduction --buggy    (also the broken variants: wrong sums, or worse)
// Lint:  cudalint examples/reduction.cu
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>

#define THREADS 256

// Each block sums 2 * THREADS inputs and writes one partial sum.
__global__ void reduce_sum(const float* __restrict__ in, float* __restrict__ partial, int n)
{
    __shared__ float s[THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + tid;
    float v = 0.0f;
    if (i < n)
        v += in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = s[0];
}

__global__ void reduce_sum_no_barrier(const float* __restrict__ in, float* __restrict__ partial,
                                      int n)
{
    __shared__ float s[THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + tid;
    float v = 0.0f;
    if (i < n)
        v += in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        // BUG: no __syncthreads() in the loop. Thread t reads s[t + stride] while thread
        // t + stride may still be adding into it from the previous step (and thread 0 reads s[1]
        // at the end before thread 1 has written it): a shared-memory race.
        if (tid < stride)
            s[tid] += s[tid + stride];
    }
    if (tid == 0)
        partial[blockIdx.x] = s[0];
}

__global__ void reduce_sum_divergent_barrier(const float* __restrict__ in,
                                             float* __restrict__ partial, int n)
{
    __shared__ float s[THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + tid;
    float v = 0.0f;
    if (i < n)
        v += in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
            // BUG: a barrier inside `if (tid < stride)`. Threads with tid >= stride never reach
            // it, which is undefined behaviour (a hang or a silently wrong sum). Move the
            // barrier out of the if, as in reduce_sum.
            __syncthreads();
        }
    }
    if (tid == 0)
        partial[blockIdx.x] = s[0];
}

__global__ void reduce_sum_warp_unrolled(const float* __restrict__ in,
                                         float* __restrict__ partial, int n)
{
    __shared__ float s[THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + tid;
    float v = 0.0f;
    if (i < n)
        v += in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        // BUG: the pre-Volta "warp-synchronous" idiom. Since Volta the lanes of a warp are not
        // in lockstep, so without __syncwarp() between the steps a lane can read s[tid + 16]
        // before its owner has added into it. Use __syncwarp() after each step, or better,
        // __shfl_down_sync on a register.
        volatile float* vs = s;
        vs[tid] += vs[tid + 32];
        vs[tid] += vs[tid + 16];
        vs[tid] += vs[tid + 8];
        vs[tid] += vs[tid + 4];
        vs[tid] += vs[tid + 2];
        vs[tid] += vs[tid + 1];
    }
    if (tid == 0)
        partial[blockIdx.x] = s[0];
}

// Waits for the kernel just launched and prints the total of its partial sums.
static void finish(const char* name, const float* d_partial, int blocks)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        std::printf("%-28s %s\n", name, cudaGetErrorName(err));
        return;
    }
    std::vector<float> h_partial(blocks);
    cudaMemcpy(h_partial.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
    double total = 0.0;
    for (float p : h_partial)
        total += p;
    std::printf("%-28s %.0f\n", name, total);
}

int main(int argc, char** argv)
{
    const int n = 1 << 22;
    const int blocks = (n + 2 * THREADS - 1) / (2 * THREADS);
    const bool buggy = argc > 1 && std::strcmp(argv[1], "--buggy") == 0;

    std::vector<float> h_in(n, 1.0f);
    float* d_in = nullptr;
    float* d_partial = nullptr;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_partial, blocks * sizeof(float));
    cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice);

    std::printf("%-28s %d\n", "expected", n);
    reduce_sum<<<blocks, THREADS>>>(d_in, d_partial, n);
    finish("reduce_sum", d_partial, blocks);
    if (buggy) {
        reduce_sum_no_barrier<<<blocks, THREADS>>>(d_in, d_partial, n);
        finish("reduce_sum_no_barrier", d_partial, blocks);
        reduce_sum_divergent_barrier<<<blocks, THREADS>>>(d_in, d_partial, n);
        finish("reduce_sum_divergent_barrier", d_partial, blocks);
        reduce_sum_warp_unrolled<<<blocks, THREADS>>>(d_in, d_partial, n);
        finish("reduce_sum_warp_unrolled", d_partial, blocks);
    }

    cudaFree(d_partial);
    cudaFree(d_in);
    return 0;
}
