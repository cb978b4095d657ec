"""The two-thread race check: for two accesses to one array that can share a barrier interval,
is there a pair of distinct threads with both guards true and overlapping addresses? (z3)

Shared memory is asked about two threads of one block: first in different warps (a block-level
race, CUDA201), then, if that is impossible, in one warp with warp barriers also ordering them
(a warp-level race, CUDA202). Global memory is asked about two threads of different blocks
(nothing orders them) and of one block (barriers do). Results are cached per file for the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import z3

from cudalint.analysis import benign, layout, tickets
from cudalint.analysis.aliasing import Alias, aliased_view, aliases
from cudalint.analysis.geometry import Geometry, Thread, Witness
from cudalint.analysis.shapes import declared_bytes, shape_sets
from cudalint.analysis.intervals import ANY, NEXT, SAME, Intervals, Pairing
from cudalint.analysis.threads import loop_definition
from cudalint.model import BLOCK, THREAD, Access, Barrier, Kernel, Op, Sym, syms
from cudalint.symbolic import (NeedsBitVectors, all_of, any_of, as_bool, assert_all, check, conjuncts, div, minimize,
                               relation, solver, to_z3, value, variable)

MAX_PAIRS = 600  # per kernel; the rest is skipped (and the file reported not fully checked)


@dataclass(frozen=True)
class Race:
    kind: str  # block | warp | global
    first: Access  # executes first
    second: Access  # executes second: the finding's primary location
    witness: "Narrowed"  # the threads and indices (first_thread ... second_index)
    geometry: Geometry
    wrap_loop: int | None
    kernel: str
    alias: Alias | None = None  # two parameters one launch passes the same buffer

    @property
    def first_thread(self) -> Witness:
        return self.witness.get()[0]

    @property
    def second_thread(self) -> Witness:
        return self.witness.get()[1]

    @property
    def first_index(self) -> str:  # e.g. "s[4]"
        return self.witness.get()[2]

    @property
    def second_index(self) -> str:
        return self.witness.get()[3]


class Narrowed:
    """A race's threads and indices, from the first round's model narrowed to the first threads,
    blocks and address (symbolic.minimize) when first asked: the same witness every run. Most
    races found are never told (a line that has one already, a guessed shape other than the
    smallest, a question asked only whether two threads collide), and narrowing is a dozen
    solver checks."""

    def __init__(self, query, model, first: Access, second: Access, timeout: int):
        self._query, self._model, self._accesses, self._timeout = query, model, (first, second), timeout
        self._made = None

    @classmethod
    def told(cls, made: tuple) -> "Narrowed":
        """A witness already narrowed: (first thread, second thread, first index, second index)."""
        out = cls(None, None, None, None, 0)
        out._made = made
        return out

    def get(self) -> tuple:
        if self._made is None:
            s, t1, t2, o1, o2 = self._query
            m = minimize(s, [t1.block_id(), t2.block_id(), t1.linear_id(), t2.linear_id(), o1], self._model,
                         self._timeout)
            first, second = self._accesses
            self._made = (t1.witness(m), t2.witness(m), _index(first, value(m, o1)), _index(second, value(m, o2)))
            self._query = self._model = None
        return self._made


def races(ctx, kernel: Kernel) -> list[Race]:
    if kernel.incomplete:  # a barrier may be among what did not parse
        return []
    return ctx.shared(("races", kernel.name, kernel.usr), lambda: _races(ctx, kernel))


def _races(ctx, kernel: Kernel) -> list[Race]:
    """Pairs of accesses to one array; then, for each pair of parameters a launch passes one
    buffer, the pairs that buffer makes (cudalint.analysis.aliasing)."""
    found: dict = {}
    accesses = [i for i, e in enumerate(kernel.events) if isinstance(e, Access)
                and e.array.space in ("shared", "global") and not e.array.read_only and _reachable(e)]
    pairs = [(i, j) for n, i in enumerate(accesses) for j in accesses[n:]
             if kernel.events[i].array == kernel.events[j].array]
    budget = _search(ctx, kernel, pairs, found, MAX_PAIRS)
    for alias in aliases(ctx.model, kernel):
        view, moved = aliased_view(kernel, alias)
        both = [i for i, e in enumerate(view.events) if isinstance(e, Access) and e.array.space == "global"
                and e.array.name == alias.kept and _reachable(e)]
        pairs = [(i, j) for n, i in enumerate(both) for j in both[n:] if (i in moved) != (j in moved)]
        through_alias: dict = {}
        budget = _search(ctx, view, pairs, through_alias, budget)
        for key, race in through_alias.items():
            found.setdefault(key, _unaliased(race, kernel, view, alias))
    return sorted(found.values(), key=lambda r: (r.second.loc.line, r.kind))


def _search(ctx, kernel: Kernel, pairs: list, found: dict, budget: int) -> int:
    """Ask about each pair of accesses (event indices) until one race per line and kind is
    found; returns the pair budget left."""
    settings, events = ctx.settings, kernel.events
    block_iv = Intervals(kernel, frozenset({"block", "grid", "group"}))
    warp_iv = Intervals(kernel, frozenset({"block", "grid", "group", "warp"}))
    grid_iv = Intervals(kernel, frozenset({"grid"}))
    memo: dict = {}  # facts shared by many queries (z3 terms are slow to build in Python)
    sets = shape_sets(ctx, kernel)
    for i, j in pairs:
        a, b = events[i], events[j]
        if not _conflicting(a, b):
            continue
        if not _candidate(kernel, a, b):
            continue
        space = a.array.space == "global"
        if (space, a.loc.line) in found and (space, b.loc.line) in found:
            continue  # whichever executes second, its line has its race already
        budget -= 1
        if budget < 0:
            ctx.capped(f"races in {kernel.name}", f"stopped after {MAX_PAIRS} pairs of accesses")
            return budget
        if ctx.out_of_time():
            ctx.skipped.append((f"races in {kernel.name}", "file time budget spent"))
            return budget
        for shapes in sets:
            race = shapes.under_every(lambda g: _check_pair(kernel, i, j, g, (block_iv, warp_iv, grid_iv),
                                                            settings.solver_timeout_ms, ctx, memo))
            if race is not None:
                found.setdefault((race.kind == "global", race.second.loc.line), race)
                break
    return budget


def _unaliased(race: Race, kernel: Kernel, view: Kernel, alias: Alias) -> Race:
    """A race found in the aliased view, told with the kernel's own accesses and names."""
    own = dict(zip(view.events, kernel.events))
    first, second = own[race.first], own[race.second]

    def named(index: str, acc: Access) -> str:
        return acc.array.name + index[len(alias.kept):] if index.startswith(alias.kept + "[") else index
    told = (race.first_thread, race.second_thread, named(race.first_index, first), named(race.second_index, second))
    return replace(race, first=first, second=second, witness=Narrowed.told(told), alias=alias)


