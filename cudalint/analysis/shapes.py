"""Block shapes a kernel can run with, where no launch fixes its blockDim.

A guessed shape must be one the kernel supports, or every finding made with it is about a
program nobody runs (1024 threads on `__shared__ float buf[256]; buf[threadIdx.x]`). The kernel
says what it supports:

- declared arrays indexed by thread coordinates: the program is presumed to stay in bounds, so
  a shape under which some thread subscripts past an extent (`As[ty][tx]` with tx >= 16 for
  `As[16][16]`) is not one it runs with;
- tile strides, `blockIdx.x * 256 + threadIdx.x`: a block of more than 256 threads along x would
  overlap the next block's tile;
- `__launch_bounds__` (already the geometry's thread limit).

Shapes are tried from the usual sizes plus the one the kernel's tiles and arrays suggest; a
finding made under guessed shapes must hold for every shape that is left (ShapeSet).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import z3

from cudalint.analysis.geometry import AXES, Geometry, Thread, geometries, tried_blocks
from cudalint.analysis.threads import loop_definition
from cudalint.model import THREAD, Access, Const, Kernel, Op, Sym, syms
from cudalint.symbolic import NeedsBitVectors, as_bool, assert_all, check, solver, variable


@dataclass(frozen=True)
class ShapeSet:
    """Geometries that must all show a bug before it is reported: one launch's fixed shape, or
    the shapes tried for an open blockDim that the kernel supports (possibly none)."""
    geometries: tuple
    guessed: bool

    def under_every(self, ask):
        """ask(geometry)'s answer under the first (smallest) geometry, if every geometry of the
        set gives one, else None: a guessed shape decides nothing on its own. Guessed shapes are
        asked largest first: most questions have no answer anywhere, and the largest is the
        likeliest to show that."""
        order = self.geometries[::-1] if self.guessed else self.geometries
        answers = []
        for g in order:
            answers.append(ask(g))
            if not answers[-1]:
                return None
        return (answers[-1] if self.guessed else answers[0]) if answers else None


def shape_sets(ctx, kernel: Kernel) -> list[ShapeSet]:
    return ctx.shared(("shape-sets", kernel.name, kernel.usr), lambda: _shape_sets(ctx, kernel))


def _shape_sets(ctx, kernel: Kernel) -> list[ShapeSet]:
    out = []
    for g in geometries(ctx.model, kernel, ctx.settings.block_dims, ctx.settings.grid_dims,
                        ctx.settings.external_launches):
        tried = tried_blocks(g)
        if len(tried) == 1 and not tried[0].tried:
            out.append(ShapeSet((tried[0],), False))
            continue
        fits = [t for t in _candidates(kernel, g, tried) if _supported(ctx, kernel, t)]
        fits = sorted(fits, key=lambda t: (t.block[0] * t.block[1] * t.block[2], t.block))
        everyone = tuple(t.block for t in fits)
        out.append(ShapeSet(tuple(replace(t, alternatives=everyone) for t in fits), True))
        if not fits:
            ctx.skipped.append((f"races and barriers in {kernel.name}",
                                "no usual block shape fits its arrays and tiles; pin one with --block-dim"))
    return out


def _candidates(kernel: Kernel, open_geom: Geometry, tried: list) -> list:
    """The usual shapes, and the one the kernel's tiles and arrays suggest, within its tiles."""
    hints, extents = tile_strides(kernel), thread_extents(kernel)
    known = open_geom.block or (None, None, None)
    suggested = []
    for axis in range(3):
        if known[axis] is not None:
            suggested.append(known[axis])
        else:
            sizes = hints.get(axis) or extents.get(axis)
            suggested.append(min(sizes) if sizes else None)
    shapes = list(tried)
    if all(v is not None for v in suggested) and all(s.block != tuple(suggested) for s in tried):
        shapes.append(replace(tried[0], block=tuple(suggested)))
    return [s for s in shapes if s.block[0] * s.block[1] * s.block[2] <= open_geom.max_threads
            and all(s.block[axis] <= min(sizes) for axis, sizes in hints.items())]


