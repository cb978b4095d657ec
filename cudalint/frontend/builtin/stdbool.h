/* cudalint: stdbool.h for a libclang without its resource directory (see README.md). */
#ifndef __cplusplus
#define bool _Bool
#define true 1
#define false 0
#endif
#define __bool_true_false_are_defined 1
