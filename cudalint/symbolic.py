"""Model expressions as z3 terms: 32-bit signed values, as `int` index arithmetic is in C, with
no-overflow side conditions that keep wrapped values out of witnesses.

Two encodings of the same values. Bit-vectors express everything (xor, masks, shifts by unknown
amounts) but make z3 bit-blast multiplications: proving `b1*n + c1 != b2*n + c2` for distinct
blocks takes it seconds, or forever. Integers (with the 32-bit range as side conditions) settle
such linear index questions in milliseconds; they cannot express bit operations on two unknowns,
and say so with NeedsBitVectors so that the caller falls back to bit-vectors."""

from __future__ import annotations

import time
from typing import Callable

import z3
from z3 import z3core

from cudalint.model import Const, Op, Sym


def _unchecked(checked):
    """The C function a z3core wrapper calls, without the error check the wrapper makes after
    it (where the wrapper has the usual shape; else the wrapper itself)."""
    elements = (checked.__defaults__ or (None,))[-1]
    return getattr(elements, "f", checked)


# Every z3 term the Python API makes takes a reference when made and drops it when freed, each
# through a wrapper that checks z3's error code after the call: 1.2 million pairs of ctypes calls
# on the HeCBench sample, 7% of a run. Counting a reference of a live term cannot fail.
z3.z3.Z3_inc_ref = _unchecked(z3core.Z3_inc_ref)
z3.z3.Z3_dec_ref = _unchecked(z3core.Z3_dec_ref)

BITS = 32
_CMP = {"<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "/": lambda a, b: a / b, "%": z3.SRem, "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
          "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
          "min": lambda a, b: z3.If(a < b, a, b), "max": lambda a, b: z3.If(a > b, a, b)}


INT_MIN, INT_MAX = -(2**(BITS - 1)), 2**(BITS - 1) - 1


class NeedsBitVectors(Exception):
    """An operation the integer encoding cannot express (xor of two unknowns, a shift by one)."""


def in_range(x) -> list:
    """x fits a 32-bit signed int (the integer encoding's no-overflow condition)."""
    return [_int(">=", x, INT_MIN), _int("<=", x, INT_MAX)]


def no_overflow(op: str, a, b) -> list:
    """`a op b` (+, - or *) does not wrap, in the encoding of a and b."""
    if z3.is_int(a) or z3.is_int(b):
        return in_range(_ARITH[op](a, b))
    return _NO_OVERFLOW[op](a, b)


def bv(n: int):
    return _numeral(n, False)


def num(n: int, ints: bool):
    return _numeral(n, ints)


def _numeral(n: int, ints: bool):
    return _per_context((n, ints), lambda: z3.IntVal(n) if ints else z3.BitVecVal(n, BITS))


# Numerals and variables of the current z3 context (fresh_context starts another), each made once:
# z3 makes the same term for the same number or name anyway, and its Python wrapper costs a dozen
# calls into z3 (the sort, the name, the reference).
_terms: dict = {}  # key -> (context, what make() gave)


def _per_context(key, make):
    ctx, made = _terms.get(key, (None, None))
    if ctx is None or ctx is not z3.z3._main_ctx:
        made = make()
        _terms[key] = (z3.main_ctx(), made)
    return made


def context_memo() -> dict:
    """A dict for terms of the current z3 context, emptied with it (fresh_context)."""
    return _per_context(("memo",), dict)


def variable(name: str, ints: bool):
    return _per_context(("var", name, ints), lambda: z3.Int(name) if ints else z3.BitVec(name, BITS))


def ranged_variable(name: str, ints: bool) -> tuple:
    """(variable(name, ints), the conditions that it fits a 32-bit int: in_range in integers,
    none in bit-vectors)."""
    v = variable(name, ints)
    return _per_context(("ranged", name, ints), lambda: (v, in_range(v) if ints else []))


def as_bool(x):
    return x if z3.is_bool(x) else x != 0


def as_bv(x, ints: bool = False):
    return z3.If(x, num(1, ints), num(0, ints)) if z3.is_bool(x) else x


def div(a, n: int):
    """a / n for a >= 0 and a constant n > 0, in either encoding."""
    return a / n if z3.is_int(a) else z3.UDiv(a, bv(n))


