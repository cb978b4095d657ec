"""Kernels as event lists: a symbolic walk of each kernel body, `__device__` helpers inlined.

The walk keeps an environment from local variables to symbolic values (`Expr` for integers,
`Ptr` for pointers and arrays), records every memory access and barrier with the guard it runs
under and the loops around it, and never gives up on a construct it does not know: unknown
values become opaque symbols whose scope (uniform, per block, per thread) is the widest scope of
what they were computed from.

The walk is one class put together from mixins, one concern each: `Statements`
(cudalint.frontend.statements), `Loops` (.loops), `Expressions` (.expressions) and `Calls` (.calls),
over the values and helpers of .values and .callees.
"""

from __future__ import annotations

import itertools
import zlib

from cudalint.frontend.calls import Calls
from cudalint.frontend.clang import CursorKind as K, TypeKind as T, file_position
from cudalint.frontend.expressions import Expressions
from cudalint.frontend.loops import Loops
from cudalint.frontend.statements import Statements
from cudalint.frontend.values import Ptr, _align, _parameters, _Return, _size, add, has_attr, template_values
from cudalint.model import BLOCK, THREAD, UNIFORM, Access, Array, Const, Kernel, Loc, Loop, Op, Stored, Sym, syms

__all__ = ["KernelBuilder", "has_attr"]  # has_attr: cudalint.frontend.tu imports it from here


