/* cuda_fp4.h - cudalint's parse-only stand-in: the 4-bit float types (minimal). */
#include "cudalint_shim.h"
#ifndef CUDALINT_CUDA_FP4_H
#define CUDALINT_CUDA_FP4_H
#include "cuda_fp8.h"
#define __CUDA_FP4_TYPES_EXIST__
typedef unsigned char __nv_fp4_storage_t;
typedef unsigned char __nv_fp4x2_storage_t;
typedef unsigned short __nv_fp4x4_storage_t;
typedef enum __nv_fp4_interpretation_t { __NV_E2M1 } __nv_fp4_interpretation_t;
__host__ __device__ __half_raw __nv_cvt_fp4_to_halfraw(const __nv_fp4_storage_t x,
                                                      const __nv_fp4_interpretation_t fp4_interpretation);
__host__ __device__ __half2_raw __nv_cvt_fp4x2_to_halfraw2(const __nv_fp4x2_storage_t x,
                                                          const __nv_fp4_interpretation_t fp4_interpretation);
__host__ __device__ __nv_fp4_storage_t __nv_cvt_float_to_fp4(const float x,
    const __nv_fp4_interpretation_t fp4_interpretation, const enum cudaRoundMode rounding);
struct __align__(1) __nv_fp4_e2m1 {
  __nv_fp4_storage_t __x;
  __nv_fp4_e2m1() = default;
  explicit __host__ __device__ __nv_fp4_e2m1(const float f);
  explicit __host__ __device__ __nv_fp4_e2m1(const __half f);
  explicit __host__ __device__ operator float() const;
  explicit __host__ __device__ operator __half() const;
};
struct __align__(1) __nv_fp4x2_e2m1 {
  __nv_fp4x2_storage_t __x;
  __nv_fp4x2_e2m1() = default;
  explicit __host__ __device__ __nv_fp4x2_e2m1(const float2 f);
  explicit __host__ __device__ __nv_fp4x2_e2m1(const __half2 f);
  explicit __host__ __device__ operator float2() const;
  explicit __host__ __device__ operator __half2() const;
};
struct __align__(2) __nv_fp4x4_e2m1 {
  __nv_fp4x4_storage_t __x;
  __nv_fp4x4_e2m1() = default;
  explicit __host__ __device__ __nv_fp4x4_e2m1(const float4 f);
  explicit __host__ __device__ operator float4() const;
};
#endif