def to_z3(e, var: Callable[[Sym], z3.ExprRef], side: list | None = None, ints: bool = False):
    """The z3 term of expression `e`; `var` maps each Sym to the z3 variable of one thread (of
    the sort `ints` chooses; in integers it may give a Python int, a value the thread knows).
    With `side`, no-overflow conditions of its arithmetic are appended there: index arithmetic
    that wraps around is a bug of its own, and wrapped witnesses would be false alarms."""
    if ints:
        return _as_term(_int_term(e, var, side))
    if isinstance(e, Const):
        return bv(e.value)
    if isinstance(e, Sym):
        return var(e)
    return _node(e.op, [to_z3(x, var, side) for x in e.args], side, False)


def _int_term(e, var, side):
    """e in integers: a Python int (a bool for a truth) where its value is known, which is then
    computed here rather than by z3 (a launch's sizes and the generic arguments make much of an
    index constant, and each z3 term costs microseconds to build)."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Sym):
        return var(e)
    args = [_int_term(x, var, side) for x in e.args]
    if e.op == "ite" and isinstance(args[0], int) and _truth(args[1]) == _truth(args[2]):
        return args[1] if args[0] else args[2]
    if all(isinstance(a, int) for a in args):
        v = _fold(e.op, args, side)
        if v is not None:
            return v
    return _node(e.op, [_as_term(a) for a in args], side, True)


def _truth(x) -> bool:
    return isinstance(x, bool) or isinstance(x, z3.BoolRef)


def _as_term(x):
    if isinstance(x, bool):
        return z3.BoolVal(x)
    return _numeral(x, True) if isinstance(x, int) else x


def _fold(op: str, args: list, side: list | None):
    """C's `op` on known values as the integer encoding (_node) states it, or None where this
    does not say (a division by zero, a shift by a negative amount)."""
    if op == "ite":
        c, a, b = args
        pick = a if c else b
        return pick if isinstance(a, bool) == isinstance(b, bool) else int(pick)
    if op == "!":
        return not args[0]
    if op == "~":
        return ~int(args[0])
    if op == "bitlen":
        return min(max(int(args[0]), 0).bit_length(), BITS - 1)
    a, b = args
    if op == "&&":
        return bool(a) and bool(b)
    if op == "||":
        return bool(a) or bool(b)
    a, b = int(a), int(b)
    if op in _CMP:
        return _CMP[op](a, b)
    if op in ("<<", ">>") and not 0 <= b < BITS or op in ("/", "%") and b == 0:
        return None
    if op in ("/", "%"):
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
        return q if op == "/" else a - b * q
    r = _FOLD.get(op)
    if r is None:
        return None
    r = r(a, b)
    if side is not None and op in ("+", "-", "*", "<<") and not INT_MIN <= r <= INT_MAX:
        side.append(z3.BoolVal(False))  # what in_range says of it
    return r


_FOLD = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
         "<<": lambda a, b: a * 2**b, ">>": lambda a, b: a >> b, "&": lambda a, b: a & b,
         "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "min": min, "max": max}


def _node(op: str, args: list, side: list | None, ints: bool):
    """The term of `op` on its operands' terms."""
    if op == "ite":
        c, a, b = args
        a, b = (a, b) if z3.is_bool(a) == z3.is_bool(b) else (as_bv(a, ints), as_bv(b, ints))
        return z3.If(as_bool(c), a, b)
    if op == "!":
        return z3.Not(as_bool(args[0]))
    if op == "~":
        a = as_bv(args[0], ints)
        return -a - 1 if ints else ~a
    if op == "bitlen":  # the bits a non-negative value needs (0 for 0 and below): a halving loop's trips
        a, r = as_bv(args[0], ints), num(0, ints)
        for k in range(BITS - 1):
            r = z3.If(a >= num(2**k, ints), num(k + 1, ints), r)
        return r
    a, b = args
    if op == "&&":
        return z3.And(as_bool(a), as_bool(b))
    if op == "||":
        return z3.Or(as_bool(a), as_bool(b))
    a, b = as_bv(a, ints), as_bv(b, ints)
    if op in _CMP:
        return _int(op, a, b) if ints else _CMP[op](a, b)
    if ints:
        r = _int_op(op, a, b)
        if side is not None and op in ("+", "-", "*", "<<"):
            side += in_range(r)
        return r
    if side is not None and op in _NO_OVERFLOW:
        side.extend(_NO_OVERFLOW[op](a, b))
    return _ARITH[op](a, b)


