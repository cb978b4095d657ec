"""Use after free (CUDA405).

## What it does
Flags a `cudaMemcpy`/`cudaMemset` (and their async, 2D and peer forms, `memcpy`, `memset`) or a
kernel launch that passes a pointer whose allocation has already been released on every path
the host walk takes to that call — through the same variable or an alias of it, or through a
helper of the same file that frees its argument. A pointer released on some paths only, nulled
(`d = nullptr`) or allocated again before the use, is not flagged.

## Why is this bad?
After `cudaFree` the address may be handed out again (to the next `cudaMalloc`, another
stream's `cudaMallocAsync`): a copy through the stale pointer fails with
`cudaErrorInvalidValue` at best, and at worst writes into someone else's live buffer. A kernel
launched with it faults with an illegal address, or silently reads another allocation.

## Example
```cuda
  cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_out);
  ...
  cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost);   // d_out was released above
```

## Use instead
Release a buffer after its last use (a cleanup block at the end of the function), and null the
pointer when it is released early:
```cuda
  cudaFree(d_out);
  d_out = nullptr;
```

## GPU confirmation
`--confirm` builds the file's `main` and runs it under `compute-sanitizer --tool memcheck`: the
copy through the released pointer is reported as a failing API call in the flagged function.
"""

from __future__ import annotations

from cudalint.findings import Related
from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.hostflow import analyze_file
    for fn, flow in analyze_file(ctx):
        for u in flow.uses_after_free:
            what = f"kernel `{u.use}`" if u.use not in ("memcpy", "memset") and not u.use.startswith("cuda") \
                else f"`{u.use}`"
            msg = (f"{what} uses `{u.name}` after `{u.release}` released it at line {u.release_loc.line}, on every "
                   f"path here (allocated by `{u.alloc}` at line {u.alloc_loc.line})")
            related = [Related(u.release_loc.path, u.release_loc.line, u.release_loc.column, "released here"),
                       Related(u.alloc_loc.path, u.alloc_loc.line, u.alloc_loc.column,
                               f"`{u.name}` allocated here by `{u.alloc}`")]
            yield RULE.finding(u.use_loc, msg, related=related, properties=(("function", fn.name),))


RULE = make_rule(__doc__, code="CUDA405", name="use-after-free", category="use-after-free",
                 severity="error", summary="A copy, memset or launch through a pointer already released",
                 check=check, precision="high", tags=("correctness", "host", "memory"))
