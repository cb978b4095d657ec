/* vector_functions.h - cudalint's parse-only stand-in: the make_<vector> helpers. */
#include "cudalint_shim.h"
#ifndef CUDALINT_VECTOR_FUNCTIONS_H
#define CUDALINT_VECTOR_FUNCTIONS_H
#include "vector_types.h"
#define __CL_MK(T, n)                                                                      \
  static __host__ __device__ inline n##1 make_##n##1(T x) { n##1 r = {x}; return r; }      \
  static __host__ __device__ inline n##2 make_##n##2(T x, T y) { n##2 r = {x, y}; return r; } \
  static __host__ __device__ inline n##3 make_##n##3(T x, T y, T z) { n##3 r = {x, y, z}; return r; } \
  static __host__ __device__ inline n##4 make_##n##4(T x, T y, T z, T w) { n##4 r = {x, y, z, w}; return r; }
__CL_MK(signed char, char)
__CL_MK(unsigned char, uchar)
__CL_MK(short, short)
__CL_MK(unsigned short, ushort)
__CL_MK(int, int)
__CL_MK(unsigned int, uint)
__CL_MK(long, long)
__CL_MK(unsigned long, ulong)
__CL_MK(long long, longlong)
__CL_MK(unsigned long long, ulonglong)
__CL_MK(float, float)
__CL_MK(double, double)
#undef __CL_MK
#endif