def _int_op(op: str, a, b):
    """C's `a op b` on integers; bit operations only where a constant makes them arithmetic."""
    if op in ("+", "-", "*"):
        return _int(op, a, b)
    if op in ("min", "max"):
        return _ite(_int("<" if op == "min" else ">", a, b), a, b)
    if op in ("/", "%"):
        quotient = _ite(_int(">=", a, 0), _ite(_int(">", b, 0), _int("/", a, b), -_int("/", a, -b)),
                        _ite(_int(">", b, 0), -_int("/", -a, b), _int("/", -a, -b)))
        return quotient if op == "/" else _int("-", a, _int("*", b, quotient))  # C truncates toward zero
    if op in ("<<", ">>") or _constant(b) is not None:
        c, other = _constant(b), a
    else:  # & | ^ commute
        c, other = _constant(a), b
    if c is None:
        raise NeedsBitVectors(op)
    if op == "<<" and 0 <= c < BITS:
        return _int("*", other, 2**c)
    if op == ">>" and 0 <= c < BITS:
        return _int("/", other, 2**c)  # floor, as an arithmetic shift
    if op == "&" and c >= 0 and c & (c + 1) == 0:
        return _int("%", other, c + 1)  # a low-bit mask (z3's % is non-negative, as two's complement is)
    if op == "&" and c < 0 and (-c) & (-c - 1) == 0:
        return _int("-", other, _int("%", other, -c))  # clears the low bits
    if op in ("|", "^") and c == 0:
        return other
    raise NeedsBitVectors(op)


# z3's operators on integer terms check and coerce both operands' sorts through a dozen calls into
# z3 each (half of a race query's build time). The terms here are integers already: these make
# the same terms (the same z3 calls, in the same order, a Python int made a numeral where the
# operator would make it) without the checks.
_MK_N = {"+": z3core.Z3_mk_add, "-": z3core.Z3_mk_sub, "*": z3core.Z3_mk_mul}
_MK_2 = {"/": z3core.Z3_mk_div, "%": z3core.Z3_mk_mod}
_MK_CMP = {"<": z3core.Z3_mk_lt, ">": z3core.Z3_mk_gt, "<=": z3core.Z3_mk_le, ">=": z3core.Z3_mk_ge,
           "==": z3core.Z3_mk_eq}


def relation(op: str, a, b, ints: bool):
    """`a op b` (a comparison, +, -, * or /) of a term a and a term or Python int b: through
    _int in the integer encoding."""
    if ints and isinstance(a, z3.ArithRef):
        return _int(op, a, b)
    return (_CMP.get(op) or _ARITH[op])(a, b)


def _int(op: str, a, b):
    """`a op b` for an integer term a and an integer term or Python int b."""
    ctx = a.ctx
    if not isinstance(b, z3.ExprRef):
        b = _numeral(b, True)
    if op in _MK_N:
        args = (z3.Ast * 2)(a.as_ast(), b.as_ast())
        return z3.ArithRef(_MK_N[op](ctx.ref(), 2, args), ctx)
    if op in _MK_2:
        return z3.ArithRef(_MK_2[op](ctx.ref(), a.as_ast(), b.as_ast()), ctx)
    if op == "!=":
        args = (z3.Ast * 2)(a.as_ast(), b.as_ast())
        return z3.BoolRef(z3core.Z3_mk_distinct(ctx.ref(), 2, args), ctx)
    return z3.BoolRef(_MK_CMP[op](ctx.ref(), a.as_ast(), b.as_ast()), ctx)


_MK_AND, _MK_OR = _unchecked(z3core.Z3_mk_and), _unchecked(z3core.Z3_mk_or)


def all_of(facts) -> z3.BoolRef:
    """z3.And(*facts): the same term, made without z3's sort checks of each fact where all are
    Boolean terms of the current context (a dozen calls into z3 each: a warp check's and a
    loop's conjunctions and disjunctions are dozens of terms)."""
    return _joined(_MK_AND, z3.And, facts)


def any_of(facts) -> z3.BoolRef:
    """z3.Or(*facts), as all_of makes z3.And."""
    return _joined(_MK_OR, z3.Or, facts)


def _joined(mk, checked, facts):
    facts = tuple(facts)
    ctx = z3.main_ctx()
    if not all(isinstance(f, z3.BoolRef) and f.ctx is ctx for f in facts):
        return checked(*facts)
    args = (z3.Ast * len(facts))(*(f.as_ast() for f in facts))
    return z3.BoolRef(mk(ctx.ref(), len(facts), args), ctx)


