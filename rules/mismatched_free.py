"""Mismatched free (CUDA403).

## What it does
Flags a release call that does not belong to the allocation it releases: pinned host memory
(`cudaMallocHost`, `cudaHostAlloc`) needs `cudaFreeHost`; device memory (`cudaMalloc`,
`cudaMallocManaged`, `cudaMallocPitch`, `cudaMalloc3D`) needs `cudaFree`; stream-ordered memory
(`cudaMallocAsync`, `cudaMallocFromPoolAsync`) needs `cudaFreeAsync` or `cudaFree`; CUDA arrays
need `cudaFreeArray`; `malloc` needs `free`, `new[]` needs `delete[]`. A device pointer given to
`free`, or host memory given to `cudaFree`, is flagged too. The wrong release ends the
allocation's obligation, so it is reported once, not also as a leak. The pairing follows
allocations and releases through helpers of the same file (`cudaMallocHost` in one function,
`cudaFree` in another); two `switch`es or `if`s on the same unchanged value take matching
branches, so a release in one case never meets the allocation of another.

## Why is this bad?
The wrong call fails (`cudaErrorInvalidValue`) and the memory leaks, or — for `free()` of a
device pointer — the C library aborts the process or corrupts its heap.

## Example
```cuda
  float* h = nullptr;
  cudaMallocHost(&h, BYTES);
  ...
  cudaFree(h);            // pinned memory: must be cudaFreeHost
```

## Use instead
```cuda
  cudaFreeHost(h);
```

## GPU confirmation
Execute the release: the CUDA call returns `cudaErrorInvalidValue` (printed by the fixture's
`main`), and `free()` of a device pointer kills the process.
"""

from __future__ import annotations

from cudalint.findings import Related
from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.hostflow import analyze_file
    from cudalint.analysis.hostkinds import KIND_NAMES, RIGHT_RELEASE
    for fn, flow in analyze_file(ctx):
        for mm in flow.mismatches:
            msg = (f"`{mm.release}` releases `{mm.name}`, which is {KIND_NAMES[mm.kind]} from `{mm.alloc}` at "
                   f"line {mm.alloc_loc.line}; it must be released with `{RIGHT_RELEASE[mm.kind]}`")
            related = [Related(mm.alloc_loc.path, mm.alloc_loc.line, mm.alloc_loc.column,
                               f"`{mm.name}` allocated here by `{mm.alloc}`")]
            yield RULE.finding(mm.release_loc, msg, related=related, properties=(("function", fn.name),))


RULE = make_rule(__doc__, code="CUDA403", name="mismatched-free", category="mismatched-free",
                 severity="error", summary="An allocation is released with a call that does not belong to it",
                 check=check, precision="high", tags=("correctness", "host", "memory"))
