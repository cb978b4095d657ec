/* device_functions.h - cudalint's parse-only stand-in: device intrinsics, math and atomics. */
#include "cudalint_shim.h"
#ifndef CUDALINT_DEVICE_FUNCTIONS_H
#define CUDALINT_DEVICE_FUNCTIONS_H
#include "vector_types.h"

/* ---- device-side libc (clang's wrapper declares the same) ---- */
extern "C" {
__device__ int printf(const char *, ...);
__device__ int vprintf(const char *, const char *);
__device__ void *malloc(size_t) __attribute__((nothrow));
__device__ void free(void *) __attribute__((nothrow));
__device__ void *memcpy(void *, const void *, size_t);
__device__ void *memset(void *, int, size_t);
__device__ void __assertfail(const char *, const char *, unsigned, const char *, size_t);
__device__ void __assert_fail(const char *, const char *, unsigned int, const char *);
}

/* ---- math: __device__ overloads next to the host C library, declared before <cmath> so
   libstdc++'s constexpr overloads do not become implicitly __host__ __device__ ---- */
#define __CL_M1(n) __device__ double n(double); __device__ float n##f(float); __device__ float n(float);
#define __CL_M2(n) __device__ double n(double, double); __device__ float n##f(float, float); \
  __device__ float n(float, float);
__CL_M1(acos) __CL_M1(acosh) __CL_M1(asin) __CL_M1(asinh) __CL_M1(atan) __CL_M1(atanh)
__CL_M1(cbrt) __CL_M1(ceil) __CL_M1(cos) __CL_M1(cosh) __CL_M1(erf) __CL_M1(erfc)
__CL_M1(exp) __CL_M1(exp2) __CL_M1(expm1) __CL_M1(fabs) __CL_M1(floor) __CL_M1(lgamma)
__CL_M1(log) __CL_M1(log10) __CL_M1(log1p) __CL_M1(log2) __CL_M1(logb) __CL_M1(nearbyint)
__CL_M1(rint) __CL_M1(round) __CL_M1(sin) __CL_M1(sinh) __CL_M1(sqrt) __CL_M1(tan)
__CL_M1(tanh) __CL_M1(tgamma) __CL_M1(trunc)
__CL_M2(atan2) __CL_M2(copysign) __CL_M2(fdim) __CL_M2(fmax) __CL_M2(fmin) __CL_M2(fmod)
__CL_M2(hypot) __CL_M2(nextafter) __CL_M2(pow) __CL_M2(remainder)
/* CUDA-only math (not in glibc, or not overloaded there) */
__CL_M1(rsqrt) __CL_M1(rcbrt) __CL_M1(sinpi) __CL_M1(cospi) __CL_M1(exp10) __CL_M1(erfinv)
__CL_M1(erfcinv) __CL_M1(erfcx) __CL_M1(normcdf) __CL_M1(normcdfinv) __CL_M1(j0) __CL_M1(j1)
__CL_M1(y0) __CL_M1(y1)
__CL_M2(rhypot)
#undef __CL_M1
#undef __CL_M2
__device__ double fma(double, double, double); __device__ float fmaf(float, float, float);
__device__ float fma(float, float, float);
__device__ double frexp(double, int *); __device__ float frexpf(float, int *); __device__ float frexp(float, int *);
__device__ double ldexp(double, int); __device__ float ldexpf(float, int); __device__ float ldexp(float, int);
__device__ double scalbn(double, int); __device__ float scalbnf(float, int); __device__ float scalbn(float, int);
__device__ double modf(double, double *); __device__ float modff(float, float *); __device__ float modf(float, float *);
__device__ double remquo(double, double, int *); __device__ float remquof(float, float, int *);
__device__ int ilogb(double); __device__ int ilogbf(float); __device__ int ilogb(float);
__device__ long lrint(double); __device__ long lrintf(float); __device__ long lrint(float);
__device__ long lround(double); __device__ long lroundf(float); __device__ long lround(float);
__device__ long long llrint(double); __device__ long long llrintf(float); __device__ long long llrint(float);
__device__ long long llround(double); __device__ long long llroundf(float); __device__ long long llround(float);
__device__ void sincos(double, double *, double *); __device__ void sincosf(float, float *, float *);
__device__ void sincospi(double, double *, double *); __device__ void sincospif(float, float *, float *);
__device__ double norm3d(double, double, double); __device__ float norm3df(float, float, float);
__device__ double rnorm3d(double, double, double); __device__ float rnorm3df(float, float, float);
__device__ double norm4d(double, double, double, double); __device__ float norm4df(float, float, float, float);
__device__ double norm(int, const double *); __device__ float normf(int, const float *);
__device__ double pow(double, int); __device__ float pow(float, int);
__device__ double nan(const char *); __device__ float nanf(const char *);
__device__ int abs(int); __device__ long labs(long); __device__ long long llabs(long long);
__device__ long abs(long); __device__ long long abs(long long);
__device__ float abs(float); __device__ double abs(double);
__device__ bool signbit(float); __device__ bool signbit(double);
__device__ bool isfinite(float); __device__ bool isfinite(double);
__device__ bool isinf(float); __device__ bool isinf(double);
__device__ bool isnan(float); __device__ bool isnan(double);
__device__ int __isnanf(float); __device__ int __isnan(double);
__device__ int __isinff(float); __device__ int __isinf(double);
__device__ int __finitef(float); __device__ int __finite(double);
__device__ int __signbitf(float); __device__ int __signbit(double);
/* min/max overloads of CUDA's math_functions.hpp (global namespace, host and device) */
#define __CL_MINMAX(A, B, R) __host__ __device__ R min(A, B); __host__ __device__ R max(A, B);
#include "minmax_overloads.h"  /* cudalint/frontend/compat, after the include path */
#undef __CL_MINMAX
__device__ unsigned int umin(unsigned int, unsigned int); __device__ unsigned int umax(unsigned int, unsigned int);
__device__ long long llmin(long long, long long); __device__ long long llmax(long long, long long);
__device__ unsigned long long ullmin(unsigned long long, unsigned long long);
__device__ unsigned long long ullmax(unsigned long long, unsigned long long);

