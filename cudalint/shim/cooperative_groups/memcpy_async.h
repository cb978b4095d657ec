/* cooperative_groups/memcpy_async.h - cudalint's parse-only stand-in: cg::memcpy_async / wait. */
#include "../cooperative_groups.h"
#ifndef CUDALINT_CG_MEMCPY_ASYNC_H
#define CUDALINT_CG_MEMCPY_ASYNC_H
namespace cooperative_groups {
template <class TyGroup> __device__ void memcpy_async(const TyGroup &group, void *dst, const void *src, size_t count);
template <class TyGroup, class TyElem> __device__ void memcpy_async(const TyGroup &group, TyElem *dst,
    size_t dstCount, const TyElem *src, size_t srcCount);
template <class TyGroup> __device__ void wait(const TyGroup &group);
template <unsigned int N, class TyGroup> __device__ void wait_prior(const TyGroup &group);
} // namespace cooperative_groups
#endif
