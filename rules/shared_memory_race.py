"""Shared-memory data race between threads of a block (CUDA201).

## What it does
Finds two accesses to the same `__shared__` array (static or `extern`), at least one a write,
that two threads of one block in different warps can make to the same address with no
`__syncthreads()` between them — in the same stretch of code, or across a loop's back edge (the
missing second barrier of a tiled loop). Atomics race only with non-atomic accesses. The check is
a z3 query over two symbolic threads; the message gives the witness threads and addresses.

## Why is this bad?
Without a barrier the hardware does not order the write before the read: the reader sees the old
or the new value depending on warp scheduling, so results change from run to run, from GPU to
GPU, and with unrelated code changes.

## Example
```cuda
__shared__ float tile[32][32];
for (int k0 = 0; k0 < n; k0 += 32) {
  tile[ty][tx] = A[...];
  __syncthreads();
  for (int k = 0; k < 32; ++k) acc += tile[ty][k] * ...;
  // missing __syncthreads(): the next iteration overwrites tile while others still read it
}
```

## Use instead
Put a `__syncthreads()` between every write and the reads of other threads that depend on it,
including at the end of a loop body whose next iteration overwrites what this one read.

## GPU confirmation
`--confirm` runs the kernel under `compute-sanitizer --tool racecheck`, which reports shared
memory hazards ("Race reported between Write access … and Read access …") at source lines.
"""

from __future__ import annotations

from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.race_report import findings
    yield from findings(ctx, RULE, "block")


RULE = make_rule(__doc__, code="CUDA201", name="shared-memory-race", category="data-race", severity="error",
                 summary="Two threads of a block access one shared address unordered, one writes",
                 check=check, precision="high", tags=("correctness", "race", "shared-memory"))
