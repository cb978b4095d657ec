// GPUVerify's specification language, declared so that kernels annotated for GPUVerify parse.
// cudalint adds this header (-include) only to files that use one of these names. The
// annotations are read as no-ops: they state what GPUVerify should assume or prove.
#pragma once
__device__ void __requires(bool);
__device__ void __ensures(bool);
__device__ void __assume(bool);
__device__ void __assert(bool);
__device__ void __invariant(bool);
__device__ void __global_invariant(bool);
__device__ void __global_requires(bool);
__device__ void __global_ensures(bool);
__device__ void __function_wide_invariant(bool);
__device__ void __barrier_invariant(bool, ...);
__device__ void __requires_fresh_array(const volatile void*);
__device__ bool __implies(bool, bool);
__device__ bool __enabled();
__device__ bool __uniform_bool(bool);
__device__ bool __uniform_int(int);
__device__ bool __distinct_int(int);
__device__ bool __distinct_bool(bool);
__device__ int __other_int(int);
__device__ bool __other_bool(bool);
__device__ bool __same_group();
__device__ bool __read(const volatile void*);
__device__ bool __write(const volatile void*);
__device__ bool __no_read(const volatile void*);
__device__ bool __no_write(const volatile void*);
__device__ bool __read_implies(const volatile void*, bool);
__device__ bool __write_implies(const volatile void*, bool);
__device__ int __read_offset_bytes(const volatile void*);
__device__ int __write_offset_bytes(const volatile void*);
__device__ int __ptr_offset_bytes(const volatile void*);
__device__ int __return_val_int();
__device__ bool __return_val_bool();
__device__ int __old_int(int);
__device__ bool __mod_pow2(unsigned);
__device__ bool __is_pow2(unsigned);
// A file-scope `__axiom(e);` (an assumption on the launch): kept as a harmless declaration.
#define __axiom(e) static_assert(true, "GPUVerify axiom")
