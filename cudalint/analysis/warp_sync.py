"""Warp-synchronous intrinsics against the lanes that reach them: z3 queries over two lanes of
one warp in the same loop iteration, as CUDA204 asks them for `__syncwarp(mask)`.

Three questions, one per rule:
- `mask_problems` (CUDA205): a calling lane outside the mask, or a lane the mask names that is
  alive (it has not returned) but does not execute the call;
- `absent_sources` (CUDA206): a shuffle whose source lane is outside the mask, past the end of
  a partial last warp, or has returned (or skipped the call with nothing left to run), for a
  lane that consumes the result;
- `activemask_divergence` (CUDA207): `__activemask()` as the mask of a fixed-pattern shuffle
  under a branch that splits the warp.

The lanes' opaque data values (loads, calls the walk does not follow) are taken equal: a
witness then rests on thread coordinates and loop counters alone. That misses branches on data,
and keeps quiet on values that are uniform across the warp for reasons the model cannot see
(`if (__any_sync(...))`, `tile.thread_rank()`): a false alarm costs more than a miss.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from cudalint.analysis.geometry import Geometry, Thread
from cudalint.analysis.shapes import shape_sets
from cudalint.analysis.threads import loop_definition
from cudalint.model import BLOCK, THREAD, UNIFORM, Const, Kernel, Sym, WarpSync, syms
from cudalint.symbolic import (NeedsBitVectors, all_of, any_of, as_bool, assert_all, bv, check, div, minimize, relation,
                               solver, value, variable)

FULL = 0xFFFFFFFF
SHUFFLES = ("shfl", "shfl_up", "shfl_down", "shfl_xor")


@dataclass(frozen=True)
class LaneWitness:
    """What one query found at one call: the lane that runs it and the lane it concerns."""
    call: WarpSync
    caller: str  # "thread (16,0,0) (lane 16)"
    other: str  # the lane outside the mask, that does not arrive, or that is read
    why: str  # outside-mask | not-arriving | outside-mask-source | partial-warp | returned | exited | diverged
    geometry: Geometry
    exit_line: int | None = None  # the `return` the source lane took


class Undecided(Exception):
    """A question the model cannot pose faithfully: no answer, no finding."""


_COORDINATES = {f"{b}.{a}" for b in ("threadIdx", "blockIdx", "blockDim", "gridDim") for a in "xyz"}


class _Lane(Thread):
    """A thread whose opaque data values are the other lane's (see the module docstring)."""

    def value(self, s: Sym):
        if s.origin == "builtin" and s.name not in _COORDINATES:
            raise Undecided(s.name)  # e.g. `threadIdx.PX` where a macro hid the member's name
        if s.origin == "value" and s.scope >= BLOCK and s not in self.overrides:
            return super().value(Sym(s.name, UNIFORM, s.origin))
        return super().value(s)


@dataclass
class _Pair:
    t1: Thread
    t2: Thread
    facts: list
    g1: object
    g2: object

    def lane(self, t):
        return lane_of(t)

    def same_warp(self):
        return div(self.t1.linear_id(), 32) == div(self.t2.linear_id(), 32)


def _pair(ctx, kernel: Kernel, call: WarpSync, geom: Geometry, ints: bool) -> _Pair:
    # each lane's terms made once per kernel, geometry and encoding: a warp's calls share their
    # guards, loops and the events after them (a bitonic network of 62 shuffles, each asked
    # about every event after it)
    t1, t2 = (_Lane(k, geom, THREAD, ints=ints, terms=ctx.shared(("lane terms", kernel.name, kernel.usr, geom, ints, k),
                                                                 dict)) for k in (1, 2))
    facts = t1.constraints() + t2.constraints()
    for lid in call.loops:  # the same iteration of every loop around the call
        it = variable(f"iter{lid}", ints)
        facts += loop_definition(kernel.loops[lid], t1, it) + loop_definition(kernel.loops[lid], t2, it)
    return _Pair(t1, t2, facts, _all(t1, call.guard), _all(t2, call.guard))


