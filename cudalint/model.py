"""The per-file model that rules read: plain frozen objects, built once per translation unit.

Expressions are small trees (`Const`, `Sym`, `Op`) that `cudalint.symbolic` turns into z3 terms.
A kernel is a flat, source-ordered list of events (memory accesses and barriers), each with the
guard it runs under and the loops around it; that is what barrier-interval, race, divergence,
alignment and bank-conflict analyses need, and it keeps them independent of libclang.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Union

from cudalint.diagnostics import Diagnostic  # FileModel holds them; also importable from here

# ---------------------------------------------------------------------------- expressions

# How far a value is shared: the same for every thread of the launch, of one block, or per thread.
UNIFORM, BLOCK, THREAD = 0, 1, 2


@dataclass(frozen=True)
class Const:
    value: int

    @property
    def scope(self) -> int:
        return UNIFORM


@dataclass(frozen=True)
class Sym:
    """A named unknown. `origin`: builtin (threadIdx.x …), param, loop, value (loaded/opaque),
    collective (what a block-wide vote such as `__syncthreads_and` returns to every thread)."""
    name: str
    scope: int
    origin: str


# An expression of more nodes than this, written out as a tree, is an unknown value of its own:
# straight-line hashing or linear algebra (MD5's rounds, a 3x3 SVD) feeds each result into the
# next, and the tree doubles with every step although the code grows by a line.
MAX_EXPR_NODES = 2000


@dataclass(frozen=True)
class Op:
    op: str
    args: tuple
    scope: int = field(default=UNIFORM, compare=False)
    size: int = field(default=1, compare=False, repr=False)  # nodes, written out as a tree

    # An expression's hash and its Syms are asked for again and again (every race question's
    # memo key holds its accesses' offsets and guards; a pair's guards are read per question):
    # each walked the whole tree. Both are kept on the node once made, and left out of a pickle
    # (a hash is only good within one process).
    def __hash__(self):
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.op, self.args))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in _KEPT}

    @staticmethod
    def make(op: str, *args: "Expr") -> "Expr":
        scope = max((a.scope for a in args), default=UNIFORM)
        size = 1 + sum(a.size if isinstance(a, Op) else 1 for a in args)
        if size > MAX_EXPR_NODES:
            return Sym(f"expr.{_digest(Op(op, args)):08x}", scope, "value")
        return Op(op, args, scope, size)


def _digest(e: "Expr") -> int:
    """A fingerprint of an expression that visits each shared subexpression once, without
    recursion (a chain of additions may be as deep as the expression is large)."""
    done: dict = {}
    stack = [e]
    while stack:
        x = stack[-1]
        if id(x) in done:
            stack.pop()
        elif not isinstance(x, Op):
            done[id(x)] = zlib.crc32(repr(x).encode())
            stack.pop()
        elif all(id(a) in done for a in x.args):
            done[id(x)] = zlib.crc32(f"{x.op}({','.join(str(done[id(a)]) for a in x.args)})".encode())
            stack.pop()
        else:
            stack.extend(a for a in x.args if id(a) not in done)
    return done[id(e)]


Expr = Union[Const, Sym, Op]


_KEPT = ("_hash", "_syms")  # what an Op keeps of itself once asked


def syms(e: Expr) -> tuple:
    """Every Sym in an expression, in preorder; an Op's, once (see Op.__hash__)."""
    if isinstance(e, Sym):
        return (e,)
    if not isinstance(e, Op):
        return ()
    found = e.__dict__.get("_syms")
    if found is None:
        found = _walk_syms(e)
        object.__setattr__(e, "_syms", found)
    return found


def _walk_syms(e: Op) -> tuple:
    """A walk without recursion: generators nested as deep as the tree cost a frame per level
    for each Sym."""
    out, todo = [], [e]
    while todo:
        x = todo.pop()
        if isinstance(x, Op):
            todo.extend(reversed(x.args))
        elif isinstance(x, Sym):
            out.append(x)
    return tuple(out)


def render(e: Expr) -> str:
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Sym):
        return e.name
    if e.op == "ite":
        return f"({render(e.args[0])} ? {render(e.args[1])} : {render(e.args[2])})"
    if len(e.args) == 1:
        return f"{e.op}{render(e.args[0])}"
    if e.op in ("min", "max"):
        return f"{e.op}({render(e.args[0])}, {render(e.args[1])})"
    return f"({render(e.args[0])} {e.op} {render(e.args[1])})"


