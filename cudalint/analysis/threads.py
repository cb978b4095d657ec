"""Facts about the threads that run an access: loop variables, guards split by what they
depend on, and which symbols say *which thread* as opposed to *what data*."""

from __future__ import annotations

import z3

from cudalint.model import Const, Kernel, Loop, Sym, syms
from cudalint.symbolic import BITS, conjuncts, in_range, mul_in_range, no_overflow


def is_thread_coordinate(s: Sym, kernel: Kernel) -> bool:
    """threadIdx/blockIdx/blockDim/gridDim and loop counters: the 'which thread / when' symbols."""
    return s.origin in ("builtin", "loop")


def split_guard(guard, kernel: Kernel):
    """(conjuncts on thread coordinates only, on data only, mixed)."""
    coord, data, mixed = [], [], []
    for c in conjuncts(guard):
        kinds = {is_thread_coordinate(s, kernel) for s in syms(c)}
        (coord if kinds <= {True} else data if kinds == {False} else mixed).append(c)
    return coord, data, mixed


def loop_definition(loop: Loop, th, it):
    """The values a loop's induction variable takes in iteration `it` (a z3 term of th's
    encoding): init (op) step, `it` times. Threads in the same iteration share `it`; others get
    their own. The counter never wraps around: a wrapped value is a witness no launch reaches."""
    if loop.var is None or loop.init is None:
        return []
    v, init = th.var(loop.var), th.term(loop.init)
    step = th.term(loop.step) if loop.step is not None else th.num(1)
    op = loop.step_op
    if op in ("*", "/") and isinstance(loop.step, Const) and loop.step.value in (2, 4, 8, 16):
        step, op = loop.step.value.bit_length() - 1, "<<" if op == "*" else ">>"
    elif op in ("<<", ">>"):
        if not isinstance(loop.step, Const):
            return []
        step = loop.step.value
    if op in ("+", "-"):
        moved = it * step
        value = init + moved if op == "+" else init - moved
        return [it >= 0, it < 2**24, v == value, *_no_overflow(th, it, step, init, moved, op)]
    if op in ("<<", ">>") and 0 < step < BITS:
        # a few dozen iterations at most: one case each keeps the integer encoding linear
        cases = range(BITS // step + 1)
        shifted = [init * 2**(n * step) if op == "<<" else init / 2**(n * step) for n in cases] if th.ints \
            else [init << n * step if op == "<<" else init >> n * step for n in cases]
        facts = [it >= 0, it <= cases[-1], z3.Or(*[z3.And(it == n, v == x) for n, x in zip(cases, shifted)])]
        if op == "<<":
            facts.append(z3.Or(*[z3.And(it == n, _fits(th, init, n * step)) for n in cases]))
        return facts
    return []


def _no_overflow(th, it, step, init, moved, op) -> list:
    """Neither `it * step` nor `init op it*step` wraps."""
    times = in_range(moved) if th.ints else mul_in_range(it, step)
    return times + no_overflow(op, init, moved)


def _fits(th, init, amount):
    """init << amount keeps its value (no bits shifted out, the sign kept)."""
    if th.ints:
        return z3.And(*in_range(init * 2**amount))
    return (init << amount) >> amount == init
