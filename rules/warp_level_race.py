"""Warp-level race through shared memory without `__syncwarp()` (CUDA202).

## What it does
Finds exchanges through shared memory between lanes of one warp that rely on the warp running
in lockstep: a write by one lane and a read (or write) of the same address by another lane of
the same warp, with neither `__syncthreads()` nor `__syncwarp()` between them. The classic case
is the unrolled last-warp reduction, with or without `volatile`.

## Why is this bad?
Since Volta (independent thread scheduling) the lanes of a warp are not guaranteed to execute in
lockstep. `volatile` keeps the compiler from caching values in registers but does not order the
lanes: lane 0 can read `s[16]` before lane 16 has written it.

## Example
```cuda
if (tid < 32) {
  volatile float* v = s;
  v[tid] += v[tid + 16];
  v[tid] += v[tid + 8];   // lane 0 reads v[8] while lane 8 may still be writing it
}
```

## Use instead
Use warp shuffles (`__shfl_down_sync(0xffffffff, v, offset)`), or put `__syncwarp()` between
the steps of the exchange.

## GPU confirmation
`compute-sanitizer --tool racecheck` reports these hazards as warnings ("Warp Level
Programming"); `--confirm` records them.
"""

from __future__ import annotations

from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.race_report import findings
    yield from findings(ctx, RULE, "warp")


RULE = make_rule(__doc__, code="CUDA202", name="warp-level-race", category="data-race", severity="error",
                 summary="Lanes of one warp exchange data through shared memory without __syncwarp()",
                 check=check, precision="high", tags=("correctness", "race", "warp"))