class KernelBuilder(Statements, Loops, Expressions, Calls):
    """Walks one kernel (a FUNCTION_DECL with a body) into a `Kernel`."""

    def __init__(self, fn, path: str, source_lines, text_of, loc_of=None):
        self.fn = fn
        self.path = path
        self.lines = source_lines
        self.text_of = text_of
        self.loc_of = loc_of  # where a cursor is written, header files included
        self.events: list = []
        self.loops: dict[int, Loop] = {}
        self.guard: list = []
        self.loop_stack: list[int] = []
        self.via: tuple = ()
        self.depth = 0
        self.level = 0  # statements and expressions open in the walk (see _counted)
        self.ids = itertools.count(1)
        self.returns: list | None = None  # (guard, value) pairs of the helper being inlined
        self.record_fields: dict = {}  # value -> {field: value} of a local struct a helper returned
        self.tparams: list[dict] = [template_values(fn)]  # per inlined function: name -> value
        self.loaded: dict = {}  # Sym of a loaded value -> (Array, byte offset) it was read from
        self._assigned_after: dict = {}  # function hash -> its locals assigned after declaration
        self.exits: list = []  # (guard, loops, loc) of each kernel-level return so far (see WarpSync)
        self.builtins_read: set = set()  # as written in the source (not those of cg's thread_rank())
        self._callee_scopes: dict = {}  # USR -> scope of the results of calls not inlined
        self.followed_structs: list = []  # local structs whose address an inlined helper was given
        self.tickets: list = []  # Ticket of each counter increment (cudalint.analysis.tickets)
        self.flag_stores: dict = {}  # shared scalar -> [(ticket Sym, value)] it is set from, or None
        self.ticket_flags: list = []  # (loaded Sym name, ticket Sym name, value compared with)
        self.preconditions: list = []  # `__requires(n > 0)`: what the arguments are stated to meet
        self.slots: list = []  # (Sym name, increment) of atomicAdd results a 0 increment can share

    # ------------------------------------------------------------------ entry

    def build(self, name: str, template_args=(), launch_bounds=None, block_dim_comment=None,
              is_pattern=False, grid_dim_comment=None) -> Kernel:
        env: dict = {}
        params = []
        for p in _parameters(self.fn):
            params.append(p.spelling)
            env[p.hash] = env[("param", p.spelling)] = self._param_value(p)
        body = self._body(self.fn)
        if body is not None:
            try:
                self.block(body, env)
            except _Return:
                pass
        return Kernel(name=name, qualname=self.fn.spelling, loc=self.loc(self.fn), params=tuple(params),
                      events=tuple(self.events), loops=dict(self.loops), launch_bounds=launch_bounds,
                      block_dim_comment=block_dim_comment, grid_dim_comment=grid_dim_comment,
                      builtins_read=tuple(sorted(self.builtins_read)),
                      template_args=tuple(template_args),
                      is_template_pattern=is_pattern, usr=self.fn.get_usr(),
                      tickets=tuple(self.tickets), ticket_flags=tuple(self.ticket_flags),
                      loads=tuple((s, *site) for s, site in self.loaded.items()), preconditions=tuple(self.preconditions),
                      slots=tuple(self.slots))

    def _param_value(self, p):
        t = p.type.get_canonical()
        if t.kind == T.POINTER:
            pointee = t.get_pointee()
            arr = Array(p.spelling, "global", _size(pointee), _align(pointee), loc=self.loc(p),
                        read_only=pointee.is_const_qualified())
            return Ptr(arr, Const(0), pointee, volatile=pointee.is_volatile_qualified())
        if t.kind == T.RECORD and _size(t):  # a struct by value: the same bytes in every thread
            return Ptr(Array(p.spelling, "param", _size(t), _align(t), loc=self.loc(p), read_only=True), Const(0), t)
        return Sym(p.spelling, UNIFORM, "param")

    @staticmethod
    def _body(fn):
        for ch in fn.get_children():
            if ch.kind == K.COMPOUND_STMT:
                return ch
        return None

    # ------------------------------------------------------------------ helpers

    def loc(self, c) -> Loc:
        if self.loc_of is not None:
            return self.loc_of(c)
        ext = c.extent
        _, l1, c1 = file_position(ext.start)
        _, l2, c2 = file_position(ext.end)
        if l2 < l1 or (l2 == l1 and c2 < c1):
            l2, c2 = l1, c1
        return Loc(self.path, l1, c1, l2, c2)

    def fresh(self, what: str, scope: int, c=None, origin: str = "value") -> Sym:
        line = c.extent.start.line if c is not None else 0
        return Sym(f"{what}@{line}#{next(self.ids)}", scope, origin)

    def record(self, ptr: Ptr, kind: str, c, width: int | None = None, align: int | None = None,
               stored=None):
        if ptr is None or not isinstance(ptr, Ptr):
            return
        w = width if width is not None else _size(ptr.ptype)
        if w <= 0:
            return
        a = align if align is not None else _align(ptr.ptype)
        if kind == "write" and ptr.array.space == "shared":
            self._note_flag(ptr.array.name, stored)
        self.events.append(Access(
            array=ptr.array, offset=ptr.offset, width=w, align=a, kind=kind, loc=self.loc(c),
            guard=tuple(self.guard), loops=tuple(self.loop_stack), text=self.text_of(c),
            cast=ptr.cast, volatile=ptr.volatile or ptr.ptype.is_volatile_qualified(), via=self.via,
            type_name=ptr.ptype.spelling.replace("volatile ", "").replace("const ", ""), bounds=ptr.bounds,
            stored=self._stored(stored) if kind == "write" else None))

    def _note_flag(self, array: str, value) -> None:
        """Shared variables set only from a ticket comparison (`last = ticket == gridDim.x - 1`)."""
        tickets = {t.name for t in self.tickets}
        if isinstance(value, Op) and value.op == "==" and self.flag_stores.get(array, []) is not None:
            a, b = value.args
            if isinstance(b, Sym) and b.name in tickets:
                a, b = b, a
            if isinstance(a, Sym) and a.name in tickets and b.scope <= BLOCK:
                self.flag_stores.setdefault(array, []).append((a.name, b))
                return
        self.flag_stores[array] = None

    def _stored(self, value):
        """What a store writes, where two threads' values can be compared: an expression of
        thread coordinates, arguments, values loaded from memory (`scores[s] / degree[s]`) and
        what a block-wide vote returns to every thread of the block (`__syncthreads_and(c)`)."""
        if isinstance(value, Ptr):  # an address: a tag for the array (whose base every thread shares),
            value = add(Const(zlib.crc32(value.array.name.encode()) % 32768 * 65536), value.offset)  # plus offset
        if not isinstance(value, (Const, Op, Sym)):
            return None
        loads = []
        for s in set(syms(value)):
            if s in self.loaded:
                loads.append((s, *self.loaded[s]))
            elif s.origin not in ("builtin", "loop", "param", "collective"):
                return None  # an opaque value: two threads' may differ for all we know
        return Stored(value, tuple(sorted(loads, key=lambda x: x[0].name)))

    def truth(self, v):
        """A value used as a condition."""
        if isinstance(v, Op) and v.op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||", "!"):
            return v
        if isinstance(v, Ptr):
            return Const(1)
        if v is None:
            return self.fresh("cond", THREAD)
        return Op.make("!=", v, Const(0))