/* ---- fast-math and rounding intrinsics ---- */
__device__ float __fdividef(float, float); __device__ double __fdiv_rn(double, double);
__device__ float __expf(float); __device__ float __exp10f(float); __device__ float __logf(float);
__device__ float __log2f(float); __device__ float __log10f(float); __device__ float __sinf(float);
__device__ float __cosf(float); __device__ float __tanf(float); __device__ float __powf(float, float);
__device__ void __sincosf(float, float *, float *); __device__ float __saturatef(float);
#define __CL_RND(pre, T, args, suf) __device__ T pre##_rn args; __device__ T pre##_rz args; \
  __device__ T pre##_ru args; __device__ T pre##_rd args;
__CL_RND(__fadd, float, (float, float), ) __CL_RND(__fsub, float, (float, float), )
__CL_RND(__fmul, float, (float, float), ) __CL_RND(__fmaf, float, (float, float, float), )
__CL_RND(__frcp, float, (float), ) __CL_RND(__fsqrt, float, (float), ) __CL_RND(__fdiv, float, (float, float), )
__CL_RND(__dadd, double, (double, double), ) __CL_RND(__dsub, double, (double, double), )
__CL_RND(__dmul, double, (double, double), ) __CL_RND(__fma, double, (double, double, double), )
__CL_RND(__drcp, double, (double), ) __CL_RND(__dsqrt, double, (double), ) __CL_RND(__ddiv, double, (double, double), )
__CL_RND(__float2int, int, (float), ) __CL_RND(__float2uint, unsigned int, (float), )
__CL_RND(__float2ll, long long, (float), ) __CL_RND(__float2ull, unsigned long long, (float), )
__CL_RND(__double2int, int, (double), ) __CL_RND(__double2uint, unsigned int, (double), )
__CL_RND(__double2ll, long long, (double), ) __CL_RND(__double2ull, unsigned long long, (double), )
__CL_RND(__double2float, float, (double), ) __CL_RND(__int2float, float, (int), )
__CL_RND(__uint2float, float, (unsigned int), ) __CL_RND(__ll2float, float, (long long), )
__CL_RND(__ull2float, float, (unsigned long long), ) __CL_RND(__ll2double, double, (long long), )
__CL_RND(__ull2double, double, (unsigned long long), )
#undef __CL_RND
__device__ float __frsqrt_rn(float); __device__ float __fmaf_ieee_rn(float, float, float);
__device__ double __int2double_rn(int); __device__ double __uint2double_rn(unsigned int);
__device__ int __float_as_int(float); __device__ float __int_as_float(int);
__device__ unsigned int __float_as_uint(float); __device__ float __uint_as_float(unsigned int);
__device__ long long __double_as_longlong(double); __device__ double __longlong_as_double(long long);
__device__ int __double2hiint(double); __device__ int __double2loint(double);
__device__ double __hiloint2double(int, int);