def _conflicting(a: Access, b: Access) -> bool:
    if a.kind == "read" and b.kind == "read":
        return False
    if a.kind == "atomic" and b.kind == "atomic":
        return False
    return True


def _data_of(kernel: Kernel, acc: Access) -> frozenset:
    """The loaded values (shared by a block or more) an offset is computed from: two offsets
    from different values (`dst[start_a + t]`, `dst[start_b + t]`) collide only through a relation
    between data that the code does not show."""
    return frozenset(s for s in _offset_syms(kernel, acc) if s.origin == "value" and s.scope >= BLOCK)


def _data_dependent(kernel: Kernel, acc: Access, scope: int = THREAD) -> bool:
    """The offset depends on values loaded or computed opaquely per thread (or per block),
    directly or through where a loop around it starts (`for (i = peer.thread_rank(); ...)`)."""
    return any(s.origin == "value" and s.scope >= scope for s in _offset_syms(kernel, acc))


def _offset_syms(kernel: Kernel, acc: Access) -> set:
    out = set(syms(acc.offset))
    starts = {}
    for lid in acc.loops:
        loop = kernel.loops[lid]
        if loop.var is not None:
            starts[loop.var] = (loop.init, loop.step)
        for sym, init, _, step in loop.derived:
            starts[sym] = (init, step)
    for s in list(out):
        for e in starts.get(s, ()):
            if e is not None:
                out |= set(syms(e))
    return out


