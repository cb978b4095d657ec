"""Calls in the kernel walk: the `Calls` mixin (barriers, atomics, intrinsics, cuRAND, CUB, inlining)."""

from __future__ import annotations

import re

from cudalint.frontend.callees import (_BLOCK_BARRIERS, _GROUP_SYNCS, _callee_barrier, _callee_scope, _group_barrier,
                                       _group_extent, _mtgp32_word)
from cudalint.frontend.clang import CursorKind as K, TypeKind as T, operator
from cudalint.frontend.depth import TooDeep
from cudalint.frontend.values import (BUILTIN_SCOPES, Ptr, _parameters, _Return, _scope, _strip, forget_fields, mul,
                                      struct_address, template_values)
from cudalint.frontend.warp_calls import warp_call
from cudalint.model import BLOCK, THREAD, UNIFORM, Barrier, Const, Op, Sym, Ticket, syms

# CUDA's own atomic functions; a user's `atomicRead` helper is walked like any other function
_ATOMIC = re.compile(r"^atomic(Add|Sub|Exch|Min|Max|Inc|Dec|CAS|And|Or|Xor)(_block|_system)?$")
_CONVERSION = re.compile(r"^operator (?!new\b|delete\b)\w")  # `operator int`: a conversion to a type
_MEMCPY = {"memcpy", "__builtin_memcpy", "memset", "__builtin_memset"}
_GROUP_UNIFORM = {"size", "num_threads", "meta_group_size", "group_dim", "dim_threads", "num_blocks", "dim_blocks"}
_WARP_VALUE = re.compile(r"^__(shfl|ballot|any|all|reduce|match|activemask)")
_MAX_INLINE_DEPTH = 8
_CUB_COLLECTIVES = {"BlockScan", "BlockReduce", "BlockRadixSort", "BlockExchange", "BlockHistogram",
                    "BlockLoad", "BlockStore", "BlockAdjacentDifference", "BlockDiscontinuity",
                    "BlockShuffle", "BlockMergeSort", "BlockRunLengthDecode"}

# libcu++ / C++ atomics (cuda::atomic<int>, cuda::std::atomic_ref<T>, std::atomic<T>) as the
# canonical spelling names them: the operator's object is often a base (cuda::std::__atomic_bitwise)
_ATOMIC_CLASS = re.compile(r"^(const |volatile )*(cuda::|std::)[\w:]*\b_*atomic\w*<")


def _exposed_structs(c) -> set:
    """Declaration hashes of the local structs a call may change: passed by non-const reference
    or by address, or the object of a method call."""
    ref = c.referenced
    params = list(ref.get_arguments()) if ref is not None and ref.kind != K.CONSTRUCTOR else []
    out = set()
    candidates = []
    for i, a in enumerate(c.get_arguments()):
        s = _strip(a)
        if s.kind == K.UNARY_OPERATOR and operator(s) == "&":
            candidates.append(_strip(next(s.get_children())))
        elif i < len(params) and params[i].type.kind == T.LVALUEREFERENCE and \
                not params[i].type.get_pointee().is_const_qualified():
            candidates.append(s)
    kids = list(c.get_children())
    if kids and kids[0].kind == K.MEMBER_REF_EXPR:
        obj = list(kids[0].get_children())
        candidates += [_strip(obj[0])] if obj else []
    for s in candidates:
        d = s.referenced if s.kind == K.DECL_REF_EXPR else None
        if d is not None and d.kind == K.VAR_DECL and d.type.get_canonical().kind == T.RECORD:
            out.add(d.hash)
    return out


def _arguments_scope(c, env) -> int:
    """How far the values a call is given may differ (thread, block, uniform), from the variables
    and coordinates its arguments name: without walking them again (that would record their
    loads twice)."""
    scope = UNIFORM
    for a in c.get_arguments():
        for n in a.walk_preorder():
            if n.kind == K.DECL_REF_EXPR and n.referenced is not None:
                if n.spelling in BUILTIN_SCOPES:
                    scope = max(scope, BUILTIN_SCOPES[n.spelling])
                elif n.referenced.hash in env:
                    scope = max(scope, _scope(env[n.referenced.hash]) if not isinstance(env[n.referenced.hash], Ptr)
                                else env[n.referenced.hash].offset.scope)
                elif n.referenced.kind == K.VAR_DECL:
                    scope = THREAD  # a local the walk has no value for
            elif n.kind in (K.CALL_EXPR, K.ARRAY_SUBSCRIPT_EXPR) or n.kind == K.UNARY_OPERATOR and operator(n) == "*":
                scope = THREAD  # a loaded or computed value: assume each thread's own
    return scope


