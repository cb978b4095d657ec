"""The solver front (cudalint.symbolic.check): a query the first solver does not settle in time
goes to a second try (z3's bounded-integer tactics, or one bit-blasting of a bit-vector query),
then, for an integer query, to z3's default incremental solver."""

from __future__ import annotations

from pathlib import Path

import z3

from cudalint import symbolic
from cudalint.symbolic import IntSolver, check, solver

# A race question cudalint asked of MT's boxmuller kernel (HeCBench): two threads of different
# blocks (128 threads, 32 blocks) at one index `g + k*4096` with g = 128*b + t < 4096, with the
# no-overflow side conditions. Impossible; z3's default solver searched past 2 s on it.
DISTINCT_BLOCKS = Path(__file__).parent / "data" / "solver" / "distinct_blocks.smt2"


NEXT_ITERATION = Path(__file__).parent / "data" / "solver" / "next_iteration_other_block.smt2"


def _query(path=DISTINCT_BLOCKS):
    s = solver(ints=True)
    s.from_string(path.read_text())
    return s


def test_a_bounded_linear_query_the_default_solver_stalls_on_is_unsat():
    assert check(_query(), 2000) == ("unsat", None)


def test_the_second_try_settles_a_bounded_query_with_constants_inside_its_sums():
    assert symbolic._second_try(_query(NEXT_ITERATION), 2000) == ("unsat", None)


def test_a_satisfiable_query_keeps_the_default_solvers_model():
    s = solver(ints=True)
    x, y = z3.Ints("x y")
    s.add(x > 3, y == 2 * x, y < 10)
    status, model = check(s, 2000)
    assert status == "sat" and (model[x].as_long(), model[y].as_long()) == (4, 8)


def _first_solver_stalls(monkeypatch, stalled: type):
    """The first solver (and any other of type `stalled`) answers 'unknown', as on a query its
    search goes astray on; the others answer as z3 does."""
    real = symbolic._check
    monkeypatch.setattr(symbolic, "_check", lambda s, ms: ("unknown", None) if type(s) is stalled else real(s, ms))


def test_a_bit_vector_query_the_first_solver_leaves_open_is_bit_blasted_whole(monkeypatch):
    s = solver()
    _first_solver_stalls(monkeypatch, type(s))
    x, y = z3.BitVecs("x y", 32)
    s.add(x * y == 35, z3.UGT(x, 1), z3.UGT(y, 1), z3.ULT(x, 100), z3.ULT(y, 100))
    status, model = check(s, 2000)
    assert status == "sat" and sorted((model[x].as_long(), model[y].as_long())) == [5, 7]


def test_an_integer_query_neither_first_try_settles_goes_to_the_default_solver(monkeypatch):
    s = solver(ints=True)
    _first_solver_stalls(monkeypatch, IntSolver)
    x, y = z3.Ints("x y")
    s.add(x * y == 35, x > 1, y > 1)  # non-linear: the bounded-integer tactics refuse it
    assert symbolic._second_try(s, 2000)[0] == "unknown"
    status, model = check(s, 2000)
    assert status == "sat" and sorted((model[x].as_long(), model[y].as_long())) == [5, 7]


def test_a_bit_vector_question_on_an_arrays_contents_is_narrowed_after_its_check():
    # QF_BV's incremental core refused uninterpreted functions at the first push after a check;
    # the tactic solver re-runs per check, so the witness narrowing's push/pop works
    s = solver()
    load = z3.Function("load", z3.BitVecSort(32), z3.BitVecSort(32))
    t1, t2 = z3.BitVecs("t1 t2", 32)
    s.add(t1 != t2, z3.ULT(t1, 64), z3.ULT(t2, 64), load(t1) == load(t2), z3.UGE(t1, 5))
    status, model = check(s, 2000)
    assert status == "sat"
    narrowed = symbolic.minimize(s, [t1, t2], model, 2000)
    assert (narrowed.eval(t1).as_long(), narrowed.eval(t2).as_long()) == (5, 0)
    assert check(s, 2000)[0] == "sat"  # the narrowing left the question as it was


def test_terms_count_their_references_without_a_check_after_each_call():
    import z3
    from z3 import z3core

    import cudalint.symbolic  # noqa: F401  (what makes the change)
    assert z3.z3.Z3_inc_ref is not z3core.Z3_inc_ref and z3.z3.Z3_dec_ref is not z3core.Z3_dec_ref
    x = z3.Int("x")
    for n in range(2000):  # terms made and freed: each reference taken and dropped
        term = x + n
    s = z3.Solver()
    s.add(term == 2003)
    assert s.check() == z3.sat and s.model()[x].as_long() == 4


