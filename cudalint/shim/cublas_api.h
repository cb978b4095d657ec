/* cublas_api.h - cudalint's parse-only stand-in: forwards to cublas_v2.h. */
#include "cublas_v2.h"
