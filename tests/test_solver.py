"""The solver front (cudalint.symbolic.check): an integer query the default solver cannot settle
in time is answered by z3's bounded-integer tactics."""

from __future__ import annotations

from pathlib import Path

import z3

from cudalint.symbolic import check, solver

# A race question cudalint asked of MT's boxmuller kernel (HeCBench): two threads of different
# blocks (128 threads, 32 blocks) at one index `g + k*4096` with g = 128*b + t < 4096, with the
# no-overflow side conditions. Impossible; z3's default solver searched past 2 s on it.
DISTINCT_BLOCKS = Path(__file__).parent / "data" / "solver" / "distinct_blocks.smt2"


def _query():
    s = solver(ints=True)
    s.from_string(DISTINCT_BLOCKS.read_text())
    return s


def test_a_bounded_linear_query_the_default_solver_stalls_on_is_unsat():
    assert check(_query(), 2000) == ("unsat", None)


def test_a_satisfiable_query_keeps_the_default_solvers_model():
    s = solver(ints=True)
    x, y = z3.Ints("x y")
    s.add(x > 3, y == 2 * x, y < 10)
    status, model = check(s, 2000)
    assert status == "sat" and (model[x].as_long(), model[y].as_long()) == (4, 8)
