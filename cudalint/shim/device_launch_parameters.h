/* device_launch_parameters.h - cudalint's parse-only stand-in: the built-in index variables. */
#include "cudalint_shim.h"
#ifndef CUDALINT_DEVICE_LAUNCH_PARAMETERS_H
#define CUDALINT_DEVICE_LAUNCH_PARAMETERS_H
#include "vector_types.h"
/* plain externs, so `threadIdx.x` is MEMBER_REF_EXPR(x) -> DECL_REF_EXPR(threadIdx) */
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
#endif
