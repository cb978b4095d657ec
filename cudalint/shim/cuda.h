#include "cudalint_shim.h"
