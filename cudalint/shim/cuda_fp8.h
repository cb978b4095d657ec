/* cuda_fp8.h - cudalint's parse-only stand-in: the 8-bit float types (1 byte each). */
#include "cudalint_shim.h"
#ifndef CUDALINT_CUDA_FP8_H
#define CUDALINT_CUDA_FP8_H
#include "cuda_fp16.h"
#include "cuda_bf16.h"
#define __CUDA_FP8_TYPES_EXIST__
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

__host__ __device__ __nv_fp8_storage_t __nv_cvt_float_to_fp8(const float x, const __nv_saturation_t saturate,
                                                           const __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(const float2 x, const __nv_saturation_t saturate,
                                                                const __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(const __half_raw x, const __nv_saturation_t saturate,
                                                             const __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __half_raw __nv_cvt_fp8_to_halfraw(const __nv_fp8_storage_t x,
                                                      const __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __half2_raw __nv_cvt_fp8x2_to_halfraw2(const __nv_fp8x2_storage_t x,
                                                          const __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __nv_bfloat16_raw __nv_cvt_e8m0_to_bf16raw(const unsigned char x);

#define __CL_FP8(name, interp)                                                         \
  struct __align__(1) name {                                                           \
    __nv_fp8_storage_t __x;                                                            \
    name() = default;                                                                  \
    explicit __host__ __device__ name(const __half f);                                \
    explicit __host__ __device__ name(const __nv_bfloat16 f);                         \
    explicit __host__ __device__ name(const float f);                                 \
    explicit __host__ __device__ name(const double f);                                \
    explicit __host__ __device__ name(const int val);                                 \
    explicit __host__ __device__ name(const unsigned int val);                        \
    explicit __host__ __device__ name(const long long val);                           \
    explicit __host__ __device__ operator __half() const;                             \
    explicit __host__ __device__ operator float() const;                              \
    explicit __host__ __device__ operator __nv_bfloat16() const;                      \
    explicit __host__ __device__ operator int() const;                                \
    explicit __host__ __device__ operator bool() const;                               \
  };
__CL_FP8(__nv_fp8_e4m3, __NV_E4M3)
__CL_FP8(__nv_fp8_e5m2, __NV_E5M2)
__CL_FP8(__nv_fp8_e8m0, __NV_E8M0)
#undef __CL_FP8
struct __align__(2) __nv_fp8x2_e4m3 {
  __nv_fp8x2_storage_t __x;
  __nv_fp8x2_e4m3() = default;
  explicit __host__ __device__ __nv_fp8x2_e4m3(const float2 f);
  explicit __host__ __device__ __nv_fp8x2_e4m3(const __half2 f);
  explicit __host__ __device__ operator float2() const;
  explicit __host__ __device__ operator __half2() const;
};
struct __align__(4) __nv_fp8x4_e4m3 {
  __nv_fp8x4_storage_t __x;
  __nv_fp8x4_e4m3() = default;
  explicit __host__ __device__ __nv_fp8x4_e4m3(const float4 f);
  explicit __host__ __device__ operator float4() const;
};
#endif
