"""Focused tests of the host-memory analysis (cudalint.analysis.hostflow): small host functions
parsed for real, analysed, and the leak / double-free / mismatch / unsync results checked."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from cudalint import host_model as H
from cudalint.analysis import hostflow
from cudalint.frontend.parse import parse
from cudalint.frontend.tu import build_model
from cudalint.settings import Settings

PRELUDE = """\
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK_RET(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return e_; } while (0)
#define CHECK_EXIT(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) exit(1); } while (0)
[[noreturn]] void die(const char* msg);
#define CHECK_DIE(call) do { if ((call) != cudaSuccess) die(#call); } while (0)
__global__ void k(float* p, int n);
void sink(float* p);
"""


def run(tmp_path, body, name="f"):
    src = tmp_path / "t.cu"
    src.write_text(PRELUDE + textwrap.dedent(body))
    model = build_model(parse(str(src), Settings(cuda_mode="shim")))
    errors = [d for d in model.diagnostics if d.severity == "error"]
    assert not errors, errors
    fn = next(f for f in model.host_functions if f.name == name)
    return hostflow.analyze(fn), PRELUDE.count("\n")


def lines(items, attr, base):
    return sorted(getattr(x, attr).line - base for x in items)


def test_tree_has_structure_and_spelling_locations(tmp_path):
    src = tmp_path / "t.cu"
    src.write_text(PRELUDE + "cudaError_t f() {\n  float* d;\n  CHECK_RET(cudaMalloc(&d, 4));\n"
                   "  cudaFree(d);\n  return cudaSuccess;\n}\n")
    model = build_model(parse(str(src), Settings(cuda_mode="shim")))
    fn = next(f for f in model.host_functions if f.name == "f")
    stmts = fn.body.stmts
    assert isinstance(stmts[0], H.Assign) and stmts[0].target.name == "d"
    assert isinstance(stmts[1], H.HostLoop) and stmts[1].once  # do { } while (0)
    call = stmts[1].body.stmts[0]
    assert isinstance(call, H.Call) and call.name == "cudaMalloc"
    assert call.args[0] == H.HostArg("addr", "d", "local", "&d", root="d")
    assert call.loc.column == 13  # inside the macro argument, not at the macro name
    assert isinstance(stmts[-1], H.Return) and stmts[-1].implicit


def test_leak_on_early_return_names_the_path(tmp_path):
    r, base = run(tmp_path, """
    int f(const float* src) {
      float* d = nullptr;
      cudaMalloc(&d, 16);
      if (cudaMemcpy(d, src, 16, cudaMemcpyHostToDevice) != cudaSuccess) return -1;
      cudaFree(d);
      return 0;
    }""")
    assert lines(r.leaks, "exit_loc", base) == [5]
    assert r.leaks[0].path == (f"`cudaMemcpy` fails at line {base + 5}",)
    # the typed form, which --confirm makes fail: the call and its source range
    ((name, loc),) = r.leaks[0].fails
    assert (name, loc.line - base, loc.column, loc.end_line - base, loc.end_column) == ("cudaMemcpy", 5, 7, 5, 53)


def test_a_buffer_never_freed_is_shown_on_the_path_where_every_call_succeeds(tmp_path):
    """Checked copies before the exit: the leak needs no failure, and its witness takes none (a
    witness through failed copies would send --confirm to make them fail for nothing)."""
    r, base = run(tmp_path, """
    void f(const float* src) {
      float* d = nullptr;
      cudaMalloc(&d, 16);
      if (cudaMemcpy(d, src, 16, cudaMemcpyHostToDevice) != cudaSuccess) fprintf(stderr, "copy\\n");
      if (cudaMemcpy(d, src, 8, cudaMemcpyHostToDevice) != cudaSuccess) fprintf(stderr, "copy\\n");
      return;
    }""")
    assert lines(r.leaks, "exit_loc", base) == [7]
    assert r.leaks[0].fails == ()
    assert not any("fails" in step for step in r.leaks[0].path)


def test_a_dependent_call_keeps_its_written_name(tmp_path):
    """In a function template, a call whose arguments depend on the template's types is left
    unresolved by libclang (no spelling): it is still the cudaMalloc it is written as. It had been
    named ``, and a leak's path said "`` fails"."""
    r, base = run(tmp_path, """
    template <typename T>
    int f(T n) {
      float* d;
      T* p;
      cudaMalloc((void**)&d, 16);
      cudaError_t e = cudaMalloc((void**)&p, sizeof(T) * n);
      if (e != cudaSuccess) return 1;
      cudaFree(p);
      cudaFree(d);
      return 0;
    }
    int use(int n) { return f<int>(n); }""")
    (leak,) = r.leaks
    assert (leak.name, leak.path) == ("d", (f"`cudaMalloc` fails at line {base + 7}",))
    assert [name for name, _ in leak.fails] == ["cudaMalloc"]