def _all(t, guard):
    return all_of([as_bool(t.term(g)) for g in guard]) if guard else z3.BoolVal(True)


def mask_names(call: WarpSync, p: _Pair, kernel: Kernel):
    """lane -> whether the call's mask (for the tile forms: the tile of p.t1) names it; None
    where the mask depends on the thread (`__activemask()`, a ballot's result) or is unknown.
    Integers express only a constant mask (NeedsBitVectors otherwise)."""
    if call.tile is not None:
        own = div(p.lane(p.t1), call.tile)
        return lambda lane: div(lane, call.tile) == own
    if call.mask is None or call.mask.scope > UNIFORM or not determined(call.mask, kernel, params=False):
        return None
    if p.t1.ints:
        if not isinstance(call.mask, Const):
            raise NeedsBitVectors("mask")
        named = [k for k in range(32) if call.mask.value >> k & 1]
        return lambda lane: any_of([relation("==", lane, k, True) for k in named]) if named else z3.BoolVal(False)
    mask = p.t1.term(call.mask)
    return lambda lane: z3.Extract(0, 0, z3.LShR(mask, lane)) == 1


def determined(e, kernel: Kernel, params: bool = True) -> bool:
    """Whether `e` is fixed by constants, thread coordinates, loop counters (of loops so fixed)
    and, with `params`, kernel arguments: no loaded or opaque value the solver could pick at will
    (a shuffle offset read from memory is not a witness)."""
    for s in syms(e):
        if s.origin == "loop":
            loop = next((lp for lp in kernel.loops.values() if lp.var == s), None)
            if loop is None or not all(determined(x, kernel, params) for x in (loop.init, loop.step) if x is not None):
                return False
        elif s.origin not in ("builtin",) + (("param",) if params else ()):
            return False
    return True


def exited(call: WarpSync, t: Thread):
    """(t has left the kernel before the call, the line of that return) for each earlier
    `return` outside loops; None when one sits in a loop (which iteration is not tracked)."""
    out = []
    for guard, loops, loc in call.exits:
        if loops:
            return None
        out.append((_all(t, guard), loc.line))
    return out


def _solve(ctx, kernel, call, p: _Pair, query, what: str):
    s = solver(p.t1.ints)
    assert_all(s, (*p.facts, *p.t1.side, *p.t2.side, *query))
    status, m = check(s, ctx.settings.solver_timeout_ms)
    if status == "unknown":
        ctx.skipped.append((f"{what} {kernel.name} line {call.loc.line}", "solver timeout"))
    if m is None:
        return None
    return minimize(s, [p.t1.linear_id(), p.t2.linear_id()], m, ctx.settings.solver_timeout_ms)


def lane_of(t: Thread):
    return t.linear_id() % 32 if t.ints else z3.URem(t.linear_id(), bv(32))


def describe(t: Thread, m) -> str:
    return f"{t.describe(m)} (lane {value(m, lane_of(t))})"


def per_call(ctx, kernel: Kernel, wanted, question, what: str, encodings=(True, False)) -> list[LaneWitness]:
    """`question(ctx, kernel, call, geometry, ints)` for each WarpSync that `wanted` picks,
    under each launch geometry until one answers (under guessed shapes, only an answer under
    every one of them counts); the first answer per call. Integers where they can say it (fast,
    and the witness minimises reliably), else bit-vectors."""
    out = []
    if kernel.incomplete:  # parse errors inside: calls and branches may be missing
        return out
    for call in kernel.events:
        if not isinstance(call, WarpSync) or not wanted(call):
            continue
        if ctx.out_of_time():
            ctx.skipped.append((f"{what} in {kernel.name}", "file time budget spent"))
            break
        for shapes in shape_sets(ctx, kernel):
            found = shapes.under_every(lambda geom: _answer(ctx, kernel, call, geom, question, encodings))
            if found:
                out.append(found)
                break
    return out