def _candidate(kernel: Kernel, a: Access, b: Access, scope: int = THREAD) -> bool:
    """Accesses at data-dependent addresses race only as a read-modify-write at an address from
    loaded data (`if (d[v] > x) d[v] = x`, `s[bin] += 1`): a scatter through an index array or a computed rank (`out[rank[i]]`,
    a merge position) is presumed a permutation, since the solver would pick colliding data
    that the program never holds. Across blocks, values each block computes opaquely
    (`fast_div_modulo(blockIdx.x, n)`) count as data too."""
    if not (_data_dependent(kernel, a, scope) or _data_dependent(kernel, b, scope) or
            _data_of(kernel, a) != _data_of(kernel, b)):
        return True
    return any(w.kind == "write" and _from_memory(kernel, w) and _read_then_written(kernel, w) for w in (a, b))


def _from_memory(kernel: Kernel, acc: Access) -> bool:
    """The offset uses a value loaded from memory (a bin, a vertex), not only opaque results
    (a user class's `thread_rank()`, an atomic's slot), which are presumed distinct per thread."""
    return any(s.name in kernel.loaded for s in syms(acc.offset))


def _read_then_written(kernel: Kernel, w: Access) -> bool:
    """The thread reads the element it writes earlier in the same barrier interval: a
    read-modify-write (`d[v] = min(d[v], x)`), not a store it reads back after a barrier."""
    events = kernel.events
    at = events.index(w)
    for i in range(at - 1, -1, -1):
        e = events[i]
        if isinstance(e, Barrier):
            return False
        if isinstance(e, Access) and e.kind == "read" and e.array == w.array and e.offset == w.offset:
            return True
    return False


def _check_pair(kernel, i, j, geom, intervals, timeout, ctx, memo):
    block_iv, warp_iv, grid_iv = intervals
    a = kernel.events[i]
    if a.array.space == "shared":
        pairings = block_iv.pairings(i, j)
        idiom = i == j and a.kind == "write" and a.stored is None
        if pairings == warp_iv.pairings(i, j) and not idiom and \
                not any(_solve(kernel, p, geom, "threads", timeout, ctx, memo) for p in pairings):
            return None  # no two threads at all: neither across warps nor within one
        for p in pairings:
            r = _solve(kernel, p, geom, "block", timeout, ctx, memo)
            if r:
                return r
        if idiom:  # lanes of one warp storing in one instruction, a result they share (unless it is
            return None  # computed from which lane each is: `s[0] = threadIdx.x`)
        for p in warp_iv.pairings(i, j):
            r = _solve(kernel, p, geom, "warp", timeout, ctx, memo)
            if r:
                return r
        return None
    b = kernel.events[j]
    across_blocks = _candidate(kernel, a, b, BLOCK) and not tickets.ordered(kernel, i, j)
    anywhere = Pairing(i, j, tuple((lid, ANY) for lid in a.loops))
    within = block_iv.pairings(i, j)
    apart = frozenset()  # rounds of arguments in which threads of two blocks are known to collide
    if across_blocks and within:
        apart = _launch_rounds(kernel, anywhere, geom, timeout, ctx, memo)
        if apart is None:
            return None  # no two threads of the launch at all: neither of two blocks nor of one
    if across_blocks:
        # only a grid-wide barrier (cooperative groups' grid.sync()) orders threads of two blocks
        across = grid_iv.pairings(i, j) if grid_iv.barriers else [anywhere]
        for p in across:
            r = _solve(kernel, p, geom, "grid", timeout, ctx, memo, apart if p == anywhere else frozenset())
            if r:
                return r
    for p in within:
        r = _solve(kernel, p, geom, "global-block", timeout, ctx, memo)
        if r:
            return r
    return None


def _solve(kernel, p: Pairing, geom, mode, timeout, ctx, memo, known=frozenset()):
    """_solve_pair, once per file for each question: template instantiations often repeat
    the same accesses, and launches the same shape; the answer is then the same."""
    first, second = kernel.events[p.first], kernel.events[p.second]
    race = ctx.shared(_question(kernel, p, geom, mode),
                      lambda: _solve_pair(kernel, p, geom, mode, timeout, ctx, memo, known))
    if race is None or (race.kernel, race.geometry) == (kernel.name, geom):
        return race
    return replace(race, first=first, second=second, wrap_loop=p.wrap_loop, kernel=kernel.name, geometry=geom)


