"""`__activemask()` as the mask of a reduction inside a divergent branch (CUDA207).

## What it does
Flags a shuffle with a fixed pattern — `__shfl_down/up/xor_sync` with a uniform offset, or
`__shfl_sync` from a constant lane — whose mask comes from `__activemask()`, when the call sits
under a branch that some lanes of the warp take and others (still running) do not. A source
lane computed from the mask itself (`__ffs(mask) - 1`, the warp-aggregated atomic) is the
proper use of `__activemask()` and is not flagged, nor are votes over the active lanes.

## Why is this bad?
`__activemask()` returns the lanes that happen to be converged at that instant, not the lanes
the branch admits: after a divergent `if`, the lanes that take it may be scheduled in several
groups, and each group's reduction then reads lanes absent from its mask (undefined values) or
misses lanes that the algorithm needs. The result changes with the compiler and the GPU.

## Example
```cuda
if (i < n) {
  unsigned m = __activemask();                    // whichever lanes are converged now
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(m, v, o);
}
```

## Use instead
Compute the set of participating lanes with a vote before the branch:
```cuda
unsigned m = __ballot_sync(0xffffffff, i < n);
if (i < n) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(m, v, o);               // still read only lanes in m (CUDA206)
}
```
or keep all lanes in the reduction with an identity value for the inactive ones.

## GPU confirmation
None: no NVIDIA tool reports a mask from `__activemask()`; on current GPUs the lanes usually
happen to be converged, so a run rarely shows it. `--confirm` says `unsupported`.
"""

from __future__ import annotations

from cudalint.findings import calls_through
from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.warp_sync import activemask_divergence
    for kernel in ctx.model.kernels:
        for w in activemask_divergence(ctx, kernel):
            msg = (f"`{w.call.text}` takes its mask from `__activemask()` inside a branch that {w.caller} takes "
                   f"and {w.other} of the same warp does not: the mask is whichever lanes are converged, not "
                   f"the lanes this shuffle needs; compute it with `__ballot_sync(0xffffffff, cond)` before the "
                   f"branch ({w.geometry.describe()})")
            yield RULE.finding(w.call.loc, msg, kernel=kernel.name, related=calls_through(w.call),
                               properties=(("intrinsic", w.call.name),))


RULE = make_rule(__doc__, code="CUDA207", name="activemask-shuffle", category="barrier-divergence",
                 severity="warning", summary="A fixed-pattern shuffle masked by __activemask() in divergent code",
                 check=check, precision="high", tags=("correctness", "warp"))
