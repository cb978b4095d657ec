"""Exact bank-conflict degrees (cudalint.analysis.banks), without parsing any CUDA."""

from __future__ import annotations

from cudalint.analysis import banks
from cudalint.analysis.geometry import Geometry
from cudalint.model import Access, Array, Const, Kernel, Loc, Loop, Op, Sym

TX = Sym("threadIdx.x", 2, "builtin")
TY = Sym("threadIdx.y", 2, "builtin")
LOC = Loc("t.cu", 1, 1, 1, 2)


def op(o, *a):
    return Op.make(o, *a)


def c(v):
    return Const(v)


def lanes(f, n=32):
    return {lane: f(lane) for lane in range(n)}


def test_scalar_strides():
    assert banks.bank_degree(lanes(lambda i: 4 * i), 4).degree == 1
    assert banks.bank_degree(lanes(lambda i: 8 * i), 4).degree == 2
    assert banks.bank_degree(lanes(lambda i: 12 * i), 4).degree == 1
    assert banks.bank_degree(lanes(lambda i: 16 * i), 4).degree == 4
    assert banks.bank_degree(lanes(lambda i: 64 * i), 4).degree == 16
    assert banks.bank_degree(lanes(lambda i: 128 * i), 4).degree == 32
    assert banks.bank_degree(lanes(lambda i: 132 * i), 4).degree == 1


