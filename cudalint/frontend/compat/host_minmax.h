// nvcc's math_functions.hpp gives host code the global min/max overloads too; clang's CUDA
// headers declare them for the device only, so host code calling max(a, b) failed to parse in
// toolkit mode. Declared here for the host (cudalint -includes this header in toolkit mode).
#pragma once
#define __CL_MINMAX(A, B, R) __host__ R min(A, B); __host__ R max(A, B);
#include "minmax_overloads.h"
#undef __CL_MINMAX
