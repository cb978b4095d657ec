/* cub/cub.cuh - cudalint's parse-only stand-in for CUB (block, warp and device primitives). */
#include "cudalint_shim.h"
#ifndef CUDALINT_CUB_CUH
#define CUDALINT_CUB_CUH
/* TempStorage sizes are plausible stand-ins, not CUB's exact layouts. */
#define CUB_VERSION 200800
#define CCCL_MAJOR_VERSION 2
#define CCCL_MINOR_VERSION 8
#define CCCL_PATCH_VERSION 0
#define CUB_PTX_ARCH 0
#define CUB_RUNTIME_FUNCTION __host__ __device__
#define CUB_NAMESPACE_BEGIN namespace cub {
#define CUB_NAMESPACE_END }
namespace cub {
struct NullType {};
struct Sum { template <class T> __host__ __device__ T operator()(const T &a, const T &b) const; };
struct Max { template <class T> __host__ __device__ T operator()(const T &a, const T &b) const; };
struct Min { template <class T> __host__ __device__ T operator()(const T &a, const T &b) const; };
template <class T> struct Uninitialized { T storage; __device__ T &Alias(); };
template <class KeyT, class ValueT> struct KeyValuePair { KeyT key; ValueT value; };
template <class T> struct DoubleBuffer {
  T *d_buffers[2]; int selector;
  __host__ __device__ DoubleBuffer();
  __host__ __device__ DoubleBuffer(T *d_current, T *d_alternate);
  __host__ __device__ T *Current();
  __host__ __device__ T *Alternate();
};
template <class T> __host__ __device__ constexpr T DivideAndRoundUp(T n, T d) { return (n + d - 1) / d; }

enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING,
                            BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };
enum BlockLoadAlgorithm { BLOCK_LOAD_DIRECT, BLOCK_LOAD_STRIPED, BLOCK_LOAD_VECTORIZE,
                          BLOCK_LOAD_TRANSPOSE, BLOCK_LOAD_WARP_TRANSPOSE,
                          BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED };
enum BlockStoreAlgorithm { BLOCK_STORE_DIRECT, BLOCK_STORE_STRIPED, BLOCK_STORE_VECTORIZE,
                           BLOCK_STORE_TRANSPOSE, BLOCK_STORE_WARP_TRANSPOSE,
                           BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED };
enum CacheLoadModifier { LOAD_DEFAULT, LOAD_CA, LOAD_CG, LOAD_CS, LOAD_CV, LOAD_LDG, LOAD_VOLATILE };

template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
public:
  struct TempStorage { T warp_aggregates[(BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z + 31) / 32 + 1]; };
  __device__ BlockReduce();
  __device__ BlockReduce(TempStorage &temp_storage);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op, int num_valid);
  template <int ITEMS_PER_THREAD, class ReductionOp>
  __device__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op);
  __device__ T Sum(T input);
  __device__ T Sum(T input, int num_valid);
  template <int ITEMS_PER_THREAD> __device__ T Sum(T (&inputs)[ITEMS_PER_THREAD]);
};

template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
public:
  struct TempStorage { T raking[BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z + 32]; };
  __device__ BlockScan();
  __device__ BlockScan(TempStorage &temp_storage);
  __device__ void InclusiveSum(T input, T &output);
  __device__ void InclusiveSum(T input, T &output, T &block_aggregate);
  __device__ void ExclusiveSum(T input, T &output);
  __device__ void ExclusiveSum(T input, T &output, T &block_aggregate);
  template <class PrefixOp> __device__ void InclusiveSum(T input, T &output, PrefixOp &prefix_op);
  template <class PrefixOp> __device__ void ExclusiveSum(T input, T &output, PrefixOp &prefix_op);
  template <int N> __device__ void InclusiveSum(T (&input)[N], T (&output)[N]);
  template <int N> __device__ void InclusiveSum(T (&input)[N], T (&output)[N], T &block_aggregate);
  template <int N> __device__ void ExclusiveSum(T (&input)[N], T (&output)[N]);
  template <int N> __device__ void ExclusiveSum(T (&input)[N], T (&output)[N], T &block_aggregate);
  template <class ScanOp> __device__ void InclusiveScan(T input, T &output, ScanOp scan_op);
  template <class ScanOp> __device__ void InclusiveScan(T input, T &output, ScanOp scan_op, T &block_aggregate);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &output, T initial_value, ScanOp scan_op);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &output, T initial_value, ScanOp scan_op,
                                                        T &block_aggregate);
  template <int N, class ScanOp> __device__ void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op);
  template <int N, class ScanOp> __device__ void ExclusiveScan(T (&input)[N], T (&output)[N], T initial_value,
                                                               ScanOp scan_op);
};

template <class T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
public:
  struct TempStorage { T reduce[LOGICAL_WARP_THREADS + LOGICAL_WARP_THREADS / 2]; };
  __device__ WarpReduce(TempStorage &temp_storage);
  __device__ T Sum(T input);
  __device__ T Sum(T input, int valid_items);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op, int valid_items);
  template <class FlagT> __device__ T HeadSegmentedSum(T input, FlagT head_flag);
  template <class FlagT> __device__ T TailSegmentedSum(T input, FlagT tail_flag);
};