# ---------------------------------------------------------------------------- locations


@dataclass(frozen=True)
class Loc:
    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def short(self) -> str:
        return f"line {self.line}"


# ---------------------------------------------------------------------------- device side


@dataclass(frozen=True)
class Array:
    """A memory object an access is relative to: a pointer parameter, a shared/global array."""
    name: str
    space: str  # shared | global | constant | local | generic
    elem_size: int
    elem_align: int
    dims: tuple[int, ...] = ()  # declared extents, outermost first; () when unknown
    dynamic: bool = False  # extern __shared__
    loc: Loc | None = None
    read_only: bool = False  # const-qualified pointee


@dataclass(frozen=True)
class Loop:
    id: int
    var: Sym | None  # the induction variable, when one was recognised
    init: Expr | None
    step_op: str | None  # '+', '-', '*', '/', '<<', '>>'
    step: Expr | None
    cond: Expr | None  # in terms of `var`
    has_block_barrier: bool
    has_warp_barrier: bool
    loc: Loc
    derived: tuple = ()  # (Sym, init, step_op, step) of other variables stepped once per iteration
    entry: tuple = ()  # the guard under which the loop statement is reached (a conjunction)

    def shape(self) -> Loop:
        """The loop without its id: ids shift between template instantiations of one kernel,
        so caches shared across instantiations key on this."""
        return replace(self, id=0)


@dataclass(frozen=True)
class Access:
    array: Array
    offset: Expr  # byte offset from the array's base
    width: int  # bytes moved
    align: int  # alignment the access type requires
    kind: str  # read | write | atomic
    loc: Loc
    guard: tuple  # conjunction of Exprs
    loops: tuple  # Loop ids, outermost first
    text: str  # source text of the access, e.g. "s[t + 1]"
    cast: bool = False  # reached through a cast to a more-aligned pointer type
    volatile: bool = False
    via: tuple = ()  # call-site Locs when inlined from a __device__ helper
    type_name: str = ""  # the accessed type, e.g. "float4"
    bounds: tuple = ()  # (index Expr, extent) per subscript of a declared array: `s[ty][tx]`
    stored: object = None  # for a write: the Stored value, where known


@dataclass(frozen=True)
class Stored:
    """The value a store writes: an expression of thread coordinates, loop counters, arguments
    and `loads`, each (Sym, Array, byte offset) naming a value the thread loaded from memory."""
    expr: Expr
    loads: tuple = ()


@dataclass(frozen=True)
class Barrier:
    kind: str  # block | warp
    mask: Expr | None  # __syncwarp mask
    loc: Loc
    guard: tuple
    loops: tuple
    text: str
    via: tuple = ()


@dataclass(frozen=True)
class WarpSync:
    """A warp-synchronous intrinsic (`__shfl_down_sync`, `__ballot_sync`, `tile.shfl_xor`,
    `cg::reduce(tile, ...)`, legacy `__shfl`/`__any`...): not a barrier (it orders no memory), but
    every lane its mask names must execute it."""
    name: str  # as called: "__shfl_down_sync", "shfl_down" (a tile's member), "reduce", "__ballot"
    family: str  # shfl | shfl_up | shfl_down | shfl_xor | vote | match | reduce
    mask: Expr | None  # None: a tile form (the tile is the mask) or a legacy intrinsic (the warp)
    lane: Expr | None  # shuffles: source lane, delta or lane mask
    shfl_width: Expr | None  # shuffles: the `width` argument (32 by default; a tile's size); else None
    tile: int | None  # tile forms: the tile size from `thread_block_tile<N>`
    legacy: bool  # no `_sync` (removed on sm_70+)
    loc: Loc
    guard: tuple
    loops: tuple
    text: str
    exits: tuple = ()  # (guard, loops, loc) of each kernel-level `return` before it in program order
    via: tuple = ()


Event = Union[Access, Barrier, WarpSync]


@dataclass(frozen=True)
class Field:
    """A field of a struct passed by value, as libclang lays it out. Nested structs, base classes
    and arrays of pointers or structs are flattened into their fields, so `offset` counts from the
    start of the parameter and `name` is the path from it ("nindex", "box.lo", "rows[1]")."""
    name: str
    offset: int  # bytes from the start of the parameter
    element: str  # as Param.element: what a pointer points to, else the field's own type
    pointer: int  # pointer depth; 0: a value
    size: int  # bytes of one element (a pointer's pointee); 0: unknown
    align: int
    count: int = 1  # elements of a fixed array of scalars (`float w[3]`)
    unsupported: str = ""  # why it cannot be synthesised ("a union", "a reference", "a bit-field")