def tile_strides(kernel: Kernel) -> dict:
    """Axis -> the constants C of `blockIdx.<axis> * C + <something of threadIdx.<axis>>` in
    any offset: blocks own tiles of C elements along that axis."""
    out: dict = {}
    for e in kernel.events:
        if isinstance(e, Access):
            for node in _nodes(e.offset):
                for axis, c in _tile_terms(node):
                    out.setdefault(axis, set()).add(c)
    return out


def thread_extents(kernel: Kernel) -> dict:
    """Axis -> extents of declared arrays subscripted by exactly threadIdx.<axis>."""
    out: dict = {}
    for e in kernel.events:
        if isinstance(e, Access):
            for index, extent in e.bounds:
                if isinstance(index, Sym) and index.origin == "builtin" and index.name.startswith("threadIdx."):
                    out.setdefault(AXES.index(index.name[-1]), set()).add(extent)
    return out


def _nodes(e):
    yield e
    if isinstance(e, Op):
        for a in e.args:
            yield from _nodes(a)


def _addends(e) -> list:
    if isinstance(e, Op) and e.op == "+":
        return [x for a in e.args for x in _addends(a)]
    return [e]


def _tile_terms(node):
    if not (isinstance(node, Op) and node.op == "+"):
        return
    terms = _addends(node)
    for n, t in enumerate(terms):
        if not (isinstance(t, Op) and t.op == "*" and len(t.args) == 2):
            continue
        block = next((a for a in t.args if isinstance(a, Sym) and a.name.startswith("blockIdx.")), None)
        size = next((a for a in t.args if isinstance(a, Const)), None)
        if block is None or size is None or not 1 < size.value <= 1024:
            continue
        thread = f"threadIdx.{block.name[-1]}"
        if any(s.name == thread for other in terms[:n] + terms[n + 1:] for s in syms(other)):
            yield AXES.index(block.name[-1]), size.value


def _supported(ctx, kernel: Kernel, geom: Geometry) -> bool:
    """No thread of this shape subscripts a declared array past an extent, or reaches past its
    end through pointer arithmetic, at an address fixed by thread coordinates and loop counters
    (an index read from data, or an argument, says nothing of the shape)."""
    for e in kernel.events:
        if not isinstance(e, Access) or not (e.bounds or declared_bytes(e.array)):
            continue
        if any(s.origin not in ("builtin", "loop") for x in (e.offset, *(i for i, _ in e.bounds)) for s in syms(x)):
            continue
        key = ("shape-fits", e.array, e.offset, e.width, e.bounds, e.guard, e.loc,
               tuple(kernel.loops[lid].shape() for lid in e.loops if lid in kernel.loops), geom.block)
        if not ctx.shared(key, lambda: _in_bounds_for_all(kernel, e, geom, ctx.settings.solver_timeout_ms)):
            return False
    return True


def declared_bytes(array) -> int:
    """Bytes of a declared array (0 where its extents are unknown)."""
    if not array.dims or array.dynamic or any(d <= 0 for d in array.dims):
        return 0
    n = array.elem_size
    for d in array.dims:
        n *= d
    return n


def _in_bounds_for_all(kernel: Kernel, acc: Access, geom: Geometry, timeout: int) -> bool:
    try:
        s = _overrun_query(kernel, acc, geom, True)
    except NeedsBitVectors:
        s = _overrun_query(kernel, acc, geom, False)
    return check(s, timeout)[0] != "sat"  # unknown: the shape stays


def _overrun_query(kernel: Kernel, acc: Access, geom: Geometry, ints: bool):
    th = Thread(1, geom, THREAD, generic=0, ints=ints)
    facts = th.constraints() + [as_bool(th.term(g)) for g in acc.guard]
    for lid in acc.loops:
        if lid in kernel.loops:
            facts += loop_definition(kernel.loops[lid], th, variable(f"iter{lid}", ints))
    overruns = []
    for index, extent in acc.bounds:
        i = th.term(index)
        overruns.append(z3.Or(i < 0, i >= extent))
    if declared_bytes(acc.array):
        o = th.term(acc.offset)
        overruns.append(z3.Or(o < 0, o + acc.width > declared_bytes(acc.array)))
    s = solver(ints)
    assert_all(s, (*facts, *th.side, z3.Or(*overruns)))
    return s
