// The global min/max overloads of CUDA's math_functions.hpp, as a list: the includer defines
// __CL_MINMAX(A, B, R) to declare them for the host (compat/host_minmax.h) or for both sides
// (the shim's device_functions.h).
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
