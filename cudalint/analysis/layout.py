"""Row-major layouts: `base + z * slice_pitch + y * pitch + 4 * x`, with the pitches kernel
arguments, addresses one element per (x, y, z) because the host sizes each pitch past what the
smaller axes span. The code does not say so; the solver, free to pick `pitch = 61`, would make
rows overlap. So two addresses built from the same argument strides collide only where each
stride is multiplied by the same amount in both (the same row, the same slice)."""

from __future__ import annotations

from cudalint.model import UNIFORM, Const, Op, Sym, syms


def same_strides(o1, o2, t1, t2, fixed: set) -> list:
    """z3 facts: per argument stride, the two offsets' multipliers of it are equal. `fixed`:
    parameters whose value the launch gives (a known pitch is not presumed to fit the rows)."""
    parts1, parts2 = _by_stride(o1, fixed), _by_stride(o2, fixed)
    # an argument is a stride where it multiplies a coordinate (`y * pitch`); then its plain
    # multiples count too (`y * pitch + pitch` is row y + 1), while one only ever added
    # (`data[t + shift]`) is an offset, not a stride
    strides = {name for parts in (parts1, parts2) for name, terms in parts.items()
               if any(scaled for _, scaled in terms)}
    zero = t1.num(0)
    facts = []
    for name in sorted(strides):
        c1 = sum((t1.term(c) for c, _ in parts1.get(name, ())), zero)
        c2 = sum((t2.term(c) for c, _ in parts2.get(name, ())), zero)
        facts.append(c1 == c2)
    return facts


def _by_stride(offset, fixed: set) -> dict:
    """{argument name: [(multiplier, whether it has a non-constant factor)]} of the offset's
    terms that are a multiple of one argument."""
    out: dict = {}
    for k, term in _terms(offset, 1):
        factors = list(_factors(term))
        strides = [f for f in factors if _is_stride(f, fixed)]
        if len(strides) != 1 or any(strides[0] in syms(f) for f in factors if f is not strides[0]):
            continue
        rest = [f for f in factors if f is not strides[0]]
        coef = Const(k)
        for f in rest:
            coef = Op.make("*", coef, f)
        out.setdefault(strides[0].name, []).append((coef, not all(isinstance(f, Const) for f in rest)))
    return out


def _is_stride(e, fixed: set) -> bool:
    return isinstance(e, Sym) and e.scope == UNIFORM and e.origin == "param" and e.name not in fixed


def _terms(e, k: int):
    """(constant factor, term) pairs summing to k * e, through +, -, and constant scaling."""
    if isinstance(e, Op) and e.op == "+":
        for a in e.args:
            yield from _terms(a, k)
    elif isinstance(e, Op) and e.op == "-" and len(e.args) == 2:
        yield from _terms(e.args[0], k)
        yield from _terms(e.args[1], -k)
    elif isinstance(e, Op) and e.op == "*" and len(e.args) == 2 and isinstance(e.args[1], Const):
        yield from _terms(e.args[0], k * e.args[1].value)
    elif isinstance(e, Op) and e.op == "*" and len(e.args) == 2 and isinstance(e.args[0], Const):
        yield from _terms(e.args[1], k * e.args[0].value)
    elif isinstance(e, Op) and e.op == "<<" and isinstance(e.args[1], Const) and 0 <= e.args[1].value < 32:
        yield from _terms(e.args[0], k << e.args[1].value)
    else:
        yield k, e


def _factors(e):
    if isinstance(e, Op) and e.op == "*":
        for a in e.args:
            yield from _factors(a)
    else:
        yield e
