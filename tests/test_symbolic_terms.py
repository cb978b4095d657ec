"""Building z3 terms (cudalint.symbolic.to_z3, geometry.Thread.term): known values are computed
in Python, as the integer encoding states C's operators, and a term made for one question
brings its variables' ranges into the next."""

from __future__ import annotations

import itertools
import pickle

import pytest
import z3

from cudalint.analysis.geometry import Geometry, Thread
from cudalint.model import THREAD, Const, Op, Sym, syms
from cudalint.symbolic import INT_MAX, INT_MIN, all_of, any_of, fresh_context, num, relation, to_z3, variable

A, B = Sym("a", 0, "param"), Sym("b", 0, "param")
VALUES = (0, 1, 7, -7, 3, -3, 32, 1 << 20, INT_MAX, INT_MIN)
ARITHMETIC = ("+", "-", "*", "/", "%", "min", "max", "<", "<=", ">", ">=", "==", "!=", "&&", "||")


def _by_z3(op: str, x: int, y: int):
    """What the encoding says of `x op y`: its term on two unknowns, then the values put in."""
    a, b = z3.Int("a"), z3.Int("b")
    side: list = []
    term = to_z3(Op(op, (A, B)), {A: a, B: b}.get, side, ints=True)
    fixed = [(a, z3.IntVal(x)), (b, z3.IntVal(y))]
    value = z3.simplify(z3.substitute(term, *fixed))
    fits = z3.simplify(z3.substitute(z3.And(*side), *fixed)) if side else z3.BoolVal(True)
    return (z3.is_true(value) if z3.is_bool(value) else value.as_long()), z3.is_true(fits)


@pytest.mark.parametrize("op", ARITHMETIC)
def test_a_known_operation_is_the_value_the_encoding_gives(op):
    for x, y in itertools.product(VALUES, VALUES):
        if op in ("/", "%") and y == 0:
            continue
        side: list = []
        term = to_z3(Op(op, (Const(x), Const(y))), None, side, ints=True)
        folded = z3.is_true(term) if z3.is_bool(term) else term.as_long()
        fits = not any(z3.is_false(z3.simplify(s)) for s in side)
        assert (folded, fits) == _by_z3(op, x, y), (op, x, y)


def test_c_division_truncates_toward_zero():
    values = [to_z3(Op(op, (Const(x), Const(y))), None, ints=True).as_long()
              for op, x, y in (("/", -7, 2), ("%", -7, 2), ("/", 7, -2), ("%", 7, -2))]
    assert values == [-3, -1, -3, 1]


def test_bit_operations_on_known_values_stay_integers():
    cases = {("&", 12, 10): 8, ("|", 12, 10): 14, ("^", 12, 10): 6, ("<<", 3, 4): 48, (">>", -8, 1): -4}
    for (op, x, y), want in cases.items():
        assert to_z3(Op(op, (Const(x), Const(y))), None, ints=True).as_long() == want


def test_an_overflowing_known_sum_makes_the_side_conditions_false():
    side: list = []
    to_z3(Op("+", (Const(INT_MAX), Const(1))), None, side, ints=True)
    s = z3.Solver()
    s.add(*side)
    assert s.check() == z3.unsat


def test_a_known_condition_picks_its_branch_without_the_other():
    x = z3.Int("x")
    term = to_z3(Op("ite", (Op("<", (Const(1), Const(2))), A, B)), {A: x, B: z3.Int("y")}.get, ints=True)
    assert term.eq(x)


def test_the_launch_sizes_of_a_thread_are_known_values():
    geom = Geometry(block=(128, 1, 1), grid=(4, 1, 1), source="a test")
    t = Thread(1, geom, THREAD, ints=True)
    term = t.term(Op("*", (Sym("blockDim.x", 0, "builtin"), Sym("gridDim.x", 0, "builtin"))))
    assert term.as_long() == 512


def test_a_term_made_for_an_earlier_question_brings_its_variables_ranges():
    geom = Geometry(block=(128, 1, 1), grid=(4, 1, 1), source="a test")
    terms: dict = {}
    n = Sym("n", 0, "param")
    e = Op("+", (n, Const(1)))
    first = Thread(1, geom, THREAD, ints=True, terms=terms)
    made = first.term(e)
    again = Thread(1, geom, THREAD, ints=True, terms=terms)
    assert again.term(e) is made  # not built again
    s = z3.Solver()
    s.add(*again.side, z3.Int("n") > INT_MAX)
    assert s.check() == z3.unsat


