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
from cudalint.symbolic import as_bool, bv, check, value


@dataclass(frozen=True)
class Misalignment:
    thread: str
    offset: int
    other: str | None = None  # the second thread, when the proof needs two
    data: tuple[str, ...] = ()  # argument names the offset depends on


def _thread(kernel, acc, geom, k, data_shared=True):
    th = Thread(k, geom, THREAD)
    coord, _data, _mixed = split_guard(acc.guard, kernel)  # data/mixed conditions: assume satisfiable
    facts = th.constraints() + [as_bool(th.term(c)) for c in coord]
    for lid in acc.loops:
        facts += loop_definition(kernel.loops[lid], th, "")
    return th, facts


def find(kernel: Kernel, acc: Access, geom: Geometry, timeout_ms: int) -> tuple[str, Misalignment | None]:
    data = sorted({s.name for s in syms(acc.offset) if not is_thread_coordinate(s, kernel)})
    if any(s.scope > UNIFORM for s in syms(acc.offset) if not is_thread_coordinate(s, kernel)):
        return "unknown", None  # depends on per-thread data
    a = bv(acc.align)
    th, facts = _thread(kernel, acc, geom, 0)
    off = th.term(acc.offset)
    if not data:
        s = z3.Solver()
        s.add(*facts, z3.URem(off, a) != bv(0))
        status, m = check(s, timeout_ms)
        return status, (Misalignment(th.describe(m), value(m, off) or 0) if m is not None else None)
    th2, facts2 = _thread(kernel, acc, geom, 1)
    off2 = th2.term(acc.offset)
    diff = off - off2
    # The difference must not depend on the data: same threads, other data -> same difference.
    other = Thread(2, geom, THREAD)
    data_syms = {s for s in syms(acc.offset) if not is_thread_coordinate(s, kernel)}
    renamed = z3.substitute(diff, *[(th.var(s), other.var(s)) for s in data_syms])
    s = z3.Solver()
    s.add(*facts, *facts2, renamed != diff)
    status, _ = check(s, timeout_ms)
    if status != "unsat":
        return ("unknown" if status == "unknown" else "unsat"), None
    s = z3.Solver()
    s.add(*facts, *facts2, z3.URem(diff, a) != bv(0))
    status, m = check(s, timeout_ms)
    if m is None:
        return status, None
    return "sat", Misalignment(th.describe(m), abs(value(m, diff) or 0), th2.describe(m), tuple(data))
