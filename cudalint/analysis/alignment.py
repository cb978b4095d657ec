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

from cudalint.analysis.geometry import Geometry, Thread
from cudalint.analysis.threads import is_thread_coordinate, loop_definition, split_guard
from cudalint.model import THREAD, UNIFORM, Access, Kernel, syms
from cudalint.symbolic import BITS, as_bool, bv, check, minimize, solver, value


@dataclass(frozen=True)
class Misalignment:
    thread: str
    offset: int
    other: str | None = None  # the second thread, when the proof needs two
    data: tuple[str, ...] = ()  # argument names the offset depends on


def _thread(kernel, acc, geom, k):
    th = Thread(k, geom, THREAD)
    coord, _data, _mixed = split_guard(acc.guard, kernel)  # data/mixed conditions: assume satisfiable
    facts = th.constraints() + [as_bool(th.term(c)) for c in coord]
    for lid in acc.loops:
        facts += loop_definition(kernel.loops[lid], th, z3.BitVec(f"iter{lid}#{k}", BITS))
    return th, facts


def find(kernel: Kernel, acc: Access, geom: Geometry, timeout_ms: int) -> tuple[str, Misalignment | None]:
    data = sorted({s.name for s in syms(acc.offset) if not is_thread_coordinate(s, kernel)})
    if any(s.scope > UNIFORM for s in syms(acc.offset) if not is_thread_coordinate(s, kernel)):
        return "data-dependent", None  # depends on per-thread data: nothing to prove
    a = bv(acc.align)
    th, facts = _thread(kernel, acc, geom, 0)
    off = th.term(acc.offset)
    if not data:
        s = solver()
        s.add(*facts, *th.side, z3.URem(off, a) != bv(0))
        status, m = _check_preferring_block0(s, [th], timeout_ms, then=[off])
        return status, (Misalignment(th.describe(m), value(m, off) or 0) if m is not None else None)
    th2, facts2 = _thread(kernel, acc, geom, 1)
    diff = off - th2.term(acc.offset)
    data_vars = [th.var(s) for s in syms(acc.offset) if not is_thread_coordinate(s, kernel)]
    data_vars = list({v.get_id(): v for v in data_vars}.values())

    def shifted(by):
        return z3.substitute(diff, *[(v, v + by) for v in data_vars])

    # A pair whose distance stays put when each argument moves by one (affine offsets)...
    s = solver()
    moved = shifted(bv(1))
    s.add(*facts, *facts2, *th.side, *th2.side, z3.URem(diff, a) != bv(0), moved == diff)
    status, m = _check_preferring_block0(s, [th, th2], timeout_ms, then=[off, z3.If(diff < 0, -diff, diff)])
    if m is None:
        return status, None
    # ... and, for that very pair, for every value of the arguments.
    pinned = [(v, bv(value(m, v))) for v in _coordinates(th, th2, kernel, acc)]
    other = [(v, z3.BitVec(f"{v}'", BITS)) for v in data_vars]
    s = solver()
    s.add(z3.substitute(diff, *pinned) != z3.substitute(z3.substitute(diff, *other), *pinned))
    if check(s, timeout_ms)[0] != "unsat":
        return "unknown", None
    return "sat", Misalignment(th.describe(m), abs(value(m, diff) or 0), th2.describe(m), tuple(data))


def _check_preferring_block0(solver, threads, timeout_ms, then=()):
    """A model, with the threads in block (0,0,0) when that is possible: readable witnesses."""
    solver.push()
    solver.add(*[t.builtin("blockIdx", ax) == bv(0) for t in threads for ax in "xyz"])
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
    return [v for v in out if z3.is_const(v) and not z3.is_bv_value(v)]
