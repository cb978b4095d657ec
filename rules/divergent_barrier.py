"""Barrier under thread-dependent control flow (CUDA204).

## What it does
Flags a `__syncthreads()` (or cooperative-groups `block.sync()`) that some threads of a block
reach and others do not — under a condition on `threadIdx`, on per-thread data, inside a loop
whose trip count depends on the thread, or after a thread-dependent early `return` — and a
`__syncwarp(mask)` reached by a lane outside `mask`, or not reached by a lane inside it. The
check is a z3 query over two threads of one block; block-uniform conditions
(`if (blockIdx.x > 0)`, kernel arguments) are fine. Two threads that load one address of memory
the kernel never writes load the same value, so a warp that works on one item
(`item = items[warp]; if (degree[item] > 0) { ...; __syncwarp(); }`) takes the branch together;
for `__syncwarp` this holds for memory the kernel updates only atomically too (the lanes read it
in one instruction), for a block barrier it does not (other warps read it at other times).

## Why is this bad?
CUDA requires every thread of the block to reach the same `__syncthreads()`. When some do not,
the behaviour is undefined: the kernel can hang, or the barrier silently orders nothing, and
the shared-memory data the barrier was meant to protect is raced on.

## Example
```cuda
for (int s = blockDim.x / 2; s > 0; s >>= 1) {
  if (tid < s) {
    sdata[tid] += sdata[tid + s];
    __syncthreads();              // threads with tid >= s never get here
  }
}
```

## Use instead
Keep the barrier outside the thread-dependent branch:
```cuda
  if (tid < s) sdata[tid] += sdata[tid + s];
  __syncthreads();
```
and replace early returns before a barrier by a guard around the work.

## GPU confirmation
`compute-sanitizer --tool synccheck` reports "Barrier error detected. Divergent thread(s) in
block" (or "Invalid arguments" for a bad `__syncwarp` mask). On sm_70 and later threads that
exit count as arrived, so a barrier skipped only by threads that then exit is not reported there;
the message says when that is the case (the skipping thread reaches no later barrier), and
`--confirm` says `unsupported` for those.
"""

from __future__ import annotations

from cudalint.findings import calls_through
from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.divergence import divergences
    from cudalint.analysis.geometry import witness_property
    for kernel in ctx.model.kernels:
        for d in divergences(ctx, kernel):
            b = d.barrier
            if d.outside_mask:
                msg = (f"`{b.text}`: {d.reaches} ({d.misses}) reaches it but is not in the mask; "
                       f"every lane that calls __syncwarp must be named in its mask ({d.geometry.describe()})")
            else:
                msg = (f"divergent barrier `{b.text}`: {d.reaches} reaches it but {d.misses} of the same "
                       f"{'warp' if b.kind == 'warp' else 'grid' if b.kind == 'grid' else 'block'} does not ({d.geometry.describe()}); "
                       f"move the barrier out of the thread-dependent branch, loop or early return")
                if d.skipper_exits:
                    msg += ("; the threads that skip it reach no later barrier and exit, which sm_70 and later "
                            "count as arriving (no hang there), but CUDA leaves it undefined")
            related = calls_through(b)
            props = (("barrier", b.kind),) + ((("skipping_threads", "exit"),) if d.skipper_exits else ()) \
                + d.geometry.properties() \
                + witness_property(d.reaches, d.misses) + ((("witness_scalars", d.scalars),) if d.scalars else ())
            yield RULE.finding(b.loc, msg, kernel=kernel.name, related=related, properties=props)


RULE = make_rule(__doc__, code="CUDA204", name="divergent-barrier", category="barrier-divergence",
                 severity="error", summary="A barrier that not all threads of the block (or warp mask) reach",
                 check=check, precision="high", tags=("correctness", "barrier"))
