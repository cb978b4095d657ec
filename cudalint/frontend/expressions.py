"""Expressions in the kernel walk: the `Expressions` mixin (loads, stores, arithmetic, casts, lvalues)."""

from __future__ import annotations

import os
import re
import weakref
from dataclasses import replace

from cudalint.frontend.clang import CursorKind as K, TypeKind as T, const_int, is_virtual_base, operator, spelled, tokens
from cudalint.frontend.values import (AXES, BUILTIN_SCOPES, _PASS, Ptr, StructRef, _align, _counted, _memory_scalar,
                                      _scope, _size, _strip, add, forget_fields, has_attr, local_field, mul, negate,
                                      referenced_field)
from cudalint.model import BLOCK, THREAD, UNIFORM, Array, Const, Op, Sym

_CASTS = {K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR,
          K.CXX_CONST_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR}


def _is_function(t) -> bool:
    return t.get_canonical().kind in (T.FUNCTIONPROTO, T.FUNCTIONNOPROTO)


_MEMBER = re.compile(r"(?:threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*([xyz])\b")


def _builtin_field(c) -> str:
    """x/y/z of `blockDim.x` where the toolkit's headers make it a property with no spelling:
    the text where it is spelled (inside a macro's definition too: `#define ROW (blockIdx.y * ...`
    read as blockIdx.x before); else, inside a macro argument the range's tokens are the macro's,
    the cursor's own are right."""
    written = _MEMBER.match(spelled(c.location))  # a builtin's name there, or the text is not the parse's
    if written:
        return written.group(1)
    for read in (lambda: tokens(c), lambda: [t.spelling for t in c.get_tokens()]):  # the second only if needed
        words = read()  # (inside a long macro expansion, the range's tokens run to thousands)
        if words and words[-1] in ("x", "y", "z"):
            return words[-1]
        if len(words) == 1:  # an object-like macro (`#define tidy threadIdx.y`): its definition's
            body = _macro_tokens(c.translation_unit, words[0])
            if body and body[-1] in ("x", "y", "z"):
                return body[-1]
    return "x"


_MACROS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # TU -> {macro name: its tokens}
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*?)[ \t]*$", re.M)  # object-like only
_MAX_HEADER = 1 << 20


def _macro_tokens(tu, name: str) -> list:
    """The replacement tokens of an object-like macro the translation unit's own files define
    (read from their text: the parse keeps no record of macro definitions, which costs a quarter
    of its time)."""
    if tu not in _MACROS:
        defs: dict = {}
        for path in [tu.spelling] + [inc.include.name for inc in tu.get_includes() if inc.depth <= 2]:
            try:
                if os.path.getsize(path) <= _MAX_HEADER:
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        for m in _DEFINE.finditer(fh.read()):
                            defs.setdefault(m.group(1), re.findall(r"\w+|[^\w\s]", m.group(2)))
            except OSError:
                continue
        _MACROS[tu] = defs
    return _MACROS[tu].get(name, [])


class Expressions:
    """The expressions and lvalues of `KernelBuilder`'s walk (calls: `Calls`)."""

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
        if t.kind == T.POINTER and not _is_function(t.get_pointee()):
            return None  # a pointer loaded from memory: where it points is unknown
        # a number, or a function pointer (never dereferenced as memory: a value like a number,
        # so threads that load one table entry store the same `op = ops[mode]`)
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
            if isinstance(val, StructRef):
                return None  # only `p->a` reads through it (member)
            return self.load(val, c) if _memory_scalar(ref) and isinstance(val, Ptr) else val
        if ref.kind == K.PARM_DECL and ("param", name) in env:
            # in a template instantiation the body may refer to the pattern's parameter cursor
            val = env[("param", name)]
            return None if isinstance(val, StructRef) else val
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

    def _field_through(self, owner, key):
        """The caller's r.a for `p->a` (StructRef owner): stored field by field, or a field of the
        struct a helper returned into r."""
        if key in owner.env:
            return owner.env[key]
        whole = owner.env.get(owner.decl)
        return self.record_fields.get(whole, {}).get(key[1]) if isinstance(whole, Sym) else None

    def member(self, c, env):
        through = referenced_field(c, env)
        if through is not None:  # `p->a` of a caller's `&r`: the caller's r.a
            value = self._field_through(*through)
            return value if value is not None else self.fresh(through[1][1], THREAD, c)
        kids = list(c.get_children())
        base = _strip(kids[0]) if kids else None
        if base is not None and base.kind == K.DECL_REF_EXPR and base.referenced is not None:
            if (base.referenced.hash, c.spelling) in env:
                return env[(base.referenced.hash, c.spelling)]
            whole = env.get(base.referenced.hash)
            fields = self.record_fields.get(whole) if isinstance(whole, Sym) else None
            if fields and c.spelling in fields:  # a struct a helper returned, field by field
                return fields[c.spelling]
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
            if t.referenced.type.get_canonical().kind == T.RECORD:  # `r = s;`: r's fields are s's now
                forget_fields(env, key)
                for field, value in (self.record_fields.get(new, {}) if isinstance(new, Sym) else {}).items():
                    env[(key, field)] = value
            return new
        through = referenced_field(t, env)
        if through is not None:  # `p->a = v` of a caller's `&r`: the caller's r.a holds v
            owner, field = through
            cur = self._field_through(owner, field)
            new = rhs if op is None else self.arith(op, cur, rhs, [], c) if cur is not None else self.fresh(field[1], THREAD, c)
            owner.env[field] = new
            return new
        lv = self.lvalue(target, env)
        if isinstance(lv, Ptr):
            return self._mem_store(lv, op, rhs, c)
        key = local_field(t)
        if key is not None:  # `r.a = v` on a local struct: its field a holds v from here on
            new = rhs if op is None else self.arith(op, self.member(t, env), rhs, [], c)
            env[key] = new
            return new
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
            if size < 0 or is_virtual_base(base):
                return None
            at = (at + align - 1) // align * align
            inner = Expressions._field_offset(bt, name)
            if inner is not None:
                return at + inner
            at += size
        return None
