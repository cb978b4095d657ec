// host_leak.cu: host-side resource handling around a simple kernel.
//
// scale_on_device leaks its device buffer when the upload fails; sum_pinned frees pinned host
// memory with the wrong call and reads it before the asynchronous copy has finished.
// scale_on_device_raii shows the leak-free way: an owning wrapper frees on every path.
//
// Build: nvcc -arch=sm_90 -o host_leak host_leak.cu
// Lint:  cudalint examples/host_leak.cu
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void scale(float* __restrict__ x, int n, float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= s;
}

// Copies n floats to the device, scales them there and copies them back.
static cudaError_t scale_on_device(const float* host_in, float* host_out, int n, float s)
{
    float* d_x = nullptr;
    cudaError_t err = cudaMalloc(&d_x, n * sizeof(float));
    if (err != cudaSuccess)
        return err;                            // fine: the allocation failed, nothing to free
    err = cudaMemcpy(d_x, host_in, n * sizeof(float), cudaMemcpyHostToDevice);
    if (err != cudaSuccess)
        return err;                            // BUG (leak): d_x is never freed on this path
    scale<<<(n + 255) / 256, 256>>>(d_x, n, s);
    err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaMemcpy(host_out, d_x, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_x);
    return err;
}

// The same function with an owning wrapper: every return releases the buffer.
struct DeviceBuffer {
    float* ptr = nullptr;
    cudaError_t status;
    explicit DeviceBuffer(size_t count) { status = cudaMalloc(&ptr, count * sizeof(float)); }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

static cudaError_t scale_on_device_raii(const float* host_in, float* host_out, int n, float s)
{
    DeviceBuffer buf(n);
    if (buf.status != cudaSuccess)
        return buf.status;
    cudaError_t err = cudaMemcpy(buf.ptr, host_in, n * sizeof(float), cudaMemcpyHostToDevice);
    if (err != cudaSuccess)
        return err;                            // fine: ~DeviceBuffer frees buf.ptr
    scale<<<(n + 255) / 256, 256>>>(buf.ptr, n, s);
    err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaMemcpy(host_out, buf.ptr, n * sizeof(float), cudaMemcpyDeviceToHost);
    return err;
}

// Sums n device floats on the host, staging them through pinned memory on a stream.
static cudaError_t sum_pinned(const float* d_x, int n, double* total, float* first)
{
    float* h_stage = nullptr;
    cudaError_t err = cudaMallocHost(&h_stage, n * sizeof(float));
    if (err != cudaSuccess)
        return err;
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaMemcpyAsync(h_stage, d_x, n * sizeof(float), cudaMemcpyDeviceToHost, stream);
    // BUG (unsynchronized host access): the copy may still be in flight; this read can see
    // stale data. Move it after cudaStreamSynchronize.
    *first = h_stage[0];
    err = cudaStreamSynchronize(stream);
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += h_stage[i];
    *total = s;
    cudaStreamDestroy(stream);
    // BUG (mismatched free): memory from cudaMallocHost must be released with cudaFreeHost.
    // cudaFree fails on it with cudaErrorInvalidValue and the pinned pages stay allocated.
    cudaFree(h_stage);
    return err;
}

int main()
{
    const int n = 1 << 16;
    std::vector<float> in(n, 1.5f), out(n, 0.0f);

    cudaError_t err = scale_on_device(in.data(), out.data(), n, 2.0f);
    std::printf("scale_on_device:      %s, out[0] = %g\n", cudaGetErrorName(err), out[0]);

    err = scale_on_device_raii(in.data(), out.data(), n, 3.0f);
    std::printf("scale_on_device_raii: %s, out[0] = %g\n", cudaGetErrorName(err), out[0]);

    float* d_x = nullptr;
    if (cudaMalloc(&d_x, n * sizeof(float)) == cudaSuccess) {
        cudaMemcpy(d_x, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        double total = 0.0;
        float first = 0.0f;
        err = sum_pinned(d_x, n, &total, &first);
        std::printf("sum_pinned:           %s, total = %.1f, first = %g\n",
                    cudaGetErrorName(err), total, first);
        cudaFree(d_x);
    }
    return 0;
}
