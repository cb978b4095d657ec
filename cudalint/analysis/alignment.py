"""Is a wide access misaligned for some thread, whatever the data? Quantifier-free z3 queries.

Offsets that depend only on thread coordinates ask: is there a thread whose offset is not a
multiple of the alignment? Offsets that also depend on uniform data (kernel arguments) ask: are
there two threads whose offsets differ by a non-multiple of the alignment, by an amount that does
not depend on the data? Then one of the two is misaligned whatever the arguments are. Offsets that
depend on per-thread data (values loaded from memory) are unknown and never reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from cudalint.analysis.geometry import Geometry, Thread, Witness, generic_value
from cudalint.analysis.threads import is_thread_coordinate, loop_definition, split_guard
from cudalint.model import THREAD, UNIFORM, Access, Kernel, syms
from cudalint.symbolic import NeedsBitVectors, as_bool, assert_all, bv, check, minimize, solver, value, variable


@dataclass(frozen=True)
class Misalignment:
    thread: Witness
    offset: int
    other: Witness | None = None  # the second thread, when the proof needs two
    data: tuple[str, ...] = ()  # argument names the offset depends on


def _thread(kernel, acc, geom, k, ints):
    th = Thread(k, geom, THREAD, ints=ints)
    coord, _data, _mixed = split_guard(acc.guard, kernel)  # data/mixed conditions: assume satisfiable
    facts = th.constraints() + [as_bool(th.term(c)) for c in coord]
    for lid in acc.loops:
        facts += loop_definition(kernel.loops[lid], th, variable(f"iter{lid}#{k}", ints))
    return th, facts


def find(kernel: Kernel, acc: Access, geom: Geometry, timeout_ms: int) -> tuple[str, Misalignment | None]:
    """In integers where they can say it (see cudalint.symbolic), else in bit-vectors."""
    try:
        return _find(kernel, acc, geom, timeout_ms, ints=True)
    except NeedsBitVectors:
        return _find(kernel, acc, geom, timeout_ms, ints=False)


def _find(kernel, acc, geom, timeout_ms, ints):
    data = sorted({s.name for s in syms(acc.offset) if not is_thread_coordinate(s, kernel)})
    if any(s.scope > UNIFORM for s in syms(acc.offset) if not is_thread_coordinate(s, kernel)):
        return "data-dependent", None  # depends on per-thread data: nothing to prove
    a = acc.align
    th, facts = _thread(kernel, acc, geom, 0, ints)
    off = th.term(acc.offset)
    if not data:
        s = solver(ints)
        assert_all(s, (*facts, *th.side, _misaligned(off, a)))
        status, m = _check_preferring_block0(s, [th], timeout_ms, then=[off])
        return status, (Misalignment(th.witness(m), value(m, off) or 0) if m is not None else None)
    th2, facts2 = _thread(kernel, acc, geom, 1, ints)
    diff = off - th2.term(acc.offset)
    data_vars = [th.var(s) for s in syms(acc.offset) if not is_thread_coordinate(s, kernel)]
    data_vars = list({v.get_id(): v for v in data_vars}.values())

    # First with every argument a large multiple of 256: the terms an argument scales are then
    # aligned, so a misaligned distance comes from the coordinates alone. No pair means none at
    # all (a distance that does not depend on the arguments is the same here); a pair found is
    # checked for every value of the arguments. Linear, so fast where the general query is not.
    aligned = [(v, th.num(256 * generic_value(str(v), 0))) for v in data_vars]
    s = solver(ints)
    s.add(*[z3.substitute(f, *aligned) for f in (*facts, *facts2, *th.side, *th2.side, _misaligned(diff, a))])
    status, m = _check_preferring_block0(s, [th, th2], timeout_ms, then=[z3.substitute(off, *aligned)])
    if status == "unsat":
        return status, None
    if m is not None and _for_every_argument(m, th, th2, kernel, acc, diff, data_vars, ints, timeout_ms):
        return "sat", Misalignment(th.witness(m), abs(value(m, z3.substitute(diff, *aligned)) or 0),
                                   th2.witness(m), tuple(data))

    def shifted(by):
        return z3.substitute(diff, *[(v, v + by) for v in data_vars])

    # A pair whose distance stays put when each argument moves by one (affine offsets)...
    s = solver(ints)
    moved = shifted(1)
    assert_all(s, (*facts, *facts2, *th.side, *th2.side, _misaligned(diff, a), moved == diff))
    status, m = _check_preferring_block0(s, [th, th2], timeout_ms, then=[off, z3.If(diff < 0, -diff, diff)])
    if m is None:
        return status, None
    # ... and, for that very pair, for every value of the arguments.
    if not _for_every_argument(m, th, th2, kernel, acc, diff, data_vars, ints, timeout_ms):
        return "unknown", None
    return "sat", Misalignment(th.witness(m), abs(value(m, diff) or 0), th2.witness(m), tuple(data))


def _for_every_argument(m, th, th2, kernel, acc, diff, data_vars, ints, timeout_ms) -> bool:
    """The two threads of model m are as far apart whatever the arguments are."""
    pinned = [(v, th.num(value(m, v))) for v in _coordinates(th, th2, kernel, acc)]
    other = [(v, variable(f"{v}'", ints)) for v in data_vars]
    s = solver(ints)
    s.add(z3.substitute(diff, *pinned) != z3.substitute(z3.substitute(diff, *other), *pinned))
    return check(s, timeout_ms)[0] == "unsat"


def _check_preferring_block0(solver, threads, timeout_ms, then=()):
    """A model, with the threads in block (0,0,0) when that is possible: readable witnesses."""
    solver.push()
    solver.add(*[t.builtin("blockIdx", ax) == 0 for t in threads for ax in "xyz"])
    status, m = check(solver, timeout_ms)
    if m is None:
        solver.pop()
        status, m = check(solver, timeout_ms)
    if m is not None:
        m = minimize(solver, [t.linear_id() for t in threads] + list(then), m, timeout_ms)
    return status, m


def _coordinates(th, th2, kernel, acc):
    """The z3 variables of both threads' coordinates (threadIdx, blockIdx, loop counters)."""
    out = []
    for t in (th, th2):
        out += [t.var(s) for s in syms(acc.offset) if is_thread_coordinate(s, kernel) and
                not s.name.startswith(("blockDim.", "gridDim."))]
    return [v for v in out if z3.is_const(v) and not z3.is_bv_value(v) and not z3.is_int_value(v)]


def _misaligned(off, align: int):
    """off is not a multiple of align (off may be negative: a difference)."""
    return off % align != 0 if z3.is_int(off) else z3.SRem(off, bv(align)) != bv(0)
