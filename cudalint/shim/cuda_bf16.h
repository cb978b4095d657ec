/* cuda_bf16.h - cudalint's parse-only stand-in: __nv_bfloat16 / __nv_bfloat162 (2/2 and 4/4). */
#include "cudalint_shim.h"
#ifndef CUDALINT_CUDA_BF16_H
#define CUDALINT_CUDA_BF16_H
#include "cuda_fp16.h"
#define __CUDA_BF16_TYPES_EXIST__
#define __CL_HD __host__ __device__

typedef struct __align__(2) { unsigned short x; } __nv_bfloat16_raw;
typedef struct __align__(4) { unsigned short x; unsigned short y; } __nv_bfloat162_raw;

struct __align__(2) __nv_bfloat16 {
protected:
  unsigned short __x;
public:
  __nv_bfloat16() = default;
  __CL_HD constexpr __nv_bfloat16(const __nv_bfloat16_raw &hr) : __x(hr.x) {}
  __CL_HD __nv_bfloat16 &operator=(const __nv_bfloat16_raw &hr);
  __CL_HD volatile __nv_bfloat16 &operator=(const __nv_bfloat16_raw &hr) volatile;
  __CL_HD operator __nv_bfloat16_raw() const;
  __CL_HD operator __nv_bfloat16_raw() const volatile;
#if !defined(__CUDA_NO_BFLOAT16_CONVERSIONS__)
  explicit __CL_HD __nv_bfloat16(const __half f);
  __CL_HD __nv_bfloat16(const float f);
  __CL_HD __nv_bfloat16(const double f);
  __CL_HD operator float() const;
  __CL_HD __nv_bfloat16 &operator=(const float f);
  __CL_HD __nv_bfloat16 &operator=(const double f);
  __CL_HD __nv_bfloat16(short val); __CL_HD __nv_bfloat16(unsigned short val);
  __CL_HD __nv_bfloat16(int val); __CL_HD __nv_bfloat16(unsigned int val);
  __CL_HD __nv_bfloat16(long val); __CL_HD __nv_bfloat16(unsigned long val);
  __CL_HD __nv_bfloat16(long long val); __CL_HD __nv_bfloat16(unsigned long long val);
  __CL_HD operator signed char() const; __CL_HD operator unsigned char() const;
  __CL_HD operator char() const; __CL_HD operator short() const;
  __CL_HD operator unsigned short() const; __CL_HD operator int() const;
  __CL_HD operator unsigned int() const; __CL_HD operator long() const;
  __CL_HD operator unsigned long() const; __CL_HD operator long long() const;
  __CL_HD operator unsigned long long() const;
  __CL_HD __nv_bfloat16 &operator=(short val); __CL_HD __nv_bfloat16 &operator=(unsigned short val);
  __CL_HD __nv_bfloat16 &operator=(int val); __CL_HD __nv_bfloat16 &operator=(unsigned int val);
  __CL_HD __nv_bfloat16 &operator=(long long val); __CL_HD __nv_bfloat16 &operator=(unsigned long long val);
  __CL_HD operator bool() const;
#endif
};

