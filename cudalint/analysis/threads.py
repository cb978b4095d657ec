"""Facts about the threads that run an access: loop variables, guards split by what they
depend on, and which symbols say *which thread* as opposed to *what data*."""

from __future__ import annotations

import z3

from cudalint.model import Kernel, Loop, Sym, syms
from cudalint.symbolic import BITS, as_bool, bv, conjuncts


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


def loop_definition(loop: Loop, th, tag: str):
    """The values a loop's induction variable takes: init (op) step, j times (j >= 0)."""
    if loop.var is None or loop.init is None:
        return []
    v, init = th.var(loop.var), th.term(loop.init)
    step = th.term(loop.step) if loop.step is not None else bv(1)
    j = z3.BitVec(f"iter{loop.id}{tag}#{th.k}", BITS)
    if loop.step_op == "+":
        return [j >= 0, j < 2**24, v == init + j * step]
    if loop.step_op == "-":
        return [j >= 0, j < 2**24, v == init - j * step]
    if loop.step_op == ">>":
        return [j >= 0, j < 40, v == init >> (j * step)]
    if loop.step_op == "<<":
        return [j >= 0, j < 40, v == init << (j * step)]
    if loop.step_op in ("*", "/") and loop.step is not None:
        from cudalint.model import Const
        if isinstance(loop.step, Const) and loop.step.value in (2, 4, 8, 16):
            shift = loop.step.value.bit_length() - 1
            return [j >= 0, j < 40, v == (init << (j * shift) if loop.step_op == "*" else init >> (j * shift))]
    return []


def loop_condition(loop: Loop, th):
    return [as_bool(th.term(loop.cond))] if loop.cond is not None else []
