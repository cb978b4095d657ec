/* cooperative_groups/reduce.h - cudalint's parse-only stand-in: cg::reduce and the scans. */
#include "../cooperative_groups.h"
#ifndef CUDALINT_CG_REDUCE_H
#define CUDALINT_CG_REDUCE_H
namespace cooperative_groups {
template <class TyGroup, class TyVal, class TyFn> __device__ TyVal reduce(const TyGroup &group, TyVal val, TyFn &&op);
template <class TyGroup, class TyVal, class TyFn> __device__ TyVal inclusive_scan(const TyGroup &group, TyVal val, TyFn &&op);
template <class TyGroup, class TyVal> __device__ TyVal inclusive_scan(const TyGroup &group, TyVal val);
template <class TyGroup, class TyVal, class TyFn> __device__ TyVal exclusive_scan(const TyGroup &group, TyVal val, TyFn &&op);
template <class TyGroup, class TyVal> __device__ TyVal exclusive_scan(const TyGroup &group, TyVal val);
} // namespace cooperative_groups
#endif
