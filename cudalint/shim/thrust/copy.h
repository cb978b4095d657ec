/* thrust/copy.h - cudalint's parse-only stand-in: everything lives in thrust/thrust_shim.h. */
#include "thrust_shim.h"