/* ---- integer intrinsics ---- */
__device__ int __popc(unsigned int); __device__ int __popcll(unsigned long long);
__device__ int __clz(int); __device__ int __clzll(long long);
__device__ int __ffs(int); __device__ int __ffsll(long long);
__device__ unsigned int __brev(unsigned int); __device__ unsigned long long __brevll(unsigned long long);
__device__ unsigned int __byte_perm(unsigned int, unsigned int, unsigned int);
__device__ int __mul24(int, int); __device__ unsigned int __umul24(unsigned int, unsigned int);
__device__ int __mulhi(int, int); __device__ unsigned int __umulhi(unsigned int, unsigned int);
__device__ long long __mul64hi(long long, long long);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ int __hadd(int, int); __device__ int __rhadd(int, int);
__device__ unsigned int __uhadd(unsigned int, unsigned int);
__device__ unsigned int __urhadd(unsigned int, unsigned int);
__device__ unsigned int __sad(int, int, unsigned int);
__device__ unsigned int __usad(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_l(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_lc(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_r(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_rc(unsigned int, unsigned int, unsigned int);
__device__ int __dp4a(int, int, int);
__device__ unsigned int __dp4a(unsigned int, unsigned int, unsigned int);
__device__ int __dp4a(char4, char4, int);
__device__ unsigned int __dp4a(uchar4, uchar4, unsigned int);
__device__ int __dp2a_lo(int, int, int); __device__ int __dp2a_hi(int, int, int);
__device__ unsigned int __dp2a_lo(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __dp2a_hi(unsigned int, unsigned int, unsigned int);
/* SIMD-within-a-word ("video") intrinsics */
#define __CL_SIMD2(op) __device__ unsigned int op##2(unsigned int, unsigned int); \
  __device__ unsigned int op##4(unsigned int, unsigned int);
__CL_SIMD2(__vadd) __CL_SIMD2(__vaddss) __CL_SIMD2(__vaddus) __CL_SIMD2(__vsub)
__CL_SIMD2(__vsubss) __CL_SIMD2(__vsubus) __CL_SIMD2(__vavgs) __CL_SIMD2(__vavgu)
__CL_SIMD2(__vhaddu) __CL_SIMD2(__vabsdiffs) __CL_SIMD2(__vabsdiffu) __CL_SIMD2(__vmaxs)
__CL_SIMD2(__vmaxu) __CL_SIMD2(__vmins) __CL_SIMD2(__vminu) __CL_SIMD2(__vsads) __CL_SIMD2(__vsadu)
__CL_SIMD2(__vcmpeq) __CL_SIMD2(__vcmpne) __CL_SIMD2(__vcmpges) __CL_SIMD2(__vcmpgeu)
__CL_SIMD2(__vcmpgts) __CL_SIMD2(__vcmpgtu) __CL_SIMD2(__vcmples) __CL_SIMD2(__vcmpleu)
__CL_SIMD2(__vcmplts) __CL_SIMD2(__vcmpltu) __CL_SIMD2(__vseteq) __CL_SIMD2(__vsetne)
__CL_SIMD2(__vsetges) __CL_SIMD2(__vsetgeu) __CL_SIMD2(__vsetgts) __CL_SIMD2(__vsetgtu)
__CL_SIMD2(__vsetles) __CL_SIMD2(__vsetleu) __CL_SIMD2(__vsetlts) __CL_SIMD2(__vsetltu)
#undef __CL_SIMD2
__device__ unsigned int __vabs2(unsigned int); __device__ unsigned int __vabs4(unsigned int);
__device__ unsigned int __vabsss2(unsigned int); __device__ unsigned int __vabsss4(unsigned int);
__device__ unsigned int __vneg2(unsigned int); __device__ unsigned int __vneg4(unsigned int);
__device__ unsigned int __vnegss2(unsigned int); __device__ unsigned int __vnegss4(unsigned int);
__device__ int __vimax_s32_relu(int, int); __device__ int __vimin_s32_relu(int, int);
__device__ int __viaddmax_s32(int, int, int); __device__ int __viaddmin_s32(int, int, int);

/* ---- synchronisation and warp-level primitives ---- */
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ unsigned int __activemask(void);
/* legacy (pre-CUDA 9) forms without a mask: deprecated, removed for sm_70+; declared so that old
   code parses and CUDA208 can point at it */
__device__ unsigned int __ballot(int pred);
__device__ int __all(int pred);
__device__ int __any(int pred);
template <class T> __device__ T __shfl(T var, int srcLane, int width = 32);
template <class T> __device__ T __shfl_up(T var, unsigned int delta, int width = 32);
template <class T> __device__ T __shfl_down(T var, unsigned int delta, int width = 32);
template <class T> __device__ T __shfl_xor(T var, int laneMask, int width = 32);
__device__ unsigned int __ballot_sync(unsigned int mask, int pred);
__device__ int __all_sync(unsigned int mask, int pred);
__device__ int __any_sync(unsigned int mask, int pred);
__device__ int __uni_sync(unsigned int mask, int pred);
template <class T> __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = 32);
template <class T> __device__ unsigned int __match_any_sync(unsigned int mask, T value);
template <class T> __device__ unsigned int __match_all_sync(unsigned int mask, T value, int *pred);
__device__ unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_add_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_min_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_min_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_max_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_max_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_and_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_or_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_xor_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __lanemask_eq(void); __device__ unsigned int __lanemask_lt(void);
__device__ unsigned int __lanemask_le(void); __device__ unsigned int __lanemask_gt(void);
__device__ unsigned int __lanemask_ge(void);

/* ---- cache-hinted loads and stores ---- */
template <class T> __device__ T __ldg(const T *ptr);
template <class T> __device__ T __ldcg(const T *ptr);
template <class T> __device__ T __ldca(const T *ptr);
template <class T> __device__ T __ldcs(const T *ptr);
template <class T> __device__ T __ldlu(const T *ptr);
template <class T> __device__ T __ldcv(const T *ptr);
template <class T> __device__ void __stwb(T *ptr, T value);
template <class T> __device__ void __stcg(T *ptr, T value);
template <class T> __device__ void __stcs(T *ptr, T value);
template <class T> __device__ void __stwt(T *ptr, T value);

/* ---- address spaces, timing, misc ---- */
__device__ unsigned int __isGlobal(const void *); __device__ unsigned int __isShared(const void *);
__device__ unsigned int __isConstant(const void *); __device__ unsigned int __isLocal(const void *);
__device__ unsigned int __isGridConstant(const void *);
__device__ size_t __cvta_generic_to_global(const void *);
__device__ size_t __cvta_generic_to_shared(const void *);
__device__ size_t __cvta_generic_to_constant(const void *);
__device__ size_t __cvta_generic_to_local(const void *);
__device__ void *__cvta_global_to_generic(size_t); __device__ void *__cvta_shared_to_generic(size_t);
__device__ void *__cvta_constant_to_generic(size_t); __device__ void *__cvta_local_to_generic(size_t);
extern "C" __device__ long clock(void) __attribute__((nothrow));
__device__ long long clock64(void);
__device__ unsigned long long __globaltimer(void);
__device__ void __nanosleep(unsigned int ns);
__device__ void __trap(void);
__device__ void __brkpt(void);
__device__ void __prof_trigger(int);
__device__ unsigned int __smid(void);

/* ---- atomics (the _block/_system scoped forms too) ---- */
#define __CL_ATOMIC2(name, T) __device__ T name(T *address, T val); \
  __device__ T name##_block(T *address, T val); __device__ T name##_system(T *address, T val);
#define __CL_ATOMIC_INT(name) __CL_ATOMIC2(name, int) __CL_ATOMIC2(name, unsigned int) \
  __CL_ATOMIC2(name, unsigned long long)
__CL_ATOMIC_INT(atomicAdd) __CL_ATOMIC2(atomicAdd, float) __CL_ATOMIC2(atomicAdd, double)
__CL_ATOMIC_INT(atomicSub) __CL_ATOMIC_INT(atomicExch) __CL_ATOMIC2(atomicExch, float)
__CL_ATOMIC_INT(atomicMin) __CL_ATOMIC_INT(atomicMax) __CL_ATOMIC2(atomicMin, long long)
__CL_ATOMIC2(atomicMax, long long) __CL_ATOMIC_INT(atomicAnd) __CL_ATOMIC_INT(atomicOr)
__CL_ATOMIC_INT(atomicXor) __CL_ATOMIC2(atomicAnd, long long) __CL_ATOMIC2(atomicOr, long long)
__CL_ATOMIC2(atomicXor, long long)
__CL_ATOMIC2(atomicAdd, float2) __CL_ATOMIC2(atomicAdd, float4)
__CL_ATOMIC2(atomicInc, unsigned int) __CL_ATOMIC2(atomicDec, unsigned int)
#undef __CL_ATOMIC2
#undef __CL_ATOMIC_INT
#define __CL_CAS(T) __device__ T atomicCAS(T *address, T compare, T val); \
  __device__ T atomicCAS_block(T *address, T compare, T val); \
  __device__ T atomicCAS_system(T *address, T compare, T val);
__CL_CAS(int) __CL_CAS(unsigned int) __CL_CAS(unsigned long long) __CL_CAS(unsigned short)
#undef __CL_CAS
#endif
