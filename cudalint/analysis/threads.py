"""Facts about the threads that run an access: loop variables, guards split by what they
depend on, and which symbols say *which thread* as opposed to *what data*."""

from __future__ import annotations

from cudalint.model import Const, Kernel, Loop, Sym, syms
from cudalint.symbolic import bv, conjuncts


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
    """The values a loop's induction variable takes in iteration `it` (a z3 term): init (op) step,
    `it` times. Threads in the same iteration share `it`; others get their own."""
    if loop.var is None or loop.init is None:
        return []
    v, init = th.var(loop.var), th.term(loop.init)
    step = th.term(loop.step) if loop.step is not None else bv(1)
    if loop.step_op in ("*", "/") and isinstance(loop.step, Const) and loop.step.value in (2, 4, 8, 16):
        step, op = bv(loop.step.value.bit_length() - 1), "<<" if loop.step_op == "*" else ">>"
    else:
        op = loop.step_op
    if op == "+":
        return [it >= 0, it < 2**24, v == init + it * step]
    if op == "-":
        return [it >= 0, it < 2**24, v == init - it * step]
    if op == ">>":
        return [it >= 0, it < 40, v == init >> (it * step)]
    if op == "<<":
        return [it >= 0, it < 40, v == init << (it * step)]
    return []