class Calls:
    """The calls of `KernelBuilder`'s walk."""

    def call(self, c, env):
        exposed = _exposed_structs(c)
        mark = len(self.followed_structs)
        try:
            return self._call(c, env)
        finally:
            exposed -= set(self.followed_structs[mark:])  # an inlined helper's stores were followed
            del self.followed_structs[mark:]
            if exposed:  # changed in a way the walk does not follow, from what the call was given
                scope = _arguments_scope(c, env)
                for h in exposed:
                    forget_fields(env, h)
                    env[h] = self.fresh("struct", scope, c)

    def _call(self, c, env):
        name = c.spelling
        kids = list(c.get_children())
        args = list(c.get_arguments())
        if name in _BLOCK_BARRIERS:
            for a in args:
                self.expr(a, env)
            self._barrier("block", None, c)
            return self.fresh("sync", BLOCK, c, origin="collective")  # the same for the whole block
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
        if callee is not None and callee.kind == K.MEMBER_REF_EXPR:
            done = self._atomic_method(callee, args, env, c)
            if done is not None:
                return done
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
                return self._value_at(target, c)
            step = vals[0] if name == "atomicAdd" and len(vals) == 1 else None
            if isinstance(target, Ptr) and isinstance(step, (Op, Sym)) and \
                    all(v.origin in ("builtin", "param", "loop") for v in syms(step)):
                # `atomicAdd(&n, threadIdx.x)`: a caller adding 0 draws the value the next one does
                result = self.fresh(name, THREAD, c, origin="slot")
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
                return self._value_at(p, c)
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
        if ref is not None and ref.kind == K.CONSTRUCTOR and len(args) == 1 and \
                _ATOMIC_CLASS.search(c.type.get_canonical().spelling):
            return self.expr(args[0], env)  # a local atomic object holds the value it starts with
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

    def _value_at(self, ptr: Ptr, c):
        """The value a read of `ptr` gives (an atomic or cached load): as shared as its address."""
        value = self.fresh(ptr.array.name, _scope(ptr.offset), c)
        self.loaded[value] = (ptr.array, ptr.offset)
        return value

    def _atomic_method(self, callee, args, env, c):
        """`a.fetch_min(v)`, `p->load()` on a libcu++ atomic: one atomic access of the object (the
        library's body is not walked: its retry loops and warp-aggregation are not the user's)."""
        obj = next(iter(callee.get_children()), None)
        t = obj.type.get_canonical() if obj is not None else None
        pointer = t is not None and t.kind == T.POINTER
        if t is None or not _ATOMIC_CLASS.search((t.get_pointee() if pointer else t).spelling):
            return None
        target = self.expr(obj, env) if pointer else self.lvalue(obj, env)
        read = callee.spelling == "load" or _CONVERSION.match(callee.spelling) is not None
        if not isinstance(target, Ptr):  # a local atomic object (`const atomic<int> s = d[v].load()`)
            return self.expr(obj, env) if read and not pointer else None  # its value; else walked as written
        for a in args:
            self.expr(a, env)
        self.record(target, "atomic", c)
        if read:  # the same value for threads loading one address
            return self._value_at(target, c)
        return self.fresh("atomic", THREAD, c)  # a read-modify-write: each caller's own result

    def operator_call(self, c, env, name, kids):
        operands = [ch for ch in kids if not (_strip(ch).kind == K.DECL_REF_EXPR and
                                              _strip(ch).spelling.startswith("operator"))]
        lv = self.lvalue(operands[0], env) if operands and \
            _ATOMIC_CLASS.search(operands[0].type.get_canonical().spelling) else None
        if isinstance(lv, Ptr):  # cuda::atomic<T>'s operators (+=, ++, =) on memory are atomic
            for o in operands[1:]:
                self.expr(o, env)
            self.record(lv, "atomic", c)
            return self.fresh("atomic", THREAD, c)
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
            through = struct_address(a, env) if p.type.get_canonical().kind == T.POINTER else None
            if through is not None:
                callee_env[p.hash] = callee_env[("param", p.spelling)] = through
                self.followed_structs.append(through.decl)
                continue
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
