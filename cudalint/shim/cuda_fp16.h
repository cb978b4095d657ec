/* cuda_fp16.h - cudalint's parse-only stand-in: __half / __half2 (layout as CUDA: 2/2 and 4/4). */
#include "cudalint_shim.h"
#ifndef CUDALINT_CUDA_FP16_H
#define CUDALINT_CUDA_FP16_H
#define __CUDA_FP16_TYPES_EXIST__
#define __CL_HD __host__ __device__

typedef struct __align__(2) { unsigned short x; } __half_raw;
typedef struct __align__(4) { unsigned short x; unsigned short y; } __half2_raw;
struct __nv_bfloat16;

struct __align__(2) __half {
protected:
  unsigned short __x;
public:
  __half() = default;
  __CL_HD constexpr __half(const __half_raw &hr) : __x(hr.x) {}
  __CL_HD __half &operator=(const __half_raw &hr);
  __CL_HD volatile __half &operator=(const __half_raw &hr) volatile;
  __CL_HD operator __half_raw() const;
  __CL_HD operator __half_raw() const volatile;
#if !defined(__CUDA_NO_HALF_CONVERSIONS__)
  explicit __CL_HD __half(const __nv_bfloat16 f);
  __CL_HD __half(const float f);
  __CL_HD __half(const double f);
  __CL_HD operator float() const;
  __CL_HD __half &operator=(const float f);
  __CL_HD __half &operator=(const double f);
  __CL_HD __half(short val); __CL_HD __half(unsigned short val);
  __CL_HD __half(int val); __CL_HD __half(unsigned int val);
  __CL_HD __half(long val); __CL_HD __half(unsigned long val);
  __CL_HD __half(long long val); __CL_HD __half(unsigned long long val);
  __CL_HD operator signed char() const; __CL_HD operator unsigned char() const;
  __CL_HD operator char() const; __CL_HD operator short() const;
  __CL_HD operator unsigned short() const; __CL_HD operator int() const;
  __CL_HD operator unsigned int() const; __CL_HD operator long() const;
  __CL_HD operator unsigned long() const; __CL_HD operator long long() const;
  __CL_HD operator unsigned long long() const;
  __CL_HD __half &operator=(short val); __CL_HD __half &operator=(unsigned short val);
  __CL_HD __half &operator=(int val); __CL_HD __half &operator=(unsigned int val);
  __CL_HD __half &operator=(long long val); __CL_HD __half &operator=(unsigned long long val);
  __CL_HD operator bool() const;
#endif
};

struct __align__(4) __half2 {
  __half x;
  __half y;
  __half2() = default;
  __CL_HD __half2(const __half2 &&src);
  __CL_HD __half2 &operator=(const __half2 &&src);
  __CL_HD constexpr __half2(const __half &a, const __half &b) : x(a), y(b) {}
  __CL_HD __half2(const __half2 &src);
  __CL_HD __half2 &operator=(const __half2 &src);
  __CL_HD __half2(const __half2_raw &h2r);
  __CL_HD __half2 &operator=(const __half2_raw &h2r);
  __CL_HD operator __half2_raw() const;
};
typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;
typedef __half nv_half;
typedef __half2 nv_half2;

/* conversions */
__CL_HD __half __float2half(const float a);
__CL_HD __half __float2half_rn(const float a);
__CL_HD __half __float2half_rz(const float a);
__CL_HD __half __float2half_rd(const float a);
__CL_HD __half __float2half_ru(const float a);
__CL_HD __half __double2half(const double a);
__CL_HD float __half2float(const __half a);
__CL_HD __half2 __float2half2_rn(const float a);
__CL_HD __half2 __floats2half2_rn(const float a, const float b);
__CL_HD __half2 __float22half2_rn(const float2 a);
__CL_HD float2 __half22float2(const __half2 a);
__CL_HD float __low2float(const __half2 a);
__CL_HD float __high2float(const __half2 a);
__CL_HD __half __low2half(const __half2 a);
__CL_HD __half __high2half(const __half2 a);
__CL_HD __half2 __half2half2(const __half a);
__CL_HD __half2 __halves2half2(const __half a, const __half b);
__CL_HD __half2 __lows2half2(const __half2 a, const __half2 b);
__CL_HD __half2 __highs2half2(const __half2 a, const __half2 b);
__CL_HD __half2 __low2half2(const __half2 a);
__CL_HD __half2 __high2half2(const __half2 a);
__CL_HD __half2 __lowhigh2highlow(const __half2 a);
__CL_HD __half2 make_half2(const __half x, const __half y);
__CL_HD short __half_as_short(const __half h);
__CL_HD unsigned short __half_as_ushort(const __half h);
__CL_HD __half __short_as_half(const short i);
__CL_HD __half __ushort_as_half(const unsigned short i);
#define __CL_H2I(T, n) __CL_HD T __half2##n##_rn(const __half h); __CL_HD T __half2##n##_rz(const __half h); \
  __CL_HD T __half2##n##_rd(const __half h); __CL_HD T __half2##n##_ru(const __half h); \
  __CL_HD __half __##n##2half_rn(const T i); __CL_HD __half __##n##2half_rz(const T i); \
  __CL_HD __half __##n##2half_rd(const T i); __CL_HD __half __##n##2half_ru(const T i);
