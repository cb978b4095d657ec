"""Which questions the race check asks the solver (cudalint.analysis.races): a pair of global
accesses that no two threads of the launch can share is settled by one question, not by one for
threads of two blocks and another for threads of one; where the launch's threads collide from
two blocks, the question about two blocks is not asked again."""

from __future__ import annotations

from pathlib import Path

from cudalint.analysis import races
from cudalint.engine import analyze_file
from cudalint.settings import Settings

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/races/global_grid_stride.cu"


def _questions(monkeypatch) -> dict:
    asked: dict = {}
    query = races._query

    def counted(kernel, p, geom, mode, round_, huge=None, *rest):
        asked.setdefault(kernel.name, []).append((mode, round_, huge))
        return query(kernel, p, geom, mode, round_, huge, *rest)
    monkeypatch.setattr(races, "_query", counted)
    result = analyze_file(str(FIXTURE), Settings(cuda_mode="shim"))
    assert [(f.rule, f.line) for f in result.findings] == [("CUDA203", 25)]
    return asked


def test_a_pair_no_two_threads_share_takes_one_question(monkeypatch):
    asked = _questions(monkeypatch)
    assert asked["scale_grid_stride"] == [("launch", 0, None)]  # out[i] with itself
    assert asked["axpy_grid_stride"] == [("launch", 0, None)] * 2  # y[i] read and written, written twice


def test_a_pair_that_may_collide_in_every_round_is_then_asked_about_two_blocks(monkeypatch):
    """Threads of one block never share an element here, so each round's launch answer is two
    blocks: the grid question is asked in its first round alone, for the witness."""
    rounds = [(0, None), (1, None), (2, None), (0, "n")]  # generic arguments twice, then n made huge
    asked = _questions(monkeypatch)
    assert asked["axpy_block_stride"] == [("launch", *r) for r in rounds] + [("grid", 0, None)]


def test_a_race_is_narrowed_to_its_first_threads_only_when_told(monkeypatch):
    """Races found but never told (a line that has one already, a guessed shape other than the
    smallest) keep their solver's first model: narrowing it is a dozen checks."""
    narrowed = []
    real = races.minimize
    monkeypatch.setattr(races, "minimize", lambda *a, **k: narrowed.append(a[1]) or real(*a, **k))
    for name, told in (("double_buffer.cu", [("CUDA201", 43)]), ("guessed_shape.cu", [("CUDA203", 34)])):
        narrowed.clear()
        result = analyze_file(str(FIXTURE.parent / name), Settings(cuda_mode="shim"))
        assert [(f.rule, f.line) for f in result.findings if f.rule in ("CUDA201", "CUDA202", "CUDA203")] == told
        assert len(narrowed) == 1


def test_two_launches_of_one_shape_ask_each_question_once(tmp_path, monkeypatch):
    """Two kernels share a helper (its shared-memory accesses are the same in both) and are
    launched with one shape at two lines: the geometries differ in whence they come alone, the
    solver sees one, so each question is built once (hungarian's calc_min_in_rows and _cols)."""
    src = tmp_path / "twice.cu"
    src.write_text("""\
__device__ void rotate(float* a, int i) {
  __shared__ float s[128];
  s[threadIdx.x] = 1.0f;
  a[i] = s[(threadIdx.x + 1) % 128];
}
__global__ void rows(float* a) {
  rotate(a, blockIdx.x * 128 + threadIdx.x);
}
__global__ void cols(float* a) {
  rotate(a, blockIdx.x * 128 + threadIdx.x);
}

void run(float* a, float* b) {
  rows<<<4, 128>>>(a);
  cols<<<4, 128>>>(b);
}
""")
    built = []
    query = races._build_query
    monkeypatch.setattr(races, "_build_query", lambda kernel, p, geom, mode, *rest: built.append((kernel.name, mode))
                        or query(kernel, p, geom, mode, *rest))
    result = analyze_file(str(src), Settings(cuda_mode="shim"))
    assert [(f.rule, f.line) for f in result.findings] == [("CUDA201", 4)]
    assert "from the launch at line 14" in result.findings[0].message
    # cols, launched at line 15 with that shape, asks nothing of `s` again (`a` is its own)
    assert {k for k, mode in built if mode in ("threads", "block", "warp")} == {"rows"}
