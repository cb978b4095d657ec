"""Double free (CUDA402).

## What it does
Flags a `cudaFree`, `cudaFreeHost`, `cudaFreeAsync`, `cudaFreeArray`, `free` or `delete` of an
allocation that some path through the host function has already released — through the same
variable or an alias of it. The analysis is path-sensitive: a free on an error branch that
forgets to `return` is caught; nulling the pointer after the first free (`cudaFree(nullptr)` is a
no-op), re-allocating into the same variable, and one allocation and one free per loop
iteration stay clean. Calls to functions of the same file apply what they do (a helper that
frees its argument or a field of it); calls to other functions hand the pointer on.

Rule of three: a class whose destructor releases a member with a CUDA free call and whose copy
constructor or copy assignment is the implicit (or `= default`) member-wise one is double-freed
by every copy: a by-value parameter, `T b = a;`, `b = a;`, `v.push_back(a)`. A class that
deletes its copies, `std::unique_ptr` with a CUDA deleter and `thrust::device_vector` are owners,
never findings. A copy elided by a `return` is not reported.

## Why is this bad?
The second release returns `cudaErrorInvalidValue` at best. At worst the address has been handed
out again by then (to another stream's `cudaMallocAsync`, another thread), and the second free
releases someone else's live buffer: the corruption shows up far away and only sometimes.

## Example
```cuda
  cudaError_t err = cudaMemset(d, 0, BYTES);
  if (err != cudaSuccess) {
    cudaFree(d);          // forgot to return
  }
  cudaFree(d);            // second release on the error path
```

## Use instead
Return (or `goto` the cleanup label) after the error-path free, or null the pointer:
```cuda
  if (err != cudaSuccess) { cudaFree(d); return err; }
```

## GPU confirmation
Take the path: the second call returns `cudaErrorInvalidValue` (printed by the fixture's
`main`); `compute-sanitizer` reports the invalid free.
"""

from __future__ import annotations

from cudalint.findings import Related
from cudalint.registry import make_rule


def check(ctx):
    from cudalint.analysis.copies import owner_copies
    from cudalint.analysis.hostflow import analyze_file
    for fn, flow in analyze_file(ctx):
        for df in flow.double_frees:
            when = f" when {' and '.join(df.path[-3:])}" if df.path else ""
            msg = (f"`{df.name}` is released twice: `{df.second}` here after `{df.first}` at line "
                   f"{df.first_loc.line}{when} (allocated by `{df.alloc}` at line {df.alloc_loc.line})")
            related = [Related(df.first_loc.path, df.first_loc.line, df.first_loc.column, "first released here"),
                       Related(df.alloc_loc.path, df.alloc_loc.line, df.alloc_loc.column,
                               f"`{df.name}` allocated here by `{df.alloc}`")]
            yield RULE.finding(df.second_loc, msg, related=related, properties=(("function", fn.name),))
    for c in owner_copies(ctx.model.host_functions):
        o = c.owner
        msg = (f"`{c.text}` makes a member-wise copy of a `{o.cls}`: two objects now hold `{o.field}`, and both "
               f"destructors release it with `{o.release}` (line {o.release_loc.line}); declare the copy "
               f"`= delete` (pass by reference, or give `{o.cls}` a move-only owner)")
        related = [Related(o.release_loc.path, o.release_loc.line, o.release_loc.column,
                           f"`~{o.cls}` releases `{o.field}` here")]
        yield RULE.finding(c.loc, msg, related=related, properties=(("class", o.cls),))


RULE = make_rule(__doc__, code="CUDA402", name="double-free", category="double-free",
                 severity="error", summary="An allocation is released twice on some path",
                 check=check, precision="high", tags=("correctness", "host", "memory"))