__CL_H2I(int, int) __CL_H2I(unsigned int, uint) __CL_H2I(short, short)
__CL_H2I(unsigned short, ushort) __CL_H2I(long long, ll) __CL_H2I(unsigned long long, ull)
#undef __CL_H2I
__CL_HD signed char __half2char_rz(const __half h);
__CL_HD unsigned char __half2uchar_rz(const __half h);

/* arithmetic and comparisons */
#define __CL_H1(n) __device__ __half n(const __half a);
#define __CL_H2(n) __device__ __half n(const __half a, const __half b);
#define __CL_HH1(n) __device__ __half2 n(const __half2 a);
#define __CL_HH2(n) __device__ __half2 n(const __half2 a, const __half2 b);
__CL_H2(__hadd) __CL_H2(__hsub) __CL_H2(__hmul) __CL_H2(__hdiv) __CL_H2(__hadd_sat)
__CL_H2(__hsub_sat) __CL_H2(__hmul_sat) __CL_H2(__hadd_rn) __CL_H2(__hsub_rn) __CL_H2(__hmul_rn)
__CL_H2(__hmax) __CL_H2(__hmin) __CL_H2(__hmax_nan) __CL_H2(__hmin_nan)
__CL_H1(__hneg) __CL_H1(__habs) __CL_H1(hsqrt) __CL_H1(hrsqrt) __CL_H1(hrcp) __CL_H1(hexp)
__CL_H1(hexp2) __CL_H1(hexp10) __CL_H1(hlog) __CL_H1(hlog2) __CL_H1(hlog10) __CL_H1(hsin)
__CL_H1(hcos) __CL_H1(htanh) __CL_H1(htanh_approx) __CL_H1(hceil) __CL_H1(hfloor) __CL_H1(hrint) __CL_H1(htrunc)
__CL_HH2(__hadd2) __CL_HH2(__hsub2) __CL_HH2(__hmul2) __CL_HH2(__h2div) __CL_HH2(__hadd2_sat)
__CL_HH2(__hsub2_sat) __CL_HH2(__hmul2_sat) __CL_HH2(__hadd2_rn) __CL_HH2(__hsub2_rn)
__CL_HH2(__hmul2_rn) __CL_HH2(__hmax2) __CL_HH2(__hmin2) __CL_HH2(__hmax2_nan) __CL_HH2(__hmin2_nan)
__CL_HH2(__heq2) __CL_HH2(__hne2) __CL_HH2(__hle2) __CL_HH2(__hge2) __CL_HH2(__hlt2) __CL_HH2(__hgt2)
__CL_HH2(__hequ2) __CL_HH2(__hneu2) __CL_HH2(__hleu2) __CL_HH2(__hgeu2) __CL_HH2(__hltu2) __CL_HH2(__hgtu2)
__CL_HH1(__hneg2) __CL_HH1(__habs2) __CL_HH1(h2sqrt) __CL_HH1(h2rsqrt) __CL_HH1(h2rcp) __CL_HH1(h2exp)
__CL_HH1(h2exp2) __CL_HH1(h2exp10) __CL_HH1(h2log) __CL_HH1(h2log2) __CL_HH1(h2log10) __CL_HH1(h2sin)
__CL_HH1(h2cos) __CL_HH1(h2tanh) __CL_HH1(h2ceil) __CL_HH1(h2floor) __CL_HH1(h2rint) __CL_HH1(h2trunc)
__CL_HH1(__hisnan2)
#undef __CL_H1
#undef __CL_H2
#undef __CL_HH1
#undef __CL_HH2
__device__ __half __hfma(const __half a, const __half b, const __half c);
__device__ __half __hfma_sat(const __half a, const __half b, const __half c);
__device__ __half __hfma_relu(const __half a, const __half b, const __half c);
__device__ __half2 __hfma2(const __half2 a, const __half2 b, const __half2 c);
__device__ __half2 __hfma2_sat(const __half2 a, const __half2 b, const __half2 c);
__device__ __half2 __hfma2_relu(const __half2 a, const __half2 b, const __half2 c);
__device__ __half2 __hcmadd(const __half2 a, const __half2 b, const __half2 c);
__device__ __half2 __hmul2_rn(const __half2 a, const __half2 b);
#define __CL_HCMP(n) __CL_HD bool __h##n(const __half a, const __half b); \
  __CL_HD bool __hb##n##2(const __half2 a, const __half2 b); \
  __CL_HD unsigned int __h##n##2_mask(const __half2 a, const __half2 b);
