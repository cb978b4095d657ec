/* cub/warp/warp_reduce.cuh - cudalint's parse-only stand-in: everything lives in cub/cub.cuh. */
#include "../cub.cuh"
