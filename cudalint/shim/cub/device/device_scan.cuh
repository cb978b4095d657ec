/* cub/device/device_scan.cuh - cudalint's parse-only stand-in: everything lives in cub/cub.cuh. */
#include "../cub.cuh"