@dataclass(frozen=True)
class Param:
    """A kernel parameter as libclang types it (an instantiation's template arguments substituted)."""
    name: str
    type: str  # as libclang spells it: "const float *", "int"
    element: str  # what a pointer (or array) points to, else the type itself; typedefs and
    # qualifiers resolved away: "float4", "unsigned int", "__half", "Particle"
    pointer: int  # pointer depth (an array parameter counts as one); 0: passed by value
    size: int  # bytes of one element; 0: unknown (void, an incomplete type)
    align: int
    const: bool  # the element is const-qualified
    record: str = ""  # passed by value: "struct" (or class) or "union"; "" for everything else
    fields: tuple = ()  # Field per (flattened) field of a struct passed by value, in layout order


@dataclass(frozen=True)
class Kernel:
    name: str  # as written, with template arguments for instantiations ("reduce<256>")
    qualname: str
    loc: Loc
    params: tuple[str, ...]
    events: tuple  # Access | Barrier | WarpSync in source (program) order
    loops: dict  # id -> Loop
    launch_bounds: int | None
    block_dim_comment: tuple[int, int, int] | None  # from `// cudalint: block-dim(...)`
    template_args: tuple = ()
    is_template_pattern: bool = False
    usr: str = ""
    grid_dim_comment: tuple[int, int, int] | None = None  # from `// cudalint: grid-dim(...)`
    incomplete: bool = False  # parse errors inside the body: code is missing from the events
    builtins_read: tuple = ()  # threadIdx.x, blockIdx.y ... as the source reads them (sorted)
    tickets: tuple = ()  # Ticket per atomic counter increment whose result the kernel uses
    loads: tuple = ()  # (Sym, Array, byte offset) per value the kernel loads from memory
    ticket_flags: tuple = ()  # (Sym name of a value loaded from a shared flag, ticket Sym name, compared value)
    preconditions: tuple = ()  # conditions the kernel states its arguments meet (GPUVerify's `__requires`)
    slots: tuple = ()  # (Sym name, increment Expr): `atomicAdd(&n, inc)` results, equal only where an inc is 0
    signature: tuple = ()  # Param per parameter, in order (`params` holds their names)

    @cached_property
    def loaded(self) -> frozenset:
        """Names of the Syms that are values loaded from memory."""
        return frozenset(s.name for s, _, _ in self.loads)


@dataclass(frozen=True)
class Ticket:
    """`t = atomicInc(&counter, n)` / `atomicAdd(&counter, 1)`: every caller draws a different t."""
    name: str  # the Sym its result is
    counter: str  # the counter's array
    event: int  # index of the atomic access in the kernel's events


@dataclass(frozen=True)
class Launch:
    kernel: str  # kernel name as called (no template args)
    kernel_usr: str  # USR of the called declaration (the instantiation for templates)
    template_args: tuple
    grid: tuple | None  # (x, y, z) when constant
    block: tuple | None
    shared_bytes: int | None
    loc: Loc
    args_text: tuple[str, ...]
    block_args: tuple = ()  # per axis, the index of the kernel argument that passes the same
    # variable as that block component (`dim3 b(32, k); f<<<g, b>>>(x, k)`), else None
    arg_values: tuple = ()  # per argument, its integer value where the host source fixes it, else None
    arg_reals: tuple = ()  # per argument, its floating-point value where the host source fixes it, else None


# ---------------------------------------------------------------------------- host side


@dataclass(frozen=True)
class HostFunction:
    name: str
    loc: Loc
    body: object  # a cudalint.host_model.Block, built by cudalint.frontend.host (None: no body)
    params: tuple = ()  # (name, by reference) per parameter, for the function's summary


@dataclass(frozen=True)
class FileModel:
    path: str
    source_lines: tuple[str, ...]
    kernels: tuple[Kernel, ...]
    device_functions: tuple[str, ...]
    launches: tuple[Launch, ...]
    host_functions: tuple[HostFunction, ...]
    diagnostics: tuple[Diagnostic, ...]
    mode: str  # shim | toolkit
    notes: tuple[str, ...] = ()  # what was left out of the model and why (shown with --verbose)
