"""Warp-synchronous intrinsic whose mask names lanes that never arrive (CUDA205).

## What it does
Flags a `__shfl*_sync`, `__ballot_sync`, `__any_sync`, `__all_sync`, `__uni_sync`,
`__match_*_sync` or `__reduce_*_sync` call, or the same operation on a cooperative-groups tile
(`tile.shfl_down(v, 1)`, `cg::reduce(tile, v, op)`), when a lane that calls it is not in its
mask, or when the mask (the tile, for the tile forms) names a lane of the same warp that is
still running but does not execute the call: it is on the other side of a thread-dependent
branch, or in a loop whose trip count differs by lane. A z3 query over two lanes of one warp in
the same loop iteration, as CUDA204 asks for `__syncwarp(mask)`. Lanes that have returned
before the call, lanes that skip it with nothing left to run (no memory access, barrier or
warp call after it: they exit, and nvcc places their EXIT before the call), and the lanes past
the end of a partial last warp, do not count (CUDA allows exited threads in a mask; reading
their values is CUDA206); a mask that depends on the thread (`__activemask()`, a ballot's
result) is not checked, and neither is a branch on loaded data.

## Why is this bad?
CUDA requires every calling lane to be in the mask and every non-exited lane the mask names to
execute the same intrinsic with the same mask; otherwise the result is undefined. Since Volta's
independent thread scheduling the lanes of a warp are not in lockstep, so code that "worked"
on Pascal returns garbage, hangs, or differs from run to run — and no NVIDIA tool reports it.

## Example
```cuda
if (threadIdx.x % 32 < 16) {                      // lanes 16..31 never arrive
  for (int o = 8; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffff, v, o);      // ...but the mask names all 32
}
kept[i] = v;                                      // and they are still running
```

## Use instead
Name exactly the lanes that take the branch, or hoist the call out of it:
```cuda
if (threadIdx.x % 32 < 16) {
  for (int o = 8; o > 0; o >>= 1)
    v += __shfl_down_sync(0x0000ffff, v, o);
}
```
For a guarded tail, compute the mask before the branch:
`unsigned m = __ballot_sync(0xffffffff, i < n); if (i < n) { ... __shfl_down_sync(m, v, o) ... }`.

## GPU confirmation
None: compute-sanitizer's synccheck does not check the masks of shuffles and votes (it reported
0 errors on this pattern on an H200, `-G` and `-O2` builds), and the undefined values are not
reproducible on demand. `--confirm` says `unsupported` for this rule.
"""

from __future__ import annotations

from cudalint.findings import calls_through
from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.warp_sync import mask_problems
    for kernel in ctx.model.kernels:
        for w in mask_problems(ctx, kernel):
            call = w.call
            mask = f"tile of {call.tile}" if call.tile is not None else "mask"
            if w.why == "outside-mask":
                msg = (f"`{call.text}`: {w.caller} calls it but {w.other} is not in the mask; every lane that "
                       f"calls a warp-synchronous intrinsic must be named in its mask ({w.geometry.describe()})")
            else:
                msg = (f"`{call.text}`: the {mask} names {w.other}, which is still running but does not reach "
                       f"this call while {w.caller} of the same warp does; the result is undefined: name only "
                       f"the lanes that arrive (`__ballot_sync(0xffffffff, cond)` before the branch) or move the "
                       f"call out of the branch ({w.geometry.describe()})")
            yield RULE.finding(call.loc, msg, kernel=kernel.name, related=calls_through(call),
                               properties=(("intrinsic", call.name), ("problem", w.why)))


RULE = make_rule(__doc__, code="CUDA205", name="divergent-warp-intrinsic", category="barrier-divergence",
                 severity="error", summary="A shuffle or vote whose mask names lanes that never arrive",
                 check=check, precision="high", tags=("correctness", "warp"))
