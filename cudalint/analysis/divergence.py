"""Barriers that not every thread of the block (or every lane named in a `__syncwarp` mask)
reaches: a z3 query over two threads of one block, one reaching the barrier and one not."""

from __future__ import annotations

from dataclasses import dataclass

import z3

from cudalint.analysis import benign
from cudalint.analysis.threads import loop_definition
from cudalint.analysis.geometry import Geometry, Thread, Witness, scalar_arguments
from cudalint.analysis.shapes import shape_sets
from cudalint.model import BLOCK, THREAD, Barrier, Kernel
from cudalint.symbolic import NeedsBitVectors, all_of, as_bool, assert_all, bv, check, minimize, solver, value, variable


@dataclass(frozen=True)
class Divergence:
    barrier: Barrier
    reaches: Witness  # the thread that reaches it
    misses: Witness | str  # the thread that does not, or the lane outside the mask ("lane 16")
    outside_mask: bool
    geometry: Geometry
    skipper_exits: bool = False  # the thread that misses it reaches no barrier afterwards
    scalars: tuple = ()  # (parameter, value) of the scalar arguments in the solver's model


def divergences(ctx, kernel: Kernel) -> list[Divergence]:
    out = []
    if kernel.incomplete:
        return out
    for b in kernel.events:
        if not isinstance(b, Barrier) or b.kind == "group":  # a group of unknown extent
            continue
        if ctx.out_of_time():
            ctx.skipped.append((f"barrier divergence in {kernel.name}", "file time budget spent"))
            break
        for shapes in shape_sets(ctx, kernel):
            d = shapes.under_every(lambda geom: _check(kernel, b, geom, ctx.settings.solver_timeout_ms, ctx))
            if d:
                out.append(d)
                break
    return out


def _threads(kernel, b, geom, ints):
    # A grid barrier waits for every block's threads; values the blocks compute or load are
    # taken to agree across blocks (a grid-wide reduction's result read after grid.sync()), so
    # only coordinates set blocks apart.
    split = BLOCK if b.kind == "grid" else THREAD
    t1, t2 = (Thread(k, geom, split, ints=ints, value_split=THREAD) for k in (1, 2))
    facts = t1.constraints() + t2.constraints()
    for lid in b.loops:
        it = variable(f"iter{lid}", ints)
        facts += loop_definition(kernel.loops[lid], t1, it) + loop_definition(kernel.loops[lid], t2, it)  # same iteration
    g1 = all_of([as_bool(t1.term(g)) for g in b.guard]) if b.guard else z3.BoolVal(True)
    g2 = all_of([as_bool(t2.term(g)) for g in b.guard]) if b.guard else z3.BoolVal(True)
    loop_terms = [e for lid in b.loops for e in _loop_exprs(kernel.loops[lid])]
    facts += benign.equal_loads(kernel, [*b.guard, *loop_terms], t1, t2, lanes=b.kind == "warp")
    return t1, t2, facts, g1, g2


def _loop_exprs(loop) -> list:
    return [e for e in (loop.init, loop.cond, loop.step) if e is not None] + \
        [e for _, init, _, step in loop.derived for e in (init, step) if e is not None]


def _check(kernel, b: Barrier, geom, timeout, ctx):
    """Integers where they can say it (block barriers: no lane masks), else bit-vectors."""
    try:
        t1, t2, facts, g1, g2 = _threads(kernel, b, geom, ints=b.kind != "warp")
    except NeedsBitVectors:
        t1, t2, facts, g1, g2 = _threads(kernel, b, geom, ints=False)
    l1, l2 = t1.linear_id(), t2.linear_id()
    if b.kind == "block":
        queries = [(z3.And(g1, z3.Not(g2), l1 != l2), False)]
    elif b.kind == "grid":
        other_block = z3.Or(*[t1.builtin("blockIdx", a) != t2.builtin("blockIdx", a) for a in "xyz"])
        queries = [(z3.And(g1, z3.Not(g2), z3.Or(l1 != l2, other_block)), False)]
    else:
        if b.mask is not None and b.mask.scope > 0:
            return None  # a thread-dependent mask (__activemask()): nothing to prove
        mask = t1.term(b.mask) if b.mask is not None else bv(0xFFFFFFFF)
        lane1, lane2 = z3.URem(l1, bv(32)), z3.URem(l2, bv(32))
        same_warp = z3.UDiv(l1, bv(32)) == z3.UDiv(l2, bv(32))
        outside = z3.Extract(0, 0, z3.LShR(mask, lane1)) == 0
        inside2 = z3.Extract(0, 0, z3.LShR(mask, lane2)) == 1
        queries = [(z3.And(g1, outside, l1 == l2), True),
                   (z3.And(g1, z3.Not(g2), inside2, same_warp, l1 != l2), False)]
    for q, outside_mask in queries:
        s = solver(t1.ints)
        assert_all(s, (*facts, *t1.side, *t2.side, q))
        status, m = check(s, timeout)
        if status == "unknown":
            ctx.skipped.append((f"divergence check {kernel.name} line {b.loc.line}", "solver timeout"))
        if m is not None:
            blocks = [t1.block_id(), t2.block_id()] if b.kind == "grid" else []  # else one block
            m = minimize(s, [*blocks, t1.linear_id(), t2.linear_id()], m, timeout)
            misses = f"lane {value(m, z3.URem(l1, bv(32)))}" if outside_mask else t2.witness(m)
            exits = b.kind == "block" and _reaches_no_later_barrier(kernel, b, geom, m, t2, timeout)
            return Divergence(b, t1.witness(m), misses, outside_mask, geom, exits, scalar_arguments(kernel, m))
    return None


def _reaches_no_later_barrier(kernel, b: Barrier, geom, m, skipper, timeout) -> bool:
    """Whether the witness thread that skips `b` (its coordinates and the arguments as in model
    m) can reach no block barrier afterwards: `b` or an earlier one of its loop in a later
    iteration, or one after it. It then runs to the end, and on sm_70+ exited threads count as
    arrived: nothing hangs, and no tool reports it."""
    events = kernel.events
    at = events.index(b)
    pins = [v == m.eval(v, model_completion=True) for v in _pinned(skipper, m)]
    for n, b2 in enumerate(events):
        if not isinstance(b2, Barrier) or b2.kind != "block":
            continue
        shared = [lid for lid in b2.loops if lid in b.loops]
        if n <= at and not shared:
            continue  # before it and in no loop with it: behind the thread already
        th = Thread(2, geom, THREAD, ints=skipper.ints)
        try:
            facts = th.constraints() + [as_bool(th.term(g)) for g in b2.guard]
        except NeedsBitVectors:
            return False  # cannot tell: say nothing of exits
        for lid in b2.loops:
            it = variable(f"later{lid}", th.ints)
            facts += loop_definition(kernel.loops[lid], th, it)
            if lid in shared:  # not an iteration the thread has left behind
                before = m.eval(variable(f"iter{lid}", th.ints), model_completion=True)
                facts.append(it > before if n <= at and lid == shared[-1] else it >= before)
        q = solver(th.ints)
        assert_all(q, (*facts, *th.side, *pins))
        if check(q, timeout)[0] != "unsat":
            return False
    return True


def _pinned(th, m) -> list:
    """The skipping thread's coordinates and every block-wide value of model m (not loop
    counters, which the later barrier's own iterations decide)."""
    out = []
    for d in m.decls():
        name = d.name()
        if name.endswith("#1") or name.startswith(("iter", "later")) or "@" in name.split("#")[0]:
            continue  # the other thread, iteration counters, loop variables (`col@12`)
        out.append(d())
    return out
