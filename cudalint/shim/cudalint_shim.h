/* cudalint_shim.h - cudalint's parse-only stand-in for the CUDA toolkit (not for compiling). */
/* Injected with -include; the stub headers next to it (cuda_runtime.h, cuda_fp16.h, ...)
   make the user's own #includes resolve here too.  Declarations only: libclang needs the
   names, types and layouts, never the bodies.  Modelled on CUDA 12.8. */
#ifndef CUDALINT_SHIM_H
#define CUDALINT_SHIM_H
#define __CUDALINT_SHIM__ 1
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 8
#define __CUDACC_VER_BUILD__ 0
#define CUDART_VERSION 12080
#define __CUDART_API_VERSION 12080

/* ---- execution-space and storage qualifiers (clang understands the attributes) ---- */
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
/* __noinline__: clang >= 15 knows it in CUDA mode; a macro would break libstdc++.
   __restrict__ is already a GNU keyword in clang. */
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __grid_constant__ __attribute__((grid_constant))
#define __builtin_align__(n) __align__(n)
#define __device_builtin__
#define __cudart_builtin__
#define __CUDA_ALIGN__(n) __align__(n)
#define CUDARTAPI
#define CUDART_CB

typedef __SIZE_TYPE__ size_t;  /* same type as <stddef.h>; C++ allows the redeclaration */

#include "vector_types.h"
#include "vector_functions.h"
#include "device_launch_parameters.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"
#include "device_functions.h"
#include "cuda_runtime.h"

#endif /* CUDALINT_SHIM_H */
