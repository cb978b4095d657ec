/* texture_indirect_functions.h - cudalint's parse-only stand-in: fetches through texture objects
   and reads and writes through surface objects, in both the value-returning and the
   out-parameter forms. */
#include "cudalint_shim.h"
#ifndef CUDALINT_TEXTURE_INDIRECT_FUNCTIONS_H
#define CUDALINT_TEXTURE_INDIRECT_FUNCTIONS_H
#include "texture_types.h"
#ifdef __cplusplus
template <class T> __device__ T tex1Dfetch(cudaTextureObject_t t, int x);
template <class T> __device__ void tex1Dfetch(T *r, cudaTextureObject_t t, int x);
template <class T> __device__ T tex1D(cudaTextureObject_t t, float x);
template <class T> __device__ void tex1D(T *r, cudaTextureObject_t t, float x);
template <class T> __device__ T tex2D(cudaTextureObject_t t, float x, float y);
template <class T> __device__ void tex2D(T *r, cudaTextureObject_t t, float x, float y);
template <class T> __device__ T tex3D(cudaTextureObject_t t, float x, float y, float z);
template <class T> __device__ void tex3D(T *r, cudaTextureObject_t t, float x, float y, float z);
template <class T> __device__ T tex1DLayered(cudaTextureObject_t t, float x, int layer);
template <class T> __device__ T tex2DLayered(cudaTextureObject_t t, float x, float y, int layer);
template <class T> __device__ T texCubemap(cudaTextureObject_t t, float x, float y, float z);
template <class T> __device__ T texCubemapLayered(cudaTextureObject_t t, float x, float y, float z, int layer);
template <class T> __device__ T tex2Dgather(cudaTextureObject_t t, float x, float y, int comp = 0);
template <class T> __device__ T tex1DLod(cudaTextureObject_t t, float x, float level);
template <class T> __device__ T tex2DLod(cudaTextureObject_t t, float x, float y, float level);
template <class T> __device__ T tex3DLod(cudaTextureObject_t t, float x, float y, float z, float level);
template <class T> __device__ T tex1DGrad(cudaTextureObject_t t, float x, float dx, float dy);
template <class T> __device__ T tex2DGrad(cudaTextureObject_t t, float x, float y, float2 dx, float2 dy);
template <class T> __device__ T tex3DGrad(cudaTextureObject_t t, float x, float y, float z, float4 dx, float4 dy);

#define CUDALINT_SURF_MODE enum cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap
template <class T> __device__ T surf1Dread(cudaSurfaceObject_t s, int x, CUDALINT_SURF_MODE);
template <class T> __device__ void surf1Dread(T *r, cudaSurfaceObject_t s, int x, CUDALINT_SURF_MODE);
template <class T> __device__ void surf1Dwrite(T v, cudaSurfaceObject_t s, int x, CUDALINT_SURF_MODE);
template <class T> __device__ T surf2Dread(cudaSurfaceObject_t s, int x, int y, CUDALINT_SURF_MODE);
template <class T> __device__ void surf2Dread(T *r, cudaSurfaceObject_t s, int x, int y, CUDALINT_SURF_MODE);
template <class T> __device__ void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y, CUDALINT_SURF_MODE);
template <class T> __device__ T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z, CUDALINT_SURF_MODE);
template <class T> __device__ void surf3Dread(T *r, cudaSurfaceObject_t s, int x, int y, int z, CUDALINT_SURF_MODE);
template <class T> __device__ void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z, CUDALINT_SURF_MODE);
template <class T> __device__ T surf1DLayeredread(cudaSurfaceObject_t s, int x, int layer, CUDALINT_SURF_MODE);
template <class T> __device__ void surf1DLayeredwrite(T v, cudaSurfaceObject_t s, int x, int layer, CUDALINT_SURF_MODE);
template <class T> __device__ T surf2DLayeredread(cudaSurfaceObject_t s, int x, int y, int layer, CUDALINT_SURF_MODE);
template <class T> __device__ void surf2DLayeredwrite(T v, cudaSurfaceObject_t s, int x, int y, int layer,
                                                      CUDALINT_SURF_MODE);
template <class T> __device__ T surfCubemapread(cudaSurfaceObject_t s, int x, int y, int face, CUDALINT_SURF_MODE);
template <class T> __device__ void surfCubemapwrite(T v, cudaSurfaceObject_t s, int x, int y, int face,
                                                    CUDALINT_SURF_MODE);
#undef CUDALINT_SURF_MODE
#endif
#endif