def test_failed_allocation_has_no_obligation(tmp_path):
    r, _ = run(tmp_path, """
    float* f(size_t n) {
      float* p = nullptr;
      cudaError_t err = cudaMalloc(&p, n);
      if (err != cudaSuccess) return nullptr;
      return p;
    }""")
    assert r.leaks == []


def test_exit_and_noreturn_paths_are_not_leaks(tmp_path):
    r, _ = run(tmp_path, """
    void f(int n) {
      float* d = nullptr;
      CHECK_EXIT(cudaMalloc(&d, 16));
      CHECK_EXIT(cudaMemset(d, 0, 16));
      CHECK_DIE(cudaDeviceSynchronize());
      if (n < 0) abort();
      cudaFree(d);
    }""")
    assert r.leaks == []


def test_a_noreturn_function_declared_in_a_header_ends_the_path(tmp_path):
    (tmp_path / "fatal.h").write_text("#pragma once\n[[noreturn]] void fatal(const char* msg);\n"
                                      "void warn(const char* msg);\n")
    src = tmp_path / "t.cu"
    src.write_text('#include <cuda_runtime.h>\n#include "fatal.h"\n'
                   "void f(int n) {\n  float* d = nullptr;\n  cudaMalloc(&d, 16);\n"
                   '  if (n < 0) { fatal("n"); return; }\n  if (n == 7) { warn("n"); return; }\n'
                   "  cudaFree(d);\n}\n")
    model = build_model(parse(str(src), Settings(cuda_mode="shim")))
    fn = next(f for f in model.host_functions if f.name == "f")
    assert [lk.exit_loc.line for lk in hostflow.analyze(fn).leaks] == [7]  # after warn(), not fatal()


def test_check_macro_that_returns_leaks_earlier_allocation(tmp_path):
    r, base = run(tmp_path, """
    cudaError_t f(size_t n) {
      float* a = nullptr;
      float* b = nullptr;
      CHECK_RET(cudaMalloc(&a, 16));
      CHECK_RET(cudaMalloc(&b, n));
      cudaFree(b);
      cudaFree(a);
      return cudaSuccess;
    }""")
    assert [(lk.name, lk.exit_loc.line - base) for lk in r.leaks] == [("a", 6)]


def test_goto_cleanup_is_clean_and_missing_label_step_leaks(tmp_path):
    body = """
    int f(const float* s) {
      int rc = 0;
      float* d = nullptr;
      float* h = nullptr;
      if (cudaMalloc(&d, 16) != cudaSuccess) { rc = 1; goto done; }
      if (cudaMallocHost(&h, 16) != cudaSuccess) { rc = 2; goto %s; }
      if (cudaMemcpy(d, s, 16, cudaMemcpyHostToDevice) != cudaSuccess) { rc = 3; goto free_h; }
      rc = 4;
    free_h:
      cudaFreeHost(h);
    free_d:
      cudaFree(d);
    done:
      return rc;
    }"""
    r, _ = run(tmp_path, body % "free_d")
    assert r.leaks == [] and r.double_frees == []
    r, _ = run(tmp_path, body % "done")
    assert [lk.name for lk in r.leaks] == ["d"]


def test_switch_and_loop(tmp_path):
    r, base = run(tmp_path, """
    int f(int mode, int iters) {
      float* d = nullptr;
      cudaMalloc(&d, 16);
      for (int i = 0; i < iters; ++i) {
        float* t = nullptr;
        cudaMalloc(&t, 16);
        cudaFree(t);
      }
      switch (mode) {
        case 1: cudaFree(d); return 1;
        case 2: return 2;
        default: break;
      }
      cudaFree(d);
      return 0;
    }""")
    assert lines(r.leaks, "exit_loc", base) == [12]
    assert r.double_frees == []