def _answer(ctx, kernel, call, geom, question, encodings):
    for ints in encodings:
        try:
            return question(ctx, kernel, call, geom, ints)
        except NeedsBitVectors:
            continue
        except Undecided:
            return None
    return None


# ------------------------------------------------------------------------ CUDA205


def mask_problems(ctx, kernel: Kernel) -> list[LaneWitness]:
    return per_call(ctx, kernel, lambda c: not c.legacy, _mask_question, "warp intrinsic mask")


def _mask_question(ctx, kernel, call, geom, ints):
    p = _pair(ctx, kernel, call, geom, ints)
    names = mask_names(call, p, kernel)
    if names is None:
        return None
    l1, l2 = p.lane(p.t1), p.lane(p.t2)
    m = _solve(ctx, kernel, call, p, [p.g1, z3.Not(names(l1))], "warp intrinsic mask")
    if m is not None:
        return LaneWitness(call, describe(p.t1, m), f"lane {value(m, l1)}", "outside-mask", geom)
    gone = exited(call, p.t2)
    if gone is None:
        return None  # a return inside a loop: whether the lane is still alive is not known
    alive = [z3.Not(g) for g, _ in gone]
    query = [p.g1, z3.Not(p.g2), names(l2), p.same_warp(), l1 != l2, *alive, _still_running(kernel, call, p.t2)]
    m = _solve(ctx, kernel, call, p, query, "warp intrinsic mask")
    if m is not None:
        return LaneWitness(call, describe(p.t1, m), describe(p.t2, m), "not-arriving", geom)
    return None


def _still_running(kernel: Kernel, call: WarpSync, t):
    """t, which misses the call, has not merely run on towards the end of the kernel (CUDA lets
    exited lanes be named, and a lane with nothing left to run has as good as exited: nvcc puts
    its EXIT before the call): it is still inside every loop around the call (the same
    iteration), or it reaches an event after the call (after the call's loop nest)."""
    later = []
    for n, e in enumerate(kernel.events[kernel.events.index(call) + 1:]):
        if set(e.loops) & set(call.loops):
            continue
        facts = []
        for lid in e.loops:
            facts += loop_definition(kernel.loops[lid], t, variable(f"after{lid}_{n}", t.ints))
        later.append(all_of((*facts, _all(t, e.guard))))
    if call.loops:
        loops = [kernel.loops[lid] for lid in call.loops]
        later.append(all_of([*(_all(t, lp.entry) for lp in loops),
                             *(as_bool(t.term(lp.cond)) for lp in loops if lp.cond is not None)]))
    return any_of(later)


# ------------------------------------------------------------------------ CUDA206


def absent_sources(ctx, kernel: Kernel) -> list[LaneWitness]:
    wanted = lambda c: c.family in SHUFFLES and not c.legacy and c.lane is not None  # noqa: E731
    return per_call(ctx, kernel, wanted, _source_question, "shuffle source lane", encodings=(False,))


def source_lane(call: WarpSync, t: Thread, lane):
    """(the lane t reads from, the condition under which it reads another lane rather than
    keeping its own value), or None when the width is not a constant power of two."""
    w = call.shfl_width
    if not isinstance(w, Const) or w.value not in (1, 2, 4, 8, 16, 32):
        return None
    width = bv(w.value)
    arg = t.term(call.lane)
    start = lane - z3.URem(lane, width)  # the first lane of t's segment
    if call.family == "shfl":
        return start + z3.URem(arg, width), z3.BoolVal(True)
    if call.family == "shfl_up":
        return lane - arg, z3.And(z3.ULE(arg, z3.URem(lane, width)), arg != 0)
    if call.family == "shfl_down":
        return lane + arg, z3.And(z3.ULT(z3.URem(lane, width) + arg, width), arg != 0)
    src = lane ^ arg
    return src, z3.And(z3.ULT(src, start + width), arg != 0)


