// matmul_tiled.cu: C = A * B with 32x32 shared-memory tiles.
//
// matmul_tiled is the textbook kernel. matmul_tiled_bt is an "optimised" rewrite that stores
// the B tile transposed and drops the second barrier; it is both slower and wrong.
//
// Matrices are row-major; M, N and K must be multiples of TILE.
//
// Build: nvcc -arch=sm_90 -o matmul_tiled matmul_tiled.cu
// Lint:  cudalint examples/matmul_tiled.cu
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

#define TILE 32

__global__ void matmul_tiled(const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int t = 0; t < K / TILE; ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];     // As: one word per warp (broadcast); Bs: a row
        __syncthreads();                      // nobody overwrites the tiles while they are read
    }
    if (row < M)
        C[row * N + col] = acc;
}

__global__ void matmul_tiled_bt(const float* __restrict__ A, const float* __restrict__ B,
                                float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bt[TILE][TILE];          // the B tile, transposed: Bt[column][k]
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int t = 0; t < K / TILE; ++t) {
        As[ty][tx] = A[row * K + t * TILE + tx];
        // BUG (bank conflict): the 32 lanes of a warp have consecutive tx, so they write one
        // column of Bt: addresses 32 floats apart, all in the same bank, a 32-way conflict.
        // Pad the row: `__shared__ float Bt[TILE][TILE + 1];`.
        Bt[tx][ty] = B[(t * TILE + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bt[tx][k];     // BUG (bank conflict): a column again, 32-way
        // BUG (race): the second __syncthreads() is missing. A warp that finishes its dot
        // product starts the next iteration and overwrites As and Bt while other warps are
        // still reading the current tiles.
    }
    if (row < M)
        C[row * N + col] = acc;
}

static void matmul_host(const std::vector<float>& A, const std::vector<float>& B,
                        std::vector<float>& C, int M, int N, int K)
{
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k)
                acc += A[i * K + k] * B[k * N + j];
            C[i * N + j] = acc;
        }
}

static int mismatches(const std::vector<float>& got, const std::vector<float>& want)
{
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (std::fabs(got[i] - want[i]) > 1e-3f * (1.0f + std::fabs(want[i])))
            ++bad;
    return bad;
}

// Waits for the kernel just launched, copies C back and compares it with the host result.
static void check(const char* name, const float* d_C, const std::vector<float>& want)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        std::printf("%-16s %s\n", name, cudaGetErrorName(err));
        return;
    }
    std::vector<float> got(want.size());
    cudaMemcpy(got.data(), d_C, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("%-16s %d mismatches\n", name, mismatches(got, want));
}

int main()
{
    const int M = 256, N = 256, K = 256;
    std::vector<float> hA(M * K), hB(K * N), hC(M * N);
    for (int i = 0; i < M * K; ++i)
        hA[i] = static_cast<float>((i * 7) % 13) / 13.0f;
    for (int i = 0; i < K * N; ++i)
        hB[i] = static_cast<float>((i * 5) % 11) / 11.0f;
    matmul_host(hA, hB, hC, M, N, K);

    float* dA = nullptr;
    float* dB = nullptr;
    float* dC = nullptr;
    cudaMalloc(&dA, M * K * sizeof(float));
    cudaMalloc(&dB, K * N * sizeof(float));
    cudaMalloc(&dC, M * N * sizeof(float));
    cudaMemcpy(dA, hA.data(), M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), K * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(TILE, TILE);
    dim3 grid(N / TILE, M / TILE);
    matmul_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
    check("matmul_tiled", dC, hC);
    matmul_tiled_bt<<<grid, block>>>(dA, dB, dC, M, N, K);
    check("matmul_tiled_bt", dC, hC);

    cudaFree(dC);
    cudaFree(dB);
    cudaFree(dA);
    return 0;
}