def test_loop_allocation_freed_once_after_the_loop(tmp_path):
    r, _ = run(tmp_path, """
    void f(int n) {
      float* d = nullptr;
      for (int i = 0; i < n; ++i) {
        if (d == nullptr) cudaMalloc(&d, 16);
        k<<<1, 1>>>(d, i);
      }
      cudaFree(d);
    }""")
    assert r.leaks == [] and r.double_frees == []


def test_escapes_end_the_obligation(tmp_path):
    r, _ = run(tmp_path, """
    struct Ctx { float* w; };
    static float* g;
    void f(Ctx& c, float** out) {
      float *a, *b, *e, *x;
      cudaMalloc(&a, 16); c.w = a;
      cudaMalloc(&b, 16); g = b;
      cudaMalloc(&e, 16); *out = e;
      cudaMalloc(&x, 16); sink(x);
      cudaMalloc(&c.w, 16);
      cudaMalloc(out, 16);
    }""")
    assert r.leaks == []


def test_launch_memcpy_and_local_struct_do_not_escape(tmp_path):
    r, base = run(tmp_path, """
    struct Pair { float* p; };
    void f(float* h) {
      Pair s;
      cudaMalloc(&s.p, 16);
      k<<<1, 1>>>(s.p, 4);
      cudaMemcpy(h, s.p, 16, cudaMemcpyDeviceToHost);
    }""")
    assert [(lk.name, lk.implicit) for lk in r.leaks] == [("s.p", True)]


def test_double_free_path_and_null_reset(tmp_path):
    r, base = run(tmp_path, """
    void f(bool fail) {
      float* d = nullptr;
      cudaMalloc(&d, 16);
      if (fail) cudaFree(d);
      cudaFree(d);
      float* e = nullptr;
      cudaMalloc(&e, 16);
      cudaFree(e);
      e = nullptr;
      cudaFree(e);
    }""")
    assert lines(r.double_frees, "second_loc", base) == [6]


def test_correlated_conditions_are_not_contradicted(tmp_path):
    r, _ = run(tmp_path, """
    void f(bool own) {
      float* d = nullptr;
      if (own) cudaMalloc(&d, 16);
      k<<<1, 1>>>(d, 1);
      if (own) cudaFree(d);
    }""")
    assert r.leaks == []


@pytest.mark.parametrize("alloc,release,bad", [
    ("cudaMallocHost(&p, 16)", "cudaFree(p)", True),
    ("cudaMallocHost(&p, 16)", "cudaFreeHost(p)", False),
    ("cudaMallocAsync(&p, 16, 0)", "cudaFree(p)", False),
    ("p = (float*)malloc(16)", "cudaFree(p)", True),
    ("p = new float[4]", "delete[] p", False),
    ("p = new float[4]", "cudaFree(p)", True),
    ("cudaMalloc(&p, 16)", "free(p)", True),
])
def test_mismatched_pairs(tmp_path, alloc, release, bad):
    r, _ = run(tmp_path, f"void f() {{\n  float* p = nullptr;\n  {alloc};\n  {release};\n}}\n")
    assert bool(r.mismatches) == bad
    assert r.leaks == []  # a wrong release still ends the obligation


def test_unsync_read_and_syncs(tmp_path):
    r, base = run(tmp_path, """
    float f(float* h, float* d, cudaStream_t s, cudaEvent_t e, bool c) {
      cudaMemcpyAsync(h, d, 16, cudaMemcpyDeviceToHost, s);
      float a = h[0];
      cudaEventRecord(e, s);
      cudaEventSynchronize(e);
      float b = h[1];
      cudaMemcpyAsync(h, d, 16, cudaMemcpyDeviceToHost, s);
      if (c) cudaStreamSynchronize(s);
      h[2] = 1.0f;
      cudaStreamSynchronize(s);
      float x = h[3];
      cudaMemcpyAsync(d, h, 16, cudaMemcpyHostToDevice, s);
      return a + b + x + h[4];
    }""")
    assert [(u.access_loc.line - base, u.write) for u in r.unsync] == [(4, False), (10, True)]