struct __align__(4) __nv_bfloat162 {
  __nv_bfloat16 x;
  __nv_bfloat16 y;
  __nv_bfloat162() = default;
  __CL_HD __nv_bfloat162(__nv_bfloat162 &&src);
  __CL_HD __nv_bfloat162 &operator=(__nv_bfloat162 &&src);
  __CL_HD constexpr __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
  __CL_HD __nv_bfloat162(const __nv_bfloat162 &src);
  __CL_HD __nv_bfloat162 &operator=(const __nv_bfloat162 &src);
  __CL_HD __nv_bfloat162(const __nv_bfloat162_raw &h2r);
  __CL_HD __nv_bfloat162 &operator=(const __nv_bfloat162_raw &h2r);
  __CL_HD operator __nv_bfloat162_raw() const;
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* conversions */
__CL_HD __nv_bfloat16 __float2bfloat16(const float a);
__CL_HD __nv_bfloat16 __float2bfloat16_rn(const float a);
__CL_HD __nv_bfloat16 __float2bfloat16_rz(const float a);
__CL_HD __nv_bfloat16 __float2bfloat16_rd(const float a);
__CL_HD __nv_bfloat16 __float2bfloat16_ru(const float a);
__CL_HD __nv_bfloat16 __double2bfloat16(const double a);
__CL_HD float __bfloat162float(const __nv_bfloat16 a);
__CL_HD __nv_bfloat162 __float2bfloat162_rn(const float a);
__CL_HD __nv_bfloat162 __floats2bfloat162_rn(const float a, const float b);
__CL_HD __nv_bfloat162 __float22bfloat162_rn(const float2 a);
__CL_HD float2 __bfloat1622float2(const __nv_bfloat162 a);
__CL_HD float __low2float(const __nv_bfloat162 a);
__CL_HD float __high2float(const __nv_bfloat162 a);
__CL_HD __nv_bfloat16 __low2bfloat16(const __nv_bfloat162 a);
__CL_HD __nv_bfloat16 __high2bfloat16(const __nv_bfloat162 a);
__CL_HD __nv_bfloat162 __bfloat162bfloat162(const __nv_bfloat16 a);
__CL_HD __nv_bfloat162 __halves2bfloat162(const __nv_bfloat16 a, const __nv_bfloat16 b);
__CL_HD __nv_bfloat162 __lows2bfloat162(const __nv_bfloat162 a, const __nv_bfloat162 b);
__CL_HD __nv_bfloat162 __highs2bfloat162(const __nv_bfloat162 a, const __nv_bfloat162 b);
__CL_HD __nv_bfloat162 __low2bfloat162(const __nv_bfloat162 a);
__CL_HD __nv_bfloat162 __high2bfloat162(const __nv_bfloat162 a);
__CL_HD __nv_bfloat162 make_bfloat162(const __nv_bfloat16 x, const __nv_bfloat16 y);
__CL_HD short __bfloat16_as_short(const __nv_bfloat16 h);
__CL_HD unsigned short __bfloat16_as_ushort(const __nv_bfloat16 h);
__CL_HD __nv_bfloat16 __short_as_bfloat16(const short i);
__CL_HD __nv_bfloat16 __ushort_as_bfloat16(const unsigned short i);
__CL_HD int __bfloat162int_rn(const __nv_bfloat16 h); __CL_HD int __bfloat162int_rz(const __nv_bfloat16 h);
__CL_HD __nv_bfloat16 __int2bfloat16_rn(const int i);
__CL_HD __nv_bfloat16 __uint2bfloat16_rn(const unsigned int i);

/* arithmetic and comparisons */
#define __B __nv_bfloat16
#define __B2 __nv_bfloat162
__device__ __B __hadd(const __B a, const __B b); __device__ __B __hsub(const __B a, const __B b);
__device__ __B __hmul(const __B a, const __B b); __device__ __B __hdiv(const __B a, const __B b);
__device__ __B __hmax(const __B a, const __B b); __device__ __B __hmin(const __B a, const __B b);
__device__ __B __hneg(const __B a); __device__ __B __habs(const __B a);
__device__ __B __hfma(const __B a, const __B b, const __B c);
__device__ __B2 __hadd2(const __B2 a, const __B2 b); __device__ __B2 __hsub2(const __B2 a, const __B2 b);
__device__ __B2 __hmul2(const __B2 a, const __B2 b); __device__ __B2 __h2div(const __B2 a, const __B2 b);
__device__ __B2 __hmax2(const __B2 a, const __B2 b); __device__ __B2 __hmin2(const __B2 a, const __B2 b);
__device__ __B2 __hneg2(const __B2 a); __device__ __B2 __habs2(const __B2 a);
__device__ __B2 __hfma2(const __B2 a, const __B2 b, const __B2 c);
__device__ __B hsqrt(const __B a); __device__ __B hrsqrt(const __B a); __device__ __B hexp(const __B a);
__device__ __B hlog(const __B a); __device__ __B hrcp(const __B a);
__device__ __B2 h2sqrt(const __B2 a); __device__ __B2 h2exp(const __B2 a);
__CL_HD bool __heq(const __B a, const __B b); __CL_HD bool __hne(const __B a, const __B b);
__CL_HD bool __hlt(const __B a, const __B b); __CL_HD bool __hgt(const __B a, const __B b);
__CL_HD bool __hle(const __B a, const __B b); __CL_HD bool __hge(const __B a, const __B b);
__CL_HD bool __hisnan(const __B a); __CL_HD int __hisinf(const __B a);
__CL_HD unsigned int __hgt2_mask(const __B2 a, const __B2 b);

/* operators */
__CL_HD __B operator+(const __B &lh, const __B &rh); __CL_HD __B operator-(const __B &lh, const __B &rh);
__CL_HD __B operator*(const __B &lh, const __B &rh); __CL_HD __B operator/(const __B &lh, const __B &rh);
__CL_HD __B &operator+=(__B &lh, const __B &rh); __CL_HD __B &operator-=(__B &lh, const __B &rh);
__CL_HD __B &operator*=(__B &lh, const __B &rh); __CL_HD __B &operator/=(__B &lh, const __B &rh);
__CL_HD __B operator+(const __B &h); __CL_HD __B operator-(const __B &h);
__CL_HD bool operator==(const __B &lh, const __B &rh); __CL_HD bool operator!=(const __B &lh, const __B &rh);
__CL_HD bool operator>(const __B &lh, const __B &rh); __CL_HD bool operator<(const __B &lh, const __B &rh);
__CL_HD bool operator>=(const __B &lh, const __B &rh); __CL_HD bool operator<=(const __B &lh, const __B &rh);
__CL_HD __B2 operator+(const __B2 &lh, const __B2 &rh); __CL_HD __B2 operator-(const __B2 &lh, const __B2 &rh);
__CL_HD __B2 operator*(const __B2 &lh, const __B2 &rh); __CL_HD __B2 operator/(const __B2 &lh, const __B2 &rh);
__CL_HD __B2 &operator+=(__B2 &lh, const __B2 &rh); __CL_HD __B2 &operator-=(__B2 &lh, const __B2 &rh);
__CL_HD __B2 &operator*=(__B2 &lh, const __B2 &rh); __CL_HD __B2 &operator/=(__B2 &lh, const __B2 &rh);
__CL_HD __B2 operator-(const __B2 &h);
__CL_HD bool operator==(const __B2 &lh, const __B2 &rh); __CL_HD bool operator!=(const __B2 &lh, const __B2 &rh);

__device__ __B2 atomicAdd(__B2 *const address, const __B2 val);
__device__ __B atomicAdd(__B *const address, const __B val);
#undef __B
#undef __B2
#undef __CL_HD
#endif