def _ite(c, a, b):
    """z3.If(c, a, b) for a Boolean c and two terms of one sort."""
    ctx = c.ctx
    ast = z3core.Z3_mk_ite(ctx.ref(), c.as_ast(), a.as_ast(), b.as_ast())
    return z3.BoolRef(ast, ctx) if isinstance(a, z3.BoolRef) else z3.ArithRef(ast, ctx)


def _constant(x) -> int | None:
    return x.as_long() if z3.is_int_value(x) else None


_NO_OVERFLOW = {
    "+": lambda a, b: [z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b)],
    "-": lambda a, b: [z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True)],
    "*": lambda a, b: mul_in_range(a, b),
    "<<": lambda a, b: [b >= 0, b < BITS, (a << b) >> b == a],
}


def mul_in_range(a, b) -> list:
    """a * b does not overflow (signed). By a constant, as bounds on the other factor: z3 proves
    those far faster than its generic check, which multiplies at double width."""
    a, b = (b, a) if z3.is_bv_value(a) else (a, b)
    if z3.is_bv_value(b):
        c = b.as_signed_long()
        if c == 0:
            return []
        low, high = (_ceil_div(INT_MIN, c), INT_MAX // c) if c > 0 else (_ceil_div(INT_MAX, c), INT_MIN // c)
        return [a >= max(low, INT_MIN), a <= min(high, INT_MAX)]
    return [z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b)]