def test_managed_memory_written_by_a_kernel(tmp_path):
    r, base = run(tmp_path, """
    float f() {
      float* m = nullptr;
      cudaMallocManaged(&m, 16);
      k<<<1, 4>>>(m, 4);
      float v = m[0];
      cudaDeviceSynchronize();
      v += m[1];
      cudaFree(m);
      return v;
    }""")
    assert lines(r.unsync, "access_loc", base) == [6]


def test_path_budget_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(hostflow, "MAX_STEPS", 50)
    ifs = "\n".join(f"  if (n > {i}) cudaMemset(d, {i}, 4);" for i in range(30))
    r, _ = run(tmp_path, f"void f(int n) {{\n  float* d;\n  cudaMalloc(&d, 4);\n{ifs}\n  cudaFree(d);\n}}\n")
    assert r.truncated


def test_a_walk_cut_short_is_reported_and_the_file_not_called_checked(tmp_path):
    """Correlated flags (each tested twice, nothing assigned between) keep 2^16 paths apart:
    past MAX_STEPS the walk stops, and the file says so (it was called clean before)."""
    from cudalint.engine import analyze_file
    flags = ", ".join(f"bool f{i}" for i in range(16))
    ifs = "\n".join(f"  if (f{i}) puts(\"{i}\");" for i in range(16))
    src = tmp_path / "flags.cu"
    src.write_text(PRELUDE + f"void f({flags}) {{\n  float* d;\n  cudaMalloc(&d, 4);\n{ifs}\n{ifs}\n  cudaFree(d);\n}}\n")
    result = analyze_file(str(src), Settings(cuda_mode="shim"))
    assert [(d.severity, d.kind, d.message) for d in result.diagnostics] == [
        ("error", "limit", f"host function `f`: stopped after {hostflow.MAX_STEPS} steps along its paths; "
                           "the rest were not checked")]


def test_a_path_follows_at_most_max_failures_failed_calls(tmp_path):
    """A check that reports and carries on forks every call it wraps (mergeVS: 2^20 paths, the
    walk stopped at MAX_STEPS and the file was called checked); a path with one failed call
    still finds what error handling gets wrong."""
    checked = "\n".join(f"  if (cudaMalloc(&b{i}, 4) != cudaSuccess) puts(\"b{i}\");" for i in range(16))
    frees = "\n".join(f"  if (cudaFree(b{i}) != cudaSuccess) puts(\"b{i}\");" for i in range(16))
    r, base = run(tmp_path, f"""
    void f() {{
      float* scratch;
      cudaMalloc(&scratch, 4);
      float* b[16];
      if (cudaMalloc(&b[0], 4) != cudaSuccess) cudaFree(scratch);
    """ + "\n".join(f"  float* b{i};" for i in range(16)) + "\n" + checked + "\n" + frees + """
      cudaFree(scratch);
    }""")
    assert not r.truncated
    assert [(d.second_loc.line - base) for d in r.double_frees] == [7 + 16 * 3]


def test_a_variable_no_branch_tests_as_a_status_keeps_no_paths_apart(tmp_path):
    """`k = atof(argv[1])` on one path and not another once made two states (aop: 2^7 of them
    at each node, past MAX_STEPS): what a call returned matters only to a status test."""
    opts = "\n".join(f"  if (argc > {i}) k{i} = atof(argv[{i}]);" for i in range(1, 18))
    r, base = run(tmp_path, """
    double atof(const char*);
    int f(int argc, char** argv) {
    """ + "\n".join(f"  double k{i} = 1.0;" for i in range(1, 18)) + "\n" + opts + """
      float* d;
      cudaError_t err = cudaMalloc(&d, 4);
      if (err != cudaSuccess) return 1;
      return 0;
    }""")
    assert not r.truncated
    assert lines(r.leaks, "exit_loc", base) == [3 + 17 + 17 + 4]


def test_leaks_at_the_end_of_main_can_be_turned_off(tmp_path):
    from cudalint.engine import analyze_file
    src = tmp_path / "m.cu"
    src.write_text(PRELUDE + "int main() {\n  float* d;\n  cudaMalloc(&d, 4);\n  return 0;\n}\n")
    base = PRELUDE.count("\n")
    on = analyze_file(str(src), Settings(cuda_mode="shim"))
    off = analyze_file(str(src), Settings(cuda_mode="shim", host_leaks_at_exit=False))
    assert [(f.rule, f.line - base) for f in on.findings] == [("CUDA401", 4)]
    assert "lives until the process exits" in on.findings[0].message
    assert off.findings == []