def _launch_rounds(kernel, p: Pairing, geom, timeout, ctx, memo) -> frozenset | None:
    """Whether any two threads of the launch may collide in this pairing under each round of
    arguments that _solve_pair tries (a timeout counts as may), without a witness. None where
    they cannot in some round: no narrower question of the pair then finds a race, since
    _solve_pair finds one only where every round does. Else the rounds in which the threads
    found are of two blocks: the grid question, narrower by that fact alone, has an answer there."""
    def ask():
        apart = set()
        for round_, huge in _rounds(kernel, p):
            s, t1, t2, _, _ = _query(kernel, p, geom, "launch", round_, huge, memo)
            status, m = check(s, timeout)
            if status == "unsat":
                return None
            if m is not None and any(value(m, t1.builtin("blockIdx", ax)) != value(m, t2.builtin("blockIdx", ax))
                                     for ax in "xyz"):
                apart.add((round_, huge))
        return frozenset(apart)
    return ctx.shared(("launch",) + _question(kernel, p, geom, "launch"), ask)


def _rounds(kernel, p: Pairing) -> list:
    """The arguments a race question is asked under (_solve_pair): (generic round, the argument
    made huge)."""
    if kernel.preconditions:
        return [(None, None)]
    first, second = kernel.events[p.first], kernel.events[p.second]
    args = sorted({s.name for acc in (first, second) for e in (acc.offset, *_guard(acc)) for s in syms(e)
                   if s.scope == 0 and s.origin in ("param", "value")})
    return [(0, None), (1, None), (2, None)] + [(0, a) for a in args]


def _question(kernel, p: Pairing, geom, mode) -> tuple:
    """What a race question's answer depends on."""
    first, second = kernel.events[p.first], kernel.events[p.second]
    shape = lambda lid: _loop_shape(kernel, lid)  # noqa: E731
    return ("race-question", _signature(kernel, first), _signature(kernel, second),
            tuple((shape(lid), how) for lid, how in p.iterations), shape(p.wrap_loop), geom.as_solved(), mode)


def _signature(kernel, acc: Access):
    """What a race question depends on, of one access."""
    return (acc.array, acc.offset, _guard(acc), acc.width, acc.kind, acc.loc, acc.stored, acc.bounds,
            tuple(_loop_shape(kernel, lid) for lid in acc.loops))


def _loop_shape(kernel, lid):
    loop = kernel.loops.get(lid) if lid is not None else None
    return loop.shape() if loop is not None else lid


def _guard(acc: Access) -> tuple:
    """The access's conditions, less constant true ones and those on values the thread loaded
    (and arguments), not on which thread it is: each thread's loaded values are unknowns of
    its own, so such a condition can hold whatever the other conditions say."""
    def needless(c):
        kinds = iter(syms(c))  # one pass: the second any() sees the Syms after the first one's match
        if not kinds:
            return _constant_truth(c) is True
        return any(s.origin == "value" and s.scope == THREAD for s in kinds) and \
            not any(s.origin in ("builtin", "loop") for s in kinds)
    return tuple(c for c in conjuncts(acc.guard) if not needless(c))


def _reachable(acc: Access) -> bool:
    """False under a condition that is constant and false (another template instantiation's
    branch, `order == ASC ? ... : ...`)."""
    return not any(_constant_truth(c) is False for c in conjuncts(acc.guard) if not syms(c))


def _constant_truth(c) -> bool | None:
    v = z3.simplify(as_bool(to_z3(c, None, ints=True)))
    return True if z3.is_true(v) else False if z3.is_false(v) else None