def test_a_threads_linear_id_is_made_once_and_brings_its_variables_ranges():
    geom = Geometry(block=None, grid=None, source="a test")  # blockDim unknown: variables with ranges
    terms: dict = {}
    first = Thread(1, geom, THREAD, ints=True, terms=terms)
    made = first.linear_id()
    again = Thread(1, geom, THREAD, ints=True, terms=terms)
    assert again.linear_id() is made
    assert [str(f) for f in again.side] == [str(f) for f in first.side]
    s = z3.Solver()
    s.add(*again.side, z3.Int("blockDim.x") > INT_MAX)
    assert s.check() == z3.unsat


def test_a_threads_ranges_are_made_once_per_context_and_bring_its_variables_ranges():
    geom = Geometry(block=(64, None, 1), grid=None, source="a test")
    fresh_context()
    first = Thread(1, geom, THREAD, ints=True)
    made = first.constraints()
    again = Thread(1, geom, THREAD, ints=True)
    reused = again.constraints()
    assert len(reused) == len(made) and all(a is b for a, b in zip(reused, made))
    assert [str(f) for f in again.side] == [str(f) for f in first.side] != []
    assert not any(a is b for a, b in zip(Thread(2, geom, THREAD, ints=True).constraints(), made))
    fresh_context()
    assert not any(a is b for a, b in zip(Thread(1, geom, THREAD, ints=True).constraints(), made))


def test_numbers_and_variables_are_made_once_per_context():
    fresh_context()
    first = num(7, True)
    assert num(7, True) is first and variable("n", True) is variable("n", True)
    assert num(7, False) is not first and num(7, False).sort() == z3.BitVecSort(32)
    fresh_context()  # the next file's context: terms of its own
    again = num(7, True)
    assert again is not first and again.ctx is z3.main_ctx() and first.ctx is not again.ctx
    assert variable("n", True).ctx is again.ctx


def test_the_unknowns_of_a_deep_expression_in_order():
    e = Const(0)
    for i in range(5000):  # a straight-line accumulation: a chain as deep as the code is long
        e = Op("+", (e, Sym(f"v{i % 3}", THREAD, "value")))
    found = syms(Op("*", (A, e)))
    assert len(found) == 5001 and found[:4] == (A, Sym("v0", THREAD, "value"), Sym("v1", THREAD, "value"),
                                                Sym("v2", THREAD, "value"))


def test_an_expression_keeps_its_unknowns_and_hash_but_a_pickle_does_not():
    e = Op("+", (A, Op("*", (B, Const(4)))))
    assert syms(e) is syms(e) == (A, B)
    assert hash(e) == hash(Op("+", (A, Op("*", (B, Const(4)))))) and e.__dict__["_hash"] == hash(e)
    copy = pickle.loads(pickle.dumps(e))  # a model goes to the deferred pass, or the cache, pickled
    assert copy == e and set(copy.__dict__) == {"op", "args", "scope", "size"}


def test_conjunctions_and_disjunctions_are_the_terms_z3_makes():
    fresh_context()
    a, b = z3.Int("a"), z3.Int("b")
    facts = [a > 0, b < 3, a == b]
    for ours, z3s in ((all_of, z3.And), (any_of, z3.Or)):
        for some in (facts, facts[:1], [], [True, a > 0]):  # a Python bool: z3's own path
            assert ours(some).eq(z3s(*some))
        assert ours(iter(facts)).eq(z3s(*facts))


@pytest.mark.parametrize("ints", [True, False])
def test_a_relation_is_the_term_the_operator_makes(ints):
    fresh_context()
    a, b = variable("a", ints), variable("b", ints)
    for op in ("<", "<=", ">", ">=", "==", "!=", "+", "-", "*"):
        for right in (b, 7, -3):
            made = relation(op, a, right, ints)
            assert made.eq({"<": a < right, "<=": a <= right, ">": a > right, ">=": a >= right, "==": a == right,
                            "!=": a != right, "+": a + right, "-": a - right, "*": a * right}[op]), (op, right)
