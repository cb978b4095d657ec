"""Global-memory data race between threads (CUDA203).

## What it does
Finds non-atomic writes to global memory that two distinct threads (of any blocks) can make to
the same address — `out[blockIdx.x] = v` executed by every thread of the block, `out[0] += v` —
and reads of an address another thread writes with nothing ordering them. At addresses that
depend on loaded data it flags only read-modify-write (`if (d[v] > x) d[v] = x`), since a scatter
through an index array is usually a permutation. Where a launch in the file passes one pointer
for two parameters (`blur<<<g, b>>>(d, d, n)`), accesses through both are checked as one buffer:
a stencil written out-of-place and launched in place reads neighbours other threads overwrite.

## Why is this bad?
Threads of different blocks are never ordered within a launch, and threads of one block only by
barriers. Concurrent non-atomic updates lose increments; the result differs between runs.
compute-sanitizer's racecheck does not see global memory at all.

## Example
```cuda
__global__ void sum(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[0] += x[i];        // every thread read-modify-writes out[0]
}
```

## Use instead
`atomicAdd(out, x[i])`, or reduce within the block first and let one thread per block
(`if (threadIdx.x == 0)`) publish the partial result with an atomic.

## GPU confirmation
`--confirm` runs the kernel repeatedly on the same input and reports the race as confirmed when
the outputs differ between runs (floats beyond rounding), or, for a read-modify-write line, when
they differ from the same kernel with that line made an `atomicAdd` (lost updates that are the
same every run). Outputs are kernel-level: when the static pass flags another race line of the
kernel, a difference is `unsupported` for this one.
"""

from __future__ import annotations

from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.race_report import findings
    yield from findings(ctx, RULE, "global")


RULE = make_rule(__doc__, code="CUDA203", name="global-memory-race", category="data-race", severity="error",
                 summary="Distinct threads write one global address without atomics",
                 check=check, precision="high", tags=("correctness", "race", "global-memory"))
