"""The --confirm runner's static half and its judges: no GPU needed.

Argument synthesis, geometry choice, the device-only view, and the judges fed with real tool
output captured on an H200 (tests/data/gpu/)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cudalint.engine import analyze_file
from cudalint.findings import Finding
from cudalint.gpu import arguments, execute, judges, launch_shape, plan, runner, views
from cudalint.gpu.host import judge_host, program_sources
from cudalint.gpu.proc import Run
from cudalint.model import Launch, Loc
from cudalint.settings import Settings
from workflow_helpers import gpu_child

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "gpu"
RUNNER_DATA = DATA / "runner"


def _f(line=10, kernel="k", category="misaligned-access", rule="CUDA101", message="m", path="f.cu", related=(),
       properties=()):
    return Finding(rule, "x", category, "error", path, line, 1, line, 1, message, kernel=kernel,
                   related=tuple(related), properties=tuple(properties))


# ----------------------------------------------------------------------------- override values


@pytest.mark.parametrize("expr,value", [
    ("4 * 2 * 64", 512), ("7 / 2", 3), ("-7 / 2", -3), ("-7 % 2", -1), ("1 << 20", 1 << 20), ("2.0f", 2.0),
    ("0x10", 16), ("256u", 256), ("1e-5f", 1e-5), ("(1 << 16) / 4", 1 << 14),
])
def test_c_eval(expr, value):
    assert launch_shape.c_eval(expr) == pytest.approx(value)


def test_c_eval_rejects_non_constants():
    with pytest.raises(launch_shape.EvalError):
        launch_shape.c_eval("d_x")
    with pytest.raises(launch_shape.EvalError):
        launch_shape.c_eval("foo(3)")


# ----------------------------------------------------------------------------- parameters


def _model(tmp_path, src):
    from cudalint.engine import file_model
    p = tmp_path / "k.cu"
    p.write_text(src)
    return file_model(str(p), Settings())


def test_parameters_typed_by_libclang(tmp_path):
    m = _model(tmp_path, "__global__ void saxpy(int n, float a, const float* __restrict__ x, float4 *y, "
                         "unsigned long long m, size_t s, half h, const uchar4* c, double2** rows) {}\n")
    (k,) = m.kernels
    assert [p.name for p in k.signature] == list(k.params) == ["n", "a", "x", "y", "m", "s", "h", "c", "rows"]
    n, a, x, y, mm, s, h, c, rows = k.signature
    assert (arguments.lanes(n), n.pointer) == (("i4", 1), 0)
    assert (arguments.lanes(a), a.pointer) == (("f4", 1), 0)
    assert (arguments.lanes(x), x.pointer, x.size, x.const) == (("f4", 1), 1, 4, True)
    assert (arguments.lanes(y), y.size, y.align, y.pointer, y.const) == (("f4", 4), 16, 16, 1, False)
    assert (arguments.lanes(mm), arguments.lanes(s), arguments.lanes(h)) == (("u8", 1), ("u8", 1), ("f2", 1))
    assert (arguments.lanes(c), c.size) == (("u1", 4), 4)
    assert (rows.pointer, rows.element, rows.size) == (2, "double2", 16)


def test_parameters_of_a_template_instantiation(tmp_path):
    m = _model(tmp_path, "template <typename T, int BLOCK> __global__ void red(const T* in, T* out, int n) {}\n"
                         "int main() { double *a, *b; red<double, 256><<<1, 256>>>(a, b, 7); }\n")
    (k,) = m.kernels
    assert [(p.name, arguments.lanes(p)[0], p.pointer) for p in k.signature] == [("in", "f8", 1), ("out", "f8", 1), ("n", "i4", 0)]
    (launch,) = m.launches
    assert launch.arg_values[2] == 7


def test_lanes_of_structs_and_vectors():
    from cudalint.model import Param
    assert arguments.lanes(Param("p", "Particle *", "Particle", 1, 16, 16, False)) == (None, 1)
    assert arguments.lanes(Param("h", "__half2 *", "__half2", 1, 4, 4, False)) == ("f2", 2)
    assert arguments.lanes(Param("v", "float3", "float3", 0, 12, 4, False)) == ("f4", 3)
    assert arguments.lanes(Param("raw", "void *", "void", 1, 0, 1, False)) == ("f4", 1)


# ----------------------------------------------------------------------------- device view


def test_device_view_keeps_lines_and_drops_host_code():
    src = (ROOT / "fixtures/misaligned/saxpy_float4.cu").read_text()
    view, offset = views.device_view(src, "fixtures/misaligned/saxpy_float4.cu")
    lines, orig = view.split("\n")[offset:], src.split("\n")
    assert len(lines) == len(orig)
    assert '#line 1 "saxpy_float4.cu"' in view.split("\n")[offset - 1]
    # kernels verbatim, host code and host headers blanked
    for i, (a, b) in enumerate(zip(orig, lines), start=1):
        assert b in ("", a), i
    assert "int main" not in view and "#include <cstdio>" not in view and "cudaMalloc" not in view
    assert "__global__ void saxpy_vec4_unscaled" in view


def test_device_view_keeps_device_headers_and_constexpr():
    src = "#include <cuda_fp16.h>\n#include <vector>\nconstexpr int cdiv(int a, int b) { return (a + b - 1) / b; }\n" \
          "static void host_only() { std::vector<int> v; }\n__device__ int twice(int x) { return 2 * x; }\n"
    view, off = views.device_view(src, "a.cu")
    body = view.split("\n")[off:]
    assert body[0] == "#include <cuda_fp16.h>" and body[1] == "" and body[2].startswith("constexpr")
    assert body[3] == "" and body[4].startswith("__device__")


def test_device_view_supplies_the_c_library_constants_it_uses():
    """NVRTC has no <cfloat>/<climits>/<math.h>: the view defines the constants the source names
    (each under #ifndef, so a definition of the user's own wins), and no others."""
    src = "#include <cfloat>\n__global__ void k(float* m, int* i) { m[0] = -FLT_MAX; i[0] = INT_MAX; m[1] = M_PI; }\n"
    view, off = views.device_view(src, "a.cu")
    head = view.split("\n")[:off]
    for name, value in (("FLT_MAX", "3.402823466e+38F"), ("INT_MAX", "2147483647"), ("M_PI", "3.14159265358979323846")):
        i = head.index(f"#ifndef {name}")
        assert head[i + 1:i + 3] == [f"#define {name} {value}", "#endif"]
    assert "#ifndef DBL_MAX" not in head
    assert views.device_view("__global__ void k() {}\n", "a.cu")[0].count("#ifndef") == 2  # INFINITY, NAN


def test_device_view_expands_the_users_headers_in_place(tmp_path):
    """A user header that includes C library headers (NVRTC has none) and defines host helpers
    goes into the view where it is included (it may use the file's earlier typedefs), as device
    code only, once, under its own name; every user line keeps its name and number."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "graph.h").write_text('#pragma once\n#include <cstdio>\n#include "types.h"\n'
                                              'static void load(const char* f) { FILE* p = fopen(f, "r"); }\n'
                                              '__device__ inline weight_t twice(weight_t x) { return 2 * x; }\n')
    (tmp_path / "inc" / "types.h").write_text("typedef int vertex_t;\n")
    src = ('typedef float weight_t;\n#include "graph.h"\n#include <graph.h>\n'
           '__global__ void k(vertex_t* v, weight_t* w) {\n  w[0] += twice(w[v[0]]);\n}\n')
    view, off = views.device_view(src, str(tmp_path / "a.cu"), include_dirs=(str(tmp_path / "inc"),))
    lines = view.split("\n")
    assert lines[off - 1] == '#line 1 "a.cu"' and "<cstdio>" not in view and "fopen" not in view
    assert view.count('#line 1 "graph.h"') == 1 and view.index('#line 1 "types.h"') > view.index('#line 1 "graph.h"')
    assert view.index("typedef float weight_t;") < view.index("twice(weight_t x)")
    for n, text in enumerate(src.split("\n"), start=1):
        if text.startswith(("typedef", "__global__", "  w[0]")):
            assert lines[views.view_row(lines, off, n)] == text, n
    variant = views.atomic_variant(view, off, 5)
    assert "atomicAdd(&(w[0]), twice(w[v[0]]));" in variant and "typedef int vertex_t;" in variant


# ----------------------------------------------------------------------------- geometry


class _K:
    def __init__(self, name="k", qualname="k", usr="", launch_bounds=None, block_dim_comment=None):
        self.name, self.qualname, self.usr = name, qualname, usr
        self.launch_bounds, self.block_dim_comment = launch_bounds, block_dim_comment
        self.events, self.loops, self.template_args, self.is_template_pattern = (), {}, (), False


class _M:
    def __init__(self, launches=()):
        self.launches = tuple(launches)


def _launch(line, grid, block, shared=0, args=()):
    return Launch("k", "", (), grid, block, shared, Loc("f.cu", line, 1, line, 1), tuple(args))


def test_geometry_from_the_launch_the_finding_names():
    m = _M([_launch(40, (8, 1, 1), (128, 1, 1)), _launch(50, (4, 1, 1), (64, 1, 1), 256)])
    g = launch_shape.choose_shape(_f(properties=(("block_dim", "64,1,1"), ("launch_line", 50))), _K(), m)
    assert (g.grid, g.block, g.shared_bytes) == ((4, 1, 1), (64, 1, 1), 256)
    assert "line 50" in g.source


def test_geometry_default_widened_for_the_witness():
    g = launch_shape.choose_shape(_f(properties=(("witnesses", (((200, 1, 0), (3, 0, 0)),)),)), _K(), _M())
    assert g.block == (201, 2, 1) and g.grid == (4, 1, 1)


def test_geometry_ignores_far_witness_blocks():
    far = (("witnesses", (((1, 0, 0), (304831, 32767, 48834)),)),)
    g = launch_shape.choose_shape(_f(properties=far), _K(), _M([_launch(9, None, (256, 1, 1))]))
    assert g.block == (256, 1, 1) and g.grid == launch_shape.DEFAULT_GRID and "outside" in g.source


def test_geometry_launch_bounds_config_and_override():
    assert launch_shape.choose_shape(_f(), _K(launch_bounds=512), _M()).block == (512, 1, 1)
    s = Settings(block_dims={"k": (32, 8, 1)})
    assert launch_shape.choose_shape(_f(), _K(), _M(), s).block == (32, 8, 1)
    g = launch_shape.choose_shape(_f(), _K(), _M(), s, {"block": "(16,16)", "grid": "(3)", "shared": "1024"})
    assert (g.block, g.grid, g.shared_bytes) == ((16, 16, 1), (3, 1, 1), 1024)


def test_geometry_caps_huge_grids():
    g = launch_shape.choose_shape(_f(), _K(), _M([_launch(9, (100000, 1, 1), (256, 1, 1))]))
    assert g.grid[0] <= launch_shape.MAX_BLOCKS


def test_overrides_comment():
    src = "// cudalint-confirm: grid=(4,1,1) block=(256) n=4096 skip\n__global__ void k(int n) {\n}\n"
    assert launch_shape.overrides(src, Loc("f.cu", 2, 1, 3, 1)) == {"grid": "(4,1,1)", "block": "(256)", "n": "4096", "skip": "1"}


# ----------------------------------------------------------------------------- arguments


def _params(*spec):
    """Param per "name:element:pointer" (size from the element's numpy type; structs 16 bytes)."""
    from cudalint.model import Param
    sizes = {"int": 4, "float": 4, "double": 8, "float4": 16}
    out = []
    for item in spec:
        name, element, pointer = item.split(":")
        out.append(Param(name, element + " *" * int(pointer), element, int(pointer), sizes.get(element, 16), 4, False))
    return out


def test_synthesize_from_launch_site_constants():
    params = _params("n:int:0", "a:float:0", "x:float:1", "y:float4:1")
    launch = Launch("k", "", (), (2, 1, 1), (64, 1, 1), 0, Loc("f.cu", 5, 1, 5, 1), ("n - 2", "2.0f", "d_x", "d_y"),
                    arg_values=(510, None, None, None), arg_reals=(None, 2.0, None, None))
    geom = launch_shape.LaunchShape((2, 1, 1), (64, 1, 1), 0, "launch", launch)
    ap = arguments.synthesize_args(params, geom)
    assert ap.problem is None
    assert [(a.name, a.kind) for a in ap.args] == [("n", "scalar"), ("a", "scalar"), ("x", "buffer"), ("y", "buffer")]
    assert ap.args[0].value == 510 and ap.args[1].value == 2.0
    assert all(a.nbytes >= arguments.MIN_BUFFER and a.nbytes % 256 == 0 for a in ap.args[2:])


def test_synthesize_defaults_make_size_guards_true():
    geom = launch_shape.LaunchShape((2, 1, 1), (128, 1, 1), 0, "default")
    ap = arguments.synthesize_args(_params("x:float:1", "n:int:0", "s:double:0"), geom)
    n = ap.args[1]
    assert n.value >= geom.threads  # `if (i < n)` holds for every thread
    assert ap.args[2].value == 1.5
    assert ap.args[0].nbytes >= 16 * 4 * n.value  # the heuristic covers x[0..n) with room


def test_synthesize_refuses_structs_and_double_pointers():
    geom = launch_shape.LaunchShape((1, 1, 1), (32, 1, 1), 0, "default")
    ap = arguments.synthesize_args(_params("p:Params:0", "x:float:1"), geom)
    assert ap.problem and "Params" in ap.problem
    ap = arguments.synthesize_args(_params("rows:float:2"), geom)
    assert ap.problem and "pointer to pointers" in ap.problem


def test_synthesize_buffer_bounds_from_the_model():
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    path = ROOT / "fixtures/misaligned/saxpy_float4.cu"
    model = build_model(parse(str(path), Settings()))
    k = next(k for k in model.kernels if k.name == "saxpy_vec4_unscaled")
    geom = launch_shape.LaunchShape((64, 1, 1), (256, 1, 1), 0, "test")
    b = arguments.buffer_bounds(k, geom, {"n": 1 << 20})
    # i = global id < 64*256, float4 at x + i: the last byte is 4*(16383) + 16
    assert b["x"] == 4 * (64 * 256 - 1) + 16
    assert b["out"] == 16 * (64 * 256 - 1) + 16


def test_buffer_bounds_of_accesses_in_loops():
    """A loop counter is a fresh variable per access (it used to make every loop access unbounded)."""
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    model = build_model(parse(str(ROOT / "fixtures/barriers/loop_trip_count.cu"), Settings()))
    k = next(k for k in model.kernels if k.name == "row_pairs_thread_loop")
    b = arguments.buffer_bounds(k, launch_shape.LaunchShape((4, 1, 1), (256, 1, 1), 0, "test"), {"n": 1000})
    # row = in + blockIdx.x * n, row[k] for k < n: 4 rows of 1000 floats; out[blockIdx.x * 256 + tid]
    assert b == {"in": 4 * 1000 * 4, "out": 4 * 256 * 4}


def test_dynamic_shared_size_that_is_not_a_constant():
    """`<<<rows, block, ncols_pad * sizeof(int)>>>` with ncols_pad from a call: 48 KiB, not 0 bytes."""
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    model = build_model(parse(str(ROOT / "fixtures/races/strided_rows.cu"), Settings()))
    k = next(k for k in model.kernels if k.name == "argsort_rows")
    g = launch_shape.choose_shape(_f(kernel="argsort_rows", category="data-race"), k, model)
    assert g.shared_bytes == 48 << 10 and "the most without opting in" in g.source
    plain = next(k for k in model.kernels if k.name == "scale_rows")
    assert launch_shape.choose_shape(_f(kernel="scale_rows", category="data-race"), plain, model).shared_bytes == 0


# ----------------------------------------------------------------------------- judges on real tool output


def _job(runs, run_plan=None, geometry=None):
    j = plan.KernelJob("f.cu", "k", [0], plan=run_plan or {"args": [{"name": "out"}]},
                         geometry=geometry or launch_shape.LaunchShape((1, 1, 1), (64, 1, 1), 0, "test"))
    j.runs = runs
    return j


def _run(tool, output="", result=None, timed_out=False, rc=0):
    return Run(tool, [], rc=rc, timed_out=timed_out, output=output, result=result if result is not None else {"runs": 1, "digests": [["a"]]})


def test_judge_misaligned_memcheck_line():
    out = (DATA / "memcheck_vec4_probe.txt").read_text()
    job = _job({"plain": _run("plain", result={"error": "cudaErrorMisalignedAddress"}), "memcheck": _run("memcheck", out)})
    c = judges.judge_misaligned(_f(line=7, path="vec4_probe.cu"), job)
    assert c.status == "confirmed" and "16 bytes" in c.detail and "line 7" in c.detail
    masked = judges.judge_misaligned(_f(line=9), job)
    assert masked.status == "unsupported" and "line 7" in masked.detail


def test_judge_misaligned_falls_back_to_the_optimised_build():
    # the -G build ran clean (its 8-byte access split in two); the optimised build faulted at line 7
    out = (DATA / "memcheck_vec4_probe.txt").read_text()
    job = _job({"plain": _run("plain"), "memcheck": _run("memcheck", "========= ERROR SUMMARY: 0 errors\n"),
                "memcheck-optimised": _run("memcheck-optimised", out)})
    c = judges.judge_misaligned(_f(line=7, path="vec4_probe.cu"), job)
    assert (c.status, c.method) == ("confirmed", "compute-sanitizer memcheck (optimised build)")
    assert "line 7" in c.detail and "-G build did not fault" in c.detail
    assert judges.judge_misaligned(_f(line=9), job).status == "not-reproduced"
    # optimised code can blame a neighbouring line: a load's report does not confirm a store there
    store = judges.judge_misaligned(_f(line=7, properties=(("access", "write"),)), job)
    assert store.status == "not-reproduced"


def test_judge_misaligned_load_reported_at_its_use():
    """Optimised code does the 8-byte load of line 95 at its only use, line 96 (a store): the
    report counts for line 95 (the kernel's only 8-byte read), never for the store at 96."""
    out = (RUNNER_DATA / "memcheck_optimised_moved_load.txt").read_text()
    job = _job({"plain": _run("plain"), "memcheck": _run("memcheck", "========= ERROR SUMMARY: 0 errors\n"),
                "memcheck-optimised": _run("memcheck-optimised", out)})
    job.accesses = {95: {("read", 8)}, 96: {("write", 8)}}
    c = judges.judge_misaligned(_f(line=95, properties=(("access", "read"),)), job)
    assert c.status == "confirmed" and "reported at line 96" in c.detail and "8 bytes at line 95" in c.detail
    store = judges.judge_misaligned(_f(line=96, properties=(("access", "write"),)), job)
    assert store.status == "not-reproduced"
    job.accesses = {95: {("read", 8)}, 96: {("write", 8)}, 97: {("read", 8)}}  # two candidates: not taken
    assert judges.judge_misaligned(_f(line=95, properties=(("access", "read"),)), job).status == "not-reproduced"


def test_judge_misaligned_names_the_user_line_not_the_header():
    out = (RUNNER_DATA / "memcheck_header_frame.txt").read_text()
    job = _job({"plain": _run("plain", result={"error": "cudaErrorMisalignedAddress"}), "memcheck": _run("memcheck", out)})
    job.path = "fixtures/misaligned/half_pack.cu"
    assert judges.judge_misaligned(_f(line=77, path=job.path), job).status == "confirmed"
    other = judges.judge_misaligned(_f(line=78, path=job.path), job)
    assert other.status == "unsupported" and other.detail.startswith("not reached: the kernel stops at the misaligned access on line 77 first")


def test_judge_misaligned_without_sanitizer():
    job = _job({"plain": _run("plain", result={"error": "cudaErrorMisalignedAddress"})})
    assert judges.judge_misaligned(_f(), job).status == "confirmed"
    job = _job({"plain": _run("plain")})
    assert judges.judge_misaligned(_f(), job).status == "not-reproduced"


def test_judge_race_racecheck_lines():
    out = (DATA / "racecheck_race_probe.txt").read_text()
    from cudalint.gpu import evidence as ev
    hz = ev.parse_racecheck(out)
    line = hz[0].first.line
    job = _job({"plain": _run("plain"), "racecheck": _run("racecheck", out)})
    c = judges.judge_race(_f(line=line, category="data-race", rule="CUDA201", message="shared race",
                             path="race_probe.cu"), job)
    assert c.status == "confirmed" and "hazards" in c.detail
    c = judges.judge_race(_f(line=999, category="data-race", rule="CUDA201", message="shared race"), job)
    assert c.status == "not-reproduced"


def test_judge_race_hazards_in_an_included_helper_name_the_header():
    """fixtures/races/warp_helpers_user.cu calls a helper of warp_helpers.cuh (racecheck on the H200):
    the hazards are the header's lines 8-10, not the .cu file's line 10."""
    job = _job({"plain": _run("plain"), "racecheck": _run("racecheck", (RUNNER_DATA / "racecheck_header_helper.txt").read_text())})
    race = dict(category="data-race", rule="CUDA202", message="warp race")
    assert judges.judge_race(_f(line=9, path="fixtures/races/warp_helpers.cuh", **race), job).status == "confirmed"
    assert judges.judge_race(_f(line=10, path="fixtures/races/warp_helpers_user.cu", **race), job).status == "not-reproduced"


def _cmp(differ=0, beyond=0, max_rel=None, elements=0):
    return {"runs_differ": differ, "runs_beyond": beyond, "max_rel": max_rel, "elements": elements}


def test_judge_global_race_differential():
    run_plan = {"args": [{"name": "in", "dtype": "f4"}, {"name": "out", "dtype": "u4"}]}
    f = _f(category="data-race", rule="CUDA203", message="global race")
    same = _run("plain-diff", result={"runs": 64, "compare": [_cmp(), _cmp()]})
    assert judges.judge_race(f, _job({"plain-diff": same}, run_plan)).status == "not-reproduced"
    lost = _run("plain-diff", result={"runs": 7, "compare": [_cmp(), _cmp(1, 1, None, 1)]})
    c = judges.judge_race(f, _job({"plain-diff": lost}, run_plan))
    assert c.status == "confirmed" and "`out`" in c.detail and "`in`" not in c.detail and "exactly" in c.detail
    job = _job({"plain-diff": lost}, run_plan)
    job.lines = {"data-race": {f.line, 14}}  # a shared race at line 14 changes `out` as well
    c = judges.judge_race(f, job)
    assert c.status == "unsupported" and "line(s) 14" in c.detail


def test_atomic_variant_rewrites_one_read_modify_write():
    view = "#line 1 \"f.cu\"\n__global__ void k(unsigned* c, float* t, float v) {\n    *c += 1;   // x\n" \
           "    t[2] -= v;\n    c[1]++;\n    float s = 0; s += v;\n    t[f(1)] += v;\n}\n"
    # source line L is view line offset + L - 1 (the #line directive comes first)
    assert views.atomic_variant(view, 1, 2).split("\n")[2] == "    atomicAdd(&(*c), 1);   // x"
    assert views.atomic_variant(view, 1, 3).split("\n")[3] == "    atomicAdd(&(t[2]), -(v));"
    assert views.atomic_variant(view, 1, 4).split("\n")[4] == "    atomicAdd(&(c[1]), 1);"
    assert views.atomic_variant(view, 1, 5) is None  # a local: nothing shared
    assert views.atomic_variant(view, 1, 6) is None  # a call in the subscript: not rewritten
    assert views.atomic_variant(view, 1, 99) is None
    extremes = "#line 1 \"g.cu\"\n  best[0] = max(best[0], v[i]);\n  lo[j] = min(lo[j], d);\n  m = max(m, v[i]);\n"
    assert views.atomic_variant(extremes, 1, 1).split("\n")[1] == "  atomicMax(&(best[0]), v[i]);"
    assert views.atomic_variant(extremes, 1, 2).split("\n")[2] == "  atomicMin(&(lo[j]), d);"
    assert views.atomic_variant(extremes, 1, 3) is None  # a local


def test_judge_global_race_by_atomic_variant():
    """Every run loses the same updates (a warp's lanes all add to one counter): the runs agree,
    the atomic variant does not."""
    run_plan = {"args": [{"name": "in", "dtype": "f4"}, {"name": "count", "dtype": "u4"}]}
    f = _f(line=26, category="data-race", rule="CUDA203", message="global race")
    result = {"runs": 64, "compare": [_cmp(), _cmp()],
              "variant": {"compiled": True, "buffers": [None, {"max_rel": None, "elements": 1, "beyond": True}]}}
    job = _job({"plain-diff": _run("plain-diff", result=result)}, run_plan)
    job.variant_line = 26
    c = judges.judge_race(f, job)
    assert (c.status, c.method) == ("confirmed", "atomic-variant") and "`count`" in c.detail
    job.variant_line = 30  # the variant rewrote another line
    assert judges.judge_race(f, job).status == "not-reproduced"
    job.variant_line, job.lines = 26, {"data-race": {26, 14}}  # another race could change `count`
    assert judges.judge_race(f, job).status == "not-reproduced"


def test_judge_float_reordering_is_no_race():
    run_plan = {"args": [{"name": "in", "dtype": "f4"}, {"name": "total", "dtype": "f4"}]}
    f = _f(category="data-race", rule="CUDA203", message="global race")
    rounding = _run("plain-diff", result={"runs": 64, "compare": [_cmp(), _cmp(50, 0, 8e-7, 1)]})
    c = judges.judge_race(f, _job({"plain-diff": rounding}, run_plan))
    assert c.status == "not-reproduced" and "rounding" in c.detail and "`total`" in c.detail
    lost = _run("plain-diff", result={"runs": 2, "compare": [_cmp(), _cmp(1, 1, 0.08, 1)]})
    assert judges.judge_race(f, _job({"plain-diff": lost}, run_plan)).status == "confirmed"


def test_judge_values_in_another_order_is_no_race():
    """Stream compaction through atomicAdd slots writes the same values at other positions each run."""
    run_plan = {"args": [{"name": "out", "dtype": "f4"}, {"name": "count", "dtype": "u4"}]}
    f = _f(category="data-race", rule="CUDA203", message="global race")
    moved = dict(_cmp(3, 0, None, 4010), runs_permuted=3)
    c = judges.judge_race(f, _job({"plain-diff": _run("plain-diff", result={"runs": 4, "compare": [moved, _cmp()]})}, run_plan))
    assert c.status == "not-reproduced" and "order" in c.detail and "`out`" in c.detail
    mixed = dict(_cmp(3, 1, 0.5, 7), runs_permuted=2)  # one run lost a value
    assert judges.judge_race(f, _job({"plain-diff": _run("plain-diff", result={"runs": 4, "compare": [mixed, _cmp()]})},
                                     run_plan)).status == "confirmed"


def test_child_tells_a_reordering_from_a_change():
    np = pytest.importorskip("numpy")
    ch = gpu_child()
    for dtype in ("u4", "f4"):
        first = np.array([1, 2, 3, 4], dtype="<" + dtype).view("u1")
        moved = ch._compare(np, first, np.array([3, 1, 4, 2], dtype="<" + dtype).view("u1"), dtype, execute.FLOAT_RTOL)
        assert (moved["beyond"], moved["permuted"]) == (False, True)
        lost = ch._compare(np, first, np.array([3, 1, 4, 4], dtype="<" + dtype).view("u1"), dtype, execute.FLOAT_RTOL)
        assert lost["beyond"] and not lost.get("permuted")


def test_child_compares_floats_with_a_relative_tolerance():
    """Real totals of fixtures/races/global_accumulate.cu, 12 launches each from identical inputs (H200):
    the float atomicAdd sum moves by rounding only, the plain `+=` sum loses updates."""
    import json
    np = pytest.importorskip("numpy")  # the child's own dependency (CuPy needs it); in the test extra
    ch = gpu_child()
    runs = json.loads((RUNNER_DATA / "global_accumulate_runs.json").read_text())

    def worst(key, dtype):
        vals = runs[key]["values"]
        first = np.array([vals[0]], dtype="<" + dtype).view("u1")
        found = [ch._compare(np, first, np.array([v], dtype="<" + dtype).view("u1"), dtype, execute.FLOAT_RTOL)
                 for v in vals[1:]]
        return [d for d in found if d is not None]

    atomic = worst("sum_atomic O3 x16", "f4")
    assert atomic and not any(d["beyond"] for d in atomic)  # they differ, by rounding
    assert all(d["beyond"] for d in worst("sum_plain G x1", "f4"))
    counts = worst("count_above_plain G x1", "u4")  # 12 runs, one lost update fewer in one of them
    assert counts and all(d["beyond"] and d["max_rel"] is None for d in counts)
    nan = np.array([np.nan, 1.0], dtype="<f4").view("u1")
    assert ch._compare(np, nan, nan.copy(), "f4", execute.FLOAT_RTOL) is None


def test_child_fills_index_buffers_with_aligned_small_offsets():
    np = pytest.importorskip("numpy")
    ch = gpu_child()
    rng = np.random.default_rng(1)
    idx = ch._fill(np, rng, "i4", 4096, "index").view("<i4")
    assert set(np.unique(idx)) == {16 * k for k in range(1, 8)}
    vals = ch._fill(np, rng, "i4", 4096).view("<i4")
    assert vals.min() >= 1 and len(set(vals % 16)) > 1  # value buffers stay plain random data


def test_child_fills_offset_buffers_below_their_range():
    np = pytest.importorskip("numpy")
    ch = gpu_child()
    vals = ch._fill(np, np.random.default_rng(1), "i4", 4096, "offsets", 512).view("<i4")
    assert vals.min() >= 0 and vals.max() <= 511 and (vals >= 256).sum() > 200  # across the range
    assert 0.45 < (vals < 4).mean() < 0.6  # and half of them meet, as neighbours do in a graph
    bounds = ch._fill(np, np.random.default_rng(1), "i4", 4096, "bounds", 512).view("<i4")
    steps = np.diff(bounds.astype(np.int64))
    assert bounds.max() <= 511 and ((8 <= steps) & (steps <= 39)).sum() == steps.size - (steps < 0).sum()
    assert (steps < 0).sum() < 60  # rising CSR offsets, wrapping at the range


CSR_KERNEL = """
__global__ void relax_first(const int* nindex, const int* nlist, int* best, int numv) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numv) {
        int nei = nlist[nindex[i]];
        if (i < nei) best[nei] = i;
    }
}
"""


CSR_LOOP_KERNEL = """
__global__ void relax_all(const int* nindex, const int* nlist, int* dist, int numv) {
    int v = blockIdx.x;
    if (v < numv)
        for (int j = nindex[v] + threadIdx.x; j < nindex[v + 1]; j += blockDim.x)
            dist[nlist[j]] = min(dist[nlist[j]], dist[v] + 1);
}
"""


def test_offset_buffers_range_up_to_the_vertex_count(tmp_path):
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    src = tmp_path / "csr.cu"
    src.write_text(CSR_KERNEL)
    (k,) = build_model(parse(str(src), Settings())).kernels
    geom = launch_shape.LaunchShape((2, 1, 1), (64, 1, 1), 0, "default")
    ap = arguments.synthesize_args(k.signature, geom, k)
    by = {a.name: a for a in ap.args}
    assert by["numv"].value == 512
    assert {n: (by[n].fill, by[n].fill_range) for n in ("nindex", "nlist")} == {"nindex": ("offsets", 512),
                                                                               "nlist": ("offsets", 512)}
    assert by["best"].fill == "random"
    src.write_text(CSR_LOOP_KERNEL)
    (k,) = build_model(parse(str(src), Settings())).kernels
    by = {a.name: a.fill for a in arguments.synthesize_args(k.signature, geom, k).args}
    assert by == {"nindex": "bounds", "nlist": "offsets", "dist": "random", "numv": "random"}
    # a vertex count far above the threads: values stay at 4 per thread, so that they meet
    assert arguments.offset_range([1 << 20], geom) == 512
    assert arguments.offset_range([3], geom) == 8 and arguments.offset_range([], geom) == 128


def test_kernel_of_a_header_finding_is_built_from_the_file_that_calls_into_it():
    from cudalint.findings import VIA_NOTE, Related
    f = _f(line=76, category="barrier-divergence", rule="CUDA204", path="include/reduce.h")
    assert runner.kernel_file(f) == "include/reduce.h"
    f = f.with_(related=(Related("include/reduce.h", 40, 3, "the other access"),
                         Related("src/pull.cu", 67, 13, VIA_NOTE), Related("include/reduce.h", 90, 5, VIA_NOTE)))
    assert runner.kernel_file(f) == "src/pull.cu"


def test_index_buffers_from_the_model():
    from cudalint.frontend.parse import parse
    from cudalint.frontend.tu import build_model
    path = ROOT / "fixtures/misaligned/vector_copy.cu"
    model = build_model(parse(str(path), Settings()))
    ks = {k.name: k for k in model.kernels}
    assert arguments.index_buffers(ks["gather_vec4"]) == {"idx"}  # in + idx[i]
    assert arguments.index_buffers(ks["dequeue_vec4"]) == {"cursor"}  # in + atomicAdd(cursor, 4)
    assert arguments.index_buffers(ks["copy_vec4"]) == set()
    relax = build_model(parse(str(ROOT / "fixtures/races/global_relax.cu"), Settings()))
    # dist_old[src[e]], dist_new[dst[e]]: element-wide accesses, alignment is no concern; random data
    # (7 values, as many destinations) keeps the race observable
    assert all(arguments.index_buffers(k) == set() for k in relax.kernels)
    k = ks["gather_vec4"]
    ap = arguments.synthesize_args(k.signature, launch_shape.LaunchShape((2, 1, 1), (128, 1, 1), 0, "default"), k)
    assert {a.name: a.fill for a in ap.args} == {"in": "random", "idx": "index", "out": "random"}


def test_judge_barrier_synccheck_and_hang():
    out = (DATA / "synccheck_divergent_block.txt").read_text()
    from cudalint.gpu import evidence as ev
    line = ev.parse_synccheck(out)[0].line
    f = _f(line=line, category="barrier-divergence", rule="CUDA204", path="divergent_block.cu")
    job = _job({"plain": _run("plain"), "synccheck": _run("synccheck", out)})
    assert judges.judge_barrier(f, job).status == "confirmed"
    hung = _job({"plain": _run("plain", timed_out=True, result={})})
    c = judges.judge_barrier(_f(line=1, category="barrier-divergence"), hung)
    assert c.status == "confirmed" and c.method == "hang"


def _exits(line):
    return Finding("CUDA204", "x", "barrier-divergence", "error", "f.cu", line, 1, line, 1, "m", kernel="k",
                   properties=(("skipping_threads", "exit"),))


def test_judge_barrier_exiting_skippers_without_arrival_counts():
    """No synccheck report and no counts: unsupported when the static pass says the skipping
    threads exit (sm_70+ counts them as arrived), not-reproduced otherwise."""
    clean = (DATA / "synccheck_race_probe.txt").read_text()
    job = _job({"plain": _run("plain"), "synccheck": _run("synccheck", clean)})
    c = judges.judge_barrier(_exits(15), job)
    assert c.status == "unsupported" and "exited threads count as arrived" in c.detail
    assert judges.judge_barrier(_f(line=15, category="barrier-divergence"), job).status == "not-reproduced"


def _arrivals(name):
    import json
    rows = json.loads((RUNNER_DATA / "arrivals.json").read_text())[name]
    return _run("arrivals", result={"runs": 1, "arrivals": rows})


def test_judge_barrier_by_arrival_counts():
    """Counts from the H200: in early_return.cu's last block 24 threads exit before line 15."""
    clean = (DATA / "synccheck_race_probe.txt").read_text()
    runs = {"plain": _run("plain"), "synccheck": _run("synccheck", clean),
            "arrivals": _arrivals("early_return.cu.smooth_early_return.b256x1.arrivals.txt")}
    c = judges.judge_barrier(_exits(15), _job(runs))
    assert (c.status, c.method) == ("confirmed", "arrival count")
    assert "in block (3, 0, 0) 232 thread(s) 1 time(s), 24 thread(s) never (1 of 4 block(s) uneven)" in c.detail
    assert "sm_70 and later count as arriving" in c.detail
    loop = _arrivals("loop_trip_count.cu.row_pairs_thread_loop.b256x1.arrivals.txt")
    c = judges.judge_barrier(_f(line=20, category="barrier-divergence"), _job({"plain": _run("plain"), "arrivals": loop}))
    assert c.status == "confirmed" and "232 thread(s) 4 time(s), 24 thread(s) 3 time(s)" in c.detail
    # a whole block that returns (blockIdx-uniform) leaves the counts even: not confirmed
    even = _arrivals("early_return.cu.smooth_block_return.b256x1.arrivals.txt")
    c = judges.judge_barrier(_f(line=41, category="barrier-divergence"),
                             _job({"plain": _run("plain"), "synccheck": _run("synccheck", clean), "arrivals": even}))
    assert c.status == "not-reproduced" and "all reached it equally often (1024 arrivals counted)" in c.detail


def test_aliased_finding_runs_with_one_buffer_for_both_parameters():
    """`blur3<<<g, b>>>(d_x, d_x, n)`: the plan passes the same buffer as `in` and `out`."""
    from cudalint.engine import analyze_file
    path = str(ROOT / "fixtures/races/inplace_alias.cu")
    findings = analyze_file(path, Settings()).findings
    assert [(f.line, dict(f.properties).get("aliased")) for f in findings] == [(17, "in=out")]
    (job,) = plan.plan_kernel_jobs(path, findings, [0], Settings())
    args = {a["name"]: a for a in job.plan["args"]}
    assert args["out"]["same_as"] == 0 and "same_as" not in args["in"]
    assert args["out"]["nbytes"] == args["in"]["nbytes"] >= (1 << 16) * 4


@pytest.mark.parametrize("rel", ["fixtures/misaligned/saxpy_float4.cu", "fixtures/races/inplace_alias.cu",
                                 "fixtures/barriers/early_return.cu", "fixtures/bank/strides.cu",
                                 "fixtures/races/global_accumulate.cu"])
def test_plans_do_not_read_messages(rel):
    """Reworded messages leave every plan as it was: the runner reads the findings' properties."""
    from cudalint.engine import analyze_file
    path = str(ROOT / rel)
    findings = analyze_file(path, Settings()).findings
    idxs = [i for i, f in enumerate(findings) if f.kernel and f.category in runner.KERNEL_CATEGORIES]
    assert idxs

    def plans(fs):
        tools = {"compute-sanitizer": "cs", "ncu": "ncu"}
        return [(j.kernel, j.findings, j.problem, j.geometry, j.args, j.plan, execute.tool_plan(j, fs, tools),
                 [launch_shape.witnesses(fs[i]) for i in j.findings]) for j in plan.plan_kernel_jobs(path, fs, idxs, Settings())]
    reworded = [f.with_(message="x") for f in findings]
    assert plans(reworded) == plans(findings)
    assert all(launch_shape.witnesses(findings[i]) for i in idxs if findings[i].category != "bank-conflict")


def test_arrival_variant_counts_each_flagged_barrier():
    view = "#line 1 \"f.cu\"\n__global__ void k() {\n  __syncthreads();\n  if (x) __syncthreads ( ); __syncwarp();\n}"
    v = views.arrival_variant(view, 1, [2, 3], 1024)
    body = v.split("#line 1")[1].split("\n")
    assert body[2] == "  (cudalint_arrive(0u), __syncthreads());"
    assert body[3] == "  if (x) (cudalint_arrive(1u), __syncthreads()); __syncwarp();"
    assert "cudalint_arrivals[1024]" in v and "if (slot < 1024u)" in v
    assert views.arrival_variant(view, 1, [4], 1024) is None  # no __syncthreads() on that line


def test_judge_barrier_syncwarp_mask_illegal_instruction():
    """__syncwarp(mask) with lanes outside the mask: the plain launch traps, synccheck names line 16."""
    import json
    plain = _run("plain", result=json.loads((RUNNER_DATA / "plain_syncwarp_mask.json").read_text()))
    sc = _run("synccheck", (RUNNER_DATA / "synccheck_syncwarp_mask.txt").read_text())
    f = _f(line=16, kernel="pair_sum_bad_mask", category="barrier-divergence", rule="CUDA204",
           path="fixtures/barriers/syncwarp_mask.cu")
    c = judges.judge_barrier(f, _job({"plain": plain, "synccheck": sc}))
    assert c.status == "confirmed" and "Invalid arguments" in c.detail and "cudaErrorIllegalInstruction" in c.detail
    assert judges.judge_barrier(_f(line=18, category="barrier-divergence"), _job({"plain": plain, "synccheck": sc})).status == "error"
    c = judges.judge_barrier(f, _job({"plain": plain}))  # no compute-sanitizer: the trap, kernel-level
    assert c.status == "confirmed" and "kernel-level" in c.detail
    job = _job({"plain": plain})
    job.lines = {"barrier-divergence": {16, 20}}
    assert judges.judge_barrier(f, job).status == "error"  # two suspects: the trap names neither


def _bank(line, kernel="stride2_2way", name="ncu_source_oneshot_stride2_2way.csv", peers=(), path="strides.cu"):
    out = (RUNNER_DATA / name).read_text()
    job = _job({"plain": _run("plain"), "ncu": _run("ncu", out)})
    job.lines = {"bank-conflict": {line, *peers}}
    return judges.judge_bank(_f(line=line, kernel=kernel, category="bank-conflict", rule="CUDA301",
                                path=f"fixtures/bank/{path}"), job)


def test_judge_bank_line_level():
    c = _bank(35)  # s[2 * threadIdx.x]: 8 wavefronts where 4 would do
    assert c.status == "confirmed" and c.method == "ncu source counters" and "2.0-way" in c.detail
    c = _bank(32, peers=(35,))  # the clean stores of the same kernel
    assert c.status == "not-reproduced" and "0 excessive" in c.detail and "line(s) 35" in c.detail
    c = _bank(36)  # a global store: no shared access at the line, conflicts elsewhere
    assert c.status == "unsupported" and "line(s) 35" in c.detail
    c = _bank(33, "transpose_naive_tile", "ncu_source_transpose_naive_tile.csv", path="transpose.cu")
    assert c.status == "confirmed" and "32.0-way" in c.detail
    c = _bank(35, path="other.cu")  # lines of another file are not this file's: kernel-level fallback
    assert c.status == "error" and "no metrics" in c.detail


def test_judge_bank_kernel_level_fallback():
    """Without source-level data: kernel-level counters, and never `confirmed` for one of two suspects."""
    out = (DATA / "ncu_csv_bank_probe.txt").read_text()
    from cudalint.gpu import evidence as ev
    stats = ev.parse_ncu_bank_conflicts(out)
    name = next(k for k, v in stats.items() if v.conflicts > 0)
    job = _job({"plain": _run("plain"), "ncu": _run("ncu", ""), "ncu-kernel": _run("ncu-kernel", out)})
    f = _f(kernel=name, category="bank-conflict", properties=(("access", "read"),))
    c = judges.judge_bank(f, job)
    assert c.status == "confirmed" and "kernel-level" in c.detail
    job.lines = {"bank-conflict": {f.line, f.line + 3}}
    c = judges.judge_bank(f, job)
    assert c.status == "unsupported" and "cannot single out" in c.detail
    assert judges.judge_bank(_f(kernel=name, category="bank-conflict"), _job({"plain": _run("plain")})).status == "unsupported"


def test_judge_compile_error_and_crash():
    job = _job({"plain": _run("plain", result={"error": "compile", "compile_log": "error: identifier x is undefined"})})
    c = judges.judge_misaligned(_f(), job)
    assert c.status == "error" and "NVRTC" in c.detail
    job = _job({"plain": _run("plain", result={}, rc=-9, output="Segmentation fault")})
    assert judges.judge_race(_f(category="data-race"), job).status == "error"


def test_judge_host_free_of_a_device_pointer_by_crash_backtrace():
    """free() on a cudaMalloc'd pointer dies in glibc (SIGSEGV on the H200 machine); the runner's
    crash handler names the caller: confirmed for that function's line, not for another's."""
    out = (RUNNER_DATA / "leakcheck_mismatched_free_crash.txt").read_text()
    src = (ROOT / "fixtures/host/mismatched_free.cu").read_text()
    host = {"problem": None, "run": _run("leakcheck", out, rc=255)}
    c = judge_host(_f(line=64, kernel=None, category="mismatched-free", rule="CUDA403"), host, src)
    assert (c.status, c.method) == ("confirmed", "crash backtrace")
    assert c.detail == "the program died in free() (SIGSEGV) called from device_freed_with_free"
    clean = judge_host(_f(line=71, kernel=None, category="mismatched-free", rule="CUDA403"), host, src)
    assert clean.status == "not-reproduced"


def test_parse_crash_of_a_glibc_abort():
    """The handler's output on the CPU machine (free() of a stack address: glibc aborts)."""
    from cudalint.gpu.host import parse_crash
    c = parse_crash((RUNNER_DATA / "crash_glibc_abort_cpu.txt").read_text())
    assert c.signal_name() == "SIGABRT" and c.glibc == "munmap_chunk(): invalid pointer" and c.in_free()
    assert c.first_of(["main", "device_freed_with_free", "freed_with_free"]) == "device_freed_with_free"
    assert parse_crash("no crash here") is None


def test_judge_host_leak():
    out = (DATA / "leakcheck_leak_noinline.txt").read_text()
    src = "void leak_on_error(unsigned long n)\n{\n  cudaMalloc(&p, n);\n}\nint main() { }\n"
    host = {"problem": None, "run": _run("leakcheck", out)}
    c = judge_host(_f(line=3, kernel=None, category="memory-leak", rule="CUDA401"), host, src)
    assert c.status == "confirmed" and "leak_on_error" in c.detail
    c = judge_host(_f(line=3, kernel=None, category="memory-leak"), {"problem": "nvcc not on PATH"}, src)
    assert c.status == "unsupported"


# ----------------------------------------------------------------------------- without a GPU


def test_confirm_without_gpu_leaves_findings(monkeypatch):
    monkeypatch.setattr(runner, "gpu_status", lambda *a, **k: (False, "CuPy is not installed"))
    fs = [_f()]
    err = io.StringIO()
    out = runner.confirm(fs, Settings(), stream=err)
    assert out == fs and out[0].confirmation is None
    assert err.getvalue().count("\n") == 1 and "pip install cudalint[gpu]" in err.getvalue()


def test_confirm_never_runs_without_the_flag(monkeypatch, tmp_path):
    called = []
    monkeypatch.setattr(runner, "confirm", lambda *a, **k: called.append(1) or a[0])
    from cudalint.cli import main
    p = tmp_path / "a.cu"
    p.write_text("__global__ void k(const float* x, float4* y) { y[0] = *reinterpret_cast<const float4*>(x + 1); }\n")
    main([str(p), "-q", "-n"])
    assert not called


# ----------------------------------------------------------------------------- CuPy-run captures (H200)



def test_judge_misaligned_hardware_exception_form():
    out = (RUNNER_DATA / "memcheck_hw_misaligned.txt").read_text()
    job = _job({"plain": _run("plain", result={"error": "cudaErrorMisalignedAddress"}), "memcheck": _run("memcheck", out)})
    c = judges.judge_misaligned(_f(line=90), job)
    assert c.status == "confirmed" and "Misaligned shared or local address" in c.detail
    assert judges.judge_misaligned(_f(line=80), job).status == "unsupported"


def test_judge_misaligned_unattributed_is_kernel_level():
    out = (RUNNER_DATA / "memcheck_unattributed.txt").read_text()
    job = _job({"plain": _run("plain", result={"error": "cudaErrorMisalignedAddress"}), "memcheck": _run("memcheck", out)})
    c = judges.judge_misaligned(_f(line=88), job)
    assert c.status == "confirmed" and c.method == "launch" and "kernel-level" in c.detail


def test_a_failed_launch_is_no_evidence_against_a_race():
    job = _job({"plain": _run("plain", result={"error": "cudaErrorIllegalAddress"}), "racecheck": _run("racecheck", "")})
    c = judges.judge_race(_f(category="data-race", rule="CUDA201", message="shared race"), job)
    assert c.status == "error" and "cudaErrorIllegalAddress" in c.detail


def test_child_runs_the_atomic_variant_beside_the_kernel():
    """_variant with a stand-in for CuPy: the variant's result is compared with the first run's,
    and a failing variant reports its error instead of raising."""
    np = pytest.importorskip("numpy")
    child = gpu_child()

    class Buf:
        def __init__(self, n):
            self.a = np.zeros(n, dtype="u1")

        def set(self, h):
            self.a = h.copy()

        def get(self):
            return self.a.copy()

    class Module:
        def __init__(self, code, options, name_expressions):
            self.code = code

        def get_function(self, name):
            def launch(grid, block, args, shared_mem=0):
                if "boom" in self.code:
                    raise RuntimeError("cudaErrorIllegalAddress")
                args[0].a = np.array([8 if "atomicAdd" in self.code else 1, 0, 0, 0], dtype="u1")
            return launch

    cupy = type("cupy", (), {"RawModule": Module,
                             "cuda": type("cuda", (), {"runtime": type("rt", (), {"deviceSynchronize": staticmethod(lambda: None)})})})
    child_plan = {"variant_source": "atomicAdd(&(*c), 1);", "options": [], "name_expressions": ["k"], "kernel": "k",
            "grid": [1, 1, 1], "block": [32, 1, 1], "args": [{"kind": "buffer", "dtype": "u4", "name": "c"}]}
    init, first = [np.zeros(4, dtype="u1")], [np.array([1, 0, 0, 0], dtype="u1")]
    out = child._variant(cupy, np, child_plan, [Buf(4)], init, first, 0, {})
    assert out["compiled"] and out["buffers"][0]["beyond"] and out["buffers"][0]["max_rel"] is None
    failing = child._variant(cupy, np, dict(child_plan, variant_source="boom"), [Buf(4)], init, first, 0, {})
    assert failing["compiled"] and "IllegalAddress" in failing["error"]


# ----------------------------------------------------------------------------- structs passed by value

_CSR_PUSH = """struct Csr { int nodes; int edges; int* nindex; int* nlist; float* weight; };
__global__ void degree_push(const Csr g, int* data) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < g.nodes) for (int i = g.nindex[v]; i < g.nindex[v + 1]; i++) data[g.nlist[i]] += 1;
}
"""
_SMALL = launch_shape.LaunchShape((2, 1, 1), (64, 1, 1), 0, "test")  # 128 threads: integers default to 512


def _synthesize(tmp_path, src, ovr=None, geom=_SMALL):
    (k,) = _model(tmp_path, src).kernels
    return arguments.synthesize_args(k.signature, geom, k, ovr or {})


def test_struct_parameter_layout_from_libclang(tmp_path):
    (k,) = _model(tmp_path, _CSR_PUSH).kernels
    g = k.signature[0]
    assert (g.record, g.size, g.align, g.pointer) == ("struct", 32, 8, 0)
    assert [(f.name, f.offset, f.element, f.pointer, f.size) for f in g.fields] == [
        ("nodes", 0, "int", 0, 4), ("edges", 4, "int", 0, 4), ("nindex", 8, "int", 1, 4),
        ("nlist", 16, "int", 1, 4), ("weight", 24, "float", 1, 4)]


def test_struct_parameter_synthesised_as_one_argument_with_field_buffers(tmp_path):
    ap = _synthesize(tmp_path, _CSR_PUSH)
    assert ap.problem is None
    assert [(a.name, a.kind, a.field_of) for a in ap.args] == [
        ("g", "struct", ""), ("data", "buffer", ""), ("g.nindex", "buffer", "g"), ("g.nlist", "buffer", "g"),
        ("g.weight", "buffer", "g")]
    g = ap.args[0]
    assert g.nbytes == 32
    assert [(f.name, f.offset, f.dtype, f.value, f.buffer) for f in g.fields] == [
        ("g.nodes", 0, "i4", 512, False), ("g.edges", 4, "i4", 512, False), ("g.nindex", 8, "u8", None, True),
        ("g.nlist", 16, "u8", None, True), ("g.weight", 24, "u8", None, True)]
    nindex, nlist, weight = ap.args[2:]
    # the loop's bounds come from g.nindex: CSR offsets below the vertex count; its values index data
    assert (nindex.fill, nlist.fill, weight.fill) == ("bounds", "offsets", "random")
    assert nindex.fill_range == nlist.fill_range == 512
    # g.nindex[v + 1] with v < 128 threads: a z3 bound (516 bytes), so the smallest buffer
    assert (nindex.nbytes, nindex.source) == (arguments.MIN_BUFFER, "z3 bound on the offsets the kernel can touch")
    assert ap.describe().startswith("g: {nodes=512, edges=512, nindex, nlist, weight}, data: ")
    records = arguments.plan_records(ap.args)
    assert [f.get("buffer") for f in records[0]["fields"]] == [None, None, 2, 3, 4]
    assert [r.get("field_of") for r in records] == [None, None, 0, 0, 0]


def test_struct_fields_pinned_by_comment_and_in_the_z3_bounds(tmp_path):
    src = "// cudalint-confirm: g.nodes=100\n" + _CSR_PUSH
    (k,) = _model(tmp_path, src).kernels
    assert launch_shape.overrides(src, k.loc)["g.nodes"] == "100"
    ap = arguments.synthesize_args(k.signature, _SMALL, k, {"g.nodes": "100"})
    assert (ap.args[0].fields[0].value, ap.args[0].fields[0].source) == (100, "comment")
    big = launch_shape.LaunchShape((4, 1, 1), (256, 1, 1), 0, "test")
    # `v < g.nodes` is a load from the struct: pinned, it bounds g.nindex[v + 1] below the 1024 threads
    assert arguments.buffer_bounds(k, big, {})["g.nindex"] == 4 * 1024 + 4
    assert arguments.buffer_bounds(k, big, {}, pinned={("g", 0): 100})["g.nindex"] == 4 * 100 + 4


def test_typedefd_integers_enums_and_vectors_by_value(tmp_path):
    src = ("typedef long long llint;\nenum class Axis : short { X, Y };\nenum Direction { North, South };\n"
           "__global__ void shift(llint nx, Direction d, Axis a, float4 v, float* out) {\n"
           "  out[threadIdx.x] = nx + d + (int)a + v.x;\n}\n"
           "int main() { float* o; shift<<<2, 64>>>(1000, South, Axis::Y, make_float4(1, 2, 3, 4), o); }\n")
    m = _model(tmp_path, src)
    (k,), (launch,) = m.kernels, m.launches
    assert [(p.element, arguments.lanes(p)) for p in k.signature[:3]] == [
        ("long long", ("i8", 1)), ("unsigned int", ("u4", 1)), ("short", ("i2", 1))]
    geom = launch_shape.LaunchShape((2, 1, 1), (64, 1, 1), 0, "launch", launch)
    ap = arguments.synthesize_args(k.signature, geom, k, {})
    assert ap.problem is None
    assert [(a.name, a.kind, a.dtype, a.value) for a in ap.args[:3]] == [
        ("nx", "scalar", "i8", 1000), ("d", "scalar", "u4", 1), ("a", "scalar", "i2", 1)]
    v = ap.args[3]  # a vector by value: a struct of four lanes
    assert (v.kind, v.nbytes, [(f.name, f.offset, f.dtype, f.value) for f in v.fields]) == (
        "struct", 16, [("v.x", 0, "f4", 1.5), ("v.y", 4, "f4", 1.5), ("v.z", 8, "f4", 1.5), ("v.w", 12, "f4", 1.5)])


def test_nested_structs_arrays_and_bases_flattened(tmp_path):
    src = ("struct Box { float lo[3]; double hi; };\nstruct Base { int n; };\n"
           "struct Mesh : Base { char tag; Box box; const float* cells[2]; };\n"
           "__global__ void k(Mesh m, float* out) { out[threadIdx.x] = m.box.lo[1] + m.cells[1][threadIdx.x]; }\n")
    ap = _synthesize(tmp_path, src)
    m = ap.args[0]
    assert m.nbytes == 48  # Base::n 0, tag 4, box 8..32 (8-aligned for hi), cells 32 and 40
    assert [(f.name, f.offset, f.dtype, f.count, f.buffer) for f in m.fields] == [
        ("m.n", 0, "i4", 1, False), ("m.tag", 4, "i1", 1, False), ("m.box.lo", 8, "f4", 3, False),
        ("m.box.hi", 24, "f8", 1, False), ("m.cells[0]", 32, "u8", 1, True), ("m.cells[1]", 40, "u8", 1, True)]
    assert [a.name for a in ap.args[2:]] == ["m.cells[0]", "m.cells[1]"]


@pytest.mark.parametrize("src,ovr,message", [
    ("union Bits { int i; float f; };\n__global__ void k(Bits b, int* o) { o[0] = b.i; }\n", {},
     "parameter `b` (`Bits`) is a union, which cannot be synthesised (pin its bytes with a "
     "`// cudalint-confirm: b=VALUE` comment)"),
    ("struct R { int& r; int n; };\n__global__ void k(R s, int* o) { o[0] = s.n; }\n", {},
     "field `s.r` of parameter `s` (`R`) is a reference, which cannot be synthesised (skip the kernel with a "
     "`// cudalint-confirm: skip` comment)"),
    ("struct P { int** rows; int n; };\n__global__ void k(const P s, int* o) { o[0] = s.n; }\n", {},
     "field `s.rows` of parameter `s` (`const P`) is a pointer to pointers (`int **`), which cannot be "
     "synthesised (pin it with a `// cudalint-confirm: s.rows=VALUE` comment; 0 for a null pointer)"),
    ("struct Q { union { int i; float f; }; int n; };\n__global__ void k(Q s, int* o) { o[0] = s.n; }\n", {},
     "the member at byte 0 of parameter `s` (`Q`) is a union, which cannot be synthesised (skip the kernel "
     "with a `// cudalint-confirm: skip` comment)"),
    ("struct F { int n : 3; };\n__global__ void k(F s, int* o) { o[0] = s.n; }\n", {},
     "field `s.n` of parameter `s` (`F`) is a bit-field, which cannot be synthesised (skip the kernel with a "
     "`// cudalint-confirm: skip` comment)"),
])
def test_struct_parameters_that_cannot_be_synthesised(tmp_path, src, ovr, message):
    assert _synthesize(tmp_path, src, ovr).problem == message


def test_union_and_pointer_to_pointers_pinned_by_comment(tmp_path):
    ap = _synthesize(tmp_path, "union Bits { int i; float f; };\n__global__ void k(Bits b, int* o) { o[0] = b.i; }\n",
                     {"b": "7"})
    assert ap.problem is None and [(f.name, f.offset, f.dtype, f.value) for f in ap.args[0].fields] == [("b", 0, "u4", 7)]
    ap = _synthesize(tmp_path, "struct P { int** rows; int n; };\n__global__ void k(P s, int* o) { o[0] = s.n; }\n",
                     {"s.rows": "0"})
    assert ap.problem is None
    assert [(f.name, f.offset, f.dtype, f.value) for f in ap.args[0].fields] == [("s.rows", 0, "u8", 0), ("s.n", 8, "i4", 512)]


def test_plan_keeps_a_struct_reason_hint(tmp_path):
    """The generic `NAME=VALUE` hint is not appended to a reason that names its own comment."""
    p = tmp_path / "u.cu"
    p.write_text("struct R { int& r; int n; };\n__global__ void k(R s, int* o) { o[s.n] = 1; o[s.n + 1] = 2; }\n")
    (job,) = plan.plan_kernel_jobs(str(p), [_f(line=2, kernel="k", category="data-race", rule="CUDA203")], [0], Settings())
    assert job.problem.count("cudalint-confirm") == 1 and job.problem.endswith("`// cudalint-confirm: skip` comment)")


def test_a_programs_other_sources_are_those_beside_it_without_a_main(tmp_path):
    for name, text in (("main.cu", "int main() {}"), ("kernels.cu", "__global__ void k() {}"),
                       ("utils.cpp", "// main() is elsewhere\nint f() { return 1; }"), ("tool.cc", "int main() {}"),
                       ("notes.txt", "x"), ("io.c", "int g(void) { return 0; }")):
        (tmp_path / name).write_text(text)
    assert [Path(p).name for p in program_sources(str(tmp_path / "main.cu"))] == ["io.c", "kernels.cu", "utils.cpp"]


def test_a_kernel_the_synthesised_launch_cannot_run_is_judged_by_the_programs_own_run():
    """cudalint.gpu.program_runs: which findings try the program, and its reports read at the line."""
    from cudalint.findings import Confirmation
    from cudalint.gpu import program_runs
    fault = Confirmation("error", "launch", "the launch failed with cudaErrorIllegalAddress")
    bank = _f(line=35, kernel="stride2_2way", category="bank-conflict", rule="CUDA301", path="fixtures/bank/strides.cu")
    assert program_runs.wanted(bank, fault) and program_runs.tool_for(bank) == "ncu"
    assert not program_runs.wanted(bank, Confirmation("not-reproduced", "ncu", "0 excessive"))
    assert program_runs.tool_for(_f(category="data-race", rule="CUDA203")) is None  # racecheck does not see global memory
    ncu = {"run": _run("program-ncu", (RUNNER_DATA / "ncu_source_oneshot_stride2_2way.csv").read_text())}
    c = program_runs.judge(bank, "ncu", ncu, fault)
    assert (c.status, c.method) == ("confirmed", "ncu source counters (the program's own run)")
    assert "2.0-way" in c.detail and "first launch of stride2_2way" in c.detail
    clean = program_runs.judge(bank.with_(line=32), "ncu", ncu, fault)
    assert clean.status == "not-reproduced" and "0 excessive" in clean.detail
    race = _f(line=9, path="fixtures/races/warp_helpers.cuh", category="data-race", rule="CUDA202")
    rc = {"run": _run("program-racecheck", (RUNNER_DATA / "racecheck_header_helper.txt").read_text())}
    assert program_runs.judge(race, "racecheck", rc, fault).status == "confirmed"
    skip = _f(line=18, category="barrier-divergence", rule="CUDA204", properties=(("skipping_threads", "exit"),))
    assert program_runs.judge(skip, "synccheck", {"run": _run("program-synccheck", "")}, fault).status == "unsupported"
    no_build = program_runs.judge(bank, "ncu", {"problem": None, "build_error": "fatal error: x.h"}, fault)
    assert (no_build.status, no_build.method) == ("error", "launch")
    assert no_build.detail.endswith("the program's own run: nvcc could not build it: fatal error: x.h")


def test_arrival_variant_counts_a_call_that_holds_the_barrier():
    """A barrier inside a library call (cub's BlockReduce): the call on the flagged line is counted."""
    view = "#line 1 \"f.cu\"\n__global__ void k() {\n  if (i < n) s = BlockReduce(t).Sum(x[i]);\n}"
    row = view.split("\n")[2]
    start = row.index("BlockReduce") + 1
    v = views.arrival_variant(view, 1, [2], 64, {2: (start, start + len("BlockReduce(t).Sum(x[i])"))})
    assert v.split("#line 1")[1].split("\n")[2] == "  if (i < n) s = (cudalint_arrive(0u), BlockReduce(t).Sum(x[i]));"
    assert views.arrival_variant(view, 1, [2], 64, {2: (start - 4, start + 24)}) is None  # `s = …` is no call: nothing counted


def test_divergence_witness_scalars_reach_the_launch(tmp_path):
    """The values the solver found the divergence with are the run's scalars (a default `n` of
    4 x threads would take every thread through the guard)."""
    src = tmp_path / "tail.cu"
    src.write_text("__global__ void tail(float *x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i < n) {\n    x[i] += 1.0f;\n    __syncthreads();\n  }\n}\n")
    fs = [f for f in analyze_file(str(src), Settings()).findings if f.rule == "CUDA204"]
    assert [f.line for f in fs] == [5]
    assert dict(fs[0].properties)["witness_scalars"] == (("n", 1),)
    (job,) = plan.plan_kernel_jobs(str(src), fs, [0], Settings())
    n = [a for a in job.args.args if a.name == "n"][0]
    assert (n.value, n.source) == (1, "the finding's witness")


_SCALED_INDEX = """__global__ void gather(const int* region, const float* table, float* out, int rows, int cols) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int r = region[gid];
  for (int c = 0; c < cols; c++) out[gid] += table[r * rows * cols + c];
}
"""


def test_index_values_that_scale_an_offset_get_a_fill_that_fits(tmp_path):
    """`table[r * rows * cols + c]` with r loaded: values below the usual 512 would need a table
    of 512 x 512 x 512 floats; values below 8 fit the one the bound sizes (r <= 7, plus one row)."""
    ap = _synthesize(tmp_path, _SCALED_INDEX)
    region, table = ap.args[0], ap.args[1]
    assert (region.fill, region.fill_range) == ("offsets", arguments.MIN_FILL_RANGE)
    assert (table.nbytes, table.source) == (4 * (7 * 512 * 512 + 512) + 4096,
                                            "z3 bound on the offsets the kernel can touch")
