"""Parsers of NVIDIA tool output, tested on real outputs captured on an H200.

The data in tests/data/gpu/ was produced by scripts/gpu/capture_probes.sh and
scripts/gpu/confirm_fixtures.py on the device machine from the probes in
scripts/gpu/probes/; no GPU is needed to run these tests.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from cudalint.gpu import evidence as ev

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "gpu"
PROBES = ROOT / "scripts" / "gpu" / "probes"


def data(name: str) -> str:
    return (DATA / name).read_text()


# --------------------------------------------------------------------------- racecheck


def test_racecheck_default_report_block_error_and_warp_warning():
    hz = ev.parse_racecheck(data("racecheck_race_probe.txt"))
    assert len(hz) == 2
    warp, block = hz  # printed in this order by the tool
    assert warp.severity == "warning"
    assert warp.kernel == "warp_exchange"
    assert (warp.first_access, warp.second_access) == ("Write", "Read")
    assert (warp.first.file, warp.first.line) == ("race_probe.cu", 16)
    assert (warp.second.file, warp.second.line) == ("race_probe.cu", 17)
    assert warp.first.offset == "0xa0" and warp.second.offset == "0xb0"
    assert warp.first.function == "warp_exchange(int *)"
    assert warp.count == 128
    assert warp.category is None  # 2025.3 names no "Warp Level Programming" category here
    assert block.severity == "error"
    assert block.kernel == "shift_race"
    assert block.lines == (9, 10)
    assert block.count == 1024
    assert block.touches("race_probe.cu", 10) and block.touches("race_probe.cu", 9)
    assert not block.touches("race_probe.cu", 17)
    assert not block.touches("other.cu", 10)
    [summary] = ev.parse_summaries(data("racecheck_race_probe.txt"))
    assert (summary.tool, summary.errors, summary.warnings) == ("RACECHECK", 1, 1)


def test_racecheck_hazard_report_mode():
    hz = ev.parse_racecheck(data("racecheck_hazard_race_probe.txt"))
    assert len(hz) == 40  # --print-limit 40
    first = hz[0]
    assert first.severity == "error"
    assert first.hazard_type == "WAR"
    assert first.address_space == "shared"
    assert first.block == (0, 0, 0)
    assert (first.first_access, first.first.line) == ("Read", 10)
    assert (first.second_access, first.second.line) == ("Write", 9)
    assert first.kernel == "shift_race"
    assert {h.kernel for h in hz} == {"shift_race"}
    assert {h.lines for h in hz} == {(10, 9)}
    [summary] = ev.parse_summaries(data("racecheck_hazard_race_probe.txt"))
    assert (summary.errors, summary.warnings) == (1024, 128)


def test_racecheck_without_lineinfo_has_no_lines():
    hz = ev.parse_racecheck(data("racecheck_nolineinfo_race_probe.txt"))
    assert [(h.severity, h.kernel, h.count) for h in hz] == [
        ("error", "shift_race", 1024),
        ("warning", "warp_exchange", 128),
    ]
    assert all(h.lines == () and h.files == () for h in hz)
    assert hz[0].first.offset == "0xe0" and hz[0].second.offset == "0x100"


@pytest.mark.parametrize("name", ["racecheck_divergent_block.txt", "racecheck_last_writer.txt"])
def test_racecheck_clean_runs(name):
    # a divergent barrier is no race; racecheck does not see global memory
    assert ev.parse_racecheck(data(name)) == []
    [summary] = ev.parse_summaries(data(name))
    assert (summary.errors, summary.warnings) == (0, 0)


# --------------------------------------------------------------------------- synccheck


def test_synccheck_divergent_block():
    hs = ev.parse_synccheck(data("synccheck_divergent_block.txt"))
    assert len(hs) == 48
    block = [h for h in hs if h.scope == "block"]
    warp = [h for h in hs if h.scope == "warp"]
    assert len(block) == 32 and len(warp) == 16
    assert {h.line for h in block} == {13}  # the unconditional barrier the other threads wait at
    assert {h.line for h in warp} == {11}  # the barrier inside `if (t < 16)`
    assert sorted(h.thread[0] for h in block) == list(range(32, 64))
    assert sorted(h.thread[0] for h in warp) == list(range(0, 16))
    assert all(h.block == (0, 0, 0) and h.kernel == "divergent_block" and h.divergent for h in hs)
    assert block[0].message == "Barrier error detected. Divergent thread(s) in block."
    assert warp[0].message == "Barrier error detected. Divergent thread(s) in warp."
    assert block[0].location.offset == "0x100" and warp[0].location.offset == "0xf0"
    assert ev.parse_summaries(data("synccheck_divergent_block.txt"))[0].errors == 48


def test_synccheck_invalid_syncwarp_mask_reports_device_frame():
    hs = ev.parse_synccheck(data("synccheck_warp_mask.txt"))
    assert len(hs) == 32
    h = hs[0]
    assert h.message == "Barrier error detected. Invalid arguments."
    assert (h.location.file, h.location.line) == ("sm_30_intrinsics.hpp", 110)
    assert [(f.file, f.line) for f in h.device_frames] == [("warp_mask.cu", 9)]
    assert h.kernel == "warp_mask"
    assert h.touches("warp_mask.cu", 9) and not h.touches("warp_mask.cu", 10)
    assert not h.divergent
    assert sorted(x.thread[0] for x in hs) == list(range(32))


@pytest.mark.parametrize(
    "name", ["synccheck_divergent_warp.txt", "synccheck_warp_exit.txt", "synccheck_race_probe.txt"]
)
def test_synccheck_silent_cases(name):
    # sm_90: __syncwarp(full mask) from two call sites, or after half the warp
    # returned, is not flagged
    assert ev.parse_synccheck(data(name)) == []
    assert ev.parse_summaries(data(name))[0].errors == 0


# --------------------------------------------------------------------------- memcheck


def test_memcheck_misaligned_float4_global_load():
    errs = ev.parse_memcheck(data("memcheck_vec4_probe.txt"))
    assert len(errs) == 4
    e = errs[0]
    assert (e.access, e.size, e.address_space) == ("read", 16, "global")
    assert e.misaligned and not e.out_of_bounds
    assert e.kernel == "vec4_load"
    assert (e.location.file, e.location.line, e.location.offset) == ("vec4_probe.cu", 7, "0x80")
    assert e.location.function == "vec4_load(const float *, float *, int)"
    assert e.address == "0x7fd9e6800004"
    assert [x.thread for x in errs] == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)]
    assert all(x.block == (0, 0, 0) for x in errs)
    assert [x.address for x in errs] == ["0x7fd9e6800004", "0x7fd9e6800014", "0x7fd9e6800024", "0x7fd9e6800034"]
    [api] = ev.parse_api_errors(data("memcheck_vec4_probe.txt"))
    assert (api.error, api.code, api.description, api.api_call) == (
        "cudaErrorLaunchFailure", 719, "unspecified launch failure", "cudaDeviceSynchronize")
    assert not api.is_free
    assert api.functions() == ("main",)
    assert ev.parse_summaries(data("memcheck_vec4_probe.txt"))[-1].errors == 5


def test_memcheck_misaligned_shared_float2():
    errs = ev.parse_memcheck(data("memcheck_shared_float2.txt"))
    assert len(errs) == 32
    e = errs[0]
    assert (e.access, e.size, e.address_space, e.misaligned) == ("read", 8, "shared", True)
    assert (e.kernel, e.line, e.address) == ("shared_float2", 9, "0x404")
    assert e.touches("shared_float2.cu", 9)


def test_error_names_printed_by_programs():
    # a plain run shows the real error; under memcheck the kernel is killed instead
    assert ev.parse_error_names(data("plain_vec4_probe.txt")) == ["cudaErrorMisalignedAddress"]
    assert ev.parse_error_names(data("plain_shared_float2.txt")) == ["cudaErrorMisalignedAddress"]
    assert ev.parse_error_names(data("plain_leak_probe.txt")) == ["cudaErrorInvalidValue"]
    assert ev.parse_error_names(data("memcheck_vec4_probe.txt")) == ["cudaErrorLaunchFailure"]
    assert ev.parse_error_names(data("plain_race_probe.txt")) == []  # cudaSuccess is no error


# --------------------------------------------------------------------------- leak check


def test_leakcheck_early_return_leak_and_failing_frees():
    rep = ev.parse_leakcheck(data("leakcheck_leak_probe.txt"))
    assert (rep.total_bytes, rep.allocations, rep.leaked) == (1024, 1, True)
    [leak] = rep.leaks
    assert leak.bytes == 1024 and leak.address == "0x7fa908800000"
    assert leak.functions() == ("cudaMalloc", "main")  # leaky_fill was inlined into main at -O2
    apis = ev.parse_api_errors(data("leakcheck_leak_probe.txt"))
    assert [(a.error, a.code, a.api_call, a.is_free) for a in apis] == [
        ("cudaErrorInvalidValue", 1, "cudaFree", True)] * 2
    assert [a.functions() for a in apis] == [("free_twice", "main"), ("free_pinned_wrong", "main")]
    assert apis[0].frames[0].function == "free_twice()"
    assert apis[0].frames[0].module == "leak_probe"


def test_leakcheck_needs_no_device_reset():
    a = ev.parse_leakcheck(data("leakcheck_leak_probe.txt"))
    b = ev.parse_leakcheck(data("leakcheck_leak_probe_reset.txt"))
    assert (a.total_bytes, a.allocations) == (b.total_bytes, b.allocations) == (1024, 1)


def test_leakcheck_noinline_helper_is_named():
    rep = ev.parse_leakcheck(data("leakcheck_leak_noinline.txt"))
    assert (rep.total_bytes, rep.allocations) == (6144, 2)
    assert [l.bytes for l in rep.leaks] == [4096, 2048]
    assert all(l.functions() == ("cudaMalloc", "leak_on_error", "main") for l in rep.leaks)
    assert rep.leaks[0].frames[1].function == "leak_on_error(unsigned long)"


def test_leakcheck_of_clean_text():
    rep = ev.parse_leakcheck(data("racecheck_race_probe.txt"))
    assert (rep.total_bytes, rep.allocations, rep.leaked, rep.leaks) == (0, 0, False, ())


# --------------------------------------------------------------------------- ncu


EXPECTED_BANK = {
    # kernel: (ld conflicts, st conflicts, ld instructions, st instructions, ld degree, st degree)
    "column_read": (992, 0, 32, 32, 32.0, 1.0),
    "column_write": (0, 992, 32, 32, 1.0, 32.0),
    "padded_read": (0, 0, 32, 32, 1.0, 1.0),
}


@pytest.mark.parametrize(
    "name", ["ncu_csv_bank_probe.txt", "ncu_csv_wavefronts_bank_probe.txt", "ncu_text_bank_probe.txt"]
)
def test_ncu_bank_conflicts(name):
    stats = ev.parse_ncu_bank_conflicts(data(name))
    assert list(stats) == ["column_read", "column_write", "padded_read"]
    for k, (ldc, stc, ldi, sti, ldd, std) in EXPECTED_BANK.items():
        s = stats[k]
        assert (s.ld_conflicts, s.st_conflicts, s.ld_instructions, s.st_instructions) == (ldc, stc, ldi, sti)
        assert (s.ld_degree, s.st_degree) == (ldd, std)
        assert s.launches == 1
        assert s.function == f"{k}(const float *, float *)"
    assert stats["column_read"].max_degree == 32.0
    assert stats["padded_read"].conflicts == 0


def test_ncu_wavefronts_agree_with_conflict_formula():
    stats = ev.parse_ncu_bank_conflicts(data("ncu_csv_wavefronts_bank_probe.txt"))
    cr = stats["column_read"]
    assert (cr.ld_wavefronts, cr.st_wavefronts) == (1024, 32)  # printed as "1,024"
    assert cr.ld_wavefronts / cr.ld_instructions == cr.ld_degree == 32.0
    assert stats["column_write"].st_wavefronts == 1024
    assert ev.parse_ncu_bank_conflicts(data("ncu_csv_bank_probe.txt"))["column_read"].ld_wavefronts is None


def test_ncu_sums_repeated_launches():
    text = data("ncu_csv_bank_probe.txt")
    lines = text.splitlines()
    rows = [l for l in lines if l.startswith('"0",')]
    doubled = text + "\n" + "\n".join(r.replace('"0",', '"3",', 1) for r in rows)
    s = ev.parse_ncu_bank_conflicts(doubled)["column_read"]
    assert (s.launches, s.ld_conflicts, s.ld_instructions, s.ld_degree) == (2, 1984, 64, 32.0)


# --------------------------------------------------------------------------- ncu source page (line level)

# (kernel, file, line) -> (Access Operation, wavefronts, ideal, excessive): the runner's NVRTC builds
# of fixtures/bank/ (tests/data/gpu/runner/ncu_source_*.csv)
EXPECTED_LINES = {
    ("stride2_2way", "strides.cu", 32): ("Store(2)", 8, 8, 0),  # two clean 4-byte stores
    ("stride2_2way", "strides.cu", 35): ("Load", 8, 4, 4),  # s[2 * tid]: 2-way
    ("dbl_stride2_2way", "doubles.cu", 36): ("Load", 16, 8, 8),  # 8-byte loads need 2 wavefronts each anyway
    ("f4_stride2_2way", "float4_access.cu", 38): ("Load", 32, 16, 16),  # 16-byte loads, 4 wavefronts each
    ("carve_col_32way", "extern_carve.cu", 34): ("Load", 1024, 32, 992),
    ("carve_col_32way", "extern_carve.cu", 35): ("Load", 32, 32, 0),
    ("transpose_naive_tile", "transpose.cu", 33): ("Load(4),Store(4)", 4096, 128, 3968),
}


@pytest.mark.parametrize("key", sorted(EXPECTED_LINES))
def test_ncu_source_page_lines(key):
    from cudalint.gpu import ncu_source as ncs
    kernel, file, line = key
    lines = ncs.kernel_lines(data(f"runner/ncu_source_{kernel}.csv"), kernel, f"fixtures/bank/{file}")
    s = lines[line]
    assert s.shared and (s.operation, s.wavefronts, s.ideal, s.excessive) == EXPECTED_LINES[key]
    assert s.file == file and s.function.startswith(kernel + "(")


def test_ncu_source_page_quotes_and_other_lines():
    from cudalint.gpu import ncu_source as ncs
    # printed while profiling (==PROF== lines first), the form the runner reads; the source text
    # `// expect: CUDA301 "2-way"` is not CSV-escaped by ncu
    text = data("runner/ncu_source_oneshot_stride2_2way.csv")
    assert '"2-way""' in text
    lines = ncs.kernel_lines(text, "void stride2_2way(float*)")
    assert sorted(lines) == [29, 32, 34, 35, 36, 37]  # source lines with machine code
    assert not lines[36].shared and lines[36].space == "Global" and lines[35].degree == 2.0
    assert ncs.kernel_lines(text, "stride4_4way") == {} and ncs.kernel_lines(text, "stride2_2way", "x.cu") == {}
    t = ncs.kernel_lines(data("runner/ncu_source_transpose_naive_tile.csv"), "transpose_naive_tile")
    assert t[27].space == "Global(4),Shared(4)" and t[27].excessive == 0  # a quoted comma


# --------------------------------------------------------------------------- plain runs


def test_plain_runs_global_race_evidence():
    same = {data(f"plain_global_race_{i}.txt") for i in (1, 2, 3)}
    assert same == {"global_race: racy=1 atomic=262144\n"}  # a racy RMW can look deterministic
    outs = [data(f"plain_last_writer_{i}.txt").splitlines()[-1] for i in (1, 2, 3)]
    assert len(set(outs)) == 3  # last writer wins: differs run to run


# --------------------------------------------------------------------------- markers and source


def test_read_markers_on_probe():
    assert ev.read_markers(PROBES / "bank" / "bank_probe.cu") == [
        (9, "CUDA301", "ok"), (11, "CUDA301", "expect"), (17, "CUDA301", "expect"), (27, "CUDA301", "ok")]
    det = ev.read_marker_details(PROBES / "bank" / "bank_probe.cu")
    assert [m.text for m in det] == [None, "32-way", "32-way", None]


def test_read_markers_forms():
    src = (
        "int a;\n"
        "x = s[t];  // expect: CUDA201, CUDA204\n"
        'y = s[t];  // expect: CUDA301 "32-way", CUDA101\n'
        "z = 1;  // ok: CUDA101 // expect: CUDA202\n"
        "// a comment that mentions expect without a colon\n"
    )
    assert ev.read_markers(src) == [
        (2, "CUDA201", "expect"), (2, "CUDA204", "expect"),
        (3, "CUDA301", "expect"), (3, "CUDA101", "expect"),
        (4, "CUDA101", "ok"), (4, "CUDA202", "expect"),
    ]
    assert ev.read_marker_details(src)[2].text == "32-way"


def test_function_spans_and_enclosing_kernel():
    spans = ev.function_spans(PROBES / "races" / "race_probe.cu")
    assert [(s.name, s.start_line, s.end_line, s.is_kernel) for s in spans] == [
        ("shift_race", 6, 11, True), ("warp_exchange", 13, 18, True),
        ("shift_synced", 20, 26, True), ("main", 28, 40, False)]
    assert ev.enclosing_function(spans, 17).name == "warp_exchange"
    assert ev.enclosing_function(spans, 12) is None
    assert ev.enclosing_function(spans, 30, kernels_only=True) is None
    host = ev.function_spans(PROBES / "host" / "leak_probe.cu")
    assert ev.enclosing_function(host, 9).name == "leaky_fill"


def test_function_spans_tricky_headers():
    src = (
        "#include <cstdio>\n"                                               # 1
        "namespace ns {\n"                                                  # 2
        "template <int N>\n"                                                # 3
        "__global__ void __launch_bounds__(256) tk(float* x) {\n"           # 4
        '  const char* s = "}{";  // }\n'                                   # 5
        "  if (x) { x[0] = N; }\n"                                          # 6
        "}\n"                                                               # 7
        "struct S { int a; __device__ int get() const { return a; } };\n"  # 8
        "}  // namespace ns\n"                                              # 9
        'extern "C" __global__ void ck(int* p) { p[0] = 1; }\n'            # 10
        "int table[] = {1, 2};\n"                                           # 11
    )
    spans = ev.function_spans(src)
    got = [(s.name, s.start_line, s.end_line, s.is_kernel, s.is_device) for s in spans]
    assert got == [("tk", 3, 7, True, False), ("get", 8, 8, False, True), ("ck", 10, 10, True, False)]


@pytest.mark.parametrize(
    "name,expected",
    [
        ("shift(int *)", "shift"),
        ("void ns::k<32, float>(const float *, int)", "k"),
        ("(anonymous namespace)::foo<(int)3>(float *)", "foo"),
        ("leak_on_error(unsigned long)", "leak_on_error"),
        ("main", "main"),
        ("", None),
    ],
)
def test_kernel_basename(name, expected):
    assert ev.kernel_basename(name) == expected


def test_parse_location():
    loc = ev.parse_location("vec4_load(const float *, float *, int)+0x80 in /root/x/vec4_probe.cu:7")
    assert (loc.kernel, loc.offset, loc.file, loc.line, loc.path) == (
        "vec4_load", "0x80", "vec4_probe.cu", 7, "/root/x/vec4_probe.cu")
    loc = ev.parse_location("shift_race(int *)+0xe0")
    assert (loc.kernel, loc.offset, loc.file, loc.line) == ("shift_race", "0xe0", None, None)


# --------------------------------------------------------------------------- the runner's judging


@pytest.fixture(scope="module")
def cf():
    path = ROOT / "scripts" / "gpu" / "confirm_fixtures.py"
    spec = importlib.util.spec_from_file_location("confirm_fixtures_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _fixture(cf, rel, runs):
    fx = cf.discover(PROBES, [rel])[0]
    fx.build = cf.Run("build", ["nvcc"], rc=0)
    for tool, outs in runs.items():
        fx.runs[tool] = [cf.Run(tool, [tool], rc=0, output=data(o), stdout=data(o)) for o in outs]
    return fx


def _statuses(rows):
    return [(r["line"], r["code"], r["kind"], r["status"]) for r in rows]


def test_judge_race_probe(cf):
    fx = _fixture(cf, "races/race_probe.cu", {
        "racecheck": ["racecheck_race_probe.txt"], "synccheck": ["synccheck_race_probe.txt"],
        "plain": ["plain_race_probe.txt", "plain_race_probe.txt"]})
    assert fx.tools == ("plain", "racecheck", "synccheck")
    assert _statuses(cf.judge(fx)) == [
        (10, "CUDA201", "expect", "confirmed"), (17, "CUDA202", "expect", "confirmed"),
        (25, "CUDA201", "ok", "clean")]


def test_judge_divergent_block(cf):
    fx = _fixture(cf, "barriers/divergent_block.cu", {"synccheck": ["synccheck_divergent_block.txt"]})
    [row] = cf.judge(fx)
    assert (row["line"], row["status"], row["kernel"]) == (11, "confirmed", "divergent_block")
    assert "in warp" in row["detail"]


def test_judge_misaligned_bank_and_host(cf):
    fx = _fixture(cf, "misaligned/vec4_probe.cu", {
        "memcheck": ["memcheck_vec4_probe.txt"], "plain": ["plain_vec4_probe.txt"] * 2})
    assert _statuses(cf.judge(fx)) == [(7, "CUDA101", "expect", "confirmed"), (13, "CUDA101", "ok", "clean")]
    fx = _fixture(cf, "bank/bank_probe.cu", {"ncu": ["ncu_csv_bank_probe.txt"]})
    rows = cf.judge(fx)
    assert _statuses(rows) == [
        (9, "CUDA301", "ok", "clean"), (11, "CUDA301", "expect", "confirmed"),
        (17, "CUDA301", "expect", "confirmed"), (27, "CUDA301", "ok", "clean")]
    assert "expected 32-way, measured 32.0" in rows[1]["detail"]
    fx = _fixture(cf, "host/leak_probe.cu", {
        "leakcheck": ["leakcheck_leak_probe.txt"], "plain": ["plain_leak_probe.txt"] * 2})
    assert _statuses(cf.judge(fx)) == [
        (9, "CUDA401", "expect", "confirmed"), (20, "CUDA401", "ok", "unsupported"),
        (27, "CUDA402", "expect", "confirmed"), (34, "CUDA403", "expect", "confirmed")]
    fx = _fixture(cf, "host/leak_noinline.cu", {"leakcheck": ["leakcheck_leak_noinline.txt"]})
    assert _statuses(cf.judge(fx)) == [(10, "CUDA401", "expect", "confirmed"), (21, "CUDA401", "ok", "clean")]


def test_judge_global_race_and_syncwarp(cf):
    fx = _fixture(cf, "races/last_writer.cu", {
        "plain": [f"plain_last_writer_{i}.txt" for i in (1, 2, 3)], "racecheck": ["racecheck_last_writer.txt"]})
    assert _statuses(cf.judge(fx)) == [(7, "CUDA203", "expect", "confirmed")]
    fx = _fixture(cf, "barriers/warp_mask.cu", {"synccheck": ["synccheck_warp_mask.txt"]})
    assert _statuses(cf.judge(fx)) == [(9, "CUDA204", "expect", "confirmed")]
    fx = _fixture(cf, "barriers/warp_exit.cu", {"synccheck": ["synccheck_warp_exit.txt"]})
    assert _statuses(cf.judge(fx)) == [(8, "CUDA204", "expect", "not-reproduced")]


def test_judge_ok_line_that_is_the_related_access(cf, tmp_path):
    # racecheck names both accesses; an ok marker on the *first* access of an
    # expected race is that race's related access, not a finding of its own
    src = (PROBES / "races" / "race_probe.cu").read_text().replace(
        "  s[t] = t * 3;\n  out[t] = s[(t + 32) % 256];  // expect: CUDA201",
        "  s[t] = t * 3;  // ok: CUDA202\n  out[t] = s[(t + 32) % 256];  // expect: CUDA201", 1)
    (tmp_path / "races").mkdir()
    (tmp_path / "races" / "race_probe.cu").write_text(src)
    fx = cf.discover(tmp_path, None)[0]
    fx.build = cf.Run("build", ["nvcc"], rc=0)
    fx.runs["racecheck"] = [cf.Run("racecheck", [], rc=0, output=data("racecheck_race_probe.txt"))]
    rows = {(r["line"], r["code"]): r for r in cf.judge(fx)}
    assert rows[(9, "CUDA202")]["status"] == "clean"
    assert "related access" in rows[(9, "CUDA202")]["detail"]
    assert rows[(10, "CUDA201")]["status"] == "confirmed"


def test_per_kernel_commands(cf, tmp_path):
    src = (
        "#include <cstring>\n"
        "__global__ void a(float4* p) { p[0] = p[1]; }  // expect: CUDA101\n"
        "__global__ void b(float4* p) { p[2] = p[3]; }  // ok: CUDA101\n"
        "int main(int argc, char** argv) {\n"
        '  if (argc < 2 || !strcmp(argv[1], "a")) a<<<1, 1>>>(nullptr);\n'
        '  if (argc < 2 || !strcmp(argv[1], "b")) b<<<1, 1>>>(nullptr);\n'
        "}\n"
    )
    (tmp_path / "misaligned").mkdir()
    (tmp_path / "misaligned" / "two.cu").write_text(src)
    fx = cf.discover(tmp_path, None)[0]
    fx.binary = Path("/bin/two")
    assert cf.selectable_kernels(fx) == (["a", "b"], False)
    tools = {"compute-sanitizer": "cs", "ncu": "ncu", "nvcc": "nvcc"}
    assert cf.tool_commands("memcheck", fx, tools, 2) == [
        ("a", ["cs", "--tool", "memcheck", "/bin/two", "a"]),
        ("b", ["cs", "--tool", "memcheck", "/bin/two", "b"])]
    assert cf.tool_commands("plain", fx, tools, 2) == [(None, ["/bin/two"])] * 2
    assert cf.tool_commands("leakcheck", fx, tools, 2) == [
        (None, ["cs", "--leak-check", "full", "--tool", "memcheck", "/bin/two"])]
    fx2 = cf.discover(PROBES, ["misaligned/vec4_probe.cu"])[0]
    fx2.binary = Path("/bin/v")
    assert cf.tool_commands("memcheck", fx2, tools, 1) == [(None, ["cs", "--tool", "memcheck", "/bin/v"])]
    ncu = cf.tool_commands("ncu", fx2, tools, 1)[0][1]
    assert ncu[:4] == ["ncu", "--clock-control", "none", "--csv"]
    assert "smsp__sass_inst_executed_op_shared_st.sum" in ncu[5]
