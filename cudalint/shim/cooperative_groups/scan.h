/* cooperative_groups/scan.h - cudalint's parse-only stand-in: the scans live in reduce.h here. */
#include "reduce.h"
