/* vector_types.h - cudalint's parse-only stand-in for the CUDA header of the same name. */
#include "cudalint_shim.h"
#ifndef CUDALINT_VECTOR_TYPES_H
#define CUDALINT_VECTOR_TYPES_H
/* size/alignment follow CUDA's vector_types.h: float4 16/16, double2 16/16, int2 8/8,
   float3 12/4, char4 4/4, short2 4/4, long2 2*sizeof(long), dim3 12/4 */
#define __CL_V1(T, n) struct n##1 { T x; };
#define __CL_V2(T, n, a) struct __align__(a) n##2 { T x, y; };
#define __CL_V3(T, n) struct n##3 { T x, y, z; };
#define __CL_V4(T, n, a) struct __align__(a) n##4 { T x, y, z, w; };
#define __CL_VEC(T, n, a2, a4) __CL_V1(T, n) __CL_V2(T, n, a2) __CL_V3(T, n) __CL_V4(T, n, a4)
__CL_VEC(signed char, char, 2, 4)
__CL_VEC(unsigned char, uchar, 2, 4)
__CL_VEC(short, short, 4, 8)
__CL_VEC(unsigned short, ushort, 4, 8)
__CL_VEC(int, int, 8, 16)
__CL_VEC(unsigned int, uint, 8, 16)
__CL_VEC(long, long, 2 * sizeof(long), 16)
__CL_VEC(unsigned long, ulong, 2 * sizeof(long), 16)
__CL_VEC(long long, longlong, 16, 16)
__CL_VEC(unsigned long long, ulonglong, 16, 16)
__CL_VEC(float, float, 8, 16)
__CL_VEC(double, double, 16, 16)
/* CUDA 13 explicitly-aligned 32-byte vectors */
struct __align__(16) long4_16a { long x, y, z, w; };
struct __align__(32) long4_32a { long x, y, z, w; };
struct __align__(16) ulong4_16a { unsigned long x, y, z, w; };
struct __align__(32) ulong4_32a { unsigned long x, y, z, w; };
struct __align__(16) longlong4_16a { long long x, y, z, w; };
struct __align__(32) longlong4_32a { long long x, y, z, w; };
struct __align__(16) ulonglong4_16a { unsigned long long x, y, z, w; };
struct __align__(32) ulonglong4_32a { unsigned long long x, y, z, w; };
struct __align__(16) double4_16a { double x, y, z, w; };
struct __align__(32) double4_32a { double x, y, z, w; };
#undef __CL_V1
#undef __CL_V2
#undef __CL_V3
#undef __CL_V4
#undef __CL_VEC

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
                                     unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
typedef struct dim3 dim3;
#endif
