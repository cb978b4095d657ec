// nvcc's math_functions.hpp gives host code the global min/max overloads too; clang's CUDA
// headers declare them for the device only, so host code calling max(a, b) failed to parse in
// toolkit mode. Declared here for the host (cudalint -includes this header in toolkit mode).
#pragma once
#define __CL_MINMAX(A, B, R) __host__ R min(A, B); __host__ R max(A, B);
__CL_MINMAX(int, int, int) __CL_MINMAX(unsigned int, unsigned int, unsigned int)
__CL_MINMAX(int, unsigned int, unsigned int) __CL_MINMAX(unsigned int, int, unsigned int)
__CL_MINMAX(long, long, long) __CL_MINMAX(unsigned long, unsigned long, unsigned long)
__CL_MINMAX(long, unsigned long, unsigned long) __CL_MINMAX(unsigned long, long, unsigned long)
__CL_MINMAX(long long, long long, long long)
__CL_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__CL_MINMAX(long long, unsigned long long, unsigned long long)
__CL_MINMAX(unsigned long long, long long, unsigned long long)
__CL_MINMAX(float, float, float) __CL_MINMAX(double, double, double)
__CL_MINMAX(float, double, double) __CL_MINMAX(double, float, double)
#undef __CL_MINMAX
