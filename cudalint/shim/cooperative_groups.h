/* cooperative_groups.h - cudalint's parse-only stand-in: the cooperative groups API (declarations). */
#include "cudalint_shim.h"
#ifndef CUDALINT_COOPERATIVE_GROUPS_H
#define CUDALINT_COOPERATIVE_GROUPS_H
namespace cooperative_groups {
class thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ bool is_valid() const;
  __device__ unsigned int get_type() const;
};
class thread_block : public thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
  __device__ static void barrier_wait();
};
__device__ thread_block this_thread_block();
class grid_group : public thread_group {
public:
  __device__ void sync() const;
  __device__ bool is_valid() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long block_rank() const;
  __device__ unsigned long long num_blocks() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_blocks() const;
  __device__ dim3 block_index() const;
};
__device__ grid_group this_grid();
class cluster_group : public thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned int block_rank() const;
  __device__ unsigned int num_blocks() const;
  template <class T> __device__ T *map_shared_rank(T *addr, int rank) const;
};
__device__ cluster_group this_cluster();

/* warp-level members shared by tiles and coalesced groups */
#define __CL_WARP_MEMBERS                                                              \
  __device__ void sync() const;                                                        \
  __device__ unsigned int thread_rank() const;                                         \
  __device__ unsigned int meta_group_rank() const;                                     \
  __device__ unsigned int meta_group_size() const;                                     \
  __device__ unsigned int any(int predicate) const;                                    \
  __device__ unsigned int all(int predicate) const;                                    \
  __device__ unsigned int ballot(int predicate) const;                                 \
  template <class T> __device__ T shfl(T var, int srcRank) const;                      \
  template <class T> __device__ T shfl_down(T var, unsigned int delta) const;          \
  template <class T> __device__ T shfl_up(T var, unsigned int delta) const;            \
  template <class T> __device__ T shfl_xor(T var, unsigned int laneMask) const;        \
  template <class T> __device__ unsigned int match_any(T val) const;                   \
  template <class T> __device__ unsigned int match_all(T val, int &pred) const;
class coalesced_group : public thread_group {
public:
  __CL_WARP_MEMBERS
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
};
__device__ coalesced_group coalesced_threads();

template <unsigned int Size, typename ParentT = void>
class thread_block_tile : public thread_group {
public:
  __device__ thread_block_tile();
  template <class P> __device__ thread_block_tile(const thread_block_tile<Size, P> &other);
  __CL_WARP_MEMBERS
  __device__ static constexpr unsigned int size() { return Size; }
  __device__ static constexpr unsigned int num_threads() { return Size; }
};
#undef __CL_WARP_MEMBERS
template <unsigned int Size, typename ParentT>
__device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent);
__device__ thread_group tiled_partition(const thread_group &parent, unsigned int tilesz);
__device__ thread_group tiled_partition(const thread_block &parent, unsigned int tilesz);
template <class TyGroup> __device__ void sync(const TyGroup &group);
/* divergent partitions of a warp: the threads of equal predicate (label) form one group */
__device__ coalesced_group binary_partition(const coalesced_group &parent, bool pred);
template <unsigned int Size, typename ParentT>
__device__ coalesced_group binary_partition(const thread_block_tile<Size, ParentT> &parent, bool pred);
template <typename TyPredicate> __device__ coalesced_group labeled_partition(const coalesced_group &parent, TyPredicate label);
template <typename TyPredicate, unsigned int Size, typename ParentT>
__device__ coalesced_group labeled_partition(const thread_block_tile<Size, ParentT> &parent, TyPredicate label);
/* scratch for tiles larger than a warp; empty, as on sm_80 and later where CG keeps it in reserved shared memory */
template <unsigned int MaxBlockSize = 1024> struct __align__(8) block_tile_memory {};
template <unsigned int MaxBlockSize> __device__ thread_block this_thread_block(block_tile_memory<MaxBlockSize> &scratch);
/* the spelling of early releases, still accepted by GPUVerify's headers and older code */
template <class TyGroup> __device__ void synchronize(const TyGroup &group);

/* functors for cg::reduce / cg::inclusive_scan */
#define __CL_CG_OP(name) template <class T> struct name { __device__ T operator()(const T &a, const T &b) const; };
__CL_CG_OP(plus) __CL_CG_OP(less) __CL_CG_OP(greater) __CL_CG_OP(bit_and) __CL_CG_OP(bit_or)
__CL_CG_OP(bit_xor)
#undef __CL_CG_OP
} // namespace cooperative_groups
#endif
