"""When two threads' accesses to one address cannot disagree: the values two stores leave, or a
store and a read back (GPUVerify's benign races). z3 facts for the race query in races.py."""

from __future__ import annotations

import z3

from cudalint.model import Access, Barrier, syms
from cudalint.symbolic import BITS, conjuncts, to_z3


def values_differ(kernel, first: Access, second: Access, t1, t2, same_memory: bool) -> list:
    """Two stores race only where they can store different values: threads that all write the
    same constant (a flag), or the same element of an array the kernel never writes (`scale[c] =
    bn_scale[c]` by every row of the block), leave the same result in any order (GPUVerify's
    benign races)."""
    a, b = first.stored, second.stored
    if first.kind != "write" or second.kind != "write" or a is None or b is None:
        return []
    if not all(_steady(kernel, array, store, same_memory) for store in (first, second)
               for _, array, _ in store.stored.loads):
        return []  # memory the kernel writes may hold other values by the time either thread loads
    return [_value(a, t1) != _value(b, t2)]


def _steady(kernel, array, store: Access, same_memory: bool) -> bool:
    """Loads of `array` for `store` give every thread the same value at the same offset: the
    kernel never writes it, or (threads of one block, shared memory) nothing writes it between
    the block barriers around the store (`out[blockIdx.x] = partial[last]` by every thread)."""
    if _unwritten(kernel, array):
        return True
    if not same_memory or array.space != "shared":
        return False
    events = kernel.events
    at = events.index(store)
    barriers = [i for i, e in enumerate(events) if isinstance(e, Barrier) and e.kind == "block"]
    if any(set(events[i].loops) & set(store.loops) for i in barriers):
        return False  # a barrier in a loop around the store: the interval wraps around
    always = [i for i in barriers if not events[i].guard]
    lo = max((i for i in always if i < at), default=-1)
    hi = min((i for i in always if i > at), default=len(events))

    def fenced(k):  # a barrier after the write, before the store, runs whenever the write does
        w = events[k]
        return any(k < b < at and events[b].loops == w.loops and set(events[b].guard) <= set(w.guard)
                   for b in barriers)
    return not any(isinstance(e, Access) and e.array == array and e.kind != "read" and not (k < at and fenced(k))
                   for k, e in enumerate(events[lo + 1:hi], lo + 1))


def reread_differs(kernel, *sides, same_memory: bool) -> list:
    """A thread that reads back what it stored itself (`p = tile;` by every thread, then `p[i]`)
    sees either its own value or the other thread's: a race only where the two can differ."""
    (w, tw), (r, tr) = sides if sides[0][0].kind == "write" else sides[::-1]
    if w.kind != "write" or r.kind != "read" or w.stored is None:
        return []
    own = _own_store_before(kernel, r)
    if own is None or own.stored is None or \
            not all(_steady(kernel, array, store, same_memory) for store in (w, own) for _, array, _ in store.stored.loads):
        return []
    return [_value(w.stored, tw) != _value(own.stored, tr)]


def _own_store_before(kernel, r: Access):
    """The reading thread's last store to what it reads, if it surely made one: the nearest earlier
    write to the array, at the same offset and width, in the same loop body, under no more
    conditions than the read (with no barrier between, another thread's store would be ordered)."""
    at = kernel.events.index(r)
    for e in reversed(kernel.events[:at]):
        if isinstance(e, Barrier):
            return None
        if isinstance(e, Access) and e.array == r.array and e.kind != "read":
            if e.kind == "write" and e.offset == r.offset and e.width == r.width and e.loops == r.loops \
                    and set(conjuncts(e.guard)) <= set(conjuncts(r.guard)):
                return e
            return None
    return None


def _value(stored, th):
    """The stored value as a z3 term of thread `th`: a load is the content of its array at its
    offset (one uninterpreted function per array, so equal offsets load equal values)."""
    loads = {s: (array, offset) for s, array, offset in stored.loads}
    sort = z3.IntSort() if th.ints else z3.BitVecSort(BITS)

    def var(s):
        if s not in loads:
            return th.var(s)
        array, offset = loads[s]
        return z3.Function(f"mem:{array.space}:{array.name}", sort, sort)(th.term(offset))
    return to_z3(stored.expr, var, th.side, th.ints)


def _unwritten(kernel, array, but_atomics: bool = False) -> bool:
    """No access of the kernel writes `array` (`but_atomics`: none but atomic updates)."""
    allowed = ("read", "atomic") if but_atomics else ("read",)
    return array.read_only or not any(isinstance(e, Access) and e.array == array and e.kind not in allowed
                                      for e in kernel.events)


def equal_loads(kernel, exprs, t1, t2, lanes: bool = False) -> list:
    """Two threads that load one address of memory the kernel never writes load the same value:
    z3 facts for the loads `exprs` depend on, through the offsets of other loads too (a warp's
    lanes reading `items[warp]` and then `degree[item]`). `lanes`: the threads are lanes of one
    warp, which read one address in one instruction: memory that the kernel updates only with
    atomics counts too (`atomicRead(&d[v])` while other warps `atomicMin` it)."""
    sites = {s: (array, offset) for s, array, offset in kernel.loads}
    todo = [s for e in exprs for s in syms(e)]
    seen, facts = set(), []
    while todo:
        s = todo.pop()
        if s in seen or s not in sites:
            continue
        seen.add(s)
        array, offset = sites[s]
        if not _unwritten(kernel, array, but_atomics=lanes):
            continue
        v1, v2 = t1.var(s), t2.var(s)
        if not v1.eq(v2):  # one variable for both threads already: nothing to say
            facts.append(z3.Implies(t1.term(offset) == t2.term(offset), v1 == v2))
        todo += syms(offset)
    return facts