__CL_HCMP(eq) __CL_HCMP(ne) __CL_HCMP(le) __CL_HCMP(ge) __CL_HCMP(lt) __CL_HCMP(gt)
__CL_HCMP(equ) __CL_HCMP(neu) __CL_HCMP(leu) __CL_HCMP(geu) __CL_HCMP(ltu) __CL_HCMP(gtu)
#undef __CL_HCMP
__CL_HD bool __hisnan(const __half a);
__CL_HD int __hisinf(const __half a);
__device__ __half2 __hmin2(const __half2 a, const __half2 b);

/* operators (cuda_fp16.hpp defines them for host and device) */
__CL_HD __half operator+(const __half &lh, const __half &rh);
__CL_HD __half operator-(const __half &lh, const __half &rh);
__CL_HD __half operator*(const __half &lh, const __half &rh);
__CL_HD __half operator/(const __half &lh, const __half &rh);
__CL_HD __half &operator+=(__half &lh, const __half &rh);
__CL_HD __half &operator-=(__half &lh, const __half &rh);
__CL_HD __half &operator*=(__half &lh, const __half &rh);
__CL_HD __half &operator/=(__half &lh, const __half &rh);
__CL_HD __half &operator++(__half &h);
__CL_HD __half &operator--(__half &h);
__CL_HD __half operator++(__half &h, const int ignored);
__CL_HD __half operator--(__half &h, const int ignored);
__CL_HD __half operator+(const __half &h);
__CL_HD __half operator-(const __half &h);
__CL_HD bool operator==(const __half &lh, const __half &rh);
__CL_HD bool operator!=(const __half &lh, const __half &rh);
__CL_HD bool operator>(const __half &lh, const __half &rh);
__CL_HD bool operator<(const __half &lh, const __half &rh);
__CL_HD bool operator>=(const __half &lh, const __half &rh);
__CL_HD bool operator<=(const __half &lh, const __half &rh);
__CL_HD __half2 operator+(const __half2 &lh, const __half2 &rh);
__CL_HD __half2 operator-(const __half2 &lh, const __half2 &rh);
__CL_HD __half2 operator*(const __half2 &lh, const __half2 &rh);
__CL_HD __half2 operator/(const __half2 &lh, const __half2 &rh);
__CL_HD __half2 &operator+=(__half2 &lh, const __half2 &rh);
__CL_HD __half2 &operator-=(__half2 &lh, const __half2 &rh);
__CL_HD __half2 &operator*=(__half2 &lh, const __half2 &rh);
__CL_HD __half2 &operator/=(__half2 &lh, const __half2 &rh);
__CL_HD __half2 &operator++(__half2 &h);
__CL_HD __half2 &operator--(__half2 &h);
__CL_HD __half2 operator+(const __half2 &h);
__CL_HD __half2 operator-(const __half2 &h);
__CL_HD bool operator==(const __half2 &lh, const __half2 &rh);
__CL_HD bool operator!=(const __half2 &lh, const __half2 &rh);
__CL_HD bool operator>(const __half2 &lh, const __half2 &rh);
__CL_HD bool operator<(const __half2 &lh, const __half2 &rh);
__CL_HD bool operator>=(const __half2 &lh, const __half2 &rh);
__CL_HD bool operator<=(const __half2 &lh, const __half2 &rh);

/* atomics and cache-hinted loads (the shuffles are templates in device_functions.h) */
__device__ __half2 atomicAdd(__half2 *const address, const __half2 val);
__device__ __half atomicAdd(__half *const address, const __half val);
#undef __CL_HD
#endif
