/* cuda_device_runtime_api.h - cudalint's parse-only stand-in: its declarations live in cudalint_shim.h. */
#include "cudalint_shim.h"
