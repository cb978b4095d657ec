"""Unsynchronized host access (CUDA404).

## What it does
After an asynchronous device-to-host copy (`cudaMemcpyAsync(..., cudaMemcpyDeviceToHost, s)`) or
a kernel launch that writes managed memory, flags a host read or write of that buffer on a path
that has not synchronized with the copy or kernel first. Synchronizing: `cudaStreamSynchronize`
on the copy's stream, `cudaDeviceSynchronize`, `cudaEventSynchronize` on an event recorded on
that stream after the copy, or a synchronous `cudaMemcpy`. Another async call,
`cudaGetLastError`, or a synchronize on only some of the paths does not synchronize. Reading the
*source* of a host-to-device copy is fine; a call to a function cudalint cannot see is assumed to
synchronize.

## Why is this bad?
The copy or kernel runs concurrently with the host. The host reads whatever is in the buffer at
that instant — old data, new data, or a mix — and the result changes with timing, GPU and driver.

## Example
```cuda
  cudaMemcpyAsync(h, d, BYTES, cudaMemcpyDeviceToHost, s);
  float early = h[N - 1];          // the copy may not have happened yet
  cudaStreamSynchronize(s);
```

## Use instead
```cuda
  cudaMemcpyAsync(h, d, BYTES, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  float v = h[N - 1];
```

## GPU confirmation
With pinned host memory and a kernel large enough to still be running, the early read returns
stale data (the fixture prints `late - early` ≠ 0); `compute-sanitizer --tool racecheck` does
not see host/device races, so confirmation compares the values.
"""

from __future__ import annotations

from cudalint.findings import Related
from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.hostflow import analyze_file
    for fn, flow in analyze_file(ctx):
        for u in flow.unsync:
            verb = "writes" if u.write else "reads"
            when = f" when {' and '.join(u.path[-3:])}" if u.path else ""
            stream = "the default stream" if u.stream == "0" else f"stream `{u.stream}`"
            msg = (f"the host {verb} `{u.text}` while {u.source} at line {u.source_loc.line} may still be "
                   f"writing `{u.var}`: no synchronization with {stream} in between{when}")
            related = [Related(u.source_loc.path, u.source_loc.line, u.source_loc.column,
                               f"asynchronous write of `{u.var}` issued here")]
            yield RULE.finding(u.access_loc, msg, related=related, properties=(("function", fn.name),))


RULE = make_rule(__doc__, code="CUDA404", name="unsynchronized-host-access", category="unsynchronized-host-access",
                 severity="warning", summary="The host touches a buffer an async copy or kernel may still be writing",
                 check=check, precision="medium", tags=("correctness", "host", "concurrency"))
