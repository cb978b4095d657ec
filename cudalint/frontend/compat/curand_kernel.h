/* curand_kernel.h - cudalint's parse-only stand-in for device-side cuRAND (states and generators),
   found after the include path, as curand.h. MTGP32 is declared here too: clang's CUDA wrapper
   includes curand_mtgp32_kernel.h itself, under macros, so that stand-in stays empty. */
#ifndef CUDALINT_CURAND_KERNEL_H
#define CUDALINT_CURAND_KERNEL_H
#include "curand.h"
/* state sizes follow cuRAND (XORWOW 48 bytes, Philox4_32_10 64 bytes, MRG32k3a 72 bytes) */
struct curandStateXORWOW { unsigned int d, v[5]; int boxmuller_flag; int boxmuller_flag_double;
                           float boxmuller_extra; double boxmuller_extra_double; };
struct curandStatePhilox4_32_10 { uint4 ctr; uint4 output; uint2 key; unsigned int STATE;
                                  int boxmuller_flag; int boxmuller_flag_double; float boxmuller_extra;
                                  double boxmuller_extra_double; };
struct curandStateMRG32k3a { double s1[3]; double s2[3]; int boxmuller_flag; int boxmuller_flag_double;
                             float boxmuller_extra; double boxmuller_extra_double; };
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;
#define __CL_CURAND(S)                                                                     \
  __device__ void curand_init(unsigned long long seed, unsigned long long subsequence,     \
                              unsigned long long offset, S *state);                        \
  __device__ unsigned int curand(S *state);                                                \
  __device__ float curand_uniform(S *state);                                               \
  __device__ double curand_uniform_double(S *state);                                       \
  __device__ float curand_normal(S *state);                                                \
  __device__ double curand_normal_double(S *state);                                        \
  __device__ float2 curand_normal2(S *state);                                              \
  __device__ float curand_log_normal(S *state, float mean, float stddev);                  \
  __device__ unsigned int curand_poisson(S *state, double lambda);                         \
  __device__ void skipahead(unsigned long long n, S *state);
__CL_CURAND(curandStateXORWOW_t)
__CL_CURAND(curandStatePhilox4_32_10_t)
__CL_CURAND(curandStateMRG32k3a_t)
#undef __CL_CURAND
/* MTGP32: one state per block, advanced together by up to 256 of its threads */
struct mtgp32_kernel_params { unsigned int pos_tbl[200], param_tbl[200][16], temper_tbl[200][16],
                              single_temper_tbl[200][16], sh1_tbl[200], sh2_tbl[200], mask[1]; };
typedef struct mtgp32_kernel_params mtgp32_kernel_params_t;
struct curandStateMtgp32 { unsigned int s[1024]; int offset; int pIdx; mtgp32_kernel_params_t *k; };
typedef struct curandStateMtgp32 curandStateMtgp32_t;
__device__ unsigned int curand(curandStateMtgp32_t *state);
__device__ float curand_uniform(curandStateMtgp32_t *state);
__device__ float curand_normal(curandStateMtgp32_t *state);
__device__ uint4 curand4(curandStatePhilox4_32_10_t *state);
__device__ float4 curand_uniform4(curandStatePhilox4_32_10_t *state);
__device__ float4 curand_normal4(curandStatePhilox4_32_10_t *state);
#endif
