"""Kernels as event lists: a symbolic walk of each kernel body, `__device__` helpers inlined.

The walk keeps an environment from local variables to symbolic values (`Expr` for integers,
`Ptr` for pointers and arrays), records every memory access and barrier with the guard it runs
under and the loops around it, and never gives up on a construct it does not know: unknown
values become opaque symbols whose scope (uniform, per block, per thread) is the widest scope of
what they were computed from.
"""

from __future__ import annotations

import functools
import itertools
import re
import weakref
import zlib
from dataclasses import dataclass, replace

from cudalint.frontend.clang import (CursorKind as K, TypeKind as T, const_int, file_position, for_parts,
                                     operator, tokens)
from cudalint.frontend.depth import MAX_WALK, TooDeep
from cudalint.frontend.warp_calls import warp_call
from cudalint.model import (BLOCK, THREAD, UNIFORM, Access, Array, Barrier, Const, Kernel, Loc, Loop, Op,
                            Stored, Sym, Ticket, syms)

AXES = ("x", "y", "z")
BUILTIN_SCOPES = {"threadIdx": THREAD, "blockIdx": BLOCK, "blockDim": UNIFORM, "gridDim": UNIFORM}
_BLOCK_BARRIERS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
                   "__barrier_sync"}
_ATOMIC = re.compile(r"^atomic[A-Z]\w*$")
_GROUP_SYNCS = {"sync", "synchronize", "barrier_wait"}
_MEMCPY = {"memcpy", "__builtin_memcpy", "memset", "__builtin_memset"}
_VECTOR_INDEX_TYPES = {"dim3", "uint3", "int3"}
_LOADS_OR_CALLS = {K.ARRAY_SUBSCRIPT_EXPR, K.CALL_EXPR, K.UNARY_OPERATOR, K.CONDITIONAL_OPERATOR,
                   K.COMPOUND_ASSIGNMENT_OPERATOR}
_GROUP_UNIFORM = {"size", "num_threads", "meta_group_size", "group_dim", "dim_threads", "num_blocks", "dim_blocks"}
_WARP_VALUE = re.compile(r"^__(shfl|ballot|any|all|reduce|match|activemask)")
_MAX_INLINE_DEPTH = 8
_CUB_COLLECTIVES = {"BlockScan", "BlockReduce", "BlockRadixSort", "BlockExchange", "BlockHistogram",
                    "BlockLoad", "BlockStore", "BlockAdjacentDifference", "BlockDiscontinuity",
                    "BlockShuffle", "BlockMergeSort", "BlockRunLengthDecode"}
_CASTS = {K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR,
          K.CXX_CONST_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR}
_PASS = {K.UNEXPOSED_EXPR, K.PAREN_EXPR}


def _builtin_field(c) -> str:
    """x/y/z of `blockDim.x` where the toolkit's headers make it a property with no spelling;
    inside a macro argument the range's tokens are the macro's, the cursor's own are right."""
    for words in (tokens(c), [t.spelling for t in c.get_tokens()]):
        if words and words[-1] in ("x", "y", "z"):
            return words[-1]
        if len(words) == 1:  # an object-like macro (`#define tidy threadIdx.y`): its definition's
            body = _macro_tokens(c.translation_unit, words[0])
            if body and body[-1] in ("x", "y", "z"):
                return body[-1]
    return "x"


_MACROS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # TU -> {macro name: its tokens}


def _macro_tokens(tu, name: str) -> list:
    """The replacement tokens of an object-like macro the translation unit defines."""
    if tu not in _MACROS:
        _MACROS[tu] = {m.spelling: [t.spelling for t in m.get_tokens()][1:]
                       for m in tu.cursor.get_children() if m.kind == K.MACRO_DEFINITION}
    return _MACROS[tu].get(name, [])


@dataclass(frozen=True)
class Ptr:
    """A pointer value, or (as an lvalue) the memory it points at: `array` base + byte offset."""
    array: Array
    offset: object  # Expr, bytes
    ptype: object  # clang Type of the pointee
    cast: bool = False
    volatile: bool = False
    extent: int | None = None  # elements a subscript may reach from here (a declared array's row)
    bounds: tuple = ()  # (index Expr, extent) of each subscript of a declared array so far


def _stepped(start, op, step, trips):
    """A progression's value after `trips` steps, where its shape says it; else None."""
    if start is None or step is None or isinstance(start, Ptr) or isinstance(step, Ptr):
        return None
    if op in ("+", "-"):
        return Op.make(op, start, mul(trips, step))
    if op in ("<<", ">>") and step == Const(1):
        return Op.make(op, start, trips)
    return None


_FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!="}


def _trip_count(var, start, op, step, cond):
    """How many times `for (var = start; var OP bound; var op= step)` runs, for a constant
    positive step and a bound the loop does not change; else None."""
    if var is None or start is None or not isinstance(step, Const) or step.value <= 0 or \
            not isinstance(cond, Op) or cond.op not in _FLIPPED or len(cond.args) != 2:
        return None
    a, b = cond.args
    rel, bound = (cond.op, b) if a == var else (_FLIPPED[cond.op], a) if b == var else (None, None)
    if rel is None or var in set(syms(bound)) or isinstance(start, Ptr) or isinstance(bound, Ptr):
        return None
    s = step.value
    span = {("+", "<"): (bound, start, s - 1), ("+", "<="): (bound, start, s), ("-", ">"): (start, bound, s - 1),
            ("-", ">="): (start, bound, s), ("+", "!="): (bound, start, 0) if s == 1 else None}.get((op, rel))
    if span is None:
        return None
    hi, lo, extra = span
    moved = Op.make("+", Op.make("-", hi, lo), Const(extra)) if extra else Op.make("-", hi, lo)
    return Op.make("max", moved if s == 1 else Op.make("/", moved, step), Const(0))


def _leaves_early(body) -> bool:
    """Whether a loop body can leave the loop other than by its condition (a thread-dependent
    `break` or `return` makes the trip count differ between threads)."""
    return body is not None and any(n.kind in (K.BREAK_STMT, K.RETURN_STMT, K.GOTO_STMT) for n in body.walk_preorder())


def _fixed_truth(cond) -> bool | None:
    """The truth of a condition over constants alone, else None."""
    if isinstance(cond, Const):
        return bool(cond.value)
    if not isinstance(cond, Op) or next(syms(cond), None) is not None:
        return None
    import z3
    from cudalint.symbolic import NeedsBitVectors, as_bool, to_z3
    try:
        v = z3.simplify(as_bool(to_z3(cond, None, ints=True)))
    except (NeedsBitVectors, z3.Z3Exception, ZeroDivisionError):
        return None
    return True if z3.is_true(v) else False if z3.is_false(v) else None


def _counted(walk):
    """stmt/expr with a count of those open (see cudalint.frontend.depth.MAX_WALK)."""
    @functools.wraps(walk)
    def counted(self, c, env):
        if self.level >= MAX_WALK:
            raise TooDeep()
        self.level += 1
        try:
            return walk(self, c, env)
        finally:
            self.level -= 1
    return counted


class _Return(Exception):
    pass


def _scope(*vals) -> int:
    return max((v.scope for v in vals if hasattr(v, "scope")), default=UNIFORM)


def add(a, b):
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(a.value + b.value)
    if isinstance(b, Const) and b.value == 0:
        return a
    if isinstance(a, Const) and a.value == 0:
        return b
    return Op.make("+", a, b)


def mul(a, b):
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(a.value * b.value)
    if isinstance(b, Const) and b.value == 1:
        return a
    if isinstance(a, Const) and a.value == 1:
        return b
    return Op.make("*", a, b)