def _solve_pair(kernel, p: Pairing, geom, mode, timeout, ctx, memo, known=frozenset()):
    """A race for this pairing, if two threads collide whatever the kernel's arguments are:
    arguments take two rounds of generic values, then each argument in turn is made much larger
    than the others (an unknown stride of 0 is not a race in the code, nor is an overlap that
    relies on `n23 < n12 * n13`; concrete arguments keep the queries linear and fast). A kernel
    that states what its arguments meet (`__requires(x < 1000)`) races if any such values collide.
    `known`: rounds already known to have an answer, not asked again but for the first (its
    model is the witness)."""
    first, second = kernel.events[p.first], kernel.events[p.second]
    found = None
    for n, (round_, huge) in enumerate(_rounds(kernel, p)):
        if n and (round_, huge) in known:
            continue
        s, t1, t2, o1, o2 = _query(kernel, p, geom, mode, round_, huge, memo)
        status, m = check(s, timeout)
        if status == "unknown":
            ctx.skipped.append((f"race check {kernel.name} lines {first.loc.line}/{second.loc.line}", "solver timeout"))
        if m is None:
            return None
        found = found or Narrowed((s, t1, t2, o1, o2), m, first, second, timeout)
    kind = {"block": "block", "warp": "warp"}.get(mode, "global")
    return Race(kind, first, second, found, geom, p.wrap_loop, kernel.name)


def _query(kernel, p: Pairing, geom, mode, round_, huge=None, memo=None):
    """The solver and terms of one race question: in integers where they can say it."""
    memo = {} if memo is None else memo
    bits = ("bits", p.first, p.second)
    if bits not in memo:
        try:
            return _build_query(kernel, p, geom, mode, round_, huge, True, memo)
        except NeedsBitVectors:
            memo[bits] = True
    return _build_query(kernel, p, geom, mode, round_, huge, False, memo)


def _build_query(kernel, p: Pairing, geom, mode, round_, huge, ints, memo):
    first, second = kernel.events[p.first], kernel.events[p.second]
    split = BLOCK if mode in ("grid", "launch") else THREAD
    rel = dict(p.iterations)
    own = [_own_loop_vars(kernel, rel, k, ints) for k in (1, 2)]
    t1, t2 = (Thread(k, geom, split, own[k - 1], generic=round_, huge=huge, ints=ints,
                     terms=memo.setdefault(("terms", k, geom, split, round_, huge, ints, tuple(own[k - 1])), {}))
              for k in (1, 2))
    facts = [f for th in (t1, t2) for f in _memo(memo, ("geometry", th.k, geom, split, ints), th, th.constraints)]
    for th, acc, which in ((t1, first, "first"), (t2, second, "second")):
        facts += [as_bool(th.term(g)) for g in (*_guard(acc), *kernel.preconditions)]
        for lid in acc.loops:
            r = rel.get(lid, ANY)
            tag = "" if r in (SAME, NEXT) else f"@{th.k}"
            it = variable(f"iter{lid}{tag}", ints)
            if r == NEXT and which == "second":
                it = it + 1
            # terms as z3 writes them (their Python text is slow to make)
            key = ("loop", lid, it.sexpr(), th.var(kernel.loops[lid].var).sexpr() if kernel.loops[lid].var else "",
                   geom, split, round_, huge, ints)
            facts += _memo(memo, key, th, lambda: loop_definition(kernel.loops[lid], th, it))
    o1, o2 = t1.term(first.offset), t2.term(second.offset)
    facts += _overlap(o1, o2, first.width, second.width, ints) + _in_bounds(o1, first, t1) + _in_bounds(o2, second, t2)
    fixed = {name for name, _ in geom.args} | {name for _, name in geom.tied}
    facts += layout.same_strides(first.offset, second.offset, t1, t2, fixed)
    same_memory = mode not in ("grid", "launch")  # threads of one block see one shared memory
    differ = benign.values_differ(kernel, first, second, t1, t2, same_memory)  # loads: uninterpreted functions
    differ += benign.reread_differs(kernel, (first, t1), (second, t2), same_memory=same_memory)
    facts += differ
    facts += _slots_apart(kernel, t1, t2)
    l1, l2 = t1.linear_id(), t2.linear_id()
    same_block = [relation("==", t1.builtin("blockIdx", ax), t2.builtin("blockIdx", ax), ints) for ax in "xyz"]
    if mode in ("grid", "launch"):  # launch: any two threads, of two blocks (grid) or of one (global-block)
        facts.append(z3.Not(all_of(same_block)) if mode == "grid" else any_of((z3.Not(all_of(same_block)), l1 != l2)))
        facts += [same_block["xyz".index(ax)] for ax in _strided_axes(memo, first.offset, second.offset)]
    else:
        facts.append(l1 != l2)
    if mode == "global-block":
        facts += same_block
    if mode == "block":
        facts.append(div(l1, 32) != div(l2, 32))
    if mode == "warp":
        facts.append(div(l1, 32) == div(l2, 32))
    s = solver(ints)
    assert_all(s, (*facts, *t1.side, *t2.side))
    return s, t1, t2, o1, o2


