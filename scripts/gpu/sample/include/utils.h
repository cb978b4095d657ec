// Stand-in for the `utils.h` that HeCBench's spsort-cuda and sps2d-cuda include from benchmark
// folders the evaluation corpus does not hold. Written for cudalint's GPU confirmation runs (see
// README.md beside this folder); it is not HeCBench code. It gives what those two programs call:
//
//   init_matrix(dense, rows, cols, nnz)          a row-major dense matrix with exactly nnz
//                                                non-zero entries (values in [1, 2))
//   init_csr(offsets, values, columns, dense, rows, cols, nnz)
//                                                that matrix in CSR form, columns ascending
//   shuffle_matrix_data<T, I>(offsets, columns, values, rows, nnz)
//                                                the entries of each row put in another order
//                                                (the offsets are unchanged)
//
// for any value type T and index type I (spsort uses float/int, sps2d float/int64_t). The
// positions and the shuffle come from a fixed-seed generator, so every run sees the same data.
#ifndef CUDALINT_SAMPLE_UTILS_H
#define CUDALINT_SAMPLE_UTILS_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cudalint_sample {

// splitmix64: small, fast, and the same on every platform
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }  // 0 <= r < n
};

}  // namespace cudalint_sample

template <typename T, typename I>
void init_matrix(T *matrix, I num_rows, I num_cols, I nnz)
{
  // selection sampling: walk the cells in order and keep each with probability
  // (still wanted) / (cells left), which keeps exactly min(nnz, cells) of them
  cudalint_sample::Rng rng(0x5eed1234u);
  const uint64_t cells = (uint64_t)num_rows * (uint64_t)num_cols;
  uint64_t wanted = nnz < 0 ? 0 : (uint64_t)nnz;
  if (wanted > cells) wanted = cells;
  for (uint64_t c = 0; c < cells; c++) {
    const uint64_t left = cells - c;
    if (wanted > 0 && rng.below(left) < wanted) {
      matrix[c] = (T)(1.0 + (double)(rng.below(1000) + 1) / 1024.0);
      wanted--;
    } else {
      matrix[c] = (T)0;
    }
  }
}

template <typename T, typename I>
void init_csr(I *row_offsets, T *values, I *col_indices, const T *matrix,
              I num_rows, I num_cols, I nnz)
{
  I k = 0;
  row_offsets[0] = 0;
  for (I r = 0; r < num_rows; r++) {
    for (I c = 0; c < num_cols; c++) {
      const T v = matrix[(uint64_t)r * (uint64_t)num_cols + (uint64_t)c];
      if (v != (T)0 && k < nnz) {
        values[k] = v;
        col_indices[k] = c;
        k++;
      }
    }
    row_offsets[r + 1] = k;
  }
  if (k != nnz)
    fprintf(stderr, "utils.h stand-in: the matrix has %lld non-zeros, %lld asked for\n",
            (long long)k, (long long)nnz);
}

template <typename T, typename I>
void shuffle_matrix_data(I *row_offsets, I *col_indices, T *values, I num_rows, I nnz)
{
  // Fisher-Yates within each row, columns and values moved together
  cudalint_sample::Rng rng(0xc0ffeeu);
  for (I r = 0; r < num_rows; r++) {
    const I begin = row_offsets[r];
    I end = row_offsets[r + 1];
    if (end > nnz) end = nnz;
    for (I i = end - 1; i > begin; i--) {
      const I j = begin + (I)rng.below((uint64_t)(i - begin + 1));
      const I c = col_indices[i]; col_indices[i] = col_indices[j]; col_indices[j] = c;
      const T v = values[i]; values[i] = values[j]; values[j] = v;
    }
  }
}

#endif  // CUDALINT_SAMPLE_UTILS_H
