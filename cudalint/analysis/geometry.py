"""Launch geometry of a kernel: from launch sites, a comment, config or `__launch_bounds__`,
and the z3 variables and constraints of one thread under it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import z3

from cudalint.model import BLOCK, THREAD, UNIFORM, FileModel, Kernel, Sym, syms
from cudalint.symbolic import all_of, context_memo, num, ranged_variable, relation, to_z3

AXES = ("x", "y", "z")
MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)  # fits a signed 32-bit value


@dataclass(frozen=True)
class Geometry:
    block: tuple | None  # (x, y, z); None, or a None component, where not constant
    grid: tuple | None
    source: str  # "the launch at line 40", "__launch_bounds__(256)", ...
    max_threads: int = 1024
    tried: bool = False  # block is one of tried_blocks(), standing in for an open blockDim
    tied: tuple = ()  # (axis index, parameter name): the launch passes blockDim there as that argument
    alternatives: tuple = ()  # for a tried block: every shape tried that the kernel supports
    args: tuple = ()  # (parameter name, value): the integer arguments the launch fixes
    launch_line: int | None = None  # the line of the launch in this file it comes from

    def as_solved(self) -> "Geometry":
        """What the solver is told of this geometry (its threads, grid and arguments), not whence
        it comes: two launches of one shape ask the same questions (a third of the HeCBench
        sample's repeated race questions differed in the launch line alone)."""
        return replace(self, source="", tried=False, alternatives=(), launch_line=None)

    def properties(self) -> tuple:
        """Typed facts of the geometry for findings: the block and grid used, and whence."""
        out = (("shape_source", "guessed" if self.tried else self.source),)
        if self.launch_line is not None:
            out += (("launch_line", self.launch_line),)
        if self.block and all(v is not None for v in self.block):
            out += (("block_dim", ",".join(map(str, self.block))),)
        if self.grid and all(v is not None for v in self.grid):
            out += (("grid_dim", ",".join(map(str, self.grid))),)
        return out

    def describe(self) -> str:
        if self.tried:
            why = f"{self.source} leaves it open" if self.source.startswith("the launch") else self.source
            shapes = " ".join("(" + ", ".join(map(str, b)) + ")" for b in self.alternatives or (self.block,))
            return (f"blockDim guessed ({why}): the same for every block shape tried that the kernel's arrays "
                    f"and tiles allow, {shapes}; pin it with --block-dim")
        if self.block and all(v is not None for v in self.block):
            return f"blockDim=({', '.join(map(str, self.block))}) from {self.source}"
        if self.block:
            dims = ", ".join("?" if v is None else str(v) for v in self.block)
            return f"blockDim=({dims}) from {self.source}, `?` symbolic"
        return f"symbolic blockDim (at most {self.max_threads} threads, {self.source})"


def launches_of(model: FileModel, kernel: Kernel) -> list:
    """The launches of this kernel (of this instantiation, for a template) in the file."""
    return [launch for launch in model.launches if launch.kernel == kernel.qualname and
            not (kernel.usr and launch.kernel_usr and launch.kernel_usr != kernel.usr)]


def geometries(model: FileModel, kernel: Kernel, block_dims: dict | None = None,
               grid_dims: dict | None = None, external: tuple = ()) -> list[Geometry]:
    """Every geometry the kernel is launched with in this file, else those of its launches in
    other files of the run (`external`: LaunchFacts), else one symbolic geometry; a shape pinned
    by configuration or a comment wins over the launches."""
    grid = pinned(grid_dims, kernel) or kernel.grid_dim_comment
    found = _launch_geometries(model, kernel, block_dims)
    elsewhere = [f for f in external if f.kernel_usr == kernel.usr]
    if elsewhere and all(g.block is None or None in g.block for g in found):
        found = [_pin_unused_axes(kernel, Geometry(f.block, f.grid, f.describe(), kernel.launch_bounds or 1024,
                                                   args=fixed_arguments(kernel, f.arg_values, f.grid)))
                 for f in elsewhere]
    return [replace(g, grid=grid) for g in found] if grid else found


def fixed_arguments(kernel: Kernel, values: tuple, grid) -> tuple:
    """(parameter, value) for the kernel's arguments whose values the launch fixes, where its
    grid is fixed too: an open grid stands for one sized to the problem, and sizes fixed beside
    a grid of any size (`<<<g, b>>>(out, 512)` with g unknown) would invent blocks past the data;
    except for a grid-stride loop, written for a grid of any size."""
    open_grid = not (grid and all(v is not None for v in grid))
    if open_grid and any(name.startswith(("blockIdx.", "gridDim.")) for name in _builtins_used(kernel)) and \
            not _grid_stride(kernel):
        return ()
    return tuple((kernel.params[i], v) for i, v in enumerate(values)
                 if v is not None and i < len(kernel.params) and -2**31 <= v < 2**32)


def _grid_stride(kernel: Kernel) -> bool:
    """A loop that steps by the grid's size (`i += blockDim.x * gridDim.x`, `grid.size()`)."""
    return any(loop.step is not None and any(s.name.startswith("gridDim.") for s in syms(loop.step))
               for loop in kernel.loops.values())


def pinned(dims: dict | None, kernel: Kernel):
    """The (x, y, z) that configuration pins for this kernel (by name, else "*" for all)."""
    for key in (kernel.qualname, "*"):
        if dims and key in dims:
            return tuple((tuple(dims[key]) + (1, 1))[:3])
    return None


def _launch_geometries(model: FileModel, kernel: Kernel, block_dims: dict | None) -> list[Geometry]:
    block = pinned(block_dims, kernel)
    if block:
        return [Geometry(block, None, "configuration")]
    if kernel.block_dim_comment:
        return [Geometry(kernel.block_dim_comment, None, "a `cudalint: block-dim` comment")]
    found, symbolic = [], set()  # symbolic: the fixed arguments of the launches with an open blockDim
    for launch in launches_of(model, kernel):
        if launch.block is None or all(v is None for v in launch.block):
            symbolic.add(fixed_arguments(kernel, launch.arg_values, launch.grid))
            continue
        if any(v is not None and not 0 < v <= m for v, m in zip(launch.block, MAX_BLOCK)):
            symbolic.add(())  # not a launch CUDA runs
            continue
        grid = launch.grid if launch.grid and not all(v is None for v in launch.grid) else None
        tied = tuple((axis, kernel.params[i]) for axis, i in enumerate(launch.block_args)
                     if i is not None and i < len(kernel.params) and launch.block[axis] is None)
        g = Geometry(launch.block, grid, f"the launch at line {launch.loc.line}",
                     kernel.launch_bounds or 1024, tied=tied, args=fixed_arguments(kernel, launch.arg_values, grid),
                     launch_line=launch.loc.line)
        if all((g.block, g.grid, g.args) != (f.block, f.grid, f.args) for f in found):
            found.append(g)
    limit = kernel.launch_bounds or 1024
    source = f"__launch_bounds__({kernel.launch_bounds})" if kernel.launch_bounds else "no constant launch found"
    if symbolic or not found:
        found += [Geometry(None, None, source, limit, args=args) for args in sorted(symbolic or {()})]
    return [_pin_unused_axes(kernel, g) for g in found]


# Block shapes tried where the launch leaves blockDim open, smallest first (the witness is then
# the smallest block that shows the bug). Concrete sizes keep the race and divergence queries
# linear, where a symbolic blockDim times a loop counter is a multiplication z3 must bit-blast;
# real launches use these shapes. A bug that needs, say, 96 threads is missed.
# Few of them: a pair of accesses that cannot race costs one query per shape.
_TRIED_1D = ((64, 1, 1), (256, 1, 1), (1024, 1, 1))
_TRIED_2D = ((8, 8, 1), (16, 16, 1), (32, 32, 1))
_TRIED_3D = ((8, 8, 4),)


def tried_blocks(g: Geometry) -> list[Geometry]:
    """`g` itself when its blockDim is known, else the usual shapes, filling only its open axes."""
    if g.block and all(v is not None for v in g.block):
        return [g]
    known = g.block or (None, None, None)
    shapes = _TRIED_3D if known[2] is None else _TRIED_2D if known[1] is None else _TRIED_1D
    out = []
    for shape in shapes:
        block = tuple(v if k is None else k for k, v in zip(known, shape))
        if block[0] * block[1] * block[2] <= g.max_threads and all(o.block != block for o in out):
            out.append(replace(g, block=block, tried=True))
    if not out and known[1] is not None and known[2] is not None:  # a small __launch_bounds__
        x = 1 << (g.max_threads // (known[1] * known[2])).bit_length() - 1
        out.append(replace(g, block=(x, known[1], known[2]), tried=True))
    return out or [g]


def _pin_unused_axes(kernel: Kernel, g: Geometry) -> Geometry:
    """A kernel that never reads threadIdx.y is meant for blocks one thread high (likewise z, and
    blockIdx for the grid; one that never reads blockIdx at all, for one block): where the launch
    does not say, assume so rather than invent threads that duplicate each other's work."""
    used = _builtins_used(kernel)
    multi_block = any(name.startswith("blockIdx.") for name in used)
    block = tuple(v if v is not None or f"threadIdx.{a}" in used or a == "x" else 1
                  for a, v in zip(AXES, g.block or (None, None, None)))
    grid = tuple(v if v is not None or f"blockIdx.{a}" in used or a == "x" and multi_block else 1
                 for a, v in zip(AXES, g.grid or (None, None, None)))
    return replace(g, block=block if any(v is not None for v in block) else None,
                   grid=grid if any(v is not None for v in grid) else None)


def _builtins_used(kernel: Kernel) -> set:
    """The coordinates the kernel's source reads (a cooperative group's thread_rank() reads
    every axis, but says nothing of which ones the launch uses)."""
    from cudalint.model import Access
    if kernel.builtins_read:
        return set(kernel.builtins_read)
    names = set()
    for e in kernel.events:
        for x in ((e.offset,) if isinstance(e, Access) else ()) + tuple(e.guard):
            names |= {s.name for s in syms(x) if s.origin == "builtin"}
    for loop in kernel.loops.values():
        for x in (loop.init, loop.step, loop.cond):
            if x is not None:
                names |= {s.name for s in syms(x) if s.origin == "builtin"}
    return names


# Values for kernel arguments when a question must hold "whatever the arguments are": two rounds
# of unremarkable primes (no power-of-two factors, larger than tiles and warps), and a round of
# powers of two, the sizes that sorting networks and FFTs require (a bitonic stride of 1031 / 2
# collides where a power of two never does).
_GENERIC = ((1031, 1033, 1039, 1049, 1051, 1061, 1063, 1069, 1087, 1091),
            (4099, 4111, 4127, 4129, 4133, 4139, 4153, 4157, 4159, 4177),
            (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288))


HUGE = 2**24 + 43  # one argument much larger than the others: sizes that dwarf the rest


def generic_value(name: str, round_: int) -> int:
    import zlib
    values = _GENERIC[round_ % len(_GENERIC)]
    return values[zlib.crc32(name.encode()) % len(values)]


_BLOCK_DIM = tuple(Sym(f"blockDim.{a}", 0, "builtin") for a in AXES)
_THREAD_IDX = tuple(Sym(f"threadIdx.{a}", THREAD, "builtin") for a in AXES)
_BLOCK_IDX = tuple(Sym(f"blockIdx.{a}", BLOCK, "builtin") for a in AXES)
_GRID_DIM = tuple(Sym(f"gridDim.{a}", 0, "builtin") for a in AXES)
_CONSTRAINED = _BLOCK_DIM + _GRID_DIM + tuple(s for a in range(3) for s in (_THREAD_IDX[a], _BLOCK_IDX[a]))


class Thread:
    """The z3 variables of one thread (copy `k`) under a geometry.

    Symbols of `scope >= split` get a per-thread copy; wider-shared ones are one variable for all
    threads (for a block-level question, blockIdx is shared; for a grid-level one it is not).
    `overrides` pins particular symbols (loop variables in a given iteration) to terms. `ints`
    picks the integer encoding (see cudalint.symbolic). `terms`: the terms of expressions made
    for another thread of the same copy, encoding and pins (a dict its caller keeps): many
    questions ask about the same access.
    """

    def __init__(self, k: int, geom: Geometry, split: int, overrides: dict | None = None,
                 generic: int | None = None, huge: str | None = None, ints: bool = False,
                 value_split: int | None = None, terms: dict | None = None):
        self.k, self.geom, self.split, self.generic, self.huge = k, geom, split, generic, huge
        # values computed or loaded (not coordinates) get a copy of their own from this scope up
        self.value_split = split if value_split is None else value_split
        self.ints = ints
        self.overrides = overrides or {}
        self.cache: dict = {}
        self.side: list = []  # no-overflow conditions and data ranges of the terms built so far:
        # add them to a solver after building every term
        self.terms = terms

    def var(self, s: Sym):
        v = self.value(s)
        return self.num(v) if isinstance(v, int) else v

    def value(self, s: Sym):
        """var(s), or a Python int where the thread knows its value (to_z3 computes with it)."""
        if s in self.overrides:
            return self.overrides[s]
        if s.name.startswith(("blockDim.", "gridDim.")) and s.name[-1] in AXES:
            dims = self.geom.block if s.name.startswith("blockDim") else self.geom.grid
            if dims and dims[AXES.index(s.name[-1])] is not None:
                return dims[AXES.index(s.name[-1])]
            if self.generic is not None and s.name.startswith("gridDim."):
                # an open grid size is derived from the problem size: generic, as arguments are
                return generic_value(s.name, self.generic)
            return self.fresh(s.name)
        if s.origin == "param":
            for axis, param in self.geom.tied:  # the argument that carries this blockDim component
                if s.name == param:
                    return self.value(Sym(f"blockDim.{AXES[axis]}", 0, "builtin"))
            for param, v in self.geom.args:  # the value the launch passes
                if s.name == param:
                    return int(v)
        if self.generic is not None and s.scope == UNIFORM and s.origin in ("param", "value"):
            return HUGE if s.name == self.huge else generic_value(s.name, self.generic)
        split = self.split if s.origin == "builtin" else self.value_split
        name = f"{s.name}#{self.k}" if s.scope >= split else s.name
        if name not in self.cache:
            self.cache[name] = self.fresh(name)
        return self.cache[name]

    def num(self, n: int):
        return num(n, self.ints)

    def fresh(self, name: str):
        """A z3 variable of this thread's encoding; the range of a 32-bit int goes into `side`."""
        v, range_ = ranged_variable(name, self.ints)
        self.side += range_
        return v

    def term(self, e):
        made = self.terms.get(id(e)) if self.terms is not None else None
        if made is None:
            before = len(self.side)
            term = to_z3(e, self.value if self.ints else self.var, self.side, self.ints)
            if self.terms is not None:  # e is kept with its term, so that its id names it while `terms` lives
                self.terms[id(e)] = (e, term, self.side[before:], tuple(dict.fromkeys(syms(e))))
            return term
        _, term, side, names = made
        for s in names:  # its variables in this thread too, with their ranges
            self.value(s)
        self.side += side
        return term

    def builtin(self, base: str, axis: str):
        return self.var(Sym(f"{base}.{axis}", THREAD if base == "threadIdx" else BLOCK, "builtin"))

    def constraints(self) -> list:
        """The ranges of the thread's coordinates and of the launch's sizes: made once per z3
        context for each copy, geometry and encoding (most questions of a file ask them), this
        thread still making its variables (their ranges reach `side` as on the first)."""
        if any(s in self.overrides for s in _CONSTRAINED):
            return self._constraints()
        key = ("constraints", self.k, self.geom, self.split, self.generic, self.ints)
        return list(self._made(key, _CONSTRAINED, self._constraints, context_memo()))

    def _constraints(self) -> list:
        out = []  # its variables made in _CONSTRAINED's order (constraints() replays that)
        bdim, gdim = [self.var(s) for s in _BLOCK_DIM], [self.var(s) for s in _GRID_DIM]
        rel = partial(relation, ints=self.ints)
        for i in range(3):
            t, b = self.var(_THREAD_IDX[i]), self.var(_BLOCK_IDX[i])
            out += [rel(">=", t, 0), rel("<", t, bdim[i]), rel(">=", b, 0), rel("<", b, gdim[i])]
        fixed = self.geom.block or (None, None, None)  # a shape the user pins is taken as given
        out += [all_of((rel(">=", d, 1), rel("<=", d, m))) for d, m, v in zip(bdim, MAX_BLOCK, fixed) if v is None]
        if not (self.geom.block and all(v is not None for v in self.geom.block)):
            if not self.ints:
                out += [z3.BVMulNoOverflow(bdim[0], bdim[1], True),
                        z3.BVMulNoOverflow(bdim[0] * bdim[1], bdim[2], True)]
            out.append(rel("<=", rel("*", rel("*", bdim[0], bdim[1]), bdim[2]), self.geom.max_threads))
        out += [all_of((rel(">=", d, 1), rel("<=", d, m))) for d, m in zip(gdim, MAX_GRID)]
        return out

    def linear_id(self):
        def build():
            bdim, t = [self.var(s) for s in _BLOCK_DIM], [self.var(s) for s in _THREAD_IDX]
            rel = partial(relation, ints=self.ints)
            return rel("+", rel("+", t[0], rel("*", t[1], bdim[0])), rel("*", rel("*", t[2], bdim[0]), bdim[1]))
        return self._made("linear_id", _BLOCK_DIM + _THREAD_IDX, build)

    def block_id(self):
        """An order of the blocks for witness minimisation (not the launch's linear block id)."""
        def build():
            b = [self.var(s) for s in _BLOCK_IDX]
            return b[0] + b[1] * 65536 + b[2] * 65536 * 65536
        return self._made("block_id", _BLOCK_IDX, build)

    def _made(self, key, names: tuple, build, store: dict | None = None):
        """build(), terms of the variables of `names` alone, made once per `store` (`terms`
        unless given); later threads make those variables as build() would (their ranges go
        into `side` alike)."""
        store = self.terms if store is None else store
        made = store.get(key) if store is not None else None
        if made is None:
            made = build()
            if store is not None:
                store[key] = made
            return made
        for s in names:
            self.value(s)
        return made

    def describe(self, model) -> str:
        return str(self.witness(model))

    def witness(self, model) -> "Witness":
        """This thread's coordinates in a solver's model; its block only where the question
        spans blocks and the block is not the first."""
        from cudalint.symbolic import value
        t = tuple(value(model, self.builtin("threadIdx", a)) for a in AXES)
        b = tuple(value(model, self.builtin("blockIdx", a)) for a in AXES)
        return Witness(t, b if self.split <= BLOCK and any(b) else None)


def witness_property(*threads) -> tuple:
    """The finding property that names its witness threads, in the order its message does:
    ("witnesses", ((threadIdx, blockIdx), ...)); entries that are no Witness are left out."""
    named = [w.coordinates() for w in threads if isinstance(w, Witness) and None not in w.thread + (w.block or ())]
    return (("witnesses", tuple(named)),)


WITNESS_SCALAR_LIMIT = 1 << 20  # larger (or negative) values make no runnable witness


def scalar_arguments(kernel, model) -> tuple:
    """(parameter, value) of each integer scalar parameter the solver's model decides (the
    divergence it found needs them): --confirm launches with them, so the run diverges too.
    Values outside [0, WITNESS_SCALAR_LIMIT] are left out."""
    decided = {d.name(): d for d in model.decls()}
    out = []
    for p in getattr(kernel, "signature", ()):
        d = decided.get(p.name)
        if p.pointer or p.record or d is None:
            continue
        v = model[d]
        n = v.as_long() if z3.is_int_value(v) else v.as_signed_long() if z3.is_bv_value(v) else None
        if n is not None and 0 <= n <= WITNESS_SCALAR_LIMIT:
            out.append((p.name, n))
    return tuple(out)


@dataclass(frozen=True)
class Witness:
    """A thread a solver picked, as findings name it ("thread (3,0,0) of block (1,0,0)"); block
    None: the first block, or any block (the question is about threads of one block)."""
    thread: tuple
    block: tuple | None = None

    def __str__(self) -> str:
        t = f"thread ({self.thread[0]},{self.thread[1]},{self.thread[2]})"
        return t if self.block is None else f"{t} of block ({self.block[0]},{self.block[1]},{self.block[2]})"

    def coordinates(self) -> tuple:
        """(threadIdx, blockIdx), the block (0,0,0) where none is named: a finding's property."""
        return self.thread, self.block or (0, 0, 0)