def _slots_apart(kernel, t1, t2) -> list:
    """Two threads draw one atomicAdd value only if one of them added 0."""
    zero = t1.num(0)
    return [z3.Implies(t1.var(Sym(name, THREAD, "slot")) == t2.var(Sym(name, THREAD, "slot")),
                       z3.Or(t1.term(step) == zero, t2.term(step) == zero)) for name, step in kernel.slots]


def _strided_axes(memo: dict, *offsets) -> set:
    """Block axes that the offsets use only times a kernel argument (`blockIdx.y * nb1`): each
    block owns its slice of a strided tensor there. Blocks that differ along such an axis could
    collide only through a relation between strides and extents that the code does not show
    (ggml's `nb1 >= 4*ne0`); they are not asked about."""
    plain, strided = set(), set()
    for off in offsets:
        key = ("axes", id(off))  # the kernel's offsets live as long as its memo
        if key not in memo:
            memo[key] = _block_axes(off)
        plain |= memo[key][0]
        strided |= memo[key][1]
    return strided - plain


def _block_axes(offset) -> tuple[set, set]:
    """The block axes an offset uses other than times an argument, and those it uses so."""
    plain, strided = set(), set()

    def visit(e, under_stride):
        if isinstance(e, Sym):
            if e.name.startswith("blockIdx."):
                (strided if under_stride else plain).add(e.name[-1])
        elif isinstance(e, Op):
            for n, x in enumerate(e.args):
                others = e.args[:n] + e.args[n + 1:]
                visit(x, under_stride or (e.op == "*" and any(_is_argument(o) for o in others)))

    visit(offset, False)
    return plain, strided


def _is_argument(e) -> bool:
    return any(s.scope == 0 and s.origin in ("param", "value") for s in syms(e))


def _memo(memo: dict, key, th, build) -> list:
    """build()'s facts, made once per key; th.side gets the side conditions they came with."""
    if key not in memo:
        before = len(th.side)
        facts = build()
        memo[key] = (facts, th.side[before:])
        return facts
    facts, side = memo[key]
    th.side += side
    return facts


def _in_bounds(o, acc: Access, th):
    """Within the array, and each subscript within its extent (`s[ty][tx]` with tx past the row
    is an out-of-bounds access, another bug, and no witness for this one)."""
    size, ints = declared_bytes(acc.array), th.ints
    facts = [relation(">=", o, 0, ints)]
    if size:
        facts.append(relation("<=", relation("+", o, acc.width, ints), size, ints))
    for index, extent in acc.bounds:
        i = th.term(index)
        facts += [relation(">=", i, 0, ints), relation("<", i, extent, ints)]
    return facts


def _overlap(o1, o2, w1, w2, ints):
    return [relation("<", o1, relation("+", o2, w2, ints), ints), relation("<", o2, relation("+", o1, w1, ints), ints)]


def _own_loop_vars(kernel, rel, k, ints) -> dict:
    """Loop variables that differ between the two threads: those of loops whose iterations are
    not the same for both (a uniform counter is one value only within one iteration)."""
    out = {}
    for lid, r in rel.items():
        var = kernel.loops[lid].var
        if var is not None and r != SAME:
            out[var] = variable(f"{var.name}#{k}", ints)
    return out


def _index(acc: Access, offset: int | None) -> str:
    """`s[4]` / `tile[3][5]` for a byte offset into acc.array."""
    arr = acc.array
    if offset is None or arr.elem_size <= 0:
        return f"{arr.name}[?]"
    elem = offset // arr.elem_size
    dims = [d for d in arr.dims if d > 0]
    if len(dims) >= 2 and len(dims) == len(arr.dims):
        idx = []
        for d in reversed(dims[1:]):
            idx.append(elem % d)
            elem //= d
        idx.append(elem)
        return arr.name + "".join(f"[{x}]" for x in reversed(idx))
    return f"{arr.name}[{elem}]"
