/* cuda_runtime.h - cudalint's parse-only stand-in: the runtime API plus its C++ templates. */
#include "cudalint_shim.h"
#ifndef CUDALINT_CUDA_RUNTIME_H
#define CUDALINT_CUDA_RUNTIME_H
#define __CUDA_RUNTIME_H__ /* the toolkit's guard, which code tests (helper_cuda.h's findCudaDevice) */
#include "vector_types.h"
#include "vector_functions.h"
#include "device_launch_parameters.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"
#include "device_functions.h"
#include "texture_types.h"
#include "texture_indirect_functions.h"

/* The real cuda_runtime.h pulls these in (via crt/common_functions.h and math_functions.h), and
   real code relies on it (INT_MAX, memcpy, printf, std::numeric_limits without an include).
   They come after device_functions.h so its __device__ math overloads precede <cmath>. */
#ifndef CUDALINT_SHIM_NO_STD_INCLUDES
#include <limits.h>
#include <ctype.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <assert.h>
#include <math.h>
#ifdef __cplusplus
#include <new>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>
#include <type_traits>
#endif
#endif /* CUDALINT_SHIM_NO_STD_INCLUDES */

/* ---- what clang's Sema calls for `k<<<g, b, shmem, stream>>>(...)`:
   the name depends on the CUDA version the driver detected, so declare both */
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                                size_t sharedMem = 0, cudaStream_t stream = 0);
extern "C" cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                         cudaStream_t stream = 0);

/* ---- C++ overloads from the real cuda_runtime.h ---- */
template <class T> cudaError_t cudaMalloc(T **devPtr, size_t size);
template <class T> cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0);
cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags);
template <class T> cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags);
template <class T> cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags);
template <class T> cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                                 unsigned int flags = cudaMemAttachGlobal);
template <class T> cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height);
template <class T> cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaStream_t stream);
template <class T> cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaMemPool_t memPool,
                                               cudaStream_t stream);
cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
template <class T> cudaError_t cudaMallocFromPoolAsync(T **ptr, size_t size, cudaMemPool_t memPool,
                                                       cudaStream_t stream);
template <class T> cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
    size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T> cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src,
    size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
    cudaStream_t stream = 0);
template <class T> cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
    size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
template <class T> cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol,
    size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
    cudaStream_t stream = 0);
template <class T> cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol);
template <class T> cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol);
template <class T> cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim,
    void **args, size_t sharedMem = 0, cudaStream_t stream = 0);
template <class T> cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim,
    dim3 blockDim, void **args, size_t sharedMem = 0, cudaStream_t stream = 0);
template <typename... ExpTypes, typename... ActTypes>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(ExpTypes...),
                               ActTypes &&...args);
template <class T> cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config,
                                                  T *kernel, void **args);
template <class T> cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value);
template <class T> cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry);
template <class T> cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig);
template <class T> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
    T func, int blockSize, size_t dynamicSMemSize);
template <class T> cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags);
template <class T> cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize,
    int *blockSize, T func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0);
template <class UnaryFunction, class T> cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0);
template <class T> cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
    T func, int numBlocks, int blockSize);
template <class T> cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
    cudaGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
    cudaGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize);

/* CUDA 13 signatures (a cudaMemLocation instead of a device ordinal) */
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream = 0);
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location);

/* device-side runtime (programmatic dependent launch, sm_90) */
__device__ void cudaTriggerProgrammaticLaunchCompletion(void);
__device__ void cudaGridDependencySynchronize(void);
#endif