template <class T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpScan {
public:
  struct TempStorage { T scan[LOGICAL_WARP_THREADS]; };
  __device__ WarpScan(TempStorage &temp_storage);
  __device__ void InclusiveSum(T input, T &inclusive_output);
  __device__ void InclusiveSum(T input, T &inclusive_output, T &warp_aggregate);
  __device__ void ExclusiveSum(T input, T &exclusive_output);
  __device__ void ExclusiveSum(T input, T &exclusive_output, T &warp_aggregate);
  template <class ScanOp> __device__ void InclusiveScan(T input, T &inclusive_output, ScanOp scan_op);
  template <class ScanOp> __device__ void ExclusiveScan(T input, T &exclusive_output, T initial_value, ScanOp scan_op);
  __device__ T Broadcast(T input, unsigned int src_lane);
};

template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockLoad {
public:
  struct TempStorage { T buff[BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD]; };
  __device__ BlockLoad();
  __device__ BlockLoad(TempStorage &temp_storage);
  template <class InputIteratorT> __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]);
  template <class InputIteratorT> __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD],
                                                       int valid_items);
  template <class InputIteratorT, class DefaultT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items, DefaultT oob_default);
};

template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockStore {
public:
  struct TempStorage { T buff[BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD]; };
  __device__ BlockStore();
  __device__ BlockStore(TempStorage &temp_storage);
  template <class OutputIteratorT> __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]);
  template <class OutputIteratorT> __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD],
                                                         int valid_items);
};

template <class KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, class ValueT = NullType, int RADIX_BITS = 4,
          bool MEMOIZE_OUTER_SCAN = true, BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS,
          int SMEM_CONFIG = 0, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockRadixSort {
public:
  struct TempStorage { KeyT keys[BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z * ITEMS_PER_THREAD]; };
  __device__ BlockRadixSort();
  __device__ BlockRadixSort(TempStorage &temp_storage);
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8);
  __device__ void Sort(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD], int begin_bit = 0,
                       int end_bit = sizeof(KeyT) * 8);
  __device__ void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], int begin_bit = 0, int end_bit = sizeof(KeyT) * 8);
  __device__ void SortDescending(KeyT (&keys)[ITEMS_PER_THREAD], ValueT (&values)[ITEMS_PER_THREAD],
                                 int begin_bit = 0, int end_bit = sizeof(KeyT) * 8);
};

/* device-wide algorithms: (d_temp_storage, temp_storage_bytes, ...); the remaining arguments
   (iterators, counts, operators, bit ranges, stream) are accepted as they come */
#define __CL_CUB_DEVICE(name) template <class... Args> \
  static __host__ cudaError_t name(void *d_temp_storage, size_t &temp_storage_bytes, Args &&...args);
struct DeviceReduce {
  __CL_CUB_DEVICE(Sum) __CL_CUB_DEVICE(Max) __CL_CUB_DEVICE(Min) __CL_CUB_DEVICE(Reduce)
  __CL_CUB_DEVICE(ArgMax) __CL_CUB_DEVICE(ArgMin) __CL_CUB_DEVICE(ReduceByKey)
  __CL_CUB_DEVICE(TransformReduce)
};
struct DeviceSegmentedReduce {
  __CL_CUB_DEVICE(Sum) __CL_CUB_DEVICE(Max) __CL_CUB_DEVICE(Min) __CL_CUB_DEVICE(Reduce)
  __CL_CUB_DEVICE(ArgMax) __CL_CUB_DEVICE(ArgMin)
};
struct DeviceScan {
  __CL_CUB_DEVICE(InclusiveSum) __CL_CUB_DEVICE(ExclusiveSum) __CL_CUB_DEVICE(InclusiveScan)
  __CL_CUB_DEVICE(ExclusiveScan) __CL_CUB_DEVICE(InclusiveSumByKey) __CL_CUB_DEVICE(ExclusiveSumByKey)
  __CL_CUB_DEVICE(InclusiveScanByKey) __CL_CUB_DEVICE(ExclusiveScanByKey)
};
struct DeviceRadixSort {
  __CL_CUB_DEVICE(SortPairs) __CL_CUB_DEVICE(SortPairsDescending) __CL_CUB_DEVICE(SortKeys)
  __CL_CUB_DEVICE(SortKeysDescending)
};
struct DeviceSegmentedRadixSort {
  __CL_CUB_DEVICE(SortPairs) __CL_CUB_DEVICE(SortPairsDescending) __CL_CUB_DEVICE(SortKeys)
  __CL_CUB_DEVICE(SortKeysDescending)
};
struct DeviceSegmentedSort {
  __CL_CUB_DEVICE(SortPairs) __CL_CUB_DEVICE(SortPairsDescending) __CL_CUB_DEVICE(SortKeys)
  __CL_CUB_DEVICE(SortKeysDescending) __CL_CUB_DEVICE(StableSortPairs)
  __CL_CUB_DEVICE(StableSortPairsDescending) __CL_CUB_DEVICE(StableSortKeys)
};
struct DeviceSelect {
  __CL_CUB_DEVICE(If) __CL_CUB_DEVICE(Flagged) __CL_CUB_DEVICE(Unique) __CL_CUB_DEVICE(UniqueByKey)
};
struct DevicePartition { __CL_CUB_DEVICE(If) __CL_CUB_DEVICE(Flagged) };
struct DeviceHistogram { __CL_CUB_DEVICE(HistogramEven) __CL_CUB_DEVICE(HistogramRange) };
struct DeviceRunLengthEncode { __CL_CUB_DEVICE(Encode) __CL_CUB_DEVICE(NonTrivialRuns) };
#undef __CL_CUB_DEVICE
} // namespace cub
#endif
