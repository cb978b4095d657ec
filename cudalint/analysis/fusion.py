"""Neighbouring shared-memory accesses that nvcc makes one wider access (release builds).

`s[2*t] = a; s[2*t + 1] = b;` compiles to one `st.shared.v2.f32` when the pair's address is
8-byte aligned for every thread, and four float stores to one `float4` element to one
`st.shared.v4.f32`: the lanes then move 8 or 16 bytes each, served in phases, and a 2-way conflict
of the 4-byte accesses (lanes 0 and 16 on one bank) is gone. Measured with nvcc 13 at -O3 for
sm_90: the accesses fuse when they are in one straight run (the same conditions and loops, no
barrier or opposite access to the array between), `n` consecutive widths apart from an address
aligned to `n` widths, and the array's base is aligned that far (an `extern __shared__` array is
16-byte aligned; a static one as its element type). Volatile accesses are never fused.
"""

from __future__ import annotations

from dataclasses import replace

import z3

from cudalint.model import Access, Barrier, WarpSync
from cudalint.symbolic import BITS, to_z3

_WIDEST = 16
_NEAR = 6  # accesses looked at on each side: a group is at most four, written together


def fused(kernel, acc: Access) -> Access | None:
    """The wider access nvcc makes of `acc` and its neighbours, or None where it keeps it alone."""
    if acc.volatile or acc.cast or acc.kind not in ("read", "write") or acc.width not in (4, 8):
        return None
    run = _straight_run(kernel.events, acc)
    base_align = _WIDEST if acc.array.dynamic else acc.array.elem_align
    deltas = {0: acc}  # byte distance from acc -> the access there
    for other in run:
        d = _constant_difference(other.offset, acc.offset)
        if d is not None and d % acc.width == 0:
            deltas.setdefault(d, other)
    for n in (4, 2):
        width = n * acc.width
        if width > min(_WIDEST, base_align):
            continue
        for first in range(-(n - 1) * acc.width, 1, acc.width):  # where acc sits in the group
            if all(first + k * acc.width in deltas for k in range(n)):
                low = deltas[first].offset
                if _always_multiple(low, width):
                    return replace(acc, offset=low, width=width, align=width)
    return None


def _straight_run(events, acc: Access) -> list:
    """The accesses like `acc` (array, kind, width, conditions, loops) around it with nothing
    between that could keep them apart: a barrier, or the opposite kind of access to the array."""
    at = events.index(acc)
    out = []
    for step in (-1, 1):
        i = at + step
        while 0 <= i < len(events) and abs(i - at) <= _NEAR:
            e = events[i]
            if isinstance(e, (Barrier, WarpSync)):
                break
            if isinstance(e, Access) and e.array == acc.array:
                if e.kind != acc.kind or e.volatile or e.guard != acc.guard or e.loops != acc.loops:
                    break
                if e.width == acc.width:
                    out.append(e)
            i += step
    return out


def _terms(*offsets):
    """The offsets as z3 bit-vectors over shared symbols (the machine's arithmetic), or None."""
    names: dict = {}

    def var(s):
        return names.setdefault(s.name, z3.BitVec(s.name, BITS))
    try:
        return [to_z3(o, var) for o in offsets]
    except Exception:  # an operator the encoding does not take: no claim about the pair
        return None


def _constant_difference(a, b) -> int | None:
    """a - b when it is the same number for every value of the symbols, else None."""
    terms = _terms(a, b)
    if terms is None:
        return None
    diff = z3.simplify(terms[0] - terms[1])
    return diff.as_signed_long() if z3.is_bv_value(diff) else None


def _always_multiple(offset, n: int) -> bool:
    """`offset` is a multiple of `n` (a power of two) for every value of its symbols."""
    terms = _terms(offset)
    if terms is None:
        return False
    s = z3.Solver()
    s.set("timeout", 1000)
    s.add(terms[0] & (n - 1) != 0)
    return s.check() == z3.unsat