def test_a_question_its_first_try_cut_short_is_asked_whole_again(monkeypatch):
    """A check that its timeout cancels can leave a tactic solver's assertions half rewritten
    (a fact made `True`, a variable solved away); the later tries, and the narrowing of the
    witness on that solver, get the question as it was asserted. On a loaded machine the weaker
    question had bh report a thread racing with itself."""
    symbolic.fresh_context()
    s = solver(ints=True)
    x, y, k = z3.Int("x"), z3.Int("y"), z3.Int("k")
    question = [x >= 0, x < 10, y >= 0, y < 10, x != y, k == x + 3 * y, k >= 5]
    symbolic.assert_all(s, question)
    real, tries = symbolic._check, []

    def cut_short(solver, timeout_ms):
        tries.append(solver)
        if len(tries) == 1:  # what a cancelled check can leave behind
            solver.reset()
            solver.add(k >= 5)
            return "unknown", None
        return real(solver, timeout_ms)
    monkeypatch.setattr(symbolic, "_check", cut_short)
    status, model = check(s, 2000)
    assert status == "sat"
    assert all(z3.is_true(model.eval(f, model_completion=True)) for f in question)
    assert len(s.assertions()) == len(question)  # the solver holds the question again (for minimize)


def test_a_questions_timeout_is_set_once_before_its_facts(monkeypatch):
    """Set on a solver that holds assertions, a parameter cost four times as much: the first
    try's timeout comes with the solver, and a check with that timeout leaves it as it is."""
    symbolic.fresh_context()
    made = []
    real = z3.Solver.set
    monkeypatch.setattr(z3.Solver, "set", lambda s, *args: made.append((args, len(s.assertions()))) or real(s, *args))
    s = solver(ints=True)
    x = z3.Int("x")
    symbolic.assert_all(s, [x >= 0, x < 10])
    assert check(s, 2000)[0] == "sat"
    assert made == [(("timeout", symbolic.FIRST_MS), 0)]
    symbolic._check(s, 700)  # another timeout is set as before
    assert made[-1] == (("timeout", 700), 2)


def test_a_question_the_file_asked_before_has_the_answer_it_had_then(monkeypatch):
    """Rules, template instantiations and launches of one shape ask many questions twice (1,087
    of the HeCBench sample's 2,472): the solver runs once for each, per file."""
    symbolic.fresh_context()
    asked = []
    real = symbolic._answer_of
    monkeypatch.setattr(symbolic, "_answer_of", lambda s, ms: asked.append(len(s.assertions())) or real(s, ms))
    x, y = z3.Int("x"), z3.Int("y")

    def ask(*facts, ints=True):
        s = solver(ints=ints)
        symbolic.assert_all(s, facts)
        return check(s, 2000)

    status, model = ask(x > 3, x < 5)
    assert (status, model[x].as_long()) == ("sat", 4) and asked == [2]
    again = solver(ints=True)
    again.add(x > 3, x < 5)  # made again, added through z3's own add()
    assert check(again, 2000) == (status, model) and asked == [2]
    assert ask(x > 3, x < 4) == ("unsat", None) and asked == [2, 2]
    assert ask(x > 3, x < 5, y == x)[0] == "sat" and asked == [2, 2, 3]  # one more fact: another question
    assert ask(x > 3)[0] == "sat" and asked == [2, 2, 3, 1]
    symbolic.fresh_context()  # the next file: asked again
    x = z3.Int("x")
    assert ask(x > 3, x < 5)[0] == "sat" and asked[-1] == 2 and len(asked) == 5


def test_a_question_that_timed_out_is_asked_again(monkeypatch):
    symbolic.fresh_context()
    answers = iter([("unknown", None), ("unsat", None)])
    monkeypatch.setattr(symbolic, "_answer_of", lambda s, ms: next(answers))
    x = z3.Int("x")
    for expected in ("unknown", "unsat", "unsat"):
        s = solver(ints=True)
        symbolic.assert_all(s, [x > 3, x < 4])
        assert check(s, 2000)[0] == expected


def test_a_bit_vector_witness_is_narrowed_on_an_incremental_copy_of_its_question(monkeypatch):
    """The tactic solver bit-blasts its whole question again at each check: narrowing a witness
    on it took logic-rewrite 0.74 s a race, on z3's incremental solver 0.28 s, to the same threads."""
    symbolic.fresh_context()
    s = solver()
    t1, t2, o = z3.BitVecs("t1 t2 o", 32)
    s.add(t1 != t2, z3.ULT(t1, 256), z3.ULT(t2, 256), o == t1 * 4 + 12, o == (t2 & 7) * 4 + 40, z3.UGE(t1, 3))
    status, model = check(s, 2000)
    assert status == "sat"
    checks = []
    real = symbolic.BvSolver.check
    monkeypatch.setattr(symbolic.BvSolver, "check", lambda self, *a: checks.append(self) or real(self, *a))
    narrowed = symbolic.minimize(s, [t1, t2, o], model, 2000)
    assert [narrowed.eval(t).as_long() for t in (t1, t2, o)] == [7, 0, 40]
    assert checks == [] and len(s.assertions()) == 6  # the question itself untouched
