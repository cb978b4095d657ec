"""Shared-memory bank conflict (CUDA301).

## What it does
For every shared-memory load and store, takes the 32 lanes of each warp (consecutive linear
thread ids under the launch geometry), computes the bank (32 banks of 4-byte words) and the word
each lane touches, and reports the *degree*: the largest number of different words that fall into
one bank. Lanes reading the same word are a broadcast, not a conflict. 8-byte accesses are served
per half-warp and 16-byte accesses per quarter-warp, so conflicts are counted per phase. The
message names the bank, the lanes, and a fix when one exists (the row padding, or the stride,
that makes the access conflict-free). Every warp of the block and every iteration of a loop with
known bounds are enumerated and the worst is reported; a degree that depends on kernel arguments
or block indices is reported only when z3 proves it holds for all their values.
Accesses nvcc fuses are judged as the one access they become: `s[2*t]` and `s[2*t + 1]` (or the
four fields of a `float4` element) of one kind, in one straight run, at an address aligned to the
pair's (or quad's) width in an array based that far (`extern __shared__` arrays are 16-byte
aligned, a static array as its element type) compile to one `ld/st.shared.v2/v4` at `-O3`.
`--min-bank-conflict-degree N` (default 2) silences degrees below N.

## Why is this bad?
A k-way conflict splits one shared-memory instruction into k serialized wavefronts. The column
read of a `[32][32]` float tile is 32-way: the load is 32 times slower than it needs to be, and a
tiled transpose or GEMM kernel that should be bound by global memory ends up bound by shared
memory. Nothing fails; the kernel is just slow, which is why the bug survives review.

## Example
```cuda
__shared__ float tile[32][32];
tile[threadIdx.y][threadIdx.x] = in[...];     // row write: conflict-free
__syncthreads();
out[...] = tile[threadIdx.x][threadIdx.y];    // column read: every lane in one bank, 32-way
```

## Use instead
Pad the row so consecutive rows start in different banks:
```cuda
__shared__ float tile[32][33];                // bank (r * 33 + c) % 32 = (r + c) % 32
```
or swizzle the column with XOR (`tile[r][c ^ r]` for both the store and the load), which keeps
the array dense and fits block shapes where no padding works.

## GPU confirmation
`--confirm` profiles the kernel with Nsight Compute: the counters
`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` / `..._op_st.sum` are non-zero for a
conflicting load/store (about `(degree - 1)` extra wavefronts per request), and zero for the
padded version.

## Fix
`--fix` applies the row padding (`--diff` shows it) where every access to the array subscripts
each of its dimensions and the padding makes no other access to it worse; nowhere else.
"""

from __future__ import annotations

import math
import re

from cudalint.findings import Related
from cudalint.registry import make_rule

_ASSIGN = re.compile(r"^(.*?)\s*(?:<<|>>|[-+*/%&|^])?=(?!=)")
_PHASE = {16: "half-warp", 8: "quarter-warp"}


def _expr(acc) -> str:
    """The accessed lvalue of a store (`tile[ty][tx]` of `tile[ty][tx] = v`), else the text."""
    m = _ASSIGN.match(acc.text)
    if m and m.group(1).endswith("]") and m.group(1).count("[") == m.group(1).count("]"):
        return m.group(1)
    return acc.text


def _degree(r) -> int:
    """The degree of a banks.analyze result, 0 when it has none."""
    return r.degree.degree if r.status != "skipped" and r.degree else 0


def _dims(name, dims) -> str:
    return name + "".join(f"[{d}]" for d in dims)


def _subscripts(lvalue: str, name: str) -> int:
    """How many subscripts follow the array's own name in `name[i][j]` (`.x` after them allowed);
    0 for anything else (a pointer into the array, a helper's parameter)."""
    m = re.fullmatch(rf"\s*{re.escape(name)}\s*((?:\[[^\[\]]*\]\s*)+)(?:\.\s*\w+)?\s*", lvalue)
    return m.group(1).count("[") if m else 0


