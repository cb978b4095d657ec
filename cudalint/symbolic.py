"""Model expressions as z3 bit-vector terms (64-bit, signed, as index arithmetic is in C)."""

from __future__ import annotations

from typing import Callable

import z3

from cudalint.model import Const, Op, Sym

BITS = 64
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


def to_z3(e, var: Callable[[Sym], z3.ExprRef]):
    """The z3 term of expression `e`; `var` maps each Sym to the z3 variable of one thread."""
    if isinstance(e, Const):
        return bv(e.value)
    if isinstance(e, Sym):
        return var(e)
    op, args = e.op, e.args
    if op == "ite":
        c, a, b = (to_z3(x, var) for x in args)
        a, b = (a, b) if z3.is_bool(a) == z3.is_bool(b) else (as_bv(a), as_bv(b))
        return z3.If(as_bool(c), a, b)
    if op == "!":
        return z3.Not(as_bool(to_z3(args[0], var)))
    if op == "~":
        return ~as_bv(to_z3(args[0], var))
    a, b = (to_z3(x, var) for x in args)
    if op == "&&":
        return z3.And(as_bool(a), as_bool(b))
    if op == "||":
        return z3.Or(as_bool(a), as_bool(b))
    a, b = as_bv(a), as_bv(b)
    if op in _CMP:
        return _CMP[op](a, b)
    return _ARITH[op](a, b)


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
