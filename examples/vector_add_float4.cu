// vector_add_float4.cu: vectorised element-wise kernels over float arrays.
//
// Loading four floats at once with a float4 halves the number of memory instructions, but a
// float4 must sit on a 16-byte boundary. cudaMalloc returns 256-byte aligned memory, so
// `reinterpret_cast<const float4*>(p)[i]` is fine; `p + 1` reinterpreted as float4 is not, and
// the kernel dies with cudaErrorMisalignedAddress.
//
// Build: nvcc -arch=sm_90 -o vector_add_float4 vector_add_float4.cu
// Lint:  cudalint examples/vector_add_float4.cu
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

// Prints a failed call and reports whether it succeeded.
static bool ok(cudaError_t err, const char* what)
{
    if (err != cudaSuccess)
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    return err == cudaSuccess;
}

// c = a + b. Each thread handles one float4; the last n % 4 elements are done with scalar code.
__global__ void vector_add4(const float* __restrict__ a, const float* __restrict__ b,
                            float* __restrict__ c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int base = 4 * i;
    if (base + 3 < n) {
        float4 va = reinterpret_cast<const float4*>(a)[i];
        float4 vb = reinterpret_cast<const float4*>(b)[i];
        float4 vc = make_float4(va.x + vb.x, va.y + vb.y, va.z + vb.z, va.w + vb.w);
        reinterpret_cast<float4*>(c)[i] = vc;
    } else {
        for (int j = base; j < n; ++j)
            c[j] = a[j] + b[j];
    }
}

// Forward difference d[j] = x[j + 1] - x[j], vectorised the same way.
__global__ void forward_diff4(const float* __restrict__ x, float* __restrict__ d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int base = 4 * i;
    if (base + 4 < n) {
        float4 cur = *reinterpret_cast<const float4*>(x + base);
        // BUG: off by one. x + base + 1 is 4 bytes past a 16-byte boundary for every thread, so
        // this float4 load is misaligned. Load x[base + 4] as a scalar and shift in registers:
        //   float next4 = x[base + 4];
        //   float4 nxt = make_float4(cur.y, cur.z, cur.w, next4);
        float4 nxt = *reinterpret_cast<const float4*>(x + base + 1);
        float4 out = make_float4(nxt.x - cur.x, nxt.y - cur.y, nxt.z - cur.z, nxt.w - cur.w);
        *reinterpret_cast<float4*>(d + base) = out;
    } else {
        for (int j = base; j + 1 < n; ++j)
            d[j] = x[j + 1] - x[j];
    }
}

static int blocks_for(int n, int threads)
{
    int vecs = (n + 3) / 4;
    return (vecs + threads - 1) / threads;
}

int main()
{
    const int n = 1 << 20;
    const int threads = 256;
    const size_t bytes = n * sizeof(float);

    std::vector<float> h_a(n), h_b(n), h_c(n), h_d(n);
    for (int j = 0; j < n; ++j) {
        h_a[j] = 0.5f * j;
        h_b[j] = 2.0f;
    }

    float* d_a = nullptr;
    float* d_b = nullptr;
    float* d_c = nullptr;
    float* d_d = nullptr;
    bool ready = ok(cudaMalloc(&d_a, bytes), "cudaMalloc a");
    ready = ok(cudaMalloc(&d_b, bytes), "cudaMalloc b") && ready;
    ready = ok(cudaMalloc(&d_c, bytes), "cudaMalloc c") && ready;
    ready = ok(cudaMalloc(&d_d, bytes), "cudaMalloc d") && ready;

    if (ready) {
        cudaMemcpy(d_a, h_a.data(), bytes, cudaMemcpyHostToDevice);
        cudaMemcpy(d_b, h_b.data(), bytes, cudaMemcpyHostToDevice);

        vector_add4<<<blocks_for(n, threads), threads>>>(d_a, d_b, d_c, n);
        cudaError_t add_err = cudaGetLastError();
        if (add_err == cudaSuccess)
            add_err = cudaDeviceSynchronize();
        std::printf("vector_add4:   %s\n", cudaGetErrorName(add_err));

        forward_diff4<<<blocks_for(n, threads), threads>>>(d_a, d_d, n);
        cudaError_t diff_err = cudaGetLastError();
        if (diff_err == cudaSuccess)
            diff_err = cudaDeviceSynchronize();
        std::printf("forward_diff4: %s\n", cudaGetErrorName(diff_err));

        if (add_err == cudaSuccess && diff_err == cudaSuccess) {
            cudaMemcpy(h_c.data(), d_c, bytes, cudaMemcpyDeviceToHost);
            cudaMemcpy(h_d.data(), d_d, bytes, cudaMemcpyDeviceToHost);
            int bad = 0;
            for (int j = 0; j < n; ++j) {
                if (std::fabs(h_c[j] - (h_a[j] + h_b[j])) > 1e-3f)
                    ++bad;
                if (j + 1 < n && std::fabs(h_d[j] - (h_a[j + 1] - h_a[j])) > 1e-3f)
                    ++bad;
            }
            std::printf("%d mismatches\n", bad);
        }
    }

    // cudaFree(nullptr) is a no-op, so this is right whichever allocations succeeded.
    cudaFree(d_d);
    cudaFree(d_c);
    cudaFree(d_b);
    cudaFree(d_a);
    return 0;
}
