/* texture_types.h - cudalint's parse-only stand-in: texture and surface objects (types and the
   host API that creates them). The texture references CUDA 12 removed are not declared, as the
   toolkit no longer declares them either. */
#include "cudalint_shim.h"
#ifndef CUDALINT_TEXTURE_TYPES_H
#define CUDALINT_TEXTURE_TYPES_H
#define __TEXTURE_TYPES_H__
#define __SURFACE_TYPES_H__
#include "driver_types.h"

#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceTypeCubemap 0x0C
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2
#define cudaSurfaceTypeCubemapLayered 0xFC

enum cudaResourceType {
  cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1, cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3
};
enum cudaResourceViewFormat {
  cudaResViewFormatNone = 0, cudaResViewFormatUnsignedChar1 = 1, cudaResViewFormatUnsignedChar2 = 2,
  cudaResViewFormatUnsignedChar4 = 3, cudaResViewFormatSignedChar1 = 4, cudaResViewFormatSignedChar2 = 5,
  cudaResViewFormatSignedChar4 = 6, cudaResViewFormatUnsignedShort1 = 7, cudaResViewFormatUnsignedShort2 = 8,
  cudaResViewFormatUnsignedShort4 = 9, cudaResViewFormatSignedShort1 = 10, cudaResViewFormatSignedShort2 = 11,
  cudaResViewFormatSignedShort4 = 12, cudaResViewFormatUnsignedInt1 = 13, cudaResViewFormatUnsignedInt2 = 14,
  cudaResViewFormatUnsignedInt4 = 15, cudaResViewFormatSignedInt1 = 16, cudaResViewFormatSignedInt2 = 17,
  cudaResViewFormatSignedInt4 = 18, cudaResViewFormatHalf1 = 19, cudaResViewFormatHalf2 = 20,
  cudaResViewFormatHalf4 = 21, cudaResViewFormatFloat1 = 22, cudaResViewFormatFloat2 = 23,
  cudaResViewFormatFloat4 = 24
};
struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { cudaMipmappedArray_t mipmap; } mipmap;
    struct { void *devPtr; struct cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
    struct {
      void *devPtr; struct cudaChannelFormatDesc desc; size_t width; size_t height; size_t pitchInBytes;
    } pitch2D;
  } res;
};
struct cudaResourceViewDesc {
  enum cudaResourceViewFormat format;
  size_t width, height, depth;
  unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
};

enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2, cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };
enum cudaSurfaceFormatMode { cudaFormatModeForced = 0, cudaFormatModeAuto = 1 };

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc, cudaTextureObject_t texObject);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc, cudaSurfaceObject_t surfObject);
#endif
