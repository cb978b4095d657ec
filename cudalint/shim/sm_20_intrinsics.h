/* sm_20_intrinsics.h - cudalint's parse-only stand-in: its declarations live in cudalint_shim.h. */
#include "cudalint_shim.h"
