"""Values of the kernel walk (`Ptr`, `Expr` arithmetic, scopes) and the helpers all its parts share."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from cudalint.frontend.clang import CursorKind as K, TypeKind as T, operator as operator_of, specialized_template
from cudalint.frontend.depth import MAX_WALK, TooDeep
from cudalint.model import BLOCK, THREAD, UNIFORM, Array, Const, Op, Sym

AXES = ("x", "y", "z")
BUILTIN_SCOPES = {"threadIdx": THREAD, "blockIdx": BLOCK, "blockDim": UNIFORM, "gridDim": UNIFORM}
_PASS = {K.UNEXPOSED_EXPR, K.PAREN_EXPR}


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


@dataclass(frozen=True, eq=False)
class StructRef:
    """`&r` of a local struct handed to a helper the walk inlines: the helper's `p->a` reads and
    writes the caller's `r.a` (a cursor advanced by `first(&c)`, `more(&c)`, `next(&c)` keeps what
    it is: block-uniform, say). Never a value of an expression: only parameters are bound to it."""
    env: dict  # the caller's environment, where `(decl, field)` keys hold r's fields
    decl: object  # r's declaration hash


def struct_address(c, env) -> StructRef | None:
    """The StructRef an argument stands for: `&r` of a local struct variable, or a parameter
    that is one already (a helper handing `p` on)."""
    s = _strip(c)
    if s.kind == K.UNARY_OPERATOR and operator_of(s) == "&":
        inner = _strip(next(s.get_children()))
        ref = inner.referenced if inner.kind == K.DECL_REF_EXPR else None
        return StructRef(env, ref.hash) if _local_struct(ref) else None
    if s.kind == K.DECL_REF_EXPR and s.referenced is not None:
        return _bound_struct(s, env)
    return None


def _bound_struct(ref_expr, env) -> StructRef | None:
    """The StructRef a parameter named by DECL_REF `ref_expr` is bound to, if it is one (in a
    template instantiation the body may name the pattern's parameter: then by its name)."""
    bound = env.get(ref_expr.referenced.hash, env.get(("param", ref_expr.spelling)))
    return bound if isinstance(bound, StructRef) else None


def referenced_field(t, env):
    """(StructRef, (decl, field)) of `p->a` where parameter p is bound to a StructRef, else None."""
    base = _member_base(t)
    bound = _bound_struct(base, env) if base is not None else None
    return (bound, (bound.decl, t.spelling)) if bound is not None else None


def _member_base(t):
    """The DECL_REF whose member `r.a` or `p->a` names (with a name), else None."""
    if t.kind != K.MEMBER_REF_EXPR or not t.spelling:
        return None
    kids = list(t.get_children())
    base = _strip(kids[0]) if kids else None
    return base if base is not None and base.kind == K.DECL_REF_EXPR and base.referenced is not None else None


def _local_struct(ref) -> bool:
    """A struct variable of the function's own: not a pointer, a reference or memory."""
    return ref is not None and ref.kind == K.VAR_DECL and not _memory_scalar(ref) and \
        ref.type.get_canonical().kind == T.RECORD


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


def local_field(t):
    """(declaration hash, field) of `r.a` where r is a local struct variable (not a pointer, a
    reference or memory), else None."""
    base = _member_base(t)
    return (base.referenced.hash, t.spelling) if base is not None and _local_struct(base.referenced) else None


def forget_fields(env, decl_hash) -> None:
    """The local struct changed as a whole (assigned, or handed to a call that may write it):
    what the walk knew of its fields is not known any more."""
    for k in [k for k in env if isinstance(k, tuple) and k[0] == decl_hash]:
        del env[k]


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
        tmpl = specialized_template(fn)
    except Exception:
        return {}
    if tmpl is None:
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


def _builtin(base: str, axis: str) -> Sym:
    return Sym(f"{base}.{axis}", BUILTIN_SCOPES[base], "builtin")


def _linear(base: str, dims: str):
    """x + X * (y + Y * z) of builtin `base` within extents `dims` (blockDim or gridDim)."""
    x, y, z = (_builtin(base, a) for a in AXES)
    X, Y = _builtin(dims, "x"), _builtin(dims, "y")
    return add(x, mul(X, add(y, mul(Y, z))))