def negate(c):
    return Op.make("!", c)


def _strip(c):
    while c.kind in _PASS:
        kids = list(c.get_children())
        if len(kids) != 1:
            break
        c = kids[0]
    return c


def _size(t) -> int:
    s = t.get_canonical().get_size()
    return s if s > 0 else 0


def _align(t) -> int:
    a = t.get_canonical().get_align()
    return a if a > 0 else 1


def _scalar_elem(t):
    """Innermost element type and extents of a (possibly multi-dimensional) array type."""
    dims = []
    t = t.get_canonical()
    while t.kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY):
        dims.append(t.element_count if t.kind == T.CONSTANTARRAY else 0)
        t = t.element_type.get_canonical()
    return t, tuple(dims)


def has_attr(c, kind) -> bool:
    return any(ch.kind == kind for ch in c.get_children())


def _parameters(fn) -> list:
    """A function's PARM_DECLs; for a template pattern libclang's get_arguments() gives none."""
    return list(fn.get_arguments()) or [c for c in fn.get_children() if c.kind == K.PARM_DECL]


def _memory_scalar(ref) -> bool:
    """A non-array `__shared__`/`__device__`/`__constant__` variable: memory, not a register."""
    if ref.kind != K.VAR_DECL or ref.type.get_canonical().kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY):
        return False
    return any(ch.kind in (K.CUDASHARED_ATTR, K.CUDADEVICE_ATTR, K.CUDACONSTANT_ATTR) for ch in ref.get_children())


def template_values(fn) -> dict:
    """Non-type template parameter name -> value for a function template specialisation."""
    try:
        tmpl = fn.specialized_template
    except Exception:
        return {}
    if tmpl is None or tmpl.is_null():
        return {}
    out = {}
    params = [ch for ch in tmpl.get_children() if ch.kind in (
        K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER, K.TEMPLATE_TEMPLATE_PARAMETER)]
    for i, p in enumerate(params):
        if p.kind == K.TEMPLATE_NON_TYPE_PARAMETER:
            try:
                out[p.spelling] = fn.get_template_argument_value(i)
            except Exception:
                pass
    return out


