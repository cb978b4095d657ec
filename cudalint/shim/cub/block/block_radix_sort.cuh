/* cub/block/block_radix_sort.cuh - cudalint's parse-only stand-in: everything lives in cub/cub.cuh. */
#include "../cub.cuh"
