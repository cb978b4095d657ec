"""What the host analyses know about allocation and release calls, and the results they report."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cudalint.model import Loc

ALLOC_OUT = {  # allocation written through the first argument
    "cudaMalloc": "device", "cudaMallocManaged": "managed", "cudaMallocPitch": "device",
    "cudaMalloc3D": "device", "cudaMallocHost": "pinned", "cudaHostAlloc": "pinned",
    "cudaMallocAsync": "async", "cudaMallocFromPoolAsync": "async", "cudaMallocArray": "array",
    "cudaMalloc3DArray": "array", "cudaMallocMipmappedArray": "mipmapped",
}
ALLOC_RET = {"malloc": "malloc", "calloc": "malloc", "aligned_alloc": "malloc"}
RELEASE = {
    "cudaFree": {"device", "managed", "async"},
    "cudaFreeAsync": {"device", "managed", "async"},
    "cudaFreeHost": {"pinned"},
    "cudaFreeArray": {"array"},
    "cudaFreeMipmappedArray": {"mipmapped"},
    "free": {"malloc"},
    "delete": {"new"},
    "delete[]": {"new[]"},
}
CUDA_KINDS = {"device", "managed", "pinned", "async", "array", "mipmapped"}
KIND_NAMES = {"device": "device memory", "managed": "managed memory", "pinned": "pinned host memory",
              "async": "stream-ordered device memory", "array": "a CUDA array",
              "mipmapped": "a mipmapped CUDA array", "malloc": "malloc'd host memory",
              "new": "`new` memory", "new[]": "`new[]` memory"}
RIGHT_RELEASE = {"device": "cudaFree", "managed": "cudaFree", "async": "cudaFreeAsync",
                 "pinned": "cudaFreeHost", "array": "cudaFreeArray", "mipmapped": "cudaFreeMipmappedArray",
                 "malloc": "free", "new": "delete", "new[]": "delete[]"}
API = re.compile(r"^(cuda|cublas|cusparse|cufft|curand|cusolver|nccl|cu)[A-Z]")
API_OWNING = {"cudaLaunchHostFunc", "cudaStreamAddCallback", "cudaGraphAddMemFreeNode",
              "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelExC"}
HARMLESS = {"printf", "fprintf", "sprintf", "snprintf", "puts", "fputs", "fflush", "memcpy", "memset",
            "memcmp", "memmove", "strlen", "assert", "dim3", "get", "data", "size"}
SYNC_ALL = {"cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaMemcpy", "cudaMemcpy2D",
            "cudaMemcpy3D", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol", "cudaFree", "cudaFreeHost",
            "cudaDeviceReset"}
ASYNC_D2H = {"cudaMemcpyAsync", "cudaMemcpy2DAsync", "cudaMemcpyFromSymbolAsync", "cudaMemcpyPeerAsync"}
# what these report when they fail is most likely the CUDA call just before them
LAST_ERROR = {"cudaGetLastError", "cudaPeekAtLastError"}
MEMORY_CALLS = set(ALLOC_OUT) | set(ALLOC_RET) | set(RELEASE) | ASYNC_D2H


# calls that read or write through their pointer arguments: a released pointer there is used after free
USES = frozenset({"cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync", "cudaMemcpy2D",
                  "cudaMemcpy2DAsync", "cudaMemset2D", "cudaMemset2DAsync", "cudaMemPrefetchAsync",
                  "cudaMemcpyPeer", "cudaMemcpyPeerAsync", "memcpy", "memset"})


def is_api(name: str) -> bool:
    """A CUDA library call that uses a pointer without taking it over."""
    return bool(API.match(name)) and name not in API_OWNING


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True)
class MemoryLeak:
    name: str
    kind: str
    alloc: str  # the allocating call
    alloc_loc: Loc
    exit_loc: Loc
    implicit: bool  # fell off the end
    path: tuple  # decisions after the allocation, as text
    in_main: bool = False  # lives until the process exits
    overwritten_by: str | None = None  # the later allocation or assignment that lost it
    fails: tuple = ()  # (call name, Loc): the calls whose failure the path takes, in order


@dataclass(frozen=True)
class DoubleFree:
    name: str
    alloc: str
    alloc_loc: Loc
    first: str
    first_loc: Loc
    second: str
    second_loc: Loc
    path: tuple = ()  # decisions between the two releases


@dataclass(frozen=True)
class Mismatch:
    name: str
    kind: str
    alloc: str
    alloc_loc: Loc
    release: str
    release_loc: Loc


@dataclass(frozen=True)
class Unsync:
    var: str
    access_loc: Loc
    text: str
    write: bool
    source: str  # the call that may still be writing
    source_loc: Loc
    stream: str
    path: tuple = ()  # decisions between the write and the access


@dataclass
class UseAfterFree:
    name: str
    use: str  # the call that uses the pointer
    use_loc: Loc
    release: str
    release_loc: Loc
    alloc: str
    alloc_loc: Loc


@dataclass
class FlowResult:
    leaks: list
    double_frees: list
    mismatches: list
    unsync: list
    truncated: bool = False
    outcomes: list | None = None  # per returning path, for the function's summary (summaries.py)
    uses: dict = field(default_factory=dict)  # (call id, variable) -> UseAfterFree, or None once a path
    # reaches the use with the pointer not released

    @property
    def uses_after_free(self) -> list:
        """Uses reached only with their pointer released: on every path the walk took to them."""
        return [u for u in self.uses.values() if u is not None]