def test_broadcast_is_not_a_conflict():
    assert banks.bank_degree(lanes(lambda i: 0), 4).degree == 1
    assert banks.bank_degree(lanes(lambda i: 4 * (i // 2)), 4).degree == 1
    d = banks.bank_degree(lanes(lambda i: 128 * (i & 1)), 4)  # words 0 and 32, both in bank 0
    assert (d.degree, d.bank, d.words, d.lanes) == (2, 0, (0, 32), (0, 1))


def test_sub_word_accesses_share_words():
    assert banks.bank_degree(lanes(lambda i: i), 1).degree == 1  # 4 lanes per word
    assert banks.bank_degree(lanes(lambda i: 2 * i), 2).degree == 1


def test_wide_accesses_count_per_phase():
    assert banks.bank_degree(lanes(lambda i: 8 * i), 8).degree == 1  # double d[tx]
    assert banks.bank_degree(lanes(lambda i: 16 * i), 8).degree == 2  # double d[2 tx]
    d = banks.bank_degree(lanes(lambda i: 256 * i), 8)  # [32][32] double column
    assert (d.degree, d.phase_size) == (16, 16)
    assert banks.bank_degree(lanes(lambda i: 264 * i), 8).degree == 1  # [32][33] double column
    assert banks.bank_degree(lanes(lambda i: 16 * i), 16).degree == 1  # float4 [tx]
    assert banks.bank_degree(lanes(lambda i: 32 * i), 16).degree == 2  # float4 [2 tx]
    d = banks.bank_degree(lanes(lambda i: 128 * i), 16)  # float4 at row starts of 32 floats
    assert (d.degree, d.phase_size) == (8, 8)
    assert banks.bank_degree(lanes(lambda i: 144 * i), 16).degree == 1


def test_inactive_lanes_take_no_part():
    assert banks.bank_degree({i: 128 * i for i in range(4)}, 4).degree == 4
    assert banks.bank_degree({}, 4).degree == 0


def test_evaluate_has_c_semantics():
    assert banks.evaluate(op("/", c(-7), c(2)), {}) == -3
    assert banks.evaluate(op("%", c(-7), c(2)), {}) == -1
    assert banks.evaluate(op("^", TX, c(5)), {"threadIdx.x": 3}) == 6


def _array(dims, elem=4):
    return Array("tile", "shared", elem, elem, dims)


def _access(offset, dims=(32, 32), width=4, guard=(), loops=()):
    return Access(_array(dims, width if width == 8 else 4), offset, width, width, "read", LOC, guard, loops, "t")


def _kernel(loops=None):
    return Kernel("k", "k", LOC, (), (), loops or {}, None, None)


def test_analyze_2d_block_column_read():
    # tile[16][16] read at [threadIdx.x][threadIdx.y] by a 16x16 block: 8-way (DESIGN examples)
    acc = _access(op("+", op("*", TX, c(64)), op("*", TY, c(4))), dims=(16, 16))
    r = banks.analyze(_kernel(), acc, Geometry((16, 16, 1), (1, 1, 1), "test"))
    assert (r.status, r.degree.degree) == ("conflict", 8)
    r = banks.analyze(_kernel(), banks.padded(acc, 1), Geometry((16, 16, 1), (1, 1, 1), "test"))
    assert r.degree.degree == 2
    r = banks.analyze(_kernel(), banks.padded(acc, 2), Geometry((16, 16, 1), (1, 1, 1), "test"))
    assert (r.status, r.degree.degree) == ("clean", 1)


def test_analyze_uniform_argument_shift_is_proved():
    n = Sym("n", 0, "param")
    acc = _access(op("*", op("+", op("*", TX, c(32)), n), c(4)))
    r = banks.analyze(_kernel(), acc, Geometry((64, 1, 1), (1, 1, 1), "test"))
    assert (r.status, r.degree.degree, r.uniform) == ("conflict", 32, ("n",))


def test_analyze_argument_stride_is_not_reported():
    n = Sym("stride", 0, "param")
    acc = _access(op("*", op("*", TX, n), c(4)))
    r = banks.analyze(_kernel(), acc, Geometry((64, 1, 1), (1, 1, 1), "test"))
    assert r.status == "skipped"


def test_analyze_enumerates_loop_iterations():
    # for (k = 1; k < 64; k *= 2) s[2 * k * threadIdx.x]: 2-way at k = 1, 32-way later (guards aside)
    k = Sym("k@1", 0, "loop")
    loop = Loop(1, k, c(1), "*", c(2), op("<", k, c(64)), False, False, LOC)
    acc = _access(op("*", op("*", op("*", c(2), k), TX), c(4)), dims=(4096,),
                  guard=(op("<", k, c(64)),), loops=(1,))
    r = banks.analyze(_kernel({1: loop}), acc, Geometry((32, 1, 1), (1, 1, 1), "test"))
    assert (r.degree.degree, r.low, r.at) == (32, 2, (("k", 16),))


def test_data_dependent_offset_is_skipped():
    v = Sym("v@3#1", 2, "value")
    r = banks.analyze(_kernel(), _access(op("*", v, c(4))), Geometry((32, 1, 1), None, "test"))
    assert r.status == "skipped"


def test_symbolic_block_uses_threadidx_x_only():
    acc = _access(op("*", op("*", TX, c(8)), c(4)), dims=(1024,))
    r = banks.analyze(_kernel(), acc, Geometry(None, None, "symbolic"))
    assert (r.degree.degree, bool(r.assumption)) == (8, True)
    acc2 = _access(op("*", op("+", op("*", TX, c(8)), TY), c(4)), dims=(1024,))
    assert banks.analyze(_kernel(), acc2, Geometry(None, None, "symbolic")).status == "skipped"


def test_separable_offsets():
    from cudalint.analysis.banks_uniform import separable
    k, lane, it = Sym("k@1", 0, "loop"), {"threadIdx.x", "threadIdx.y"}, {"k@1"}
    assert separable(op("*", op("+", op("*", TY, c(256)), op("+", TX, k)), c(4)), lane, it)
    assert separable(op("<<", op("-", TX, k), c(2)), lane, it)
    assert separable(op("+", op("%", TX, c(7)), op("/", c(64), k)), lane, it)  # each part any shape
    assert not separable(op("*", TX, k), lane, it)
    assert not separable(op("%", op("+", TX, k), c(32)), lane, it)
    assert not separable(op("<<", TX, k), lane, it)


def test_uniform_shortcut_matches_the_enumeration(monkeypatch):
    # s[tx * (1 + ty) + k] (bytes) for k in 0..3, a 32x2 block: warp 0 is clean at k = 0 and
    # 2-way at k = 1 (each lane straddles two words); warp 1 is 2-way from k = 0 on. The first
    # 2-way in warp, then iteration, order is warp 0 at k = 1.
    from cudalint.analysis import banks_uniform
    k = Sym("k@1", 0, "loop")
    loop = Loop(1, k, c(0), "+", c(1), op("<", k, c(4)), False, False, LOC)
    acc = _access(op("+", op("*", op("*", TX, c(4)), op("+", c(1), TY)), k), dims=(4096,),
                  guard=(op("<", k, c(4)),), loops=(1,))
    geom = Geometry((32, 2, 1), (1, 1, 1), "test")
    fast = banks.analyze(_kernel({1: loop}), acc, geom)
    assert (fast.status, fast.degree.degree, fast.warp, fast.at, fast.low) == ("conflict", 2, 0, (("k", 1),), 1)
    assert fast.offsets == tuple((lane, 4 * lane + 1) for lane in range(32)) and fast.all_lanes
    monkeypatch.setattr(banks_uniform, "analyze_uniform", lambda *args: None)
    assert banks.analyze(_kernel({1: loop}), acc, geom) == fast


def test_uniform_shortcut_keeps_a_loop_of_unknown_bounds_symbolic(monkeypatch):
    # s[tx][k] (32 floats a row) inside `for (t = 0; t < n; ++t)` with n an argument: the outer
    # loop's iterations are unknown but the offset does not read t, so the enumeration leaves t
    # symbolic; the shortcut does the same (it gave up on such accesses, and the tiled matrix
    # multiply's five of them were enumerated lane by lane, warp by warp, iteration by iteration)
    from cudalint.analysis import banks_uniform
    t, k, n = Sym("t@1", 0, "loop"), Sym("k@2", 0, "loop"), Sym("n", 0, "param")
    outer = Loop(1, t, c(0), "+", c(1), op("<", t, n), False, False, LOC)
    inner = Loop(2, k, c(0), "+", c(1), op("<", k, c(32)), False, False, LOC)
    acc = _access(op("*", op("+", op("*", TX, c(32)), k), c(4)), dims=(32 * 32,),
                  guard=(op("<", t, n), op("<", k, c(32))), loops=(1, 2))
    geom = Geometry((32, 32, 1), (1, 1, 1), "test")
    answered = []
    shortcut = banks_uniform.analyze_uniform
    monkeypatch.setattr(banks_uniform, "analyze_uniform", lambda *args: answered.append(shortcut(*args)) or answered[-1])
    fast = banks.analyze(_kernel({1: outer, 2: inner}), acc, geom)
    assert answered and answered[0] is not None
    assert (fast.status, fast.degree.degree, fast.warp, fast.at) == ("conflict", 32, 0, (("k", 0),))
    monkeypatch.setattr(banks_uniform, "analyze_uniform", lambda *args: None)
    assert banks.analyze(_kernel({1: outer, 2: inner}), acc, geom) == fast
