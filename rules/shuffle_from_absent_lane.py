"""Shuffle that reads a lane which is not there (CUDA206).

## What it does
Flags a `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync` or `__shfl_xor_sync` (or a tile's
`shfl*`) where a lane that calls it and uses the result reads its value from a source lane —
`srcLane`, `lane ± delta` or `lane ^ laneMask` within `width` — that is not in the mask, lies
past the end of a partial last warp (a block size that is not a multiple of 32), or has already
left the kernel: returned (`if (i >= n) return;` before a full-warp reduction) or skipped the
call with nothing left to run (`if (i < n) { ...reduction... }` as the kernel's last statement). For
`__shfl_down_sync` the lane that uses the result is taken to be the first lane of each `width`
segment, where a down-reduction leaves it: the other lanes' partial sums read past the segment
by design. Offsets and masks read from memory are not guessed at.

## Why is this bad?
A shuffle from a lane that is inactive, exited or outside the mask returns an undefined value.
The reduction then sums garbage into lane 0's result only for some sizes (`n` not a multiple of
32, odd block sizes), so tests with round sizes pass.

## Example
```cuda
int i = blockIdx.x * blockDim.x + threadIdx.x;
if (i >= n) return;                               // the tail lanes of the last warp leave
float v = in[i];
for (int o = 16; o > 0; o >>= 1)
  v += __shfl_down_sync(0xffffffff, v, o);        // lane 0 reads lanes that returned
```

## Use instead
Keep every lane in the reduction and let the out-of-range ones contribute the identity:
```cuda
float v = i < n ? in[i] : 0.0f;
for (int o = 16; o > 0; o >>= 1)
  v += __shfl_down_sync(0xffffffff, v, o);
```

## GPU confirmation
None: no NVIDIA tool observes a shuffle from an absent lane (compute-sanitizer's synccheck and
initcheck do not track shuffle sources), so `--confirm` says `unsupported`.
"""

from __future__ import annotations

from cudalint.findings import calls_through
from cudalint.registry import make_rule

_WHY = {
    "outside-mask-source": "which is not in the mask",
    "partial-warp": "which does not exist: the block's last warp is partial",
    "exited": "which has exited: it skips the call and has nothing left to run",
}


def check(ctx):
    from cudalint.analysis.warp_sync import absent_sources
    for kernel in ctx.model.kernels:
        for w in absent_sources(ctx, kernel):
            call = w.call
            if w.why == "returned":
                why = f"{w.other}, which has returned (line {w.exit_line})"
            else:
                why = f"{w.other}, {_WHY[w.why]}"
            msg = (f"`{call.text}`: {w.caller} reads its value from {why}; the value is undefined "
                   f"({w.geometry.describe()})")
            yield RULE.finding(call.loc, msg, kernel=kernel.name, related=calls_through(call),
                               properties=(("intrinsic", call.name), ("problem", w.why)))


RULE = make_rule(__doc__, code="CUDA206", name="shuffle-from-absent-lane", category="barrier-divergence",
                 severity="error", summary="A shuffle reading a lane outside the mask, past the block or returned",
                 check=check, precision="high", tags=("correctness", "warp"))
