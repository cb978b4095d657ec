/* library_types.h - cudalint's parse-only stand-in: cudaDataType lives in driver_types.h here. */
#include "cudalint_shim.h"
#ifndef CUDALINT_LIBRARY_TYPES_H
#define CUDALINT_LIBRARY_TYPES_H
typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
#endif