def _plain_subscripts(model, arr, accesses, pad: int) -> bool:
    """Whether padding the array's rows changes nothing but its layout: every access subscripts
    every dimension (no pointer into it, no cast), and no other kernel of the file uses it."""
    from cudalint.model import Access
    if arr.loc is None or any(a.cast or _subscripts(_expr(a), arr.name) != len(arr.dims) for a in accesses):
        return False
    if arr.elem_size * math.prod(arr.dims[:-1]) * (arr.dims[-1] + pad) > 48 * 1024:
        return False  # past the static shared memory a block may declare
    return all(e.array != arr for k in model.kernels for e in k.events
               if isinstance(e, Access) and e not in accesses)


def _fix(model, kernel, acc, res, analysed) -> tuple[str, int | None]:
    """The fix in words, and the padding (elements added to the innermost extent) where
    `--fix` may apply it. `analysed(access)`: banks.analyze at this geometry, once per file."""
    from cudalint.model import Access
    text, pad = _fix_text(kernel, acc, res, analysed)
    if pad is not None:
        arr = acc.array
        accesses = [e for e in kernel.events if isinstance(e, Access) and e.array == arr]
        pad = pad if _plain_subscripts(model, arr, accesses, pad) else None
    return text, pad


def _fix_text(kernel, acc, res, analysed) -> tuple[str, int | None]:
    from cudalint.analysis import banks
    from cudalint.model import Access
    arr = acc.array
    if len(arr.dims) >= 2 and not arr.dynamic and all(arr.dims):
        pitch = arr.dims[-1] * arr.elem_size
        others = [e for e in kernel.events if isinstance(e, Access) and e is not acc and e.array == arr]
        before = {id(o): _degree(analysed(o)) for o in others}
        partial = None
        for pad in range(1, 9):
            p = banks.padded(acc, pad)
            r = analysed(p)
            if r.status == "skipped" or (r.degree and r.degree.degree > 1):
                continue
            worse = [o for o in others if _degree(analysed(banks.padded(o, pad))) > before[id(o)]]
            if not worse:
                what = f"{pitch // banks.WORD} words" if pitch % banks.WORD == 0 else f"{pitch} bytes"
                return f"the row stride is {what}; declare `{_dims(arr.name, p.array.dims)}`", pad
            partial = partial or (pad, p.array.dims, worse[0])
        if partial:
            pad, dims, other = partial
            return (f"padding to `{_dims(arr.name, dims)}` would fix this access but make `{_expr(other)}` "
                    f"(line {other.loc.line}) conflict for this block shape; an XOR swizzle of the column "
                    f"(`{arr.name}[r][c ^ r]` in every access) fits"), None
        return "", None
    stride = banks.affine_stride(res.offsets)
    if stride and stride % banks.WORD == 0 and stride > 0:
        unit = max(arr.elem_size, acc.width)
        s = banks.best_stride(stride, banks.instruction_width(acc.width, acc.align), unit)
        if s and s % banks.WORD == 0:
            elems = f" ({s // arr.elem_size} elements of {arr.elem_size} bytes)" if arr.elem_size not in (0, 4) else ""
            return (f"consecutive lanes are {stride // banks.WORD} words apart; a stride of {s // banks.WORD} "
                    f"words{elems} is conflict-free"), None
    return "", None


def _describe(acc, res) -> str:
    from cudalint.analysis import banks
    d = res.degree
    lanes = ", ".join(str(x) for x in d.lanes[:4]) + (", …" if len(d.lanes) > 4 else "")
    where = f"lanes {lanes} of warp {res.warp}"
    moved = banks.instruction_width(acc.width, acc.align)
    if d.phase_size < banks.WARP:
        where += f" (one {_PHASE.get(d.phase_size, f'{d.phase_size}-lane')} phase of {'an' if moved == 8 else 'a'} {moved}-byte access)"
    if moved < acc.width:
        where += f" (the {acc.width}-byte `{acc.type_name or 'value'}` moves in {moved}-byte parts, each conflicting alike)"
    return f"{where} touch {d.degree} different words of bank {d.bank}"