def test_config_key_for_leaks_at_exit(tmp_path):
    from cudalint.config import load_config
    cfg = tmp_path / "cudalint.toml"
    cfg.write_text("host-leaks-at-exit = false\n")
    assert load_config(cfg).values["host-leaks-at-exit"] is False
    cfg.write_text("host-leaks-at-exit = 0\n")
    with pytest.raises(Exception, match="boolean"):
        load_config(cfg)


def test_summary_of_a_helper_that_frees_and_one_that_reads(tmp_path):
    src = tmp_path / "t.cu"
    src.write_text(PRELUDE + textwrap.dedent("""
    struct Buf { float* p; };
    void buf_init(Buf& b) { cudaMalloc(&b.p, 16); }
    void buf_free(Buf& b) { if (b.p) cudaFree(b.p); }
    void take(float** out) { cudaMalloc(out, 16); }
    void look(float* p) { k<<<1, 1>>>(p, 1); }
    void keep(float* p) { sink(p); }
    """))
    model = build_model(parse(str(src), Settings(cuda_mode="shim")))
    from cudalint.analysis import summaries as S
    results = dict((fn.name, r) for fn, r in S.analyze_all(model.host_functions, lambda fn, so: hostflow.analyze(fn, None, so)))
    fns = {fn.name: fn for fn in model.host_functions}
    summ = {n: (S.combine(fns[n], r.outcomes) if r.outcomes is not None else S.untracked_summary(fns[n]))
            for n, r in results.items()}
    assert [(e.param, e.field, e.action, e.call) for e in summ["buf_init"].effects] == [(0, "p", "alloc", "cudaMalloc")]
    assert [(e.param, e.field, e.action, e.call) for e in summ["buf_free"].effects] == [(0, "p", "free", "cudaFree")]
    assert [(e.param, e.deref, e.action) for e in summ["take"].effects] == [(0, True, "alloc")]
    assert summ["look"].effects == () and summ["look"].escapes == frozenset()
    assert summ["keep"].escapes == frozenset({0})


def test_null_test_of_a_call_result(tmp_path):
    # `if (strstr(name, ".ra") != NULL)` tests a call, not a variable: the path walk took the
    # call's id for a variable name (AttributeError: 'int' has no 'startswith', hecbench tgvnn)
    r, base = run(tmp_path, """
    const char* find(const char* s, const char* t);
    int f(const char* name) {
      float* d = nullptr;
      cudaMalloc(&d, 16);
      if (find(name, ".ra") != NULL) return 1;
      if (!find(name, ".rb")) { cudaFree(d); return 2; }
      cudaFree(d);
      return 0;
    }""")
    assert lines(r.leaks, "exit_loc", base) == [6]
    assert r.double_frees == []


def test_one_allocation_leaked_at_several_exits_is_one_finding():
    from cudalint.engine import analyze_file
    path = Path(__file__).resolve().parent.parent / "fixtures/host/check_macros.cu"
    (f,) = [f for f in analyze_file(str(path), Settings()).findings if f.rule == "CUDA401" and f.line == 84]
    assert f.message == ("`d` (device memory from `cudaMalloc` at line 82) is leaked when `cudaGetLastError` fails "
                         "at line 84 and the function returns at line 84; also leaked at 2 later exits (lines 85, 86)")
    assert [(r.line, r.message) for r in f.related] == [
        (82, "`d` allocated here by `cudaMalloc`"),
        (85, "also leaked when `cudaDeviceSynchronize` fails at line 85 and the function returns at line 85"),
        (86, "also leaked when `cudaMemset` fails at line 86 and the function returns at line 86")]
    assert dict(f.properties)["exits"] == 3


def test_allocations_leaked_at_one_exit_share_its_finding(tmp_path):
    from cudalint.engine import analyze_file
    src = tmp_path / "two.cu"
    src.write_text("#include <cuda_runtime.h>\nint main() {\n  float *a, *b;\n  cudaMalloc(&a, 64);\n"
                   "  cudaMalloc(&b, 64);\n  return 0;\n}\n")
    (f,) = [f for f in analyze_file(str(src), Settings()).findings if f.rule == "CUDA401"]
    assert (f.line, f.message) == (6, "`a` (device memory from `cudaMalloc` at line 4) is still held (neither released "
                                      "nor handed on) when `main` returns at line 6; it lives until the process exits; "
                                      "so is `b` (device memory from `cudaMalloc` at line 5)")
    assert [(r.line, r.message) for r in f.related] == [
        (4, "`a` allocated here by `cudaMalloc`"), (5, "`b` allocated here by `cudaMalloc`; it leaks at the same exit")]


