"""Host functions as small frozen statement trees for the host-memory analyses (issue 5).

`build_host_function` turns a host function's body into the nodes below; the path-sensitive
analysis (`cudalint.analysis.hostflow`) and the CUDA4xx rules read only these, never cursors.
Expressions are flattened into events in evaluation order (`Call`, `Assign`, `Access`,
`Delete`); statements keep their structure (`Block`, `If`, `Loop`, `Switch`, …). Macro
expansions such as `CUDA_CHECK(...)` are already expanded in the AST; locations are spelling
positions, so a call inside a macro argument points at the user's text, and a `return` from a
macro body points at the macro's use.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from cudalint.frontend.clang import CursorKind as K, const_int, file_position, for_parts, operator, tokens
from cudalint.model import HostFunction, Loc

# ---------------------------------------------------------------------------- the tree


@dataclass(frozen=True)
class Arg:
    """An operand as the analyses see it.

    kind: var (a variable or `v.member` of a local `v`), addr (`&name`), null, call (the result of
    call `call_id`), new / new[] (a new-expression), expr (anything else). `scope` of a name:
    local | param | global | member (of `this` or of a non-local object). `root` is the pointer
    variable an expression is based on (`h` in `h + 4`, `(void*)h`, `&h[0]`, `h.data()`)."""
    kind: str
    name: str | None = None
    scope: str | None = None
    text: str = ""
    call_id: int | None = None
    root: str | None = None


@dataclass(frozen=True)
class Call:
    id: int
    name: str
    args: tuple  # Arg
    loc: Loc
    text: str
    launch: bool = False  # a kernel launch `k<<<...>>>(...)`
    stream: str | None = None  # launch stream text ('0' when omitted)
    noreturn: bool = False
    receiver: Arg | None = None  # `obj` in `obj.method(...)`


@dataclass(frozen=True)
class Assign:
    target: Arg  # kind var (scope tells local/global/...) or expr (deref, subscript, ...)
    value: Arg
    loc: Loc
    decl: bool = False  # a declaration's initialiser


@dataclass(frozen=True)
class Access:
    """A host dereference of a pointer variable: `h[i]`, `*h`, `h->x`, `v[i]` (operator[])."""
    var: str
    write: bool
    loc: Loc
    text: str


@dataclass(frozen=True)
class Delete:
    id: int
    arg: Arg
    array: bool
    loc: Loc
    text: str


@dataclass(frozen=True)
class Copy:
    """A shallow copy of a class object: its implicit (or defaulted) copy constructor or copy
    assignment runs, e.g. for a by-value parameter, `T b = a;`, `b = a;`, `v.push_back(a)`."""
    cls: str
    loc: Loc
    text: str


@dataclass(frozen=True)
class Test:
    """What the true branch of a condition means. kind: status (a cudaError_t compared with
    cudaSuccess; sense 'fail' or 'ok') | null (a pointer compared with null; sense 'null' or
    'nonnull'). subject: ('call', id) or ('var', name)."""
    kind: str
    subject: tuple
    sense: str


@dataclass(frozen=True)
class Block:
    stmts: tuple


@dataclass(frozen=True)
class If:
    cond: tuple  # events evaluated by the condition
    test: Test | None
    then: Block
    orelse: Block | None
    loc: Loc
    text: str


@dataclass(frozen=True)
class Loop:
    cond: tuple  # events of the condition (evaluated before every iteration)
    body: Block
    step: tuple  # events of a for-loop's increment
    loc: Loc
    text: str
    do_while: bool = False
    infinite: bool = False  # `for (;;)`, `while (true)`
    once: bool = False  # `do { ... } while (0)`: the body runs exactly once


@dataclass(frozen=True)
class Switch:
    cond: tuple
    body: Block  # contains Case markers
    loc: Loc
    text: str


@dataclass(frozen=True)
class Case:
    loc: Loc
    text: str  # "case 2" | "default"


@dataclass(frozen=True)
class Return:
    value: Arg | None
    loc: Loc
    implicit: bool = False  # falling off the end (loc: the closing brace)


@dataclass(frozen=True)
class Exit:
    loc: Loc
    text: str


@dataclass(frozen=True)
class Jump:
    kind: str  # break | continue | goto
    loc: Loc
    label: str | None = None


@dataclass(frozen=True)
class Label:
    name: str
    loc: Loc


# ---------------------------------------------------------------------------- building

_CONFIG_CALLS = {"__cudaPushCallConfiguration", "cudaConfigureCall"}
_EXIT_NAMES = {"exit", "abort", "_Exit", "quick_exit", "_exit", "terminate", "__assert_fail"}
_FUNCS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR, K.FUNCTION_TEMPLATE,
          K.CONVERSION_FUNCTION, K.LAMBDA_EXPR}
_TRANSPARENT = {K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
                K.CXX_REINTERPRET_CAST_EXPR, K.CXX_CONST_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR}
_NULLS = {K.CXX_NULL_PTR_LITERAL_EXPR, K.GNU_NULL_EXPR}
_COPYING_INSERTS = {"push_back", "insert", "push", "push_front"}
_noreturn_cache: dict = {}


def build_host_function(fn, loc_of, text_of) -> HostFunction:
    body = next((c for c in fn.get_children() if c.kind == K.COMPOUND_STMT), None)
    if body is None:
        return HostFunction(name=fn.spelling, loc=loc_of(fn), body=None)
    b = _Builder(loc_of, text_of)
    try:
        tree = b.block(body)
    except RecursionError:
        return HostFunction(name=fn.spelling, loc=loc_of(fn), body=None)
    _, line, col = file_position(body.extent.end)
    end = Loc(loc_of(fn).path, line, max(col - 1, 1), line, col)
    tree = Block(tree.stmts + (Return(None, end, implicit=True),))
    params = tuple((p.spelling, p.type.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE"))
                   for p in fn.get_children() if p.kind == K.PARM_DECL)
    return HostFunction(name=fn.spelling, loc=loc_of(fn), body=tree, params=params)


def _strip(c):
    while c.kind in _TRANSPARENT:
        kids = [k for k in c.get_children() if k.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)]
        if len(kids) != 1:
            break
        c = kids[0]
    return c


def _exprs(c):
    return [k for k in c.get_children() if k.kind not in (K.TYPE_REF, K.TEMPLATE_REF, K.NAMESPACE_REF)
            and not k.kind.is_attribute()]


def _is_null(c) -> bool:
    c = _strip(c)
    if c.kind in _NULLS:
        return True
    return c.kind == K.INTEGER_LITERAL and const_int(c) == 0


def _scope(decl) -> str:
    if decl is None:
        return "global"
    if decl.kind == K.PARM_DECL:
        return "param"
    if decl.kind == K.VAR_DECL:
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
                if a.kind == K.UNEXPOSED_ATTR and "noreturn" in tokens(a):
                    nr = True
                    break
        _noreturn_cache[key] = nr
    return _noreturn_cache[key]


class _Builder:
    def __init__(self, loc_of, text_of):
        self.loc_of, self.text_of = loc_of, text_of
        self.ids = itertools.count(1)
        self.depth = 0

    # -- statements --------------------------------------------------------
    def block(self, c) -> Block:
        out = []
        for s in c.get_children():
            out += self.stmt(s)
        return Block(tuple(out))

    def as_block(self, c) -> Block:
        return self.block(c) if c.kind == K.COMPOUND_STMT else Block(tuple(self.stmt(c)))

    def stmt(self, c) -> list:
        k = c.kind
        if k == K.COMPOUND_STMT:
            return [self.block(c)]
        if k == K.DECL_STMT:
            out = []
            for d in c.get_children():
                if d.kind == K.VAR_DECL:
                    out += self.var_decl(d)
            return out
        if k == K.IF_STMT:
            kids = list(c.get_children())
            if len(kids) >= 4:
                out = self.stmt(kids[0])
                kids = kids[1:]
            else:
                out = []
            cond = kids[0]
            ev = self.cond_events(cond)
            test = self.test(cond)
            then = self.as_block(kids[1]) if len(kids) > 1 else Block(())
            orelse = self.as_block(kids[2]) if len(kids) > 2 else None
            return out + [If(tuple(ev), test, then, orelse, self.loc_of(c), self.text_of(cond))]
        if k == K.WHILE_STMT:
            kids = list(c.get_children())
            cond, body = kids[0], kids[-1]
            return [Loop(tuple(self.cond_events(cond)), self.as_block(body), (), self.loc_of(c),
                         self.text_of(cond), infinite=_always_true(cond))]
        if k == K.DO_STMT:
            kids = list(c.get_children())
            body, cond = kids[0], kids[-1]
            return [Loop(tuple(self.cond_events(cond)), self.as_block(body), (), self.loc_of(c),
                         self.text_of(cond), do_while=True, infinite=_always_true(cond),
                         once=_const_cond(cond) is False)]
        if k == K.FOR_STMT:
            return self.for_stmt(c)
        if k == K.CXX_FOR_RANGE_STMT:
            kids = list(c.get_children())
            pre = []
            for r in kids[1:-1]:
                pre += self.expr(r)
            loopvar = kids[0] if kids and kids[0].kind == K.VAR_DECL else None
            head = [Assign(Arg("var", loopvar.spelling, "local"), Arg("expr"), self.loc_of(loopvar), decl=True)] \
                if loopvar is not None else []
            body = self.as_block(kids[-1])
            return pre + [Loop((), Block(tuple(head) + body.stmts), (), self.loc_of(c), "range")]
        if k == K.SWITCH_STMT:
            kids = list(c.get_children())
            cond, body = kids[-2] if len(kids) > 1 else kids[0], kids[-1]
            ev = self.cond_events(cond) if len(kids) > 1 else []
            return [Switch(tuple(ev), self.as_block(body), self.loc_of(c), self.text_of(cond))]
        if k in (K.CASE_STMT, K.DEFAULT_STMT):
            kids = list(c.get_children())
            text = "default" if k == K.DEFAULT_STMT else f"case {self.text_of(kids[0])}"
            out = [Case(self.loc_of(c), text)]
            if kids:
                out += self.stmt(kids[-1])
            return out
        if k == K.RETURN_STMT:
            kids = _exprs(c)
            if not kids:
                return [Return(None, self.loc_of(c))]
            ev = [e for e in self.expr(kids[0]) if not isinstance(e, Copy)]  # NRVO: no second object
            return ev + [Return(self.arg(kids[0]), self.loc_of(c))]
        if k == K.BREAK_STMT:
            return [Jump("break", self.loc_of(c))]
        if k == K.CONTINUE_STMT:
            return [Jump("continue", self.loc_of(c))]
        if k == K.GOTO_STMT:
            ref = next(iter(c.get_children()), None)
            return [Jump("goto", self.loc_of(c), ref.spelling if ref is not None else None)]
        if k == K.LABEL_STMT:
            kids = list(c.get_children())
            out = [Label(c.spelling, self.loc_of(c))]
            for s in kids:
                out += self.stmt(s)
            return out
        if k == K.CXX_TRY_STMT:
            kids = list(c.get_children())
            return self.stmt(kids[0]) if kids else []
        if k in (K.NULL_STMT, K.ASM_STMT, K.MS_ASM_STMT) or k.is_declaration():
            return []
        if k.is_expression() or k == K.UNEXPOSED_STMT:
            return self.expr(c)
        return []

    def for_stmt(self, c) -> list:
        first, cond, inc, body = for_parts(c)
        kids = list(c.get_children())
        if first is None and cond is None and inc is None and len(kids) > 1:
            init, step = kids[:-1], []  # the `;` could not be placed: treat the heads as init
        else:
            init, step = [x for x in (first,) if x is not None], [x for x in (inc,) if x is not None]
        pre = []
        for i in init:
            pre += self.stmt(i)
        st = []
        for s in step:
            st += self.expr(s)
        ev = self.cond_events(cond) if cond is not None else []
        return pre + [Loop(tuple(ev), self.as_block(body), tuple(st), self.loc_of(c),
                           self.text_of(cond) if cond is not None else "",
                           infinite=cond is None or _always_true(cond))]

    def var_decl(self, d) -> list:
        inits = [k for k in _exprs(d) if k.kind.is_expression()]
        name = Arg("var", d.spelling, _scope(d), d.spelling)
        if not inits:
            return [Assign(name, Arg("expr"), self.loc_of(d), decl=True)]
        init = inits[-1]
        return self.expr(init) + [Assign(name, self.arg(init), self.loc_of(d), decl=True)]

    def cond_events(self, c) -> list:
        if c.kind == K.DECL_STMT:
            out = []
            for d in c.get_children():
                if d.kind == K.VAR_DECL:
                    out += self.var_decl(d)
            return out
        if c.kind == K.VAR_DECL:
            return self.var_decl(c)
        return self.expr(c)

    def test(self, c) -> Test | None:
        c = _strip(c)
        if c.kind == K.VAR_DECL or c.kind == K.DECL_STMT:
            return None
        if c.kind == K.BINARY_OPERATOR and operator(c) in ("!=", "=="):
            a, b = [_strip(x) for x in _exprs(c)][:2]
            eq = operator(c) == "=="
            for subj, other in ((a, b), (b, a)):
                if other.kind == K.DECL_REF_EXPR and other.spelling == "cudaSuccess":
                    s = self._subject(subj)
                    return Test("status", s, "ok" if eq else "fail") if s else None
                if _is_null(other) and "*" in subj.type.spelling:
                    s = self._subject(subj)
                    return Test("null", s, "null" if eq else "nonnull") if s else None
            return None
        if c.kind == K.UNARY_OPERATOR and operator(c) == "!":
            inner = _strip(_exprs(c)[0])
            s = self._subject(inner)
            if s is None:
                return None
            if "*" in inner.type.spelling:
                return Test("null", s, "null")
            if "cudaError" in inner.type.spelling:
                return Test("status", s, "ok")
            return None
        s = self._subject(c)
        if s is None:
            return None
        if "*" in c.type.spelling:
            return Test("null", s, "nonnull")
        if "cudaError" in c.type.spelling:
            return Test("status", s, "fail")
        return None

    def _subject(self, c):
        c = _strip(c)
        if c.kind == K.CALL_EXPR:
            cid = self._call_ids.get(_key(c))
            return ("call", cid) if cid is not None else None
        a = self.arg(c)
        return ("var", a.name) if a.kind == "var" else None

    # -- expressions -------------------------------------------------------
    @property
    def _call_ids(self):
        if not hasattr(self, "_ids_by_cursor"):
            self._ids_by_cursor = {}
        return self._ids_by_cursor

    def expr(self, c, write=False) -> list:
        """Events of evaluating expression c, in order."""
        self.depth += 1
        try:
            if self.depth > 200:
                return []
            return self._expr(c, write)
        finally:
            self.depth -= 1

    def _expr(self, c, write) -> list:
        k = c.kind
        if k == K.CALL_EXPR:
            return self.call(c)
        if k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR):
            kids = _exprs(c)
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
            kids = _exprs(c)
            ev = [e for x in kids for e in self.expr(x)]
            base = self.arg(kids[0]) if kids else None
            if base is not None and base.kind == "var":
                ev.append(Access(base.name, write, self.loc_of(c), self.text_of(c)))
            return ev
        if k == K.UNARY_OPERATOR:
            kids = _exprs(c)
            op = operator(c)
            step = op in ("post++", "post--", "pre++", "pre--")
            ev = [e for x in kids for e in self.expr(x, write=step)]
            if step and kids:
                ev += self.counter_update(kids[0], c)
            if op == "*" and kids:
                base = self.arg(kids[0])
                if base.kind == "var":
                    ev.append(Access(base.name, write, self.loc_of(c), self.text_of(c)))
            return ev
        if k == K.MEMBER_REF_EXPR:
            kids = _exprs(c)
            ev = [e for x in kids for e in self.expr(x)]
            if kids and _is_pointer(kids[0]):
                base = self.arg(kids[0])
                if base.kind == "var":
                    ev.append(Access(base.name, write, self.loc_of(c), self.text_of(c)))
            return ev
        if k == K.CXX_NEW_EXPR:
            return [e for x in _exprs(c) for e in self.expr(x)]
        if k == K.CXX_DELETE_EXPR:
            kids = _exprs(c)
            ev = [e for x in kids for e in self.expr(x)]
            if kids:
                arr = "[" in tokens(c)[:3]
                ev.append(Delete(next(self.ids), self.arg(kids[0]), arr, self.loc_of(c), self.text_of(c)))
            return ev
        if k == K.LAMBDA_EXPR:
            names = sorted({r.spelling for r in c.walk_preorder() if r.kind == K.DECL_REF_EXPR
                            and _scope(r.referenced) == "local"})
            args = tuple(Arg("var", n, "local", n) for n in names)
            return [Call(next(self.ids), "<lambda>", args, self.loc_of(c), "lambda")]
        if k in (K.DECL_REF_EXPR, K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.STRING_LITERAL,
                 K.CHARACTER_LITERAL, K.CXX_BOOL_LITERAL_EXPR, K.CXX_NULL_PTR_LITERAL_EXPR):
            return []
        if k == K.CXX_UNARY_EXPR:  # sizeof / alignof: not evaluated
            return []
        return [e for x in _exprs(c) for e in self.expr(x, write if k in _TRANSPARENT else False)]

    def call(self, c) -> list:
        copy = self.shallow_copy(c)
        if copy is not None:
            return [e for a in c.get_arguments() for e in self.expr(a)] + [copy]
        kids = _exprs(c)
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
                stream = _stream_text(self.text_of(cfg[3]))
            for a in args:
                ev += self.expr(a)
            cid = next(self.ids)
            self._call_ids[_key(c)] = cid
            return ev + [Call(cid, c.spelling, tuple(self.arg(a) for a in args), self.loc_of(c),
                              self.text_of(c), launch=True, stream=stream)]
        callee = _strip(kids[0]) if kids else None
        if callee is not None and callee.kind == K.MEMBER_REF_EXPR:
            base = _exprs(callee)
            if base:
                ev += self.expr(base[0])
                receiver = self.arg(base[0])
        name = c.spelling
        if name == "operator[]" and len(kids) >= 2:
            base = self.arg(kids[1])
            for a in kids[1:]:
                ev += self.expr(a)
            if base.kind == "var":
                ev.append(Access(base.name, False, self.loc_of(c), self.text_of(c)))
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
        return [Assign(a, Arg("expr", root=a.name), self.loc_of(c))]

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
            if len(args) != 1 or _strip(args[0]).kind != K.DECL_REF_EXPR:
                return None  # a temporary or std::move(...) is moved, not copied
            decl = args[0].type.get_canonical().get_declaration()
            if decl is None or decl.kind not in (K.STRUCT_DECL, K.CLASS_DECL):
                return None
            cls = decl.spelling
        else:
            return None
        return Copy(cls, self.loc_of(c), self.text_of(c))

    def arg(self, c) -> Arg:
        text = self.text_of(c)
        s = _strip(c)
        if _is_null(s):
            return Arg("null", text=text)
        k = s.kind
        if k == K.DECL_REF_EXPR:
            ref = s.referenced
            if ref is not None and ref.kind in (K.VAR_DECL, K.PARM_DECL):
                return Arg("var", s.spelling, _scope(ref), text, root=s.spelling)
            return Arg("expr", text=text)
        if k == K.MEMBER_REF_EXPR:
            base = _exprs(s)
            if not base:  # implicit this->member
                return Arg("var", f"this.{s.spelling}", "member", text)
            b = self.arg(base[0])
            if b.kind == "var":
                scope = b.scope if (b.scope == "local" and not _is_pointer(base[0])) else "member"
                return Arg("var", f"{b.name}.{s.spelling}", scope, text, root=b.name)
            return Arg("expr", text=text, root=b.root)
        if k == K.UNARY_OPERATOR and operator(s) == "&":
            inner = self.arg(_exprs(s)[0])
            if inner.kind == "var":
                return Arg("addr", inner.name, inner.scope, text, root=inner.name)
            return Arg("expr", text=text, root=inner.root)
        if k == K.CALL_EXPR:
            cid = self._call_ids.get(_key(s))
            root = None
            kids = _exprs(s)
            if kids and _strip(kids[0]).kind == K.MEMBER_REF_EXPR and s.spelling in ("data", "get"):
                b = _exprs(_strip(kids[0]))
                root = self.arg(b[0]).root if b else None
            return Arg("call", s.spelling, text=text, call_id=cid, root=root)
        if k == K.CXX_NEW_EXPR:
            arr = "[" in tokens(s)
            return Arg("new[]" if arr else "new", text=text, call_id=_key_id(self, s))
        if k == K.UNARY_OPERATOR and operator(s) == "*":
            inner = self.arg(_exprs(s)[0])
            if inner.kind == "var" and inner.scope == "param":  # `*out`: the caller's variable
                return Arg("var", f"*{inner.name}", "member", text, root=inner.name)
            return Arg("expr", text=text)
        if k == K.BINARY_OPERATOR and operator(s) in ("+", "-"):
            a = self.arg(_exprs(s)[0])
            return Arg("expr", text=text, root=a.root)
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            return Arg("expr", text=text)
        return Arg("expr", text=text)


def _is_pointer(c) -> bool:
    return c.type.get_canonical().kind.name == "POINTER"


def _key(c):
    e = c.extent
    return (e.start.offset, e.end.offset, c.spelling, str(e.start.file))


def _key_id(b, c):
    key = _key(c)
    if key not in b._call_ids:
        b._call_ids[key] = next(b.ids)
    return b._call_ids[key]


def _stream_text(t: str) -> str:
    t = t.strip()
    return "0" if t in ("", "0", "nullptr", "NULL", "cudaStreamLegacy", "(cudaStream_t)0") else t


def _const_cond(c):
    """True/False for a constant loop condition (`while (1)`, `while (0)`), else None."""
    s = _strip(c)
    if s.kind not in (K.CXX_BOOL_LITERAL_EXPR, K.INTEGER_LITERAL):
        return None
    v = const_int(s)
    return None if v is None else bool(v)


def _always_true(c) -> bool:
    return _const_cond(c) is True


