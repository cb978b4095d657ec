/* mma.h - cudalint's parse-only stand-in: nvcuda::wmma (fragment sizes are approximate). */
#include "cudalint_shim.h"
#ifndef CUDALINT_MMA_H
#define CUDALINT_MMA_H
#include "cuda_fp16.h"
#include "cuda_bf16.h"
namespace nvcuda {
namespace wmma {
struct row_major; struct col_major;
struct matrix_a; struct matrix_b; struct accumulator;
enum layout_t { mem_row_major, mem_col_major };
namespace precision { struct tf32; struct b1; struct u4; struct s4; }
namespace experimental { namespace precision { struct u4; struct s4; struct b1; }
  enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 }; enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 }; }
template <class T> struct __cl_elem { typedef T type; };
template <> struct __cl_elem<precision::tf32> { typedef float type; };
template <class Use, int m, int n, int k> struct __cl_count;
template <int m, int n, int k> struct __cl_count<matrix_a, m, n, k> { enum { value = m * k / 32 }; };
template <int m, int n, int k> struct __cl_count<matrix_b, m, n, k> { enum { value = k * n / 32 }; };
template <int m, int n, int k> struct __cl_count<accumulator, m, n, k> { enum { value = m * n / 32 }; };
template <class Use, int m, int n, int k, class T, class Layout = void>
class fragment {
public:
  typedef typename __cl_elem<T>::type element_type;
  enum { num_elements = __cl_count<Use, m, n, k>::value };
  element_type x[num_elements];
};
template <class Use, int m, int n, int k, class T, class Layout>
__device__ void fill_fragment(fragment<Use, m, n, k, T, Layout> &a, const typename __cl_elem<T>::type &v);
template <class Use, int m, int n, int k, class T, class Layout, class P>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T, Layout> &a, const P *p, unsigned ldm);
template <int m, int n, int k, class T, class P>
__device__ void load_matrix_sync(fragment<accumulator, m, n, k, T, void> &a, const P *p, unsigned ldm,
                                 layout_t layout);
template <int m, int n, int k, class T, class P>
__device__ void store_matrix_sync(P *p, const fragment<accumulator, m, n, k, T, void> &a, unsigned ldm,
                                  layout_t layout);
template <int m, int n, int k, class Ta, class La, class Tb, class Lb, class Tc, class Td>
__device__ void mma_sync(fragment<accumulator, m, n, k, Td, void> &d,
                         const fragment<matrix_a, m, n, k, Ta, La> &a,
                         const fragment<matrix_b, m, n, k, Tb, Lb> &b,
                         const fragment<accumulator, m, n, k, Tc, void> &c, bool satf = false);
__device__ float __float_to_tf32(float in);
} // namespace wmma
} // namespace nvcuda
#endif
