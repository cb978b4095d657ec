"""Statements in the kernel walk: the `Statements` mixin (blocks, declarations, if, switch, return)."""

from __future__ import annotations

from dataclasses import replace

from cudalint.frontend.clang import CursorKind as K, TypeKind as T
from cudalint.frontend.loops import _fixed_truth
from cudalint.frontend.values import (AXES, Ptr, _align, _counted, _Return, _scalar_elem, _scope, _size, _strip,
                                      has_attr, negate)
from cudalint.model import UNIFORM, Array, Const, Op

_VECTOR_INDEX_TYPES = {"dim3", "uint3", "int3"}


class Statements:
    """The statements of `KernelBuilder`'s walk (loops: `Loops`)."""

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
            fields = _fields(kids[0], env) if kids and self.returns is not None and \
                kids[0].type.get_canonical().kind == T.RECORD else None
            if fields:  # `return r;` of a local struct stored field by field: the caller reads them
                val = self.fresh("struct", _scope(*fields.values()), c)
                self.record_fields[val] = fields
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
        if init is not None and t.kind == T.RECORD:
            for field, value in (_fields(init, env) or {}).items():
                env[(d.hash, field)] = value  # `Pair q = r;`: q's fields are r's
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


def _fields(c, env) -> dict | None:
    """{field: value} of the fields stored so far in the local struct variable `c` names."""
    c = _strip(c)
    while c.kind in (K.UNEXPOSED_EXPR, K.CALL_EXPR) and len(list(c.get_children())) == 1:
        c = _strip(next(c.get_children()))  # the implicit copy constructor around `r`
    if c.kind != K.DECL_REF_EXPR or c.referenced is None:
        return None
    h = c.referenced.hash
    return {k[1]: v for k, v in env.items() if isinstance(k, tuple) and k[0] == h and isinstance(k[1], str)} or None
