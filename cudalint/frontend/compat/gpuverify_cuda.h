// GPUVerify's own cuda.h, as far as kernels written against it need: unlike the toolkit's (the
// driver API), it brings in device-side cuRAND and cooperative groups, with `synchronize(g)` as
// the barrier of group g. cudalint adds this header (-include) only to files that include
// <cuda.h> and use those names without including their headers (nvcc would reject them).
#pragma once
#include <curand_kernel.h>
#include <cooperative_groups.h>
namespace cooperative_groups {
template <class Group> __device__ void synchronize(Group& g) { g.sync(); }
}