def _ceil_div(x: int, y: int) -> int:
    return -(-x // y)


def conjuncts(guard) -> list:
    """A guard tuple flattened into its `&&`-free parts."""
    out = []
    for g in guard:
        stack = [g]
        while stack:
            x = stack.pop()
            if isinstance(x, Op) and x.op == "&&":
                stack.extend(x.args)
            else:
                out.append(x)
    return out


def fresh_context() -> None:
    """Make what follows (one file's analyses) use a new z3 context: z3 numbers terms in the
    order they are made and its search follows those numbers, so without this a witness could
    depend on the files a worker process analysed before (and so on the job count)."""
    z3.z3._main_ctx = None
    _terms.clear()
    _answers.clear()


def solver(ints: bool = False) -> z3.Solver:
    """A solver for one question in either encoding (IntSolver, BvSolver), with the first try's
    timeout set before anything is asserted: set afterwards, it cost four times as much."""
    s = IntSolver() if ints else BvSolver()
    _set_timeout(s, FIRST_MS)
    return s


class _TacticSolver(z3.Solver):
    """A solver that runs z3's SMT core after simplifying steps, once per check: race questions
    are asked once each (a push/pop narrows a witness), so an incremental solver's state buys
    nothing, and the steps settle most of a question before the search starts."""

    STEPS: tuple = ()

    def __init__(self):
        ctx = z3.main_ctx()
        made = _tactics.get(self.STEPS)
        if made is None or made[0] is not ctx:  # one per file's context (fresh_context)
            made = _tactics[self.STEPS] = (ctx, z3.Then(*self.STEPS, ctx=ctx))
        super().__init__(solver=z3core.Z3_mk_solver_from_tactic(ctx.ref(), made[1].tactic), ctx=ctx)


_tactics: dict = {}  # steps -> (context, tactic)


class IntSolver(_TacticSolver):
    """Integer questions, with their bounds propagated first: three times faster than z3's
    default incremental solver on race questions, which are mostly unsatisfiable."""

    STEPS = ("simplify", "propagate-ineqs", "solve-eqs", "smt")


class BvSolver(_TacticSolver):
    """Bit-vector questions, arrays' contents (uninterpreted functions) included: five to ten
    times faster than z3's QF_BV/QF_UFBV solvers on the satisfiable ones (logic-rewrite's 16
    rounds of one race took 2.5-3.9 s, now about 0.4 s), and no slower on the others."""

    STEPS = ("simplify", "solve-eqs", "smt")


# Asserting a Boolean term of the solver's own context cannot fail either (a quarter of a million
# calls on the HeCBench sample).
_solver_assert = _unchecked(z3core.Z3_solver_assert)


def assert_all(solver: z3.Solver, facts) -> None:
    """solver.add(*facts), without z3's per-fact coercion (a third of a race query's build time
    went to it): Boolean terms of its context go to the C API as they are, anything else
    through add()."""
    ctx, ref = solver.ctx, solver.solver
    c, seen = ctx.ref(), set()
    question = solver.__dict__.setdefault("question", [])  # what was asserted (_restore)
    for f in facts:
        if isinstance(f, z3.BoolRef) and f.ctx is ctx:
            ast = f.as_ast()
            if ast.value not in seen:
                seen.add(ast.value)
                question.append(f)
                _solver_assert(c, ref, ast)
        else:
            question.append(f)
            solver.add(f)


def _restore(solver: z3.Solver) -> None:
    """The question as asserted, again: a check that its timeout cancelled can leave a tactic
    solver's assertions half rewritten (a fact made `True`, a variable solved away), a weaker
    question whose models may leave the threads out (bh: a thread racing with itself, on a
    loaded machine only)."""
    question = solver.__dict__.pop("question", None)
    if question is not None:
        solver.reset()
        assert_all(solver, question)


# A linear integer query whose unknowns are all bounded (thread and block ids, loop counters and
# arguments, each within its 32-bit range) is settled in milliseconds by z3's bounded-integer
# tactics (the integers encoded as pseudo-Boolean bits, then SAT), where the solver can search
# past its timeout: `128*b1 + t1 + 8192*i1 == 128*b2 + t2 + 8192*i2` between distinct blocks took
# z3's default solver over 2 s (MT's boxmuller), the tactics 30 ms. A bit-vector query that
# BvSolver has not settled likewise goes to one bit-blasting of the whole query. Which queries
# are hard depends on the order z3 numbered the file's terms in (a query settled in 0.1 s from
# its SMT-LIB text timed out in one file's run): the second try keeps an unlucky order from
# costing the whole timeout. Most queries the first solver settles at once, and its model is the
# one every witness came from, so it goes first; the second try gets a query it has not settled
# in FIRST_MS.
FIRST_MS = 250


def check(solver: z3.Solver, timeout_ms: int):
    """'sat' with a model, 'unsat', or 'unknown' (timeouts included). A question the file asked
    before, assertion for assertion, has the answer it had then (`_answers`)."""
    asked, kept = _asked(solver)
    known = _answers.get(asked)
    if known is not None:
        return known[:2]
    status, model = _answer_of(solver, timeout_ms)
    if status != "unknown":  # a timeout may not repeat: asked again, it is tried again
        _answers[asked] = (status, model, kept)
    return status, model


# The questions of the file being analysed (fresh_context empties it), by the solver's kind and
# its assertions' ids, with their answers. Two rules (or two template instantiations, or two
# launches of one shape) often ask the same question: 1,087 of the HeCBench sample's 2,472 were
# asked before in their file. The assertions are kept alive with the answer, so that no id
# stands for another term later.
_answers: dict = {}
_vector_size = _unchecked(z3core.Z3_ast_vector_size)
_vector_get = _unchecked(z3core.Z3_ast_vector_get)
_ast_id = _unchecked(z3core.Z3_get_ast_id)


def _asked(solver: z3.Solver) -> tuple:
    """(a key for what `solver` holds, the vector of its assertions that keeps them alive)."""
    ctx = solver.ctx
    c = ctx.ref()
    kept = z3.AstVector(z3core.Z3_solver_get_assertions(c, solver.solver), ctx)
    v = kept.vector
    return (type(solver), id(ctx), *(_ast_id(c, _vector_get(c, v, i)) for i in range(_vector_size(c, v)))), kept


def _answer_of(solver: z3.Solver, timeout_ms: int):
    if timeout_ms <= FIRST_MS:
        return _check(solver, timeout_ms)
    start = time.monotonic()
    status, model = _check(solver, FIRST_MS)
    if status == "unknown":
        _restore(solver)
        status, model = _second_try(solver, timeout_ms - FIRST_MS)
    left = timeout_ms - int((time.monotonic() - start) * 1000)
    if status == "unknown" and left > 0:
        status, model = _check(_incremental(solver), left)
    return status, model


def _incremental(solver: z3.Solver) -> z3.Solver:
    """For an integer query, z3's default (incremental) solver on it: its search differs from the
    tactic solver's and settles some queries that one does not (1 of 11,000 on 272 HeCBench
    files)."""
    return _incremental_copy(solver) if isinstance(solver, IntSolver) else solver


def _second_try(solver: z3.Solver, timeout_ms: int):
    """The query's answer by bit-blasting it whole: its bounded integers as pseudo-Boolean bits
    (the tactics refuse an unbounded or non-linear term at once, 'unknown'), or its bit-vectors."""
    ctx = solver.ctx
    if isinstance(solver, IntSolver):
        # pb2bv takes only `sum <= constant`: lia2pb leaves constants inside sums, which
        # arith_lhs moves right (without it, MT's boxmuller question was refused at once)
        lhs = z3.With(z3.Tactic("simplify", ctx=ctx), arith_lhs=True)
        steps = ("simplify", "propagate-ineqs", "normalize-bounds", "lia2pb", lhs, "pb2bv", "simplify", "bit-blast", "sat")
    else:
        steps = ("simplify", "solve-eqs", "bit-blast", "sat")
    pre = z3.Then(*steps, ctx=ctx).solver()
    pre.set("timeout", timeout_ms)
    pre.add(solver.assertions())
    return _answer(pre)


def _check(solver: z3.Solver, timeout_ms: int):
    _set_timeout(solver, timeout_ms)
    return _answer(solver)


def _set_timeout(solver: z3.Solver, timeout_ms: int) -> None:
    """solver.set("timeout", timeout_ms) where it differs from what the solver has (a solver
    keeps its parameters when reset: _restore)."""
    if solver.__dict__.get("timeout") != timeout_ms:
        solver.set("timeout", timeout_ms)
        solver.__dict__["timeout"] = timeout_ms


def _answer(solver: z3.Solver):
    r = solver.check()
    if r == z3.sat:
        return "sat", solver.model()
    return ("unsat" if r == z3.unsat else "unknown"), None


def value(model, term) -> int | None:
    v = model.eval(term, model_completion=True)
    if z3.is_int_value(v):
        return v.as_long()
    try:
        return v.as_signed_long()
    except AttributeError:
        return None


# Narrowing a witness is bounded by z3's resource count, not by the clock, so that the witness
# is the same however loaded the machine is (shim and toolkit runs, -j1 and -jN, CI): each step
# may use MINIMIZE_STEP_RLIMIT units (about a quarter of a second unloaded), one witness all of them
# MINIMIZE_RLIMIT.
MINIMIZE_STEP_RLIMIT = 500_000
MINIMIZE_RLIMIT = 3_000_000


def minimize(solver: z3.Solver, terms, model, timeout_ms: int):
    """A model in which each of `terms` (non-negative quantities such as thread ids), in order,
    is as small as a binary search finds, earlier ones held: witnesses are then the first
    threads, and the same from run to run. On hard queries the witness is merely less tidy."""
    if isinstance(solver, BvSolver):
        solver = _incremental_copy(solver)
    start = _rlimit_used(solver)
    within = lambda: _rlimit_used(solver) - start < MINIMIZE_RLIMIT  # noqa: E731
    solver.push()
    try:
        for term in terms:
            model = _minimize_one(solver, term, model, max(timeout_ms, 1000), within)
            solver.add(term == value(model, term))
    finally:
        solver.set("rlimit", 0)
        solver.pop()
    return model


def _incremental_copy(solver: z3.Solver) -> z3.Solver:
    """z3's default (incremental) solver holding the question of a tactic solver. minimize narrows
    a bit-vector witness on it: the tactic solver bit-blasts the whole question again at each
    step (logic-rewrite: 24 ms a step, 0.74 s a witness), the incremental one keeps what it
    learnt (0.28 s)."""
    other = z3.Solver(ctx=solver.ctx)
    other.add(solver.assertions())
    return other


def _rlimit_used(solver: z3.Solver) -> int:
    stats = solver.statistics()
    return stats.get_key_value("rlimit count") if "rlimit count" in stats.keys() else 0


def _minimize_one(solver, term, model, timeout_ms, within, steps: int = 34):
    def at_most(n):
        return term <= n if z3.is_int(term) else z3.ULE(term, bv(n))

    lo, hi = 0, model.eval(term, model_completion=True).as_long()  # unsigned, as ULE compares
    best = model
    solver.set("rlimit", MINIMIZE_STEP_RLIMIT)
    while lo < hi and steps > 0 and within():
        steps -= 1
        mid = (lo + hi) // 2
        solver.push()
        solver.add(at_most(mid))
        status, m = _check(solver, timeout_ms)  # the timeout only guards against a stalled z3
        solver.pop()
        if m is not None:
            best, hi = m, min(mid, m.eval(term, model_completion=True).as_long())
        elif status == "unsat":
            lo = mid + 1
        else:
            break  # too hard to narrow further within the step's resources
    return best
