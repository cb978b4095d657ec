"""Integer values of host expressions where the source fixes them: libclang's evaluator first
(literals, `constexpr`, `static const`, enums, `sizeof`, template arguments), then a local fold
for what it leaves open — arithmetic over such values and local variables assigned once
(`unsigned threadCount = SHARED_SIZE_LIMIT / 2;` then `<<<g, threadCount>>>`), and the members
of a `dim3` local set after its declaration (`dim3 block; block.x = 256;`)."""

from __future__ import annotations

from dataclasses import dataclass

from cudalint.frontend.clang import STEPS, CursorKind as K, TypeKind, const_int, const_real, operator, written_operands

_PASS = {K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR,
         K.CXX_STATIC_CAST_EXPR}
_MAX_DEPTH = 16  # a chain of single-assignment variables deeper than this is left unknown
_BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: int(a / b) if b else None, "%": lambda a, b: a - int(a / b) * b if b else None,
    "<<": lambda a, b: a << b if 0 <= b < 64 else None, ">>": lambda a, b: a >> b if 0 <= b < 64 else None,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
}
_MIN_MAX = {"min": min, "max": max, "umin": min, "umax": max}
_BRANCHES = {K.IF_STMT, K.SWITCH_STMT, K.CONDITIONAL_OPERATOR}
_LOOPS = {K.FOR_STMT, K.WHILE_STMT, K.DO_STMT, K.CXX_FOR_RANGE_STMT}
UNKNOWN = "unknown"  # a dim3 member whose value at a launch the source does not fix


@dataclass(frozen=True)
class _MemberStore:
    offset: int
    axis: str  # "x", "y", "z", or "*" for the whole variable
    value: object  # the assigned expression's cursor; None for `op=` or a whole assignment
    around: tuple  # (start, end, is_loop) of each branch and loop the store sits in


class Folder:
    """Folds expressions inside one function (`scope`: its cursor), whose body says which local
    variables are assigned only where they are declared. `known` maps a variable's declaration
    hash to a value fixed by context (a `switch` case)."""

    def __init__(self, scope=None):
        self.scope = scope
        self._reassigned: set | None = None
        self._stores: dict = {}  # dim3 local's declaration hash -> its _MemberStores

    def value(self, c, known: dict | None = None, depth: int = 0) -> int | None:
        if c is None or depth > _MAX_DEPTH or c.extent.start.file is None and c.kind != K.DECL_REF_EXPR:
            return None
        v = const_int(c)
        if v is not None:
            return v
        kids = list(c.get_children())
        k = c.kind
        if k in _PASS:
            exprs = [ch for ch in kids if ch.kind.is_expression()]
            return self.value(exprs[-1], known, depth + 1) if exprs else None
        if k == K.DECL_REF_EXPR:
            return self._variable(c.referenced, known, depth)
        if k == K.BINARY_OPERATOR and len(kids) == 2:
            fn = _BINARY.get(operator(c))
            a = self.value(kids[0], known, depth + 1) if fn else None
            b = self.value(kids[1], known, depth + 1) if a is not None else None
            return fn(a, b) if b is not None else None
        if k == K.CONDITIONAL_OPERATOR and len(kids) == 3:
            cond = self.value(kids[0], known, depth + 1)
            return None if cond is None else self.value(kids[1] if cond else kids[2], known, depth + 1)
        if k == K.CALL_EXPR and c.spelling in _MIN_MAX:
            args = [self.value(a, known, depth + 1) for a in c.get_arguments()]
            return _MIN_MAX[c.spelling](args) if len(args) == 2 and None not in args else None
        return None

    def real(self, c, depth: int = 0) -> float | None:
        """The value of a floating-point expression the source fixes: libclang's evaluator,
        through casts and local variables assigned once (`float alpha = 2.0f;`)."""
        if c is None or depth > _MAX_DEPTH:
            return None
        v = const_real(c)
        if v is not None:
            return v
        if c.kind in _PASS:
            exprs = [ch for ch in c.get_children() if ch.kind.is_expression()]
            return self.real(exprs[-1], depth + 1) if exprs else None
        init = self._fixed_initialiser(c.referenced) if c.kind == K.DECL_REF_EXPR else None
        return self.real(init, depth + 1) if init is not None else None

    def _variable(self, ref, known, depth) -> int | None:
        if ref is not None and known and ref.hash in known:
            return known[ref.hash]
        init = self._fixed_initialiser(ref)
        return self.value(init, known, depth + 1) if init is not None else None

    def _fixed_initialiser(self, ref):
        """The initialiser of a variable that keeps its value: a local assigned only there, or a
        const global; else None."""
        if ref is None or ref.kind not in (K.VAR_DECL, K.PARM_DECL):
            return None
        if ref.kind == K.PARM_DECL or ref.hash in self.reassigned():
            return None
        init = _initialiser(ref)
        if init is None:
            return None
        local = self.scope is not None and _inside(ref, self.scope)
        if not local and not ref.type.is_const_qualified():
            return None  # a mutable global: any function may change it
        return init

    def dim3_members(self, var, at: int) -> dict:
        """{axis: cursor of the value, or UNKNOWN} for the members of the dim3 local `var` that
        assignments after its declaration set by source offset `at` (a launch): the last store
        to the member before `at` outside any branch or loop that `at` is not in also; UNKNOWN
        where a later store sits in such a branch, a store in a loop around `at` follows it, or
        the store is `op=` or of the whole variable."""
        stores = self._dim3_stores(var)
        out = {}
        for axis in "xyz":
            mine = [st for st in stores if st.axis in (axis, "*")]
            before = [st for st in mine if st.offset < at]
            looped = any(st.offset > at and _loop_around(st, at) for st in mine)  # stored again next time round
            if not before and not looped:
                continue
            settled = [st for st in before if all(a <= at <= b for a, b, _ in st.around)]
            last = settled[-1] if settled else None
            later_branch = any(st.offset > (last.offset if last else -1) for st in before if st not in settled)
            out[axis] = UNKNOWN if looped or later_branch or last is None or last.value is None else last.value
        return out

    def _dim3_stores(self, var) -> list:
        if self.scope is None:
            return []
        if var.hash not in self._stores:
            self._stores[var.hash] = list(_member_stores(self.scope, var.hash, ()))
        return self._stores[var.hash]

    def reassigned(self) -> set:
        """Declaration hashes of the variables the function assigns after declaring them (or
        whose address it takes, or binds to a non-const reference)."""
        if self._reassigned is None:
            self._reassigned = _reassigned(self.scope) if self.scope is not None else set()
        return self._reassigned


