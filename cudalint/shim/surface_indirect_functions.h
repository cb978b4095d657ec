/* surface_indirect_functions.h - cudalint's parse-only stand-in: see texture_indirect_functions.h. */
#include "texture_indirect_functions.h"
