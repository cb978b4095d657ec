/* cuda_pipeline_primitives.h - cudalint's parse-only stand-in: same as cuda_pipeline.h. */
#include "cudalint_shim.h"
#ifndef CUDALINT_CUDA_PIPELINE_H
#define CUDALINT_CUDA_PIPELINE_H
__device__ void __pipeline_memcpy_async(void *dst_shared, const void *src_global, size_t size_and_align,
                                        size_t zfill = 0);
__device__ void __pipeline_commit(void);
__device__ void __pipeline_wait_prior(size_t prior);
__device__ void __pipeline_arrive_on(unsigned long long *barrier);
#endif
