"""Device memory leak (CUDA401).

## What it does
Follows every path through a host function from a `cudaMalloc`, `cudaMallocManaged`,
`cudaMallocPitch`, `cudaMalloc3D`, `cudaMallocHost`, `cudaHostAlloc`, `cudaMallocAsync`,
`cudaMallocFromPoolAsync` or `cudaMallocArray` to the function's exits — early `return`s, error
checks such as `CUDA_CHECK(...)` (their macro expansion is analysed, not guessed from the name),
`switch` cases, `goto` cleanup chains and loops run zero, one or more times — and flags an exit
reached while the allocation is neither released nor handed on. Handing on ends the obligation:
returning the pointer, storing it in a member, global, out-parameter or container, giving it to
an owning wrapper (`std::unique_ptr` with a CUDA deleter, a class that frees in its destructor),
or passing it to a function cudalint cannot see. A failed allocation carries no obligation, and
paths that end the process (`exit`, `abort`, a `noreturn` error handler) are not leaks.

Across functions of the same file: a call applies the callee's summary — a helper that frees
its argument (or a field of it, `buf_free(b)`) releases it, one that allocates into an
out-parameter or field (`buf_init(b)`, `make(&p)`) or returns an allocation hands the caller an
obligation, and one that only reads its argument leaves the obligation with the caller. Calls
into other files, methods called on an object, overloaded names and recursion stay unknown
(the pointer is handed on). Allocating into, or assigning to, a pointer whose allocation is still
live and held by nothing else loses it: reported at that line (a `cudaMalloc` in a loop without
the `cudaFree` of the previous iteration), on paths without a branch since the earlier
allocation. Memory still live when `main` returns is reported as compute-sanitizer's leak check
reports it (it lives until the process exits); `host-leaks-at-exit = false` turns that off. One
allocation leaked at several exits (a program that returns from every failing check) is one
finding, at the first of them; the later exits are named in it and in its notes.

## Why is this bad?
Device and pinned memory are scarce and are not returned until the context is destroyed. A
buffer lost on an error path leaks once per failure; in a long-running server or a retry loop
that becomes `cudaErrorMemoryAllocation` hours later, far from the cause.

## Example
```cuda
int upload(const float* src) {
  float* d = nullptr;
  cudaMalloc(&d, BYTES);
  if (cudaMemcpy(d, src, BYTES, cudaMemcpyHostToDevice) != cudaSuccess) return -1;  // d leaks
  ...
  cudaFree(d);
  return 0;
}
```

## Use instead
Release on every path (a `goto cleanup` chain works), or let an owner do it:
```cuda
  std::unique_ptr<float, CudaFree> owner(d);   // or a small RAII buffer class
```

## GPU confirmation
Run the program under `compute-sanitizer --leak-check full` and take the failing path (for
example pass `nullptr` as `src`): the sanitizer reports "Leaked N bytes" allocated at the
flagged allocation when the context is torn down (`cudaDeviceReset`). `--confirm` does this for
you: it builds the file's `main()` with nvcc (linking the CUDA libraries it includes, running it
with `confirm-args`), and where the path goes through a failing CUDA call ("leaked when
`cudaMemcpy` fails at line 40") it builds the program with that call replaced by a failure of its
own return type, so the leak happens in the run.
"""

from __future__ import annotations

from cudalint.findings import Related
from cudalint.registry import make_rule


MAX_LISTED_EXITS = 8  # later exits of one allocation named in its message


def _how(leak) -> str:
    exit_text = (f"the function ends at line {leak.exit_loc.line}" if leak.implicit
                 else f"the function returns at line {leak.exit_loc.line}")
    if leak.in_main:
        exit_text = f"`main` {exit_text[len('the function '):]}; it lives until the process exits"
    if leak.overwritten_by:
        how = f"is lost while still live: {leak.overwritten_by}"
        if leak.alloc_loc.line == leak.exit_loc.line:
            how += " (the allocation of the previous iteration)"
        return how
    if leak.path:
        return f"is leaked when {' and '.join(leak.path[-3:])} and {exit_text}"
    return f"is still held (neither released nor handed on) when {exit_text}"


def _exits(leaks) -> list:
    """One allocation's leaks at function exits, grouped (a program that returns from every
    failing check leaks each earlier buffer at every one of them): the first exit carries the
    finding, the later ones are named in it."""
    by_alloc: dict = {}
    for leak in leaks:
        by_alloc.setdefault((leak.name, leak.alloc_loc), []).append(leak)
    return [sorted(group, key=lambda k: (k.exit_loc.line, k.exit_loc.column)) for group in by_alloc.values()]


def _named(leak) -> str:
    from cudalint.analysis.hostkinds import KIND_NAMES
    return f"`{leak.name}` ({KIND_NAMES[leak.kind]} from `{leak.alloc}` at line {leak.alloc_loc.line})"


def check(ctx):
    from cudalint.analysis.hostflow import analyze_file
    for fn, flow in analyze_file(ctx):
        lost = [leak for leak in flow.leaks if leak.overwritten_by]
        groups = [[leak] for leak in lost] + _exits([leak for leak in flow.leaks if not leak.overwritten_by])
        at: dict = {}  # first exit -> the groups whose finding it carries (one finding per place)
        for group in groups:
            at.setdefault((group[0].exit_loc, bool(group[0].overwritten_by)), []).append(group)
        for (first, *later), *others in at.values():
            msg = f"{_named(first)} {_how(first)}"
            if later:
                lines = [str(k.exit_loc.line) for k in later]
                shown = ", ".join(lines[:MAX_LISTED_EXITS]) + (", …" if len(lines) > MAX_LISTED_EXITS else "")
                msg += f"; also leaked at {len(later)} later exit{'s' if len(later) > 1 else ''} (line{'s' if len(later) > 1 else ''} {shown})"
            if others:
                msg += f"; so {'is' if len(others) == 1 else 'are'} {', '.join(_named(g[0]) for g in others)}"
            related = [Related(first.alloc_loc.path, first.alloc_loc.line, first.alloc_loc.column,
                               f"`{first.name}` allocated here by `{first.alloc}`")]
            related += [Related(k.exit_loc.path, k.exit_loc.line, k.exit_loc.column, "also " + _how(k).removeprefix("is "))
                        for k in later]
            related += [Related(g[0].alloc_loc.path, g[0].alloc_loc.line, g[0].alloc_loc.column,
                                f"`{g[0].name}` allocated here by `{g[0].alloc}`; it leaks at the same exit") for g in others]
            props = (("function", fn.name), ("path", " and ".join(first.path)), ("exits", 1 + len(later)))
            fails = _failing_calls(first)
            yield RULE.finding(first.exit_loc, msg, kernel=None, related=related,
                               properties=props + ((("fails", fails),) if fails else ()))


def _failing_calls(leak) -> tuple:
    """The calls in the leak's file whose failure its path takes, as (name, line, column, end_line,
    end_column): `--confirm` makes them fail to show the leak."""
    return tuple((name, loc.line, loc.column, loc.end_line, loc.end_column) for name, loc in leak.fails
                 if loc.path == leak.exit_loc.path)


RULE = make_rule(__doc__, code="CUDA401", name="device-memory-leak", category="memory-leak",
                 severity="warning", summary="A CUDA allocation is neither released nor handed on along some path",
                 check=check, precision="medium", tags=("correctness", "host", "memory"))
