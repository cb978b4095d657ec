"""Order across blocks through an atomic ticket: each block increments a counter once and the
block that draws the last value (`atomicInc(&count, gridDim.x) == gridDim.x - 1`) knows that
every other block has already incremented it, and so has done what came before (the CUDA
Programming Guide's `__threadfence()` example, threadFenceReduction).

Two accesses of different blocks are then not a race when
- both are guarded by drawing the same ticket value: only one block draws it; or
- one is guarded by drawing the last ticket and the other comes, in its thread, before its block's
  increment of the same counter (the same thread, or a barrier between them).
Whether a `__threadfence()` makes the earlier writes visible before the increment is not checked.
"""

from __future__ import annotations

from cudalint.model import Access, Barrier, Const, Kernel, Op, Sym, render
from cudalint.symbolic import conjuncts

_LAST = {"(gridDim.x - 1)", "((gridDim.x * gridDim.y) - 1)", "(((gridDim.x * gridDim.y) * gridDim.z) - 1)"}
_THREAD_ZERO = {"(threadIdx.x == 0)", "(0 == threadIdx.x)"}


def ordered(kernel: Kernel, i: int, j: int) -> bool:
    if not kernel.tickets:
        return False
    a, b = kernel.events[i], kernel.events[j]
    da, db = _draws(kernel, a), _draws(kernel, b)
    if any(x == y for x in da for y in db):
        return True
    for drawn, other, k in ((da, b, j), (db, a, i)):
        for ticket, value in drawn:
            if render(value) in _LAST and _before_increment(kernel, k, other, ticket):
                return True
    return False


def _draws(kernel: Kernel, acc: Access) -> list:
    """(ticket, value) for each guard conjunct saying the thread's block drew that value."""
    tickets = {t.name for t in kernel.tickets if _once_per_block(kernel, t)}
    flags = {name: (ticket, value) for name, ticket, value in kernel.ticket_flags}
    out = []
    for g in conjuncts(acc.guard):
        if not isinstance(g, Op) or len(g.args) != 2:
            continue
        x, y = g.args
        if g.op == "==" and isinstance(y, Sym) and y.name in tickets:
            x, y = y, x
        if g.op == "==" and isinstance(x, Sym) and x.name in tickets:
            out.append((x.name, y))
        elif g.op == "!=" and y == Const(0) and isinstance(x, Sym) and x.name in flags and flags[x.name][0] in tickets:
            out.append(flags[x.name])
    return out


def _once_per_block(kernel: Kernel, ticket) -> bool:
    """The increment is made by thread 0 of each block, outside any loop."""
    inc = kernel.events[ticket.event]
    return not inc.loops and any(render(g) in _THREAD_ZERO for g in conjuncts(inc.guard))


def _before_increment(kernel: Kernel, k: int, acc: Access, ticket: str) -> bool:
    t = next(t for t in kernel.tickets if t.name == ticket)
    inc = kernel.events[t.event]
    if k > t.event or set(acc.loops) & set(inc.loops):
        return False
    if k == t.event or any(render(g) in _THREAD_ZERO for g in conjuncts(acc.guard)):
        return True  # the incrementing thread's own access
    return any(isinstance(e, Barrier) and e.kind in ("block", "grid") and not e.guard
               for e in kernel.events[k + 1:t.event])
