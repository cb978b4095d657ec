/* cudalint: stddef.h for a libclang without its resource directory (see README.md). */
#ifndef CUDALINT_BUILTIN_STDDEF_H
#define CUDALINT_BUILTIN_STDDEF_H
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef __cplusplus
typedef __WCHAR_TYPE__ wchar_t;
#endif
typedef struct {
  long long __cudalint_ll __attribute__((__aligned__(__alignof__(long long))));
  long double __cudalint_ld __attribute__((__aligned__(__alignof__(long double))));
} max_align_t;
#endif
#undef NULL
#ifdef __cplusplus
#define NULL __null
#else
#define NULL ((void *)0)
#endif
#ifndef offsetof
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
