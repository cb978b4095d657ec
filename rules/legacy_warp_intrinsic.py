"""Warp intrinsic without `_sync` (CUDA208).

## What it does
Flags the legacy warp intrinsics `__shfl`, `__shfl_up`, `__shfl_down`, `__shfl_xor`, `__ballot`,
`__any` and `__all`, and names the `_sync` replacement. Calls inside a preprocessor branch on
`__CUDA_ARCH__`, `CUDA_VERSION` or `CUDART_VERSION` (the usual fallback for old toolkits or
GPUs) are left alone.

## Why is this bad?
The legacy forms assume the whole warp executes in lockstep, which is not true since Volta
(sm_70): they were deprecated in CUDA 9, the shuffles no longer compile for sm_70 and later,
and the votes compile with a deprecation warning but give undefined results when the warp has
diverged.

## Example
```cuda
for (int o = 16; o > 0; o >>= 1)
  v += __shfl_down(v, o);
if (__any(v > limit)) clamp = true;
```

## Use instead
The `_sync` form with a mask that names the lanes that execute it (all 32 for full-warp code):
```cuda
for (int o = 16; o > 0; o >>= 1)
  v += __shfl_down_sync(0xffffffff, v, o);
if (__any_sync(0xffffffff, v > limit)) clamp = true;
```

## GPU confirmation
None needed: nvcc rejects the legacy shuffles for sm_70 and later and warns about the votes;
`--confirm` says `unsupported`.
"""

from __future__ import annotations

import re

from cudalint.findings import calls_through
from cudalint.registry import make_rule

_VERSION_TEST = re.compile(r"__CUDA_ARCH__|CUDA_VERSION|CUDART_VERSION|__CUDACC_VER")
_DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")


def check(ctx):
    from cudalint.model import WarpSync
    for kernel in ctx.model.kernels:
        for call in kernel.events:
            if not isinstance(call, WarpSync) or not call.legacy:
                continue
            if _under_version_test(ctx, call.loc.path, call.loc.line):
                continue
            fix = f"{call.name}_sync(0xffffffff, …)"
            msg = (f"`{call.text}`: `{call.name}` assumes a warp in lockstep, which sm_70 and later do not "
                   f"keep (deprecated since CUDA 9; the shuffles no longer compile there); use `{fix}` with "
                   f"a mask naming the lanes that execute it")
            yield RULE.finding(call.loc, msg, kernel=kernel.name, related=calls_through(call),
                               properties=(("intrinsic", call.name), ("replacement", f"{call.name}_sync")))


def _under_version_test(ctx, path: str, line: int) -> bool:
    """Whether `line` sits inside an #if/#elif/#else whose condition tests the architecture or
    toolkit version (any enclosing level)."""
    lines = ctx.shared(("source", path), lambda: _read(ctx, path))
    open_conditions: list[str] = []
    for text in lines[:line - 1]:
        m = _DIRECTIVE.match(text)
        if not m:
            continue
        kind, rest = m.groups()
        if kind in ("if", "ifdef", "ifndef"):
            open_conditions.append(rest)
        elif kind in ("elif", "else") and open_conditions:
            open_conditions[-1] += " " + rest
        elif kind == "endif" and open_conditions:
            open_conditions.pop()
    return any(_VERSION_TEST.search(c) for c in open_conditions)


def _read(ctx, path: str) -> tuple:
    if path == ctx.model.path:
        return ctx.model.source_lines
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return tuple(fh.read().splitlines())
    except OSError:
        return ()


RULE = make_rule(__doc__, code="CUDA208", name="legacy-warp-intrinsic", category="deprecated-api",
                 severity="warning", summary="__shfl/__ballot/__any/__all without _sync (removed on sm_70+)",
                 check=check, precision="high", tags=("correctness", "warp", "portability"))
