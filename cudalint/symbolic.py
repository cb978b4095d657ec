"""Model expressions as z3 bit-vector terms: 32-bit, signed, as `int` index arithmetic is in C
(no-overflow side conditions keep wrapped values out of witnesses)."""

from __future__ import annotations

import time
from typing import Callable

import z3

from cudalint.model import Const, Op, Sym

BITS = 32
_CMP = {"<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a / b, "%": z3.SRem, "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
          "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
          "min": lambda a, b: z3.If(a < b, a, b), "max": lambda a, b: z3.If(a > b, a, b)}


def bv(n: int):
    return z3.BitVecVal(n, BITS)


def as_bool(x):
    return x if z3.is_bool(x) else x != bv(0)


def as_bv(x):
    return z3.If(x, bv(1), bv(0)) if z3.is_bool(x) else x


def to_z3(e, var: Callable[[Sym], z3.ExprRef], side: list | None = None):
    """The z3 term of expression `e`; `var` maps each Sym to the z3 variable of one thread.
    With `side`, no-overflow conditions of its arithmetic are appended there: index arithmetic
    that wraps around is a bug of its own, and wrapped witnesses would be false alarms."""
    if isinstance(e, Const):
        return bv(e.value)
    if isinstance(e, Sym):
        return var(e)
    op, args = e.op, e.args
    if op == "ite":
        c, a, b = (to_z3(x, var, side) for x in args)
        a, b = (a, b) if z3.is_bool(a) == z3.is_bool(b) else (as_bv(a), as_bv(b))
        return z3.If(as_bool(c), a, b)
    if op == "!":
        return z3.Not(as_bool(to_z3(args[0], var, side)))
    if op == "~":
        return ~as_bv(to_z3(args[0], var, side))
    a, b = (to_z3(x, var, side) for x in args)
    if op == "&&":
        return z3.And(as_bool(a), as_bool(b))
    if op == "||":
        return z3.Or(as_bool(a), as_bool(b))
    a, b = as_bv(a), as_bv(b)
    if op in _CMP:
        return _CMP[op](a, b)
    if side is not None and op in _NO_OVERFLOW:
        side.extend(_NO_OVERFLOW[op](a, b))
    return _ARITH[op](a, b)


_NO_OVERFLOW = {
    "+": lambda a, b: [z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b)],
    "-": lambda a, b: [z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True)],
    "*": lambda a, b: [z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b)],
    "<<": lambda a, b: [b >= 0, b < BITS, (a << b) >> b == a],
}


def conjuncts(guard) -> list:
    """A guard tuple flattened into its `&&`-free parts."""
    out = []
    for g in guard:
        stack = [g]
        while stack:
            x = stack.pop()
            if isinstance(x, Op) and x.op == "&&":
                stack.extend(x.args)
            else:
                out.append(x)
    return out


def solver() -> z3.Solver:
    """A solver for quantifier-free bit-vector queries (faster than the default portfolio)."""
    return z3.SolverFor("QF_BV")


def check(solver: z3.Solver, timeout_ms: int):
    """'sat' with a model, 'unsat', or 'unknown' (timeouts included)."""
    solver.set("timeout", timeout_ms)
    r = solver.check()
    if r == z3.sat:
        return "sat", solver.model()
    return ("unsat" if r == z3.unsat else "unknown"), None


def value(model, term) -> int | None:
    v = model.eval(term, model_completion=True)
    try:
        return v.as_signed_long()
    except AttributeError:
        return None


def minimize(solver: z3.Solver, terms, model, timeout_ms: int, budget_ms: int = 1500):
    """A model in which each of `terms` (non-negative quantities such as thread ids), in order,
    is as small as a binary search finds, earlier ones held: witnesses are then the first
    threads, and the same from run to run. Each step gets a short timeout and all of them a
    budget: on hard queries the witness is merely less tidy."""
    deadline = time.monotonic() + budget_ms / 1000
    step_ms = max(50, min(timeout_ms, 250))
    solver.push()
    try:
        for term in terms:
            model = _minimize_one(solver, term, model, step_ms, deadline)
            solver.add(term == value(model, term))
    finally:
        solver.pop()
    return model


def _minimize_one(solver, term, model, timeout_ms, deadline, steps: int = 34):
    lo, hi = 0, model.eval(term, model_completion=True).as_long()  # unsigned, as ULE compares
    best = model
    while lo < hi and steps > 0 and time.monotonic() < deadline:
        steps -= 1
        mid = (lo + hi) // 2
        solver.push()
        solver.add(z3.ULE(term, bv(mid)))
        status, m = check(solver, timeout_ms)
        solver.pop()
        if m is not None:
            best, hi = m, min(mid, m.eval(term, model_completion=True).as_long())
        elif status == "unsat":
            lo = mid + 1
        else:
            break  # too hard to narrow further in time
    return best