class KernelBuilder:
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
        self.tparams: list[dict] = [template_values(fn)]  # per inlined function: name -> value
        self.loaded: dict = {}  # Sym of a loaded value -> (Array, byte offset) it was read from
        self._assigned_after: dict = {}  # function hash -> its locals assigned after declaration
        self.exits: list = []  # (guard, loops, loc) of each kernel-level return so far (see WarpSync)
        self.builtins_read: set = set()  # as written in the source (not those of cg's thread_rank())
        self._callee_scopes: dict = {}  # USR -> scope of the results of calls not inlined
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
                      loaded=frozenset(s.name for s in self.loaded), preconditions=tuple(self.preconditions),
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

    def fresh(self, what: str, scope: int, c=None) -> Sym:
        line = c.extent.start.line if c is not None else 0
        return Sym(f"{what}@{line}#{next(self.ids)}", scope, "value")

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
        thread coordinates, arguments and values loaded from memory (`scores[s] / degree[s]`)."""
        if isinstance(value, Ptr):  # an address: a tag for the array (whose base every thread shares),
            value = add(Const(zlib.crc32(value.array.name.encode()) % 32768 * 65536), value.offset)  # plus offset
        if not isinstance(value, (Const, Op, Sym)):
            return None
        loads = []
        for s in set(syms(value)):
            if s in self.loaded:
                loads.append((s, *self.loaded[s]))
            elif s.origin not in ("builtin", "loop", "param"):
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

    # ------------------------------------------------------------------ statements

    def block(self, c, env):
        for ch in c.get_children():
            self.stmt(ch, env)

    @_counted
    def stmt(self, c, env):
        k = c.kind
        if k == K.COMPOUND_STMT:
            self.block(c, env)
        elif k == K.DECL_STMT:
            for d in c.get_children():
                if d.kind == K.VAR_DECL:
                    self.var_decl(d, env)
        elif k == K.IF_STMT:
            self.if_stmt(c, env)
        elif k in (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT):
            self.loop(c, env)
        elif k == K.RETURN_STMT:
            kids = list(c.get_children())
            val = self.expr(kids[0], env) if kids else None
            if self.returns is not None:
                self.returns.append((tuple(self.guard), val))
            else:  # the thread leaves the kernel
                self.exits.append((tuple(self.guard), tuple(self.loop_stack), self.loc(c)))
            raise _Return()
        elif k in (K.BREAK_STMT, K.CONTINUE_STMT):
            raise _Return()
        elif k == K.SWITCH_STMT:
            kids = list(c.get_children())
            sel = self.expr(kids[0], env) if kids else None
            self.guard.append(self.fresh("case", _scope(sel), c))
            try:
                for ch in kids[1:]:
                    self._guarded(ch, env)
            finally:
                self.guard.pop()
        elif k in (K.CASE_STMT, K.DEFAULT_STMT, K.LABEL_STMT):
            for ch in c.get_children():
                if ch.kind not in (K.INTEGER_LITERAL, K.DECL_REF_EXPR, K.UNEXPOSED_EXPR):
                    self._guarded(ch, env)
        elif k in (K.NULL_STMT, K.GOTO_STMT, K.ASM_STMT, K.MS_ASM_STMT):
            pass
        elif k == K.UNEXPOSED_STMT or k.name == "ATTRIBUTED_STMT":  # `#pragma unroll` + its loop
            for ch in c.get_children():
                self.stmt(ch, env)
        elif c.kind.is_expression():
            self.expr(c, env)

    def _guarded(self, c, env):
        """A statement whose early exit ends only itself (switch cases)."""
        depth = len(self.guard)
        try:
            self.stmt(c, env)
        except _Return:
            pass
        del self.guard[depth:]

    def var_decl(self, d, env):
        t = d.type.get_canonical()
        kids = [ch for ch in d.get_children() if ch.kind not in (K.TYPE_REF, K.NAMESPACE_REF, K.TEMPLATE_REF)
                and not ch.kind.is_attribute()]
        shared = has_attr(d, K.CUDASHARED_ATTR)
        if t.kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY) or shared:
            env[d.hash] = self.array_value(d, "shared" if shared else "local")
            for ch in kids:  # initialiser lists of local arrays
                if ch.kind == K.INIT_LIST_EXPR:
                    self.expr(ch, env)
            return
        init = kids[-1] if kids else None
        if t.kind == T.LVALUEREFERENCE and init is not None:
            env[d.hash] = self.lvalue(init, env)
            return
        env[d.hash] = self.expr(init, env) if init is not None else self.fresh(d.spelling, UNIFORM, d)
        if init is not None and t.spelling in _VECTOR_INDEX_TYPES and d.hash not in self._reassigned(d):
            for axis, value in zip(AXES, self._components(init, env)):
                env[(d.hash, axis)] = value  # `dim3 idx(tx + 1, ty + 1, tz + 1)`; idx.x reads tx + 1

    def _components(self, init, env) -> list:
        """The x, y, z a dim3-like local is constructed with (missing ones are 1), else []."""
        c = _strip(init)
        while c.kind in (K.CALL_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.UNEXPOSED_EXPR) and not list(c.get_arguments()) \
                and len(list(c.get_children())) == 1:
            c = _strip(next(c.get_children()))
        args = list(c.get_arguments()) if c.kind == K.CALL_EXPR else \
            list(c.get_children()) if c.kind == K.INIT_LIST_EXPR else []
        if not 1 <= len(args) <= 3 or c.kind == K.CALL_EXPR and c.spelling not in _VECTOR_INDEX_TYPES:
            return []
        vals = [self.expr(a, env) for a in args]
        if any(v is None or isinstance(v, Ptr) for v in vals):
            return []
        return (vals + [Const(1), Const(1)])[:3]

    def _reassigned(self, d) -> set:
        """Locals of the function declaring `d` assigned after their declaration (members too)."""
        from cudalint.frontend.fold import Folder
        fn = d.semantic_parent
        if fn is None:
            return {d.hash}
        if fn.hash not in self._assigned_after:
            self._assigned_after[fn.hash] = Folder(fn).reassigned()
        return self._assigned_after[fn.hash]

    def array_value(self, d, space):
        t = d.type.get_canonical()
        elem, dims = _scalar_elem(t)
        arr = Array(d.spelling, space, _size(elem), _align(elem), dims=dims,
                    dynamic=t.kind == T.INCOMPLETEARRAY, loc=self.loc(d))
        inner = t.element_type if t.kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY) else t
        return Ptr(arr, Const(0), inner, volatile=t.is_volatile_qualified() or inner.is_volatile_qualified(),
                   extent=dims[0] if dims and dims[0] > 0 else None)

    def if_stmt(self, c, env):
        kids = [ch for ch in c.get_children()]
        if len(kids) == 4 or (len(kids) == 3 and kids[0].kind == K.DECL_STMT):
            self.stmt(kids[0], env)
            kids = kids[1:]
        cond = self.truth(self.expr(kids[0], env))
        then_env, else_env = dict(env), dict(env)
        then_exits = self._branch(kids[1], then_env, cond)
        else_exits = self._branch(kids[2], else_env, negate(cond)) if len(kids) > 2 else False
        if then_exits and else_exits:
            raise _Return()
        if then_exits:
            env.clear()
            env.update(else_env)
            self.guard.append(negate(cond))
        elif else_exits:
            env.clear()
            env.update(then_env)
            self.guard.append(cond)
        else:
            # `if (a > 10)` with a = 10, `if (blockSize >= 512)`: the dead branch's events carry
            # a false guard, and its assignments are not merged in
            fixed = _fixed_truth(cond)
            if fixed is None:
                self.merge(env, then_env, else_env, cond)
            else:
                env.update(then_env if fixed else else_env)

    def _branch(self, c, env, cond) -> bool:
        """Run a branch under `cond`; True when it always leaves (return/break/continue)."""
        depth = len(self.guard)
        self.guard.append(cond)
        try:
            self.stmt(c, env)
            return False
        except _Return:
            return True
        finally:
            del self.guard[depth:]

    def merge(self, env, a, b, cond):
        for key in set(a) | set(b):
            va, vb = a.get(key), b.get(key)
            if va is vb or va == vb:
                env[key] = va
            elif isinstance(va, Ptr) and isinstance(vb, Ptr) and va.array == vb.array:
                env[key] = replace(va, offset=Op.make("ite", cond, va.offset, vb.offset))
            elif va is not None and vb is not None and not isinstance(va, Ptr) and not isinstance(vb, Ptr):
                env[key] = Op.make("ite", cond, va, vb)
            else:
                env[key] = va if va is not None else vb

    # ------------------------------------------------------------------ loops

    def loop(self, c, env):
        init, cond, inc, body = self._loop_parts(c)
        if init is not None:
            self.stmt(init, env)
        loop_id = next(self.ids)
        assigned = _assigned_vars(c)
        induction = _induction(inc, body, cond)
        var_sym = None
        step_op = step = None
        start = None
        inner = dict(env)
        pointers = {}  # key -> (pointer before the loop, bytes it moves per iteration)
        derived = []  # (Sym, init, op, step) of variables other than the counter stepped each iteration
        progressions = {}  # key -> (init, op, step) of the counter and of those variables
        for key, name in assigned.items():
            old = env.get(key)
            if isinstance(old, Ptr):
                continue
            if induction and key == induction[0]:
                step_op = induction[1]
                step = self.expr(induction[2], env) if induction[2] is not None else Const(1)
                start = old if old is not None else self.fresh(name, THREAD, c)  # unknown: may differ per thread
                progressions[key] = (start, step_op, step)
                scope = _scope(start, step)
                var_sym = Sym(f"{name}@{c.extent.start.line}", scope, "loop")
                inner[key] = var_sym
            else:
                step_of = self._derived_step(c, body, inc, key, env, assigned) if old is not None else None
                if step_of is not None:  # stepped once per iteration beside the counter
                    sym = Sym(f"{name}@{c.extent.start.line}", _scope(old, step_of[1]), "loop")
                    derived.append((sym, old, *step_of))
                    progressions[key] = (old, *step_of)
                    inner[key] = sym
                    continue
                inner[key] = self.fresh(name, THREAD if old is None else max(_scope(old), BLOCK), c)
        done = self.fresh("iterations", THREAD, c)  # iterations so far, where no counter says it
        if var_sym is not None and step_op in ("+", "-") and isinstance(step, Const) and step.value > 0:
            moved = Op.make("-", var_sym, start) if step_op == "+" else Op.make("-", start, var_sym)
            done = moved if step.value == 1 else Op.make("/", moved, step)
        for key, name in assigned.items():
            old = env.get(key)
            if isinstance(old, Ptr):
                stride = self._pointer_stride(c, body, inc, key, old, env, assigned)
                pointers[key] = (old, stride)
                inner[key] = replace(old, offset=add(old.offset, mul(done, stride)) if stride is not None
                                     else self.fresh(name, THREAD, c), extent=None)
        first_event = len(self.events)
        depth = len(self.guard)
        self.loop_stack.append(loop_id)
        cond_e = None
        try:
            if c.kind != K.DO_STMT and cond is not None:
                cond_e = self.truth(self.expr(cond, inner))
                self.guard.append(cond_e)
            try:
                if body is not None:
                    self.stmt(body, inner)
                if inc is not None:
                    self.expr(inc, inner)
                if c.kind == K.DO_STMT and cond is not None:
                    cond_e = self.truth(self.expr(cond, inner))
            except _Return:
                pass
        finally:
            self.loop_stack.pop()
            del self.guard[depth:]
        inside = self.events[first_event:]
        self.loops[loop_id] = Loop(
            id=loop_id, var=var_sym, init=start, step_op=step_op, step=step, cond=cond_e,
            has_block_barrier=any(isinstance(e, Barrier) and e.kind in ("block", "grid") for e in inside),
            has_warp_barrier=any(isinstance(e, Barrier) for e in inside), loc=self.loc(c),
            derived=tuple(derived))
        # After the loop, what moved by a loop-invariant step has moved a trip count times; the
        # count is one for the loop, the same in every thread where the bounds are uniform.
        uniform_exit = cond_e is not None and not _leaves_early(body)
        trips = _trip_count(var_sym, start, step_op, step, cond_e) if uniform_exit else None
        if trips is None:
            trips = Op.make("max", self.fresh("trips", _scope(cond_e, start, step) if uniform_exit else THREAD, c),
                            Const(0))
        for key, name in assigned.items():
            old = inner.get(key)
            if key in pointers and pointers[key][1] is not None:
                before, stride = pointers[key]
                env[key] = replace(before, offset=add(before.offset, mul(trips, stride)), extent=None)
            elif isinstance(old, Ptr):
                env[key] = old
            else:
                env[key] = _stepped(*progressions[key], trips) if key in progressions else None
                if env[key] is None:  # unknown
                    env[key] = self.fresh(name, _scope(old) if old is not None else THREAD, c)

    def _derived_step(self, c, body, inc, key, env, assigned):
        """(op, step) where the variable's one assignment in the loop is a step by a loop-invariant
        amount (`offset <<= 1;`), else None."""
        found = _one_step(c, body, inc, key, assigned)
        if found is None:
            return None
        op, amount = found
        step = self.expr(amount, env) if amount is not None else Const(1)
        if not isinstance(step, (Const, Sym, Op)) or any(x.origin not in ("param", "builtin") for x in syms(step)):
            return None  # a value loaded or computed in the loop may differ between iterations
        return op, step

    def _pointer_stride(self, c, body, inc, key, old, env, assigned):
        """Bytes a pointer moves per iteration, where its one assignment in the loop is a step by
        a loop-invariant amount (`od += w;` in the body, or in the increment): else None."""
        found = self._derived_step(c, body, inc, key, env, assigned)
        if found is None or found[0] not in ("+", "-"):
            return None
        delta = mul(found[1], Const(_size(old.ptype) or 1))
        return delta if found[0] == "+" else Op.make("-", Const(0), delta)

    def _loop_parts(self, c):
        kids = list(c.get_children())
        if c.kind == K.WHILE_STMT:
            return None, kids[0] if len(kids) > 1 else None, None, kids[-1] if kids else None
        if c.kind == K.DO_STMT:
            return None, kids[1] if len(kids) > 1 else None, None, kids[0] if kids else None
        return for_parts(c)

    # ------------------------------------------------------------------ expressions

    @_counted
    def expr(self, c, env):
        k = c.kind
        if k in _PASS:
            kids = list(c.get_children())
            if not kids:
                v = const_int(c)
                return Const(v) if v is not None else self.fresh("default", UNIFORM, c)
            if len(kids) == 1:
                return self.expr(kids[0], env)
            vals = [self.expr(ch, env) for ch in kids]
            return vals[-1]
        if k in (K.INTEGER_LITERAL, K.CHARACTER_LITERAL, K.CXX_BOOL_LITERAL_EXPR):
            v = const_int(c)
            return Const(v) if v is not None else self.fresh("lit", UNIFORM, c)
        if k in (K.FLOATING_LITERAL, K.STRING_LITERAL):
            return self.fresh("lit", UNIFORM, c)
        if k in (K.CXX_NULL_PTR_LITERAL_EXPR, K.GNU_NULL_EXPR):
            return Const(0)
        if k == K.DECL_REF_EXPR:
            return self.decl_ref(c, env)
        if k == K.MEMBER_REF_EXPR:
            return self.member(c, env)
        if k == K.BINARY_OPERATOR:
            return self.binary(c, env)
        if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return self.assign(c, env, operator(c)[:-1])
        if k == K.UNARY_OPERATOR:
            return self.unary(c, env)
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            return self.load(self.lvalue(c, env), c)
        if k == K.CONDITIONAL_OPERATOR:
            kids = list(c.get_children())
            cond = self.truth(self.expr(kids[0], env))
            self.guard.append(cond)
            a = self.expr(kids[1], env)
            self.guard[-1] = negate(cond)
            b = self.expr(kids[2], env)
            self.guard.pop()
            if isinstance(a, Ptr) and isinstance(b, Ptr) and a.array == b.array:
                return replace(a, offset=Op.make("ite", cond, a.offset, b.offset))
            if isinstance(a, Ptr) or isinstance(b, Ptr) or a is None or b is None:
                return None
            return Op.make("ite", cond, a, b)
        if k in _CASTS:
            return self.cast(c, env)
        if k == K.CALL_EXPR:
            return self.call(c, env)
        if k == K.CXX_UNARY_EXPR:  # sizeof / alignof
            v = const_int(c)
            return Const(v) if v is not None else self.fresh("sizeof", UNIFORM, c)
        if k == K.INIT_LIST_EXPR:
            for ch in c.get_children():
                self.expr(ch, env)
            return None
        if k == K.CXX_THIS_EXPR:
            return None
        if k.name == "StmtExpr":  # GNU `({ int _x = a; ...; _x < _y ? _x : _y; })`: its last statement's value
            stmts = [st for body in c.get_children() for st in body.get_children()]
            for st in stmts[:-1]:
                self.stmt(st, env)
            return self.expr(stmts[-1], env) if stmts and stmts[-1].kind.is_expression() else None
        vals = [self.expr(ch, env) for ch in c.get_children() if ch.kind.is_expression()]
        return self.fresh("expr", _scope(*vals) if vals else THREAD, c)

    def load(self, lv, c):
        if not isinstance(lv, Ptr):
            return lv if not isinstance(lv, tuple) else None
        t = lv.ptype.get_canonical()
        if t.kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY):  # array-to-pointer decay, no load
            return replace(lv, ptype=t.element_type,
                           extent=t.element_count if t.kind == T.CONSTANTARRAY and t.element_count > 0 else None)
        self.record(lv, "read", c)
        if t.kind == T.POINTER and lv.array.space == "param" and isinstance(lv.offset, Const):
            # a pointer field of a struct argument (`g.nlist`, `q.p[4]`): one buffer, named by it
            pointee = t.get_pointee()
            arr = Array(self.text_of(c).replace(" ", ""), "global", _size(pointee),
                        _align(pointee), read_only=pointee.is_const_qualified())
            return Ptr(arr, Const(0), pointee, volatile=pointee.is_volatile_qualified())
        if t.kind == T.POINTER:
            return None  # a pointer loaded from memory: where it points is unknown
        scope = {"local": THREAD, "shared": max(_scope(lv.offset), BLOCK)}.get(lv.array.space, _scope(lv.offset))
        value = self.fresh(lv.array.name, scope, c)
        self.loaded[value] = (lv.array, lv.offset)
        sets = self.flag_stores.get(lv.array.name) if lv.array.space == "shared" else None
        if sets and all(x == sets[0] for x in sets):
            self.ticket_flags.append((value.name, *sets[0]))
        return value

    def decl_ref(self, c, env):
        ref = c.referenced
        name = c.spelling
        if ref is None:  # e.g. a substituted template argument in an instantiation
            v = const_int(c)
            return Const(v) if v is not None else self.fresh(name or "ref", THREAD, c)
        if name == "warpSize":
            return Const(32)
        if ref.hash in env:
            val = env[ref.hash]
            return self.load(val, c) if _memory_scalar(ref) and isinstance(val, Ptr) else val
        if ref.kind == K.PARM_DECL and ("param", name) in env:
            # in a template instantiation the body may refer to the pattern's parameter cursor
            return env[("param", name)]
        rk = ref.kind
        if rk == K.ENUM_CONSTANT_DECL:
            return Const(ref.enum_value)
        if rk == K.TEMPLATE_NON_TYPE_PARAMETER:
            v = self.tparams[-1].get(name)
            v = const_int(c) if v is None else v
            return Const(v) if v is not None else Sym(name, UNIFORM, "param")
        if rk == K.VAR_DECL:
            t = ref.type.get_canonical()
            if t.is_const_qualified() and t.kind not in (T.CONSTANTARRAY, T.INCOMPLETEARRAY):
                v = const_int(c)
                if v is not None:
                    return Const(v)
            space = ("shared" if has_attr(ref, K.CUDASHARED_ATTR) else
                     "constant" if has_attr(ref, K.CUDACONSTANT_ATTR) else
                     "global" if has_attr(ref, K.CUDADEVICE_ATTR) else None)
            if space is not None:
                val = self.array_value(ref, space)
                env[ref.hash] = val
                return val if t.kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY) else self.load(val, c)
            v = const_int(c)
            if v is not None:
                return Const(v)
        return self.fresh(name, UNIFORM if rk in (K.FUNCTION_DECL,) else THREAD, c)

    def member(self, c, env):
        kids = list(c.get_children())
        base = _strip(kids[0]) if kids else None
        if base is not None and base.kind == K.DECL_REF_EXPR and base.referenced is not None and \
                (base.referenced.hash, c.spelling) in env:
            return env[(base.referenced.hash, c.spelling)]
        if base is not None and base.kind == K.DECL_REF_EXPR and base.spelling in BUILTIN_SCOPES:
            # the member's own name: a macro around `threadIdx.x` hides it from the tokens
            # the member's own name; a macro (`#define tid threadIdx.x`) leaves only its own name
            # in the text, and the toolkit's property accessors have none: the tokens say it then
            named = (c.spelling, c.referenced.spelling if c.referenced is not None else "",
                     self.text_of(c).rpartition(".")[2].strip())
            field = next((n for n in named if n in AXES), None) or _builtin_field(c)
            if field not in AXES:
                return self.fresh(f"{base.spelling}.{field}", BUILTIN_SCOPES[base.spelling], c)
            self.builtins_read.add(f"{base.spelling}.{field}")
            return Sym(f"{base.spelling}.{field}", BUILTIN_SCOPES[base.spelling], "builtin")
        lv = self.lvalue(c, env)
        if isinstance(lv, Ptr):
            return self.load(lv, c)
        if base is not None:
            bv = self.expr(base, env) if not isinstance(lv, tuple) else None
            return self.fresh(c.spelling or "member", _scope(bv) if bv is not None else THREAD, c)
        return self.fresh("member", THREAD, c)

    def binary(self, c, env):
        op = operator(c)
        kids = list(c.get_children())
        if len(kids) != 2:
            return self.fresh("binop", THREAD, c)
        if op == "=":
            return self.assign(c, env, None)
        if op == ",":
            self.expr(kids[0], env)
            return self.expr(kids[1], env)
        a = self.expr(kids[0], env)
        if op in ("&&", "||"):
            ca = self.truth(a)
            self.guard.append(ca if op == "&&" else negate(ca))
            b = self.expr(kids[1], env)
            self.guard.pop()
            return Op.make(op, ca, self.truth(b))
        b = self.expr(kids[1], env)
        return self.arith(op, a, b, kids, c)

    def arith(self, op, a, b, kids, c):
        if isinstance(a, Ptr) and op in ("+", "-") and not isinstance(b, Ptr):
            b = b if b is not None else self.fresh("off", THREAD, c)
            delta = mul(b, Const(_size(a.ptype) or 1))
            return replace(a, offset=add(a.offset, delta) if op == "+" else Op.make("-", a.offset, delta),
                           extent=None)
        if isinstance(b, Ptr) and op == "+" and not isinstance(a, Ptr):
            return self.arith("+", b, a, kids, c)
        if isinstance(a, Ptr) and isinstance(b, Ptr):
            if op == "-" and a.array == b.array:
                return Op.make("/", Op.make("-", a.offset, b.offset), Const(_size(a.ptype) or 1))
            return self.fresh("ptrcmp", _scope(a.offset, b.offset), c)
        if a is None or b is None or isinstance(a, Ptr) or isinstance(b, Ptr):
            return self.fresh("val", _scope(a, b) if a is not None and b is not None else THREAD, c)
        if op in ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!="):
            if op == "+":
                return add(a, b)
            if op == "*":
                return mul(a, b)
            if isinstance(a, Const) and isinstance(b, Const) and op in ("-",):
                return Const(a.value - b.value)
            return Op.make(op, a, b)
        return self.fresh("val", _scope(a, b), c)

    def assign(self, c, env, op):
        kids = list(c.get_children())
        if len(kids) != 2:
            return None
        rhs = self.expr(kids[1], env)
        return self.store(kids[0], env, op, rhs, c)

    def store(self, target, env, op, rhs, c):
        """`target op= rhs` (plain assignment when op is None); returns the new value."""
        t = _strip(target)
        if t.kind == K.DECL_REF_EXPR and t.referenced is not None and _memory_scalar(t.referenced):
            lv = self.lvalue(t, env)
            return self._mem_store(lv, op, rhs, c) if isinstance(lv, Ptr) else rhs
        if t.kind == K.DECL_REF_EXPR and t.referenced is not None and t.referenced.hash in env \
                and not isinstance(env[t.referenced.hash], tuple):
            key = t.referenced.hash
            cur = env[key]
            if t.referenced.type.kind == T.LVALUEREFERENCE and isinstance(cur, Ptr):
                return self._mem_store(cur, op, rhs, c)
            new = rhs if op is None else self.arith(op, cur, rhs, [], c)
            env[key] = new
            return new
        lv = self.lvalue(target, env)
        if isinstance(lv, Ptr):
            return self._mem_store(lv, op, rhs, c)
        if t.kind == K.DECL_REF_EXPR and t.referenced is not None:  # a variable first seen here
            env[t.referenced.hash] = rhs if op is None else self.fresh(t.spelling, THREAD, c)
        return rhs

    def _mem_store(self, lv, op, rhs, c):
        if op is not None:
            self.record(lv, "read", c)
        self.record(lv, "write", c, stored=rhs if op is None else None)
        return rhs if op is None else self.fresh(lv.array.name, THREAD, c)

    def unary(self, c, env):
        op = operator(c)
        kids = list(c.get_children())
        if not kids:
            return None
        if op in ("pre++", "pre--", "post++", "post--"):
            return self.store(kids[0], env, "+" if "++" in op else "-", Const(1), c)
        if op == "&":
            lv = self.lvalue(kids[0], env)
            return lv if isinstance(lv, Ptr) else None
        if op == "*":
            return self.load(self.lvalue(c, env), c)
        v = self.expr(kids[0], env)
        if isinstance(v, Ptr) or v is None:
            return self.fresh("val", THREAD, c) if op != "!" else Const(0)
        if op == "-":
            return Const(-v.value) if isinstance(v, Const) else Op.make("-", Const(0), v)
        if op == "+":
            return v
        if op == "!":
            return negate(self.truth(v))
        if op == "~":
            return Op.make("~", v)
        return self.fresh("val", _scope(v), c)

    def cast(self, c, env):
        kids = [ch for ch in c.get_children() if ch.kind != K.TYPE_REF and ch.kind.is_expression()]
        if not kids:
            return self.fresh("cast", THREAD, c)
        v = self.expr(kids[-1], env)
        target = c.type.get_canonical()
        if isinstance(v, Ptr) and target.kind == T.POINTER:
            pointee = target.get_pointee()
            wider = _align(pointee) > _align(v.ptype) or v.cast
            return replace(v, ptype=pointee, cast=wider,
                           volatile=v.volatile or pointee.is_volatile_qualified())
        if isinstance(v, Ptr):
            return None if target.kind not in (T.POINTER,) else v
        return v

    # ------------------------------------------------------------------ lvalues

    def lvalue(self, c, env):
        """The memory location an lvalue expression designates (a Ptr), or None."""
        c = _strip(c)
        k = c.kind
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            kids = list(c.get_children())
            if len(kids) != 2:
                return None
            base = self.expr(kids[0], env)
            idx = self.expr(kids[1], env)
            if isinstance(idx, Ptr):  # 3[a]
                base, idx = idx, base
            if isinstance(idx, Ptr):  # a reference variable as the index (`T& e = a[i]; b[e]`): its value
                idx = self.load(idx, kids[1])
                idx = None if isinstance(idx, Ptr) else idx  # an array: no integer to index with
            if not isinstance(base, Ptr):
                return None
            idx = idx if idx is not None else self.fresh("idx", THREAD, c)
            elem = base.ptype
            bounds = base.bounds + ((idx, base.extent),) if base.extent else base.bounds
            return replace(base, offset=add(base.offset, mul(idx, Const(_size(elem) or 1))), ptype=elem,
                           extent=None, bounds=bounds)
        if k == K.UNARY_OPERATOR and operator(c) == "*":
            kids = list(c.get_children())
            p = self.expr(kids[0], env) if kids else None
            return p if isinstance(p, Ptr) else None
        if k == K.MEMBER_REF_EXPR:
            kids = list(c.get_children())
            if not kids:
                return None
            base_c = kids[0]
            arrow = base_c.type.get_canonical().kind == T.POINTER
            base = self.expr(base_c, env) if arrow else self.lvalue(base_c, env)
            if not isinstance(base, Ptr):
                return None
            off = self._field_offset(base.ptype, c.spelling)
            if off is None:
                return None
            return replace(base, offset=add(base.offset, Const(off)), ptype=c.type)
        if k == K.DECL_REF_EXPR:
            ref = c.referenced
            if ref is not None:
                v = env.get(ref.hash)
                if isinstance(v, Ptr) and (ref.type.get_canonical().kind == T.LVALUEREFERENCE or
                                           v.array.space == "param"):
                    return v
                if _memory_scalar(ref):
                    if not isinstance(v, Ptr):
                        space = ("shared" if has_attr(ref, K.CUDASHARED_ATTR) else "constant"
                                 if has_attr(ref, K.CUDACONSTANT_ATTR) else "global")
                        v = env[ref.hash] = self.array_value(ref, space)
                    return v
            return ("var", c.spelling)
        if k == K.CALL_EXPR:
            v = self.call(c, env)
            return v if isinstance(v, Ptr) else None
        return None

    @staticmethod
    def _field_offset(t, name):
        t = t.get_canonical()
        if not name:
            return None
        bits = t.get_offset(name)
        if bits is not None and bits >= 0:
            return bits // 8
        at = 0  # a field of a base class: bases are laid out first, in order (no virtual bases)
        for base in t.get_declaration().get_children():
            if base.kind != K.CXX_BASE_SPECIFIER:
                continue
            bt = base.type.get_canonical()
            size, align = bt.get_size(), max(bt.get_align(), 1)
            if size < 0 or base.is_virtual_base():
                return None
            at = (at + align - 1) // align * align
            inner = KernelBuilder._field_offset(bt, name)
            if inner is not None:
                return at + inner
            at += size
        return None

    # ------------------------------------------------------------------ calls

    def call(self, c, env):
        name = c.spelling
        kids = list(c.get_children())
        args = list(c.get_arguments())
        if name in _BLOCK_BARRIERS:
            for a in args:
                self.expr(a, env)
            self._barrier("block", None, c)
            return self.fresh("sync", BLOCK, c)
        if name == "__syncwarp":
            mask = self.expr(args[0], env) if args and args[0].extent.start.file else Const(0xFFFFFFFF)
            self._barrier("warp", mask if not isinstance(mask, Ptr) else None, c)
            return None
        if name == "__requires" and len(args) == 1:  # GPUVerify's precondition (compat/gpuverify.h)
            cond = self.expr(args[0], env)
            if cond is not None and not isinstance(cond, Ptr):
                self.preconditions.append(self.truth(cond))
            return None
        callee = kids[0] if kids else None
        if callee is not None and callee.kind == K.UNEXPOSED_EXPR:  # a static member (CUDA 13's thread_block::sync)
            callee = next(iter(callee.get_children()), callee)
        if name in _GROUP_SYNCS and callee is not None and callee.kind == K.MEMBER_REF_EXPR:  # g.sync()
            obj = list(callee.get_children())
            kind = _group_barrier(obj[0].type if obj else None)
            if kind:
                self._barrier(kind, None, c)
                return None
        if name in ("thread_rank", "size", "num_threads", "meta_group_rank") and callee is not None and \
                callee.kind == K.MEMBER_REF_EXPR and not args:
            obj = list(callee.get_children())
            value = _group_extent(obj[0].type if obj else None, name)
            if value is not None:
                return value
        if name in _GROUP_SYNCS and args:  # cg::sync(g), cg::synchronize(g) (its CUDA 9 name)
            kind = _group_barrier(args[0].type)
            if kind:
                self._barrier(kind, None, c)
                return None
        warp = warp_call(self, c, name, kids, args, env)
        if warp is not None:
            return warp
        if _ATOMIC.match(name or "") and args:
            target = self.expr(args[0], env)
            vals = [self.expr(a, env) for a in args[1:]]
            if isinstance(target, Ptr):
                self.record(target, "atomic", c)
            if isinstance(target, Ptr) and name in ("atomicAdd", "atomicSub", "atomicOr", "atomicXor") and \
                    vals[:1] == [Const(0)]:  # `atomicAdd(&x, 0)`: a read, the same value for every thread
                value = self.fresh(target.array.name, _scope(target.offset), c)
                self.loaded[value] = (target.array, target.offset)
                return value
            step = vals[0] if name == "atomicAdd" and len(vals) == 1 else None
            if isinstance(target, Ptr) and isinstance(step, (Op, Sym)) and \
                    all(v.origin in ("builtin", "param", "loop") for v in syms(step)):
                # `atomicAdd(&n, threadIdx.x)`: a caller adding 0 draws the value the next one does
                result = Sym(f"{name}@{c.extent.start.line}#{next(self.ids)}", THREAD, "slot")
                self.slots.append((result.name, step))
                return result
            result = self.fresh(name, THREAD, c)  # each caller's own: presumed distinct
            if isinstance(target, Ptr) and target.offset.scope == UNIFORM and \
                    (name == "atomicInc" or name == "atomicAdd" and vals == [Const(1)]):
                self.tickets.append(Ticket(result.name, target.array.name, len(self.events) - 1))
            return result
        if name in _MEMCPY and len(args) == 3:
            return self._block_copy(name, args, env, c)
        if name.startswith("curand") and args and "curandState" in args[-1 if name == "curand_init" else 0].type.spelling:
            # a generator call reads and advances the state it is given
            vals = [self.expr(a, env) for a in args]
            state = vals[-1 if name == "curand_init" else 0]
            if isinstance(state, Ptr) and state.ptype.get_canonical().kind == T.POINTER:
                state = None
            width = None
            if isinstance(state, Ptr) and "Mtgp32" in state.ptype.spelling:
                state, width = _mtgp32_word(state), 4
            if isinstance(state, Ptr):
                if name != "curand_init":
                    self.record(state, "read", c, width)
                self.record(state, "write", c, width)
            return self.fresh(name, THREAD, c)
        if name in ("__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv") and args:
            p = self.expr(args[0], env)
            if isinstance(p, Ptr):
                self.record(p, "read", c)
                value = self.fresh(p.array.name, _scope(p.offset), c)
                self.loaded[value] = (p.array, p.offset)
                return value
            return self.fresh(name, THREAD, c)
        if name in ("__mul24", "__umul24") and len(args) == 2:  # 24-bit multiply: indices fit
            a, b = self.expr(args[0], env), self.expr(args[1], env)
            if a is None or b is None or isinstance(a, Ptr) or isinstance(b, Ptr):
                return self.fresh(name, THREAD, c)
            return mul(a, b)
        if name in ("min", "max", "umin", "umax", "llmin", "llmax") and len(args) == 2:
            a, b = self.expr(args[0], env), self.expr(args[1], env)
            if a is None or b is None or isinstance(a, Ptr) or isinstance(b, Ptr):
                return self.fresh(name, THREAD, c)
            return Op.make(name.lstrip("ul") if name.startswith(("u", "ll")) else name, a, b)
        if name.startswith("operator"):
            return self.operator_call(c, env, name, kids)
        ref = c.referenced
        if ref is not None and ref.kind == K.CXX_METHOD and ref.semantic_parent is not None \
                and ref.semantic_parent.spelling in _CUB_COLLECTIVES:
            for a in args:
                self.expr(a, env)
            self._barrier("block", None, c)  # CUB's block collectives synchronise the block
            return self.fresh(name, THREAD, c)
        if ref is not None and ref.kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE):
            target = ref.get_definition() or ref
            body = self._body(target) if target is not None else None
            if body is not None and not target.location.is_in_system_header \
                    and self.depth < _MAX_INLINE_DEPTH and ref.kind != K.CXX_METHOD:
                return self.inline(target, body, args, env, c)
        if ref is not None and ref.kind == K.CONSTRUCTOR or (c.type.spelling == name and name):
            vals = [self.expr(a, env) for a in args] or [self.expr(ch, env) for ch in kids]
            return self.fresh(name or "ctor", _scope(*[v for v in vals if v is not None]), c)
        vals = [self.expr(a, env) for a in args]
        per_thread = bool(_WARP_VALUE.match(name or ""))
        if kids and kids[0].kind == K.MEMBER_REF_EXPR:  # obj.method(...)
            obj = list(kids[0].get_children())
            if obj:
                vals.append(self.expr(obj[0], env))
                # a cooperative group's rank, ballot or shuffle differs by thread; its size does not
                per_thread |= "cooperative_groups" in obj[0].type.get_canonical().spelling and \
                    name not in _GROUP_UNIFORM
        scope = THREAD if per_thread else max(_scope(*[v for v in vals if v is not None]),
                                                     _callee_scope(c.referenced, self._callee_scopes))
        kind = _callee_barrier(c.referenced)
        if kind:  # a user wrapper that always syncs (a multi-GPU group's sync())
            self._barrier(kind, None, c)
        return self.fresh(name or "call", scope, c)

    def _block_copy(self, name, args, env, c):
        """memcpy/memset of a constant length: one access of that many bytes at each end."""
        dst = self.expr(args[0], env)
        src = self.expr(args[1], env)
        length = self.expr(args[2], env)
        if isinstance(length, Const) and length.value > 0:
            if isinstance(src, Ptr) and "memcpy" in name:
                self.record(src, "read", c, width=length.value, align=1)
            if isinstance(dst, Ptr):
                self.record(dst, "write", c, width=length.value, align=1)
        return dst if isinstance(dst, Ptr) else None

    def operator_call(self, c, env, name, kids):
        operands = [ch for ch in kids if not (_strip(ch).kind == K.DECL_REF_EXPR and
                                              _strip(ch).spelling.startswith("operator"))]
        if name == "operator=" and len(operands) == 2:
            rhs = self.expr(operands[1], env)
            return self.store(operands[0], env, None, rhs, c)
        if name in ("operator+=", "operator-=", "operator*=", "operator/=") and len(operands) == 2:
            rhs = self.expr(operands[1], env)
            lv = self.lvalue(operands[0], env)
            if isinstance(lv, Ptr):
                return self._mem_store(lv, name[-2], rhs, c)
            return self.fresh("op", THREAD, c)
        vals = [self.expr(o, env) for o in operands]
        return self.fresh("op", _scope(*[v for v in vals if v is not None]), c)

    def inline(self, fn, body, args, env, c):
        if self.depth >= _MAX_INLINE_DEPTH or any(fn.hash == h for h in getattr(self, "_stack", ())):
            return self.fresh(fn.spelling, THREAD, c)
        callee_env: dict = {}
        params = _parameters(fn)
        for p, a in zip(params, args):
            if p.type.get_canonical().kind == T.LVALUEREFERENCE:
                lv = self.lvalue(a, env)
                val = lv if isinstance(lv, Ptr) else self.expr(a, env)
            else:
                val = self.expr(a, env)
            callee_env[p.hash] = callee_env[("param", p.spelling)] = val
        saved = (self.returns, self.via, list(self.guard))
        self.tparams.append(template_values(fn))
        self._stack = getattr(self, "_stack", ()) + (fn.hash,)
        self.returns, self.via = [], self.via + (self.loc(c),)
        self.depth += 1
        try:
            self.block(body, callee_env)
        except _Return:
            pass
        except TooDeep as e:
            e.helper = e.helper or fn.spelling
            raise
        finally:
            rets = self.returns
            self.returns, self.via, self.guard = saved[0], saved[1], saved[2]
            self.depth -= 1
            self._stack = self._stack[:-1]
            self.tparams.pop()
        vals = [v for _, v in rets if v is not None]
        if len(vals) == 1:
            return vals[0]
        if vals and all(not isinstance(v, Ptr) for v in vals):
            return self.fresh(fn.spelling, _scope(*vals), c)
        return self.fresh(fn.spelling, THREAD, c) if not vals else vals[0]

    def _barrier(self, kind, mask, c):
        self.events.append(Barrier(kind=kind, mask=mask, loc=self.loc(c), guard=tuple(self.guard),
                                   loops=tuple(self.loop_stack), text=self.text_of(c), via=self.via))


def _builtin(base: str, axis: str) -> Sym:
    return Sym(f"{base}.{axis}", BUILTIN_SCOPES[base], "builtin")


def _linear(base: str, dims: str):
    """x + X * (y + Y * z) of builtin `base` within extents `dims` (blockDim or gridDim)."""
    x, y, z = (_builtin(base, a) for a in AXES)
    X, Y = _builtin(dims, "x"), _builtin(dims, "y")
    return add(x, mul(X, add(y, mul(Y, z))))


_PER_THREAD_NAMES = {"threadIdx", "thread_rank", "laneid", "lane_id", "__lane_id", "__activemask", "clock",
                     "clock64", "curand", "curand_uniform", "atomicAdd", "atomicInc", "atomicSub", "atomicExch",
                     "atomicCAS", "atomicMin", "atomicMax"}


def _mtgp32_word(state: Ptr) -> Ptr:
    """An MTGP32 state is one block's: each of up to 256 threads of that block advances its own
    word of it (cuRAND's contract), so two threads meet on one word when a block has more than
    256 threads or two blocks share the state."""
    lane = Op.make("%", _linear("threadIdx", "blockDim"), Const(256))
    return replace(state, offset=add(state.offset, mul(lane, Const(4))))


def _callee_scope(ref, seen: dict, depth: int = 0) -> int:
    """How widely the result of a call that is not inlined can differ, from what its body reads
    (`seen`: a cache by USR): a method returning `grid.thread_rank()` differs by thread although
    its object does not."""
    if ref is None or depth > 2:
        return UNIFORM
    usr = ref.get_usr()
    if usr in seen:
        return seen[usr]
    seen[usr] = UNIFORM  # recursion
    definition = ref.get_definition() or ref
    body = next((ch for ch in definition.get_children() if ch.kind == K.COMPOUND_STMT), None)
    scope = UNIFORM
    if body is not None:
        tokens = {t.spelling for t in body.get_tokens()}
        scope = THREAD if _PER_THREAD_NAMES & tokens else BLOCK if "blockIdx" in tokens else UNIFORM
        for call in body.walk_preorder():
            if scope == THREAD:
                break
            if call.kind == K.CALL_EXPR and call.referenced is not None:
                scope = max(scope, _callee_scope(call.referenced, seen, depth + 1))
    seen[usr] = scope
    return scope


def _callee_barrier(ref) -> str | None:
    """The widest barrier a function not inlined always runs: one at the top level of its body
    (`__syncthreads()`, `grid.sync()`), not under a condition or in a loop."""
    definition = ref.get_definition() if ref is not None else None
    body = next((ch for ch in definition.get_children() if ch.kind == K.COMPOUND_STMT), None) \
        if definition is not None else None
    found = []
    for stmt in body.get_children() if body is not None else ():
        call = _strip(stmt)
        if call.kind != K.CALL_EXPR:
            continue
        kids = list(call.get_children())
        callee = kids[0] if kids else None
        if call.spelling in _BLOCK_BARRIERS:
            found.append("block")
        elif call.spelling in _GROUP_SYNCS and callee is not None and _strip(callee).kind == K.MEMBER_REF_EXPR:
            obj = list(_strip(callee).get_children())
            found.append(_group_barrier(obj[0].type) if obj else None)
    return "grid" if "grid" in found else "block" if "block" in found else None


def _group_extent(t, method: str):
    """thread_rank() / size() of a thread block or the grid, in coordinates; else None."""
    spelling = t.get_canonical().spelling if t is not None else ""
    per_block = mul(mul(_builtin("blockDim", "x"), _builtin("blockDim", "y")), _builtin("blockDim", "z"))
    if "grid_group" in spelling:
        if method == "thread_rank":
            return add(mul(_linear("blockIdx", "gridDim"), per_block), _linear("threadIdx", "blockDim"))
        blocks = mul(mul(_builtin("gridDim", "x"), _builtin("gridDim", "y")), _builtin("gridDim", "z"))
        return mul(blocks, per_block)
    tile = re.search(r"thread_block_tile<\s*(\d+)", spelling)
    if tile:  # tiles of N consecutive threads of the block
        n = Const(int(tile.group(1)))
        rank = _linear("threadIdx", "blockDim")
        return {"thread_rank": Op.make("%", rank, n), "meta_group_rank": Op.make("/", rank, n)}.get(method, n)
    if "thread_block" in spelling:
        return _linear("threadIdx", "blockDim") if method == "thread_rank" else per_block
    return None


def _group_barrier(t) -> str | None:
    """The barrier kind a cooperative group's sync is: a block's orders the block, a grid's the
    whole launch; a tile's (at most a warp) or a coalesced group's, its lanes; a `thread_group` of
    unknown extent ("group") orders what a barrier would for races and is not checked for
    divergence."""
    spelling = t.get_canonical().spelling if t is not None else ""
    if "thread_block_tile" in spelling or "coalesced_group" in spelling or "tiled_partition" in spelling:
        return "warp"
    if "grid_group" in spelling:
        return "grid"
    if "thread_block" in spelling:
        return "block"
    if "thread_group" in spelling:
        return "group"
    return None


# ---------------------------------------------------------------------- loop shape helpers

_STEP_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "<<=": "<<", ">>=": ">>"}


def _assignment_targets(c):
    """The variable cursor each assignment (=, op=, ++, --) inside statement c writes, where the
    target is a plain variable."""
    for n in c.walk_preorder():
        k = n.kind
        if k not in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR, K.UNARY_OPERATOR):
            continue
        op = operator(n)
        if k == K.BINARY_OPERATOR and op != "=" or \
                k == K.UNARY_OPERATOR and op not in ("pre++", "pre--", "post++", "post--"):
            continue
        kids = list(n.get_children())
        t = _strip(kids[0]) if kids else None
        if t is not None and t.kind == K.DECL_REF_EXPR and t.referenced is not None:
            yield t


def _assigned_vars(c) -> dict:
    """Local variables (by declaration hash) assigned anywhere inside a loop statement."""
    out = {}
    for t in _assignment_targets(c):
        ref = t.referenced
        # a `__shared__` scalar or a reference names memory: assigning it is a store, not a
        # new value of a local variable
        if ref.kind in (K.VAR_DECL, K.PARM_DECL) and not _memory_scalar(ref) and ref.type.kind != T.LVALUEREFERENCE:
            out[ref.hash] = t.spelling
    return out


def _one_step(c, body, inc, key, assigned):
    """(op, amount cursor or None) of the variable's only assignment in loop c, where it is a step
    (`x += e`, `x <<= 1`, `++x`) at the top level of the body or in the increment and `e` is not
    assigned in the loop; else None."""
    steps = [s for s in ([inc] if inc is not None else []) + _top_statements(body)
             if (r := _step_of(_strip(s))) and r[0] == key]
    if len(steps) != 1 or _assignments(c, key) != 1:
        return None
    _, op, amount = _step_of(_strip(steps[0]))
    if amount is not None and any(n.kind in _LOADS_OR_CALLS or n.kind == K.DECL_REF_EXPR and n.referenced is not None
                                  and n.referenced.hash in assigned for n in amount.walk_preorder()):
        return None  # not the same amount every iteration (or reading it would record an access)
    return op, amount


def _top_statements(body) -> list:
    """The statements at the top level of a loop body: a block's, or the body itself."""
    if body is None:
        return []
    return list(body.get_children()) if body.kind == K.COMPOUND_STMT else [body]


def _assignments(c, key) -> int:
    """How many assignments inside statement c write the variable `key`."""
    return sum(t.referenced.hash == key for t in _assignment_targets(c))


def _induction(inc, body, cond):
    """(var hash, step op, step cursor|None) for `i += s`, `s >>= 1`, `++i`, `i = i + s` ..."""
    candidates = ([inc] if inc is not None else []) + _top_statements(body)[::-1]
    cond_vars = {n.referenced.hash for n in cond.walk_preorder()
                 if n.kind == K.DECL_REF_EXPR and n.referenced is not None} if cond is not None else None
    for cand in candidates:
        r = _step_of(_strip(cand))
        if r and (cond_vars is None or r[0] in cond_vars):
            return r
    return None


def _step_of(n):
    k = n.kind
    kids = list(n.get_children())
    if k == K.UNARY_OPERATOR and kids:
        op = operator(n)
        t = _strip(kids[0])
        if op in ("pre++", "post++", "pre--", "post--") and t.kind == K.DECL_REF_EXPR and t.referenced:
            return (t.referenced.hash, "+" if "++" in op else "-", None)
    if k == K.COMPOUND_ASSIGNMENT_OPERATOR and len(kids) == 2:
        t = _strip(kids[0])
        op = _STEP_OPS.get(operator(n))
        if op and t.kind == K.DECL_REF_EXPR and t.referenced:
            return (t.referenced.hash, op, kids[1])
    if k == K.BINARY_OPERATOR and operator(n) == "=" and len(kids) == 2:
        t, rhs = _strip(kids[0]), _strip(kids[1])
        if t.kind == K.DECL_REF_EXPR and t.referenced and rhs.kind == K.BINARY_OPERATOR:
            op = operator(rhs)
            r = list(rhs.get_children())
            if op in ("+", "-", "*", "/", "<<", ">>") and len(r) == 2:
                first = _strip(r[0])
                if first.kind == K.DECL_REF_EXPR and first.referenced and first.referenced.hash == t.referenced.hash:
                    return (t.referenced.hash, op, r[1])
    return None