def _source_question(ctx, kernel, call, geom, ints):
    p = _pair(ctx, kernel, call, geom, ints)
    names = mask_names(call, p, kernel)
    if names is None or not determined(call.lane, kernel) or (call.lane.scope > UNIFORM and call.family != "shfl"):
        return None
    l1 = p.lane(p.t1)
    read = source_lane(call, p.t1, l1)
    if read is None:
        return None
    src, reads_other = read
    caller = [p.g1, names(l1), reads_other, z3.ULT(src, bv(32))]
    if call.family == "shfl_down":  # a down-reduction's result is its segment's first lane's
        caller.append(z3.URem(l1, call_width(call)) == 0)
    m = _solve(ctx, kernel, call, p, caller + [z3.Not(names(src))], "shuffle source lane")
    if m is not None:
        return LaneWitness(call, describe(p.t1, m), f"lane {value(m, src)}", "outside-mask-source", geom)
    src_id = p.t1.linear_id() - l1 + src
    threads = _threads_in_block(p.t1)
    m = _solve(ctx, kernel, call, p, caller + [z3.UGE(src_id, threads)], "shuffle source lane")
    if m is not None:
        return LaneWitness(call, describe(p.t1, m), f"lane {value(m, src)}", "partial-warp", geom)
    source = caller + [p.t2.linear_id() == src_id]
    gone = exited(call, p.t2)
    for guard, line in gone or ():
        m = _solve(ctx, kernel, call, p, source + [guard], "shuffle source lane")
        if m is not None:
            return LaneWitness(call, describe(p.t1, m), describe(p.t2, m), "returned", geom, line)
    if gone is not None:  # it skips the call with nothing left to run: it exits
        m = _solve(ctx, kernel, call, p, source + [z3.Not(p.g2), z3.Not(_still_running(kernel, call, p.t2))],
                   "shuffle source lane")
        if m is not None:
            return LaneWitness(call, describe(p.t1, m), describe(p.t2, m), "exited", geom)
    return None


def call_width(call: WarpSync):
    return bv(call.shfl_width.value)


def _threads_in_block(t: Thread):
    dims = [t.var(Sym(f"blockDim.{a}", 0, "builtin")) for a in "xyz"]
    return dims[0] * dims[1] * dims[2]


# ------------------------------------------------------------------------ CUDA207


def from_activemask(call: WarpSync) -> bool:
    return call.mask is not None and any(s.name.startswith("__activemask@") for s in syms(call.mask))


def activemask_divergence(ctx, kernel: Kernel) -> list[LaneWitness]:
    return per_call(ctx, kernel, _fixed_pattern_on_activemask, _diverged_question, "activemask shuffle")


def _fixed_pattern_on_activemask(call: WarpSync) -> bool:
    """A shuffle that needs particular lanes (fixed offsets, a constant source lane) with a mask
    from `__activemask()`; a source lane computed from the mask (`__ffs(mask) - 1`, the
    warp-aggregated atomic) is the mask's proper use."""
    if not from_activemask(call) or call.family not in SHUFFLES or call.lane is None:
        return False
    return call.lane.scope == UNIFORM if call.family != "shfl" else isinstance(call.lane, Const)


def _diverged_question(ctx, kernel, call, geom, ints):
    p = _pair(ctx, kernel, call, geom, ints)
    gone = exited(call, p.t2)
    if gone is None:
        return None
    alive = [z3.Not(g) for g, _ in gone]
    query = [p.g1, z3.Not(p.g2), p.same_warp(), *alive]
    m = _solve(ctx, kernel, call, p, query, "activemask shuffle")
    if m is not None:
        return LaneWitness(call, describe(p.t1, m), describe(p.t2, m), "diverged", geom)
    return None