@pytest.mark.parametrize("cleared", ["0", "0L", "0ul", "false"])
def test_a_flag_cleared_by_any_spelling_of_zero_decides_its_branch(tmp_path, cleared):
    r, base = run(tmp_path, f"""
        void f(bool early) {{
          float* d = nullptr;
          cudaMalloc(&d, 64);
          long owned = 1;
          if (early) {{
            cudaFree(d);
            owned = {cleared};
          }}
          if (owned) cudaFree(d);
        }}
        """)
    assert (r.leaks, r.double_frees) == ([], [])


def test_a_flag_written_through_memset_is_not_known_afterwards(tmp_path):
    r, base = run(tmp_path, """
        void f() {
          float* d = nullptr;
          cudaMalloc(&d, 64);
          int ok = 1;
          memset(&ok, 0, sizeof ok);
          if (!ok) return;
          cudaFree(d);
        }
        """)
    assert lines(r.leaks, "exit_loc", base) == [7]


def _read_bodies(tmp_path, text):
    src = tmp_path / "t.cu"
    src.write_text(PRELUDE + textwrap.dedent(text))
    model = build_model(parse(str(src), Settings(cuda_mode="shim")), host_scope=hostflow.functions_read)
    return {f.name: f.body is not None for f in model.host_functions}


def test_only_the_host_functions_the_analyses_read_get_their_trees(tmp_path):
    bodies = _read_bodies(tmp_path, """\
        float* make(int n) { float* d; cudaMalloc(&d, n); return d; }
        float* wrap(int n) { return make(n); }
        void use(float* p) { sink(p); }
        float norm(const float* h, int n) { float s = 0; for (int i = 0; i < n; i++) s += h[i]; return s; }
        int* boxed() { return new int[4]; }
        int main() { float* d = wrap(4); use(d); printf("%f", norm(nullptr, 0)); return 0; }
        """)
    # make allocates, wrap and main reach it, boxed news; use and norm are read because main,
    # which may touch memory, calls them (their summaries); none of them is left out here
    assert bodies == {"make": True, "wrap": True, "use": True, "norm": True, "boxed": True, "main": True}
    bodies = _read_bodies(tmp_path, """\
        float norm(const float* h, int n) { float s = 0; for (int i = 0; i < n; i++) s += h[i]; return s; }
        void report(float* h, int n) { printf("%f\\n", norm(h, n)); }
        void fill(float* d, int n) { k<<<1, n>>>(d, n); }
        """)
    assert bodies == {"norm": False, "report": False, "fill": False}


def test_a_destructor_that_frees_has_every_function_read(tmp_path):
    bodies = _read_bodies(tmp_path, """\
        struct Buf { float* d; ~Buf() { cudaFree(d); } };
        void copy_it(Buf& b) { Buf c = b; (void)c; }
        """)
    assert bodies == {"~Buf": True, "copy_it": True}


def test_reading_fewer_trees_changes_no_result(tmp_path, monkeypatch):
    from cudalint.engine import analyze_file
    src = tmp_path / "m.cu"
    src.write_text(PRELUDE + textwrap.dedent("""\
        void release(float* p) { cudaFree(p); }
        void drop(float* p) { release(p); }
        float norm(const float* h, int n) { float s = 0; for (int i = 0; i < n; i++) s += h[i]; return s; }
        void fine() { float* d; cudaMalloc(&d, 4); norm(d, 0); drop(d); }
        void leaky() { float* d; cudaMalloc(&d, 4); norm(d, 0); }
        """))
    base = PRELUDE.count("\n")
    fewer = analyze_file(str(src), Settings(cuda_mode="shim")).findings
    monkeypatch.setattr(hostflow, "functions_read", lambda calls: set(range(len(calls))))
    every = analyze_file(str(src), Settings(cuda_mode="shim")).findings
    assert [(f.rule, f.line - base) for f in fewer] == [("CUDA401", 5)]
    assert fewer == every
