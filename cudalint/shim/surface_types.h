/* surface_types.h - cudalint's parse-only stand-in: see texture_types.h. */
#include "texture_types.h"
