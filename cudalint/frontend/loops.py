"""Loops in the kernel walk: the `Loops` mixin and loop-shape helpers (induction, steps, trip counts)."""

from __future__ import annotations

from dataclasses import replace

from cudalint.frontend.clang import CursorKind as K, TypeKind as T, for_parts, operator, written_operands
from cudalint.frontend.values import Ptr, _memory_scalar, _Return, _scope, _size, _strip, add, local_field, mul
from cudalint.model import BLOCK, THREAD, Barrier, Const, Loop, Op, Sym, syms

_LOADS_OR_CALLS = {K.ARRAY_SUBSCRIPT_EXPR, K.CALL_EXPR, K.UNARY_OPERATOR, K.CONDITIONAL_OPERATOR,
                   K.COMPOUND_ASSIGNMENT_OPERATOR}


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
    if op in ("<<", ">>"):
        return _shift_trips(start, op, step, rel, bound)
    s = step.value
    span = {("+", "<"): (bound, start, s - 1), ("+", "<="): (bound, start, s), ("-", ">"): (start, bound, s - 1),
            ("-", ">="): (start, bound, s), ("+", "!="): (bound, start, 0) if s == 1 else None}.get((op, rel))
    if span is None:
        return None
    hi, lo, extra = span
    moved = Op.make("+", Op.make("-", hi, lo), Const(extra)) if extra else Op.make("-", hi, lo)
    return Op.make("max", moved if s == 1 else Op.make("/", moved, step), Const(0))


def _shift_trips(start, op, step, rel, bound):
    """Trips of a doubling loop up to a bound (`for (d = 2; d < n; d <<= 1)`: bitlen((n-1)/2))
    or a halving one down to zero (`for (d = n / 2; d > 0; d >>= 1)`: bitlen(n/2))."""
    if step != Const(1):
        return None
    if op == ">>" and (rel, bound) in ((">", Const(0)), ("!=", Const(0)), (">=", Const(1))):
        return _bitlen(start)
    if op == "<<" and rel in ("<", "<=") and isinstance(start, Const) and start.value > 0:
        top = Op.make("-", bound, Const(1)) if rel == "<" else bound
        return _bitlen(Op.make("/", top, start) if start.value > 1 else top)
    return None


def _bitlen(e):
    return Const(max(e.value, 0).bit_length()) if isinstance(e, Const) else Op.make("bitlen", e)


def _leaves_early(body) -> bool:
    """Whether a loop body can leave the loop other than by its condition (a thread-dependent
    `break` or `return` makes the trip count differ between threads)."""
    return body is not None and any(n.kind in (K.BREAK_STMT, K.RETURN_STMT, K.GOTO_STMT) for n in body.walk_preorder())


def _fixed_truth(cond) -> bool | None:
    """The truth of a condition over constants alone, else None."""
    if isinstance(cond, Const):
        return bool(cond.value)
    if not isinstance(cond, Op) or syms(cond):
        return None
    import z3
    from cudalint.symbolic import NeedsBitVectors, as_bool, to_z3
    try:
        v = z3.simplify(as_bool(to_z3(cond, None, ints=True)))
    except (NeedsBitVectors, z3.Z3Exception, ZeroDivisionError):
        return None
    return True if z3.is_true(v) else False if z3.is_false(v) else None


class Loops:
    """The loop statements of `KernelBuilder`'s walk."""

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
        fields = _assigned_fields(c, env)  # `r.a += v` in the body: r.a is not what it was before
        for key in fields:
            inner[key] = self.fresh(key[1], max(_scope(env[key]), BLOCK), c)
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
        entry = tuple(self.guard)
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
            derived=tuple(derived), entry=entry)
        # After the loop, what moved by a loop-invariant step has moved a trip count times; the
        # count is one for the loop, the same in every thread where the bounds are uniform.
        uniform_exit = cond_e is not None and not _leaves_early(body)
        trips = _trip_count(var_sym, start, step_op, step, cond_e) if uniform_exit else None
        if trips is None:
            trips = Op.make("max", self.fresh("trips", _scope(cond_e, start, step) if uniform_exit else THREAD, c),
                            Const(0))
        for key in fields:
            env[key] = self.fresh(key[1], _scope(inner.get(key)) if inner.get(key) is not None else THREAD, c)
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


# ---------------------------------------------------------------------- loop shape helpers

_STEP_OPS = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "<<=": "<<", ">>=": ">>"}


def _assignment_targets(c):
    """The variable cursor each assignment (=, op=, ++, --) inside statement c writes, where the
    target is a plain variable."""
    for target in written_operands(c):
        t = _strip(target) if target is not None else None
        if t is not None and t.kind == K.DECL_REF_EXPR and t.referenced is not None:
            yield t


def _assigned_fields(c, env) -> list:
    """(declaration hash, field) of each local struct field with a known value stored inside loop c:
    written as `r.a = v`, or through `&r` handed to a helper (which may store any field)."""
    keys = {local_field(_strip(t)) for t in written_operands(c) if t is not None}
    keys |= {k for k in env if isinstance(k, tuple) and len(k) == 2 and k[0] in _addressed(c)}
    return sorted((k for k in keys if k is not None and k in env), key=str)


def _addressed(c) -> set:
    """Declaration hashes of the variables whose address (`&r`) is taken inside statement c."""
    out = set()
    for n in c.walk_preorder():
        if n.kind == K.UNARY_OPERATOR and operator(n) == "&":
            target = _strip(next(n.get_children(), n))
            if target.kind == K.DECL_REF_EXPR and target.referenced is not None:
                out.add(target.referenced.hash)
    return out


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
