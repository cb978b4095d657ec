"""Facts about the threads that run an access: loop variables, guards split by what they
depend on, and which symbols say *which thread* as opposed to *what data*."""

from __future__ import annotations

from functools import partial

import z3

from cudalint.model import Const, Kernel, Loop, Sym, syms
from cudalint.symbolic import BITS, all_of, any_of, conjuncts, in_range, mul_in_range, no_overflow, relation


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
    facts = []
    if loop.var is not None and loop.init is not None:
        facts += _progression(th, loop.var, loop.init, loop.step_op, loop.step, it)
    for var, init, op, step in loop.derived:  # `offset <<= 1` beside `d >>= 1`: the same iteration
        facts += _progression(th, var, init, op, step, it)
    return facts


def _progression(th, var, init_expr, op, step_expr, it) -> list:
    """`var` == init (op) step, `it` times."""
    v, init = th.var(var), th.term(init_expr)
    step = th.term(step_expr) if step_expr is not None else th.num(1)
    if op in ("*", "/") and isinstance(step_expr, Const) and step_expr.value in (2, 4, 8, 16):
        step, op = step_expr.value.bit_length() - 1, "<<" if op == "*" else ">>"
    elif op in ("<<", ">>"):
        if not isinstance(step_expr, Const):
            return []
        step = step_expr.value
    if op in ("+", "-"):
        moved = it * step
        value = init + moved if op == "+" else init - moved
        return [it >= 0, it < 2**24, v == value, *_no_overflow(th, it, step, init, moved, op)]
    if op in ("<<", ">>") and 0 < step < BITS:
        # a few dozen iterations at most: one case each keeps the integer encoding linear
        cases = range(BITS // step + 1)
        rel = partial(relation, ints=th.ints)
        shifted = [rel("*" if op == "<<" else "/", init, 2**(n * step)) for n in cases] if th.ints \
            else [init << n * step if op == "<<" else init >> n * step for n in cases]
        facts = [it >= 0, it <= cases[-1],
                 any_of([all_of((rel("==", it, n), rel("==", v, x))) for n, x in zip(cases, shifted)])]
        if op == "<<":
            facts.append(any_of([all_of((rel("==", it, n), _fits(th, init, n * step))) for n in cases]))
        return facts
    return []


def _no_overflow(th, it, step, init, moved, op) -> list:
    """Neither `it * step` nor `init op it*step` wraps."""
    times = in_range(moved) if th.ints else mul_in_range(it, step)
    return times + no_overflow(op, init, moved)


def _fits(th, init, amount):
    """init << amount keeps its value (no bits shifted out, the sign kept)."""
    if th.ints:
        return all_of(in_range(init * 2**amount))
    return (init << amount) >> amount == init
