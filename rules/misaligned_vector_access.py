"""Misaligned vector access (CUDA101).

## What it does
Flags loads and stores through `float2`/`float4`/`int4`/`double2`/`half2`/… pointers (and any
other type whose alignment is larger than the memory it views) whose byte offset from an aligned
base is provably not a multiple of the type's alignment for some thread of the launch, whatever
the kernel's arguments and data are.

## Why is this bad?
A vector load compiles to one wide instruction (`LDG.E.128`) that requires an aligned address.
A misaligned one does not load "slowly": the kernel dies with `cudaErrorMisalignedAddress`, and
the CUDA context is unusable afterwards. The bug often hides until an odd-sized tensor or a
sub-view arrives in production.

## Example
```cuda
__global__ void scale(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = *reinterpret_cast<const float4*>(in + i);   // thread 1: byte offset 4
  ...
}
```

## Use instead
Index in units of the vector type, so every offset is a multiple of its size:
```cuda
  float4 v = reinterpret_cast<const float4*>(in)[i];     // byte offset 16*i
```
and handle a tail that is not a multiple of 4 elements with scalar accesses.

## GPU confirmation
`--confirm` launches the kernel with the witness geometry; the launch fails with
`cudaErrorMisalignedAddress`, or `compute-sanitizer --tool memcheck` reports
"Invalid __global__ read of size 16 bytes … is misaligned".
"""

from __future__ import annotations

from cudalint.findings import Related
from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis import alignment
    from cudalint.analysis.geometry import geometries, witness_property
    from cudalint.model import Access
    model, settings = ctx.model, ctx.settings
    for kernel in model.kernels:
        seen = set()
        for acc in kernel.events:
            if not isinstance(acc, Access) or not acc.cast or acc.align <= 1 or acc.loc in seen:
                continue
            for geom in geometries(model, kernel, settings.block_dims, settings.grid_dims,
                                    settings.external_launches):
                if ctx.out_of_time():
                    ctx.skipped.append((f"CUDA101 {kernel.name} line {acc.loc.line}", "file budget spent"))
                    return
                status, w = ctx.per_access("alignment", kernel, acc, geom,
                                           lambda: alignment.find(kernel, acc, geom, settings.solver_timeout_ms))
                if status == "unknown":
                    ctx.skipped.append((f"CUDA101 {kernel.name} line {acc.loc.line}", "solver gave no answer"))
                if w is None:
                    continue
                seen.add(acc.loc)
                verb = {"read": "load", "write": "store"}.get(acc.kind, "atomic")
                what = acc.type_name or f"{acc.width}-byte"
                if w.other is None:
                    why = f"{w.thread} accesses byte offset {w.offset} from the aligned base of `{acc.array.name}`"
                else:
                    args = ", ".join(f"`{d}`" for d in w.data)
                    why = (f"{w.thread} and {w.other} access addresses {w.offset} bytes apart, so one of them "
                           f"is misaligned whatever {args} is")
                msg = (f"misaligned {what} {verb} `{acc.text}`: {why}; {what} needs {acc.align}-byte "
                       f"alignment ({geom.describe()})")
                related = [Related(acc.array.loc.path, acc.array.loc.line, acc.array.loc.column,
                                   f"`{acc.array.name}` declared here")] if acc.array.loc else []
                related += [Related(v.path, v.line, v.column, "called from here") for v in acc.via]
                yield RULE.finding(acc.loc, msg, kernel=kernel.name, related=related,
                                   properties=(("witness", str(w.thread)), ("byte_offset", w.offset), ("access", acc.kind))
                                   + witness_property(w.thread, w.other) + geom.properties())
                break


RULE = make_rule(__doc__, code="CUDA101", name="misaligned-vector-access", category="misaligned-access",
                 severity="error", summary="Vector load/store at an address not aligned to its type",
                 check=check, precision="high", tags=("correctness", "alignment"))
