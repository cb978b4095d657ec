"""Host expressions as the events of evaluating them, in order, and the operands they name.

`HostExpressions.expr` turns an expression cursor into `Call`, `Assign`, `HostAccess`, `Delete`
and `Copy` events (`cudalint.host_model`); `arg` says what an operand is (a variable, `&name`,
null, a call's result, a new-expression). The statement side (`cudalint.frontend.host`) asks it
for the events of conditions, initialisers and expression statements.
"""

from __future__ import annotations

import itertools

from cudalint.frontend.clang import CursorKind as K, TypeKind as T, const_int, names_word, operator, tokens
from cudalint.host_model import Assign, Call, Copy, Delete, HostAccess, HostArg, stream_text

_CONFIG_CALLS = {"__cudaPushCallConfiguration", "cudaConfigureCall"}
_EXIT_NAMES = {"exit", "abort", "_Exit", "quick_exit", "_exit", "terminate", "__assert_fail"}
_FUNCS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.FUNCTION_TEMPLATE,
          K.CONVERSION_FUNCTION, K.LAMBDA_EXPR}
_TRANSPARENT = {K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
                K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR}
_NULLS = {K.CXX_NULL_PTR_LITERAL_EXPR, K.GNU_NULL_EXPR}
_COPYING_INSERTS = {"push_back", "insert", "push", "push_front"}
_noreturn_cache: dict = {}


def bare(c):
    """c without the parentheses and casts around it."""
    while c.kind in _TRANSPARENT:
        kids = [k for k in c.get_children() if k.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        if len(kids) != 1:
            break
        c = kids[0]
    return c


def operands(c):
    """The children of c that are expressions (not type, template or namespace references)."""
    return [k for k in c.get_children() if k.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)
            and not k.kind.is_attribute()]


def is_null(c) -> bool:
    c = bare(c)
    if c.kind in _NULLS:
        return True
    return c.kind == K.INTEGER_LITERAL and const_int(c) == 0


def scope_of(decl) -> str:
    """local | param | global | member: where the variable `decl` lives."""
    if decl is None:
        return "global"
    if decl.kind == K.PARM_DECL:
        return "param"
    if decl.kind == K.VAR_DECL:
        if decl.type.kind in (T.LVALUEREFERENCE, T.RVALUEREFERENCE):
            return "member"  # names memory that lives elsewhere (`for (auto& it : v)`: v's element)
        parent = decl.semantic_parent
        static = decl.storage_class is not None and decl.storage_class.name in ("STATIC", "EXTERN")
        if parent is not None and parent.kind in _FUNCS and not static:
            return "local"
        return "global"
    if decl.kind == K.FIELD_DECL:
        return "member"
    return "global"


def _noreturn(decl) -> bool:
    if decl is None:
        return False
    key = decl.get_usr() or decl.spelling
    if key not in _noreturn_cache:
        nr = "noreturn" in decl.type.spelling
        if not nr:
            for a in decl.get_children():
                if a.kind == K.UNEXPOSED_ATTR and names_word(a, "noreturn"):
                    nr = True
                    break
        _noreturn_cache[key] = nr
    return _noreturn_cache[key]