def _loop_around(store: _MemberStore, at: int) -> bool:
    return any(is_loop and a <= at <= b for a, b, is_loop in store.around)


def _member_stores(node, var_hash, around):
    """The assignments to var (`var.x = e`, `var.y *= 2`, `var = other`) under node, in order."""
    for c in node.get_children():
        k = c.kind
        if k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            kids = list(c.get_children())
            op = operator(c)
            if len(kids) == 2 and (k == K.COMPOUND_ASSIGNMENT_OPERATOR or op == "="):
                target, axis = strip(kids[0]), "*"
                if target.kind == K.MEMBER_REF_EXPR and target.spelling in ("x", "y", "z"):
                    inner = list(target.get_children())
                    target, axis = (strip(inner[0]) if inner else target), target.spelling
                if target.kind == K.DECL_REF_EXPR and target.referenced is not None and \
                        target.referenced.hash == var_hash:
                    value = kids[1] if op == "=" and axis != "*" else None
                    yield _MemberStore(c.extent.start.offset, axis, value, around)
        if k == K.CALL_EXPR and c.spelling == "operator=":  # `var = dim3(8, 8)`: a class's assignment
            kids = list(c.get_children())
            target = strip(kids[0]) if kids else None
            if target is not None and target.kind == K.DECL_REF_EXPR and target.referenced is not None and \
                    target.referenced.hash == var_hash:
                yield _MemberStore(c.extent.start.offset, "*", None, around)
        inner = around
        if k in _BRANCHES or k in _LOOPS:
            inner = around + ((c.extent.start.offset, c.extent.end.offset, k in _LOOPS),)
        yield from _member_stores(c, var_hash, inner)


def strip(c):
    """c through the implicit casts and parentheses around a single operand."""
    while c.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR) and len(list(c.get_children())) == 1:
        c = next(c.get_children())
    return c


def _initialiser(var):
    kids = [ch for ch in var.get_children() if ch.kind.is_expression()]
    return kids[-1] if kids else None


def _inside(decl, scope) -> bool:
    ext, outer = decl.extent, scope.extent
    return ext.start.file is not None and outer.start.file is not None and \
        ext.start.file.name == outer.start.file.name and outer.start.offset <= ext.start.offset <= outer.end.offset


def _reassigned(scope) -> set:
    out = set()
    for target in written_operands(scope, STEPS + ("&",)):  # taking the address may write it too
        while target is not None and target.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.MEMBER_REF_EXPR):
            inner = list(target.get_children())
            target = inner[0] if inner else None
        if target is not None and target.kind == K.DECL_REF_EXPR and target.referenced is not None:
            out.add(target.referenced.hash)
    return out | _bound_to_references(scope)


def _bound_to_references(scope) -> set:
    """Variables passed to a parameter of non-const reference type (`parse_args(argc, argv, n)`)."""
    out = set()
    for call in scope.walk_preorder():
        if call.kind != K.CALL_EXPR or call.referenced is None:
            continue
        params = list(call.referenced.get_arguments() or ())
        for p, a in zip(params, call.get_arguments()):
            t = p.type
            if t.kind == TypeKind.LVALUEREFERENCE and not t.get_pointee().is_const_qualified():
                a = strip(a)
                if a.kind == K.DECL_REF_EXPR and a.referenced is not None:
                    out.add(a.referenced.hash)
    return out