_UNSEEN = object()


def _conflicts(res, min_degree: int) -> bool:
    return res.status == "conflict" and res.degree.degree >= min_degree


def check(ctx):
    from cudalint.analysis import banks, fusion
    from cudalint.analysis.geometry import geometries
    from cudalint.model import Access
    model, settings = ctx.model, ctx.settings
    min_degree = max(2, settings.min_bank_conflict_degree)
    for kernel in model.kernels:
        seen = set()
        for acc in kernel.events:
            if not isinstance(acc, Access) or acc.array.space != "shared" or acc.loc in seen or acc.width <= 0:
                continue
            geoms = geometries(model, kernel, settings.block_dims, settings.grid_dims, settings.external_launches)
            wide = _UNSEEN  # the wider access nvcc makes of acc: looked for once acc conflicts
            for geom in geoms:
                if ctx.out_of_time():
                    ctx.skipped.append((f"CUDA301 {kernel.name} line {acc.loc.line}", "file budget spent"))
                    return
                def analysed(a, kernel=kernel, geom=geom):  # the other accesses' too: _fix compares them
                    return ctx.per_access("banks", kernel, a, geom,
                                          lambda: banks.analyze(kernel, a, geom, settings.solver_timeout_ms))

                res = analysed(acc)
                if res.status != "skipped" and not _conflicts(res, min_degree):
                    continue
                if wide is _UNSEEN:
                    wide = fusion.fused(kernel, acc)
                if wide is not None and not _conflicts(analysed(wide), min_degree):
                    continue  # nvcc moves it with its neighbours in one wider access, which does not conflict
                if res.status == "skipped":
                    ctx.skipped.append((f"CUDA301 {kernel.name} line {acc.loc.line}", res.reason))
                    continue
                seen.add(acc.loc)
                d = res.degree
                verb = {"read": "reading", "write": "writing"}.get(acc.kind, "updating")
                parts = [_describe(acc, res)]
                fix, pad = _fix(model, kernel, acc, res, analysed)
                pad = pad if len(geoms) == 1 else None  # checked at this launch shape only
                if fix:
                    parts.append(fix)
                context = [geom.describe()]
                if res.at and res.low < d.degree:
                    context.append("at " + ", ".join(f"{n} = {v}" for n, v in res.at) +
                                   f"; {res.low}-way to {d.degree}-way over the warps and iterations")
                if res.uniform:
                    context.append("for every value of " + ", ".join(f"`{u.split('@')[0]}`" for u in res.uniform))
                if res.assumption:
                    context.append(res.assumption)
                msg = (f"{d.degree}-way bank conflict {verb} `{_expr(acc)}` in shared `{acc.array.name}`: "
                       f"{'; '.join(parts)} ({'; '.join(context)})")
                related = [Related(acc.array.loc.path, acc.array.loc.line, acc.array.loc.column,
                                   f"`{acc.array.name}` declared here")] if acc.array.loc else []
                related += [Related(v.path, v.line, v.column, "called from here") for v in acc.via]
                yield RULE.finding(acc.loc, msg, kernel=kernel.name, related=related,
                                   properties=(("degree", d.degree), ("bank", d.bank), ("warp", res.warp),
                                               ("access", acc.kind)) + geom.properties()
                                   + ((("pad", (acc.array.loc.path, acc.array.loc.line, acc.array.loc.column,
                                                acc.array.name, pad)),) if pad else ()))
                break


RULE = make_rule(__doc__, code="CUDA301", name="shared-bank-conflict", category="bank-conflict",
                 severity="warning", summary="Lanes of a warp hit one shared-memory bank at different words",
                 check=check, precision="high", tags=("performance", "shared-memory"))
