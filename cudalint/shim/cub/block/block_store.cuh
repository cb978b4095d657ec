/* cub/block/block_store.cuh - cudalint's parse-only stand-in: everything lives in cub/cub.cuh. */
#include "../cub.cuh"