class HostExpressions:
    """The events and operands of one host function's expressions; numbers its calls (the ids
    that `Test` subjects and `HostArg.call_id` refer to)."""

    def __init__(self, loc_of, text_of):
        self.loc_of, self.text_of = loc_of, text_of
        self.ids = itertools.count(1)
        self.depth = 0
        self._call_ids = {}  # cursor key -> id of the Call (or new-expression) built for it

    def expr(self, c, write=False) -> list:
        """Events of evaluating expression c, in order."""
        self.depth += 1
        try:
            if self.depth > 200:
                return []
            return self._expr(c, write)
        finally:
            self.depth -= 1

    def subject(self, c):
        """What a condition tests: ('call', id) of a call already built, ('var', name), or None."""
        c = bare(c)
        if c.kind == K.CALL_EXPR:
            cid = self._call_ids.get(_key(c))
            return ("call", cid) if cid is not None else None
        if c.kind == K.BINARY_OPERATOR and operator(c) == "=" and len(operands(c)) == 2:
            return self.subject(operands(c)[0])  # `(err = cudaMalloc(..)) != cudaSuccess`: err holds the result
        a = self.arg(c)
        return ("var", a.name) if a.kind == "var" else None

    def _expr(self, c, write) -> list:
        k = c.kind
        if k == K.CALL_EXPR:
            return self.call(c)
        if k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            kids = operands(c)
            if len(kids) != 2:
                return [e for x in kids for e in self.expr(x)]
            lhs, rhs = kids
            op = operator(c)
            if op == "=":
                ev = self.expr(rhs) + self.expr(lhs, write=True)
                return ev + [Assign(self.arg(lhs), self.arg(rhs), self.loc_of(c))]
            if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
                return self.expr(rhs) + self.expr(lhs, write=True) + self.counter_update(lhs, c)
            return self.expr(lhs) + self.expr(rhs)
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            kids = operands(c)
            ev = [e for x in kids for e in self.expr(x)]
            base = self.arg(kids[0]) if kids else None
            if base is not None and base.kind == "var":
                ev.append(HostAccess(base.name, write, self.loc_of(c), self.text_of(c)))
            return ev
        if k == K.UNARY_OPERATOR:
            kids = operands(c)
            op = operator(c)
            step = op in ("post++", "post--", "pre++", "pre--")
            ev = [e for x in kids for e in self.expr(x, write=step)]
            if step and kids:
                ev += self.counter_update(kids[0], c)
            if op == "*" and kids:
                base = self.arg(kids[0])
                if base.kind == "var":
                    ev.append(HostAccess(base.name, write, self.loc_of(c), self.text_of(c)))
            return ev
        if k == K.MEMBER_REF_EXPR:
            kids = operands(c)
            ev = [e for x in kids for e in self.expr(x)]
            if kids and _is_pointer(kids[0]):
                base = self.arg(kids[0])
                if base.kind == "var":
                    ev.append(HostAccess(base.name, write, self.loc_of(c), self.text_of(c)))
            return ev
        if k == K.CXX_NEW_EXPR:
            return [e for x in operands(c) for e in self.expr(x)]
        if k == K.CXX_DELETE_EXPR:
            kids = operands(c)
            ev = [e for x in kids for e in self.expr(x)]
            if kids:
                arr = "[" in tokens(c)[:3]
                ev.append(Delete(next(self.ids), self.arg(kids[0]), arr, self.loc_of(c), self.text_of(c)))
            return ev
        if k == K.LAMBDA_EXPR:
            names = sorted({r.spelling for r in c.walk_preorder() if r.kind == K.DECL_REF_EXPR
                            and scope_of(r.referenced) == "local"})
            args = tuple(HostArg("var", n, "local", n) for n in names)
            return [Call(next(self.ids), "<lambda>", args, self.loc_of(c), "lambda")]
        if k in (K.DECL_REF_EXPR, K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.STRING_LITERAL,
                 K.CHARACTER_LITERAL, K.CXX_BOOL_LITERAL_EXPR, K.CXX_NULL_PTR_LITERAL_EXPR):
            return []
        if k == K.CXX_UNARY_EXPR:  # sizeof / alignof: not evaluated
            return []
        return [e for x in operands(c) for e in self.expr(x, write if k in _TRANSPARENT else False)]

    def call(self, c) -> list:
        copy = self.shallow_copy(c)
        if copy is not None:
            return [e for a in c.get_arguments() for e in self.expr(a)] + [copy]
        kids = operands(c)
        config = next((ch for ch in kids if ch.kind == K.CALL_EXPR and ch.spelling in _CONFIG_CALLS), None)
        args = list(c.get_arguments())
        ev = []
        receiver = None
        if config is not None:
            cfg = list(config.get_arguments())
            for a in cfg:
                ev += self.expr(a)
            stream = "0"
            if len(cfg) > 3 and cfg[3].extent.start.file is not None:
                stream = stream_text(self.text_of(cfg[3]))
            for a in args:
                ev += self.expr(a)
            cid = next(self.ids)
            self._call_ids[_key(c)] = cid
            return ev + [Call(cid, c.spelling, tuple(self.arg(a) for a in args), self.loc_of(c),
                              self.text_of(c), launch=True, stream=stream)]
        callee = bare(kids[0]) if kids else None
        if callee is not None and callee.kind == K.MEMBER_REF_EXPR:
            base = operands(callee)
            if base:
                ev += self.expr(base[0])
                receiver = self.arg(base[0])
        name = c.spelling
        if name == "operator[]" and len(kids) >= 2:
            base = self.arg(kids[1])
            for a in kids[1:]:
                ev += self.expr(a)
            if base.kind == "var":
                ev.append(HostAccess(base.name, False, self.loc_of(c), self.text_of(c)))
            return ev
        for a in args:
            ev += self.expr(a)
        ref = c.referenced
        nr = name in _EXIT_NAMES or _noreturn(ref)
        cid = next(self.ids)
        self._call_ids[_key(c)] = cid
        return ev + [Call(cid, name, tuple(self.arg(a) for a in args), self.loc_of(c), self.text_of(c),
                          noreturn=nr, receiver=receiver)]

    def counter_update(self, target, c) -> list:
        """`i++`, `n += 2` on a non-pointer variable: an assignment, so conditions on it that the
        path already decided are forgotten (pointer arithmetic keeps the pointer's allocation)."""
        a = self.arg(target)
        if a.kind != "var" or _is_pointer(target):
            return []
        return [Assign(a, HostArg("expr", root=a.name), self.loc_of(c))]

    def shallow_copy(self, c):
        """A Copy event when call c copies an object member by member."""
        ref = c.referenced
        if ref is None or c.location.file is None:
            return None
        if ref.kind == K.CONSTRUCTOR and ref.is_copy_constructor() and ref.is_default_method():
            cls = ref.semantic_parent.spelling
        elif (ref.kind == K.CXX_METHOD and ref.spelling == "operator=" and ref.is_copy_assignment_operator_method()
              and ref.is_default_method()):
            cls = ref.semantic_parent.spelling
        elif c.spelling in _COPYING_INSERTS and c.referenced.kind == K.CXX_METHOD:
            args = list(c.get_arguments())
            if len(args) != 1 or bare(args[0]).kind != K.DECL_REF_EXPR:
                return None  # a temporary or std::move(...) is moved, not copied
            decl = args[0].type.get_canonical().get_declaration()
            if decl is None or decl.kind not in (K.STRUCT_DECL, K.CLASS_DECL):
                return None
            cls = decl.spelling
        else:
            return None
        return Copy(cls, self.loc_of(c), self.text_of(c))

    def arg(self, c) -> HostArg:
        text = self.text_of(c)
        s = bare(c)
        if is_null(s):
            return HostArg("null", text=text)
        k = s.kind
        if k == K.DECL_REF_EXPR:
            ref = s.referenced
            if ref is not None and ref.kind in (K.VAR_DECL, K.PARM_DECL):
                return HostArg("var", s.spelling, scope_of(ref), text, root=s.spelling)
            return HostArg("expr", text=text)
        if k == K.MEMBER_REF_EXPR:
            base = operands(s)
            if not base:  # implicit this->member
                return HostArg("var", f"this.{s.spelling}", "member", text)
            b = self.arg(base[0])
            if b.kind == "var":
                scope = b.scope if (b.scope == "local" and not _is_pointer(base[0])) else "member"
                return HostArg("var", f"{b.name}.{s.spelling}", scope, text, root=b.name)
            return HostArg("expr", text=text, root=b.root)
        if k == K.UNARY_OPERATOR and operator(s) == "&":
            inner = self.arg(operands(s)[0])
            if inner.kind == "var":
                return HostArg("addr", inner.name, inner.scope, text, root=inner.name)
            return HostArg("expr", text=text, root=inner.root)
        if k == K.CALL_EXPR:
            cid = self._call_ids.get(_key(s))
            root = None
            kids = operands(s)
            if kids and bare(kids[0]).kind == K.MEMBER_REF_EXPR and s.spelling in ("data", "get"):
                b = operands(bare(kids[0]))
                root = self.arg(b[0]).root if b else None
            return HostArg("call", s.spelling, text=text, call_id=cid, root=root)
        if k == K.CXX_NEW_EXPR:
            arr = "[" in tokens(s)
            return HostArg("new[]" if arr else "new", text=text, call_id=self._id_of(s))
        if k == K.UNARY_OPERATOR and operator(s) == "*":
            inner = self.arg(operands(s)[0])
            if inner.kind == "var" and inner.scope == "param":  # `*out`: the caller's variable
                return HostArg("var", f"*{inner.name}", "member", text, root=inner.name)
            return HostArg("expr", text=text)
        if k == K.BINARY_OPERATOR and operator(s) in ("+", "-"):
            a = self.arg(operands(s)[0])
            return HostArg("expr", text=text, root=a.root)
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            return HostArg("expr", text=text)
        return HostArg("expr", text=text)

    def _id_of(self, c) -> int:
        """The id of c's event, numbered on first sight."""
        key = _key(c)
        if key not in self._call_ids:
            self._call_ids[key] = next(self.ids)
        return self._call_ids[key]


def _is_pointer(c) -> bool:
    return c.type.get_canonical().kind.name == "POINTER"


def _key(c):
    e = c.extent
    return (e.start.offset, e.end.offset, c.spelling, str(e.start.file))
