/* cudalint: empty stand-in for a header that clang 22 includes but CUDA 13 no longer ships */
