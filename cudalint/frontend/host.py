"""Host functions as statement trees (`cudalint.host_model`) for the host-memory analyses.

`build_host_function` keeps a body's statements in their structure (`Block`, `If`, `HostLoop`,
`Switch`, jumps and labels) and asks `HostExpressions` for the events of every expression in it;
an `if`'s condition also becomes a `Test` when it checks a `cudaError_t` or a pointer for null.
"""

from __future__ import annotations

from cudalint.frontend.clang import CursorKind as K, const_int, file_position, for_parts, operator
from cudalint.frontend.host_expressions import HostExpressions, bare, is_null, operands, scope_of
from cudalint.host_model import (Assign, Block, Case, Copy, HostArg, HostLoop, If, Jump, Label, Return, Switch,
                                 Test)
from cudalint.model import HostFunction, Loc


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
    return HostFunction(name=fn.spelling, loc=loc_of(fn), body=tree, params=_params(fn))


def declared_host_function(fn, loc_of) -> HostFunction:
    """A host function without its statement tree (no host analysis reads it)."""
    return HostFunction(name=fn.spelling, loc=loc_of(fn), body=None, params=_params(fn))


def _params(fn) -> tuple:
    return tuple((p.spelling, p.type.kind.name in ("LVALUEREFERENCE", "RVALUEREFERENCE"))
                 for p in fn.get_children() if p.kind == K.PARM_DECL)


class _Builder:
    """The statements of one host function; its expressions go to `HostExpressions`."""

    def __init__(self, loc_of, text_of):
        self.loc_of, self.text_of = loc_of, text_of
        self.exprs = HostExpressions(loc_of, text_of)

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
            return [HostLoop(tuple(self.cond_events(cond)), self.as_block(body), (), self.loc_of(c),
                             self.text_of(cond), infinite=_always_true(cond))]
        if k == K.DO_STMT:
            kids = list(c.get_children())
            body, cond = kids[0], kids[-1]
            return [HostLoop(tuple(self.cond_events(cond)), self.as_block(body), (), self.loc_of(c),
                             self.text_of(cond), do_while=True, infinite=_always_true(cond),
                             once=_const_cond(cond) is False)]
        if k == K.FOR_STMT:
            return self.for_stmt(c)
        if k == K.CXX_FOR_RANGE_STMT:
            kids = list(c.get_children())
            pre = []
            for r in kids[1:-1]:
                pre += self.exprs.expr(r)
            loopvar = kids[0] if kids and kids[0].kind == K.VAR_DECL else None
            head = [Assign(HostArg("var", loopvar.spelling, "local"), HostArg("expr"), self.loc_of(loopvar),
                           decl=True)] if loopvar is not None else []
            body = self.as_block(kids[-1])
            return pre + [HostLoop((), Block(tuple(head) + body.stmts), (), self.loc_of(c), "range")]
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
            kids = operands(c)
            if not kids:
                return [Return(None, self.loc_of(c))]
            ev = [e for e in self.exprs.expr(kids[0]) if not isinstance(e, Copy)]  # NRVO: no second object
            return ev + [Return(self.exprs.arg(kids[0]), self.loc_of(c))]
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
            return self.exprs.expr(c)
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
            st += self.exprs.expr(s)
        ev = self.cond_events(cond) if cond is not None else []
        return pre + [HostLoop(tuple(ev), self.as_block(body), tuple(st), self.loc_of(c),
                               self.text_of(cond) if cond is not None else "",
                               infinite=cond is None or _always_true(cond))]

    def var_decl(self, d) -> list:
        inits = [k for k in operands(d) if k.kind.is_expression()]
        name = HostArg("var", d.spelling, scope_of(d), d.spelling)
        if not inits:
            return [Assign(name, HostArg("expr"), self.loc_of(d), decl=True)]
        init = inits[-1]
        return self.exprs.expr(init) + [Assign(name, self.exprs.arg(init), self.loc_of(d), decl=True)]

    def cond_events(self, c) -> list:
        if c.kind == K.DECL_STMT:
            out = []
            for d in c.get_children():
                if d.kind == K.VAR_DECL:
                    out += self.var_decl(d)
            return out
        if c.kind == K.VAR_DECL:
            return self.var_decl(c)
        return self.exprs.expr(c)

    def test(self, c) -> Test | None:
        c = bare(c)
        if c.kind == K.VAR_DECL or c.kind == K.DECL_STMT:
            return None
        if c.kind == K.BINARY_OPERATOR and operator(c) in ("!=", "=="):
            a, b = [bare(x) for x in operands(c)][:2]
            eq = operator(c) == "=="
            for subj, other in ((a, b), (b, a)):
                if other.kind == K.DECL_REF_EXPR and other.spelling == "cudaSuccess":
                    s = self.exprs.subject(subj)
                    return Test("status", s, "ok" if eq else "fail") if s else None
                if is_null(other) and "*" in subj.type.spelling:
                    s = self.exprs.subject(subj)
                    return Test("null", s, "null" if eq else "nonnull") if s else None
            return None
        if c.kind == K.UNARY_OPERATOR and operator(c) == "!":
            inner = bare(operands(c)[0])
            s = self.exprs.subject(inner)
            if s is None:
                return None
            if "*" in inner.type.spelling:
                return Test("null", s, "null")
            if "cudaError" in inner.type.spelling:
                return Test("status", s, "ok")
            return None
        s = self.exprs.subject(c)
        if s is None:
            return None
        if "*" in c.type.spelling:
            return Test("null", s, "nonnull")
        if "cudaError" in c.type.spelling:
            return Test("status", s, "fail")
        return None


def _const_cond(c):
    """True/False for a constant loop condition (`while (1)`, `while (0)`), else None."""
    s = bare(c)
    if s.kind not in (K.CXX_BOOL_LITERAL_EXPR, K.INTEGER_LITERAL):
        return None
    v = const_int(s)
    return None if v is None else bool(v)


def _always_true(c) -> bool:
    return _const_cond(c) is True


