"""--confirm's access log (cudalint.gpu.access_log): global races shown by the addresses the
flagged accesses touch, planned and judged without a GPU; the child's collision search on made-up
logs. The H200 runs are in docs/gpu-results/."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cudalint.engine import analyze_file
from cudalint.gpu import access_log, execute, judges, launch_shape, plan
from cudalint.gpu.access_log import Site
from cudalint.gpu.proc import Run
from cudalint.settings import Settings
from workflow_helpers import gpu_child

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures/races/read_beside_atomic.cu"


def _jobs(path=FIXTURE):
    findings = analyze_file(str(path), Settings()).findings
    return findings, plan.plan_kernel_jobs(str(path), findings, list(range(len(findings))), Settings())


def test_plan_logs_the_flagged_accesses_of_the_raced_array():
    findings, (job,) = _jobs()
    assert [(f.rule, f.line) for f in findings] == [("CUDA203", 12)]
    assert job.log_sites == [Site(0, 11, 18, 22, "atomic", "atomicMax(best, vals[i])", 4),
                             Site(1, 12, 17, 22, "read", "*best", 4)]
    assert access_log.race_pairs(job.log_sites) == [(0, 1)]
    assert execute.tool_plan(job, findings, {"compute-sanitizer": "cs"}) == ["plain-diff", "access-log"]


def test_variant_wraps_each_site_where_it_is():
    findings, (job,) = _jobs()
    view = access_log.log_variant(job.plan["source"], job.lines_offset, job.log_sites)
    body = view.split('#line 1 "read_beside_atomic.cu"\n')[1].split("\n")
    assert body[10] == "        atomicMax(cudalint_note(best, 0u), vals[i]);"
    assert body[11] == "        gap[i] = (*cudalint_note(&(*best), 1u)) - vals[i];   // expect: CUDA203"
    assert "__device__ unsigned long long cudalint_log[8388608]" in view


@pytest.mark.skipif(not shutil.which("nvcc"), reason="nvcc not on PATH")
def test_variant_compiles(tmp_path):
    findings, (job,) = _jobs()
    src = tmp_path / "v.cu"
    src.write_text(access_log.log_variant(job.plan["source"], job.lines_offset, job.log_sites))
    r = subprocess.run(["nvcc", "-arch=sm_90", "--ptx", "-x", "cu", str(src), "-o", str(tmp_path / "v.ptx")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_nested_sites_and_write_forms():
    view = '#line 1 "f.cu"\n  a[b[i]] += 1; c[i]++; atomicAdd(&d[e[i]], 2);'
    sites = [Site(0, 1, 2, 9, "write", "a[b[i]] += 1"), Site(1, 1, 4, 8, "read", "b[i]"),
             Site(2, 1, 16, 20, "write", "c[i]++"), Site(3, 1, 34, 42, "atomic", "atomicAdd(&d[e[i]], 2)"),
             Site(4, 1, 37, 41, "read", "e[i]")]
    out = access_log.log_variant(view, 1, sites).split("\n")[-1]
    assert out == ("  (*cudalint_note(&(a[(*cudalint_note(&(b[i]), 1u))]), 0u)) += 1; "
                   "(*cudalint_note(&(c[i]), 2u))++; "
                   "atomicAdd(cudalint_note(&d[(*cudalint_note(&(e[i]), 4u))], 3u), 2);")


@pytest.mark.parametrize("kind,text,span", [
    ("write", "a[i] = b[i]", "a[i]"), ("write", "s.x[i] <<= 2", "s.x[i]"), ("write", "*p += q", "*p"),
    ("write", "--c[k]", "c[k]"), ("write", "a[i == j] = 1", "a[i == j]"), ("atomic", "atomicMax(&m[0], v)", "&m[0]"),
    ("read", "__ldg(&x[i])", None), ("write", "memcpy(a, b, 4)", None), ("read", "t[i]", "t[i]"),
    ("read", "d[0]++", "d[0]"), ("read", "h[k] += 1", "h[k]"), ("write", "w = 1", "w"),
])
def test_lvalue_span(kind, text, span):
    class A:
        pass
    a = A()
    a.kind, a.text = kind, text
    got = access_log._lvalue_span(a)
    assert (text[got[0]:got[1]] if got else None) == span


def test_fence_leaves_the_kernel_to_the_differential_runs(tmp_path):
    src = FIXTURE.read_text().replace("        atomicMax(best, vals[i]);", "        atomicMax(best, vals[i]); __threadfence();")
    p = tmp_path / "fenced.cu"
    p.write_text(src)
    findings, (job,) = _jobs(p)
    assert [(f.rule, f.line) for f in findings] == [("CUDA203", 12)]
    assert job.log_sites == [] and "fence" in job.log_note
    assert "access-log" not in execute.tool_plan(job, findings, {"compute-sanitizer": "cs"})


def test_collision_needs_two_blocks():
    np = pytest.importorskip("numpy")
    ch = gpu_child()
    addr = np.array([100, 100, 200, 200, 300], dtype=np.uint64)
    site = np.array([0, 1, 0, 1, 1])
    one_block = np.array([3, 3, 5, 5, 7])
    assert ch._collision(np, addr, site, one_block, 0, 1) is None  # each address from one block only
    blocks = np.array([3, 3, 5, 6, 7])
    assert ch._collision(np, addr, site, blocks, 0, 1) == (1, 200, 5, 6)
    assert ch._collision(np, addr, site, blocks, 1, 1) is None  # site 1 alone: each address once
    same_site = np.array([1, 1, 0, 1, 1])
    assert ch._collision(np, addr, same_site, np.array([2, 4, 0, 0, 0]), 1, 1) == (1, 100, 2, 4)


def test_an_empty_log_has_no_collision():
    np = pytest.importorskip("numpy")
    ch = gpu_child()
    none = np.array([], dtype=np.uint64)
    assert ch._collision(np, none, none.astype(np.int64), none.astype(np.int64), 0, 1) is None
    assert ch._collision(np, none, none.astype(np.int64), none.astype(np.int64), 0, 0) is None


def _records(np, rows):
    """Log records as the device writes them (access_log._LOG): (address, site, epoch, thread,
    block[, shared])."""
    raw = np.array([[a, (s << 56) | (e << 44) | (sh << 43) | (t << 32) | b]
                    for a, s, e, t, b, sh in (r if len(r) == 6 else (*r, 0) for r in rows)], dtype=np.uint64)
    return raw.reshape(-1, 2)


def test_records_unpack_as_the_device_packs_them():
    np = pytest.importorskip("numpy")
    ch = gpu_child()
    fields = ch._unpack(np, _records(np, [(0x7F0000001000, 254, 4094, 1023, 123456, 1), (8, 0, 0, 0, 0)]))
    assert [list(map(int, f)) for f in fields] == [[0x7F0000001000, 8], [254, 0], [4094, 0], [1, 0], [1023, 0],
                                                   [123456, 0]]


@pytest.mark.parametrize("rows,hit", [
    # one block (7): thread 3 (warp 0) reads, thread 40 (warp 1) writes address 100, no barrier between
    ([(100, 1, 0, 3, 7), (100, 0, 0, 40, 7)], (1, 100, [7, 40], [7, 3])),
    ([(100, 1, 0, 3, 7), (100, 0, 1, 40, 7)], None),  # a __syncthreads() between them
    ([(100, 1, 0, 3, 7), (100, 0, 0, 31, 7)], None),  # lanes of one warp
    ([(100, 1, 0xFFF, 3, 7), (100, 0, 0xFFF, 40, 7)], None),  # epochs not kept
    ([(100, 1, 0, 3, 7), (104, 0, 0, 40, 7)], None),  # two addresses
])
def test_same_block_needs_two_warps_between_the_same_barriers(rows, hit):
    np = pytest.importorskip("numpy")
    ch = gpu_child()
    addr, site, epoch, _shared, thread, block = ch._unpack(np, _records(np, rows))
    assert ch._collision(np, addr, site, block, 0, 1) is None  # one block
    assert ch._same_block(np, addr, site, epoch, thread, block, 0, 1) == hit


def test_variant_counts_every_barrier():
    view = '#line 1 "f.cu"\n  __syncthreads(); int n = __syncthreads_count(p) + __syncthreads_or(q);'
    body = access_log.log_variant(view, 1, []).split('#line 1 "f.cu"\n')[1]
    assert body == "  cudalint_syncthreads(); int n = cudalint_syncthreads_count(p) + cudalint_syncthreads_or(q);"
    assert access_log.epochs_count_every_barrier(view)
    assert not access_log.epochs_count_every_barrier(view + '\n asm volatile("bar.sync 1, 64;");')


@pytest.mark.skipif(not shutil.which("nvcc"), reason="nvcc not on PATH")
def test_variant_with_barriers_compiles(tmp_path):
    src = FIXTURE.read_text().replace("        atomicMax(best, vals[i]);",
                                      "        atomicMax(best, vals[i]); __syncthreads(); (void)__syncthreads_and(1);")
    p = tmp_path / "barriers.cu"
    p.write_text(src)
    findings, (job,) = _jobs(p)
    assert job.log_sites and job.log_same_block
    out = tmp_path / "v.cu"
    out.write_text(access_log.log_variant(job.plan["source"], job.lines_offset, job.log_sites))
    r = subprocess.run(["nvcc", "-arch=sm_90", "--ptx", "-x", "cu", str(out), "-o", str(tmp_path / "v.ptx")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "cudalint_syncthreads_and(1)" in out.read_text()


def _job(result):
    geom = launch_shape.LaunchShape((2, 1, 1), (64, 1, 1), 0, "test")
    j = plan.KernelJob("f.cu", "k", [0], plan={"args": [{"name": "best"}]}, geometry=geom)
    j.log_sites = [Site(0, 11, 18, 22, "atomic", "atomicMax(best, v)"), Site(1, 12, 17, 22, "read", "*best")]
    j.runs = {"plain-diff": Run("plain-diff", [], rc=0, timed_out=False, output="",
                                result={"runs": 6, "compare": [None]}),
              "access-log": Run("access-log", [], rc=0, timed_out=False, output="", result=result)}
    return j


def _race():
    from cudalint.findings import Finding, Related
    return Finding("CUDA203", "global-memory-race", "data-race", "error", "f.cu", 12, 1, 12, 1, "m", kernel="k",
                   related=(Related("f.cu", 11, 9, "the other access"),), properties=(("memory_space", "global"),))


def test_judge_confirms_two_blocks_at_one_address():
    log = {"records": 128, "dropped": 0,
           "pairs": [{"sites": [0, 1], "addresses": 1, "example": {"first": [0, 3], "second": [1, 70 - 64],
                                                                    "buffer": "best", "offset": 0}}]}
    c = judges.judge_race(_race(), _job({"runs": 1, "access_log": log}))
    assert (c.status, c.method) == ("confirmed", "access-log")
    assert c.detail == ("in one launch thread (3,0,0) of block (0,0,0) updates atomically `atomicMax(best, v)` "
                        "(line 11) and thread (6,0,0) of block (1,0,0) reads `*best` (line 12), both at byte 0 of "
                        "`best` (1 address(es) two blocks touch through these accesses); nothing orders threads "
                        "of different blocks (grid (2,1,1) block (64,1,1))")


def test_judge_confirms_two_warps_of_one_block():
    log = {"records": 128, "dropped": 0,
           "pairs": [{"sites": [0, 1], "addresses": 1, "example": {"first": [1, 3], "second": [1, 40],
                                                                    "same_block": True, "buffer": "best", "offset": 0}}]}
    c = judges.judge_race(_race(), _job({"runs": 1, "access_log": log}))
    assert (c.status, c.method) == ("confirmed", "access-log")
    assert c.detail == ("in one launch thread (3,0,0) of block (1,0,0) updates atomically `atomicMax(best, v)` "
                        "(line 11) and thread (40,0,0) reads `*best` (line 12), both at byte 0 of `best` (1 "
                        "address(es) two warps of one block touch between the same two barriers through these "
                        "accesses); no __syncthreads() between them, and warps do not run in lockstep "
                        "(grid (2,1,1) block (64,1,1))")


def test_judge_says_when_the_logging_run_failed():
    job = _job({"runs": 1, "access_log": {"records": 0, "dropped": 0, "pairs": []}})
    job.runs["access-log"] = Run("access-log", [], rc=5, timed_out=False, output="", result={"error": "IndexError"})
    c = judges.judge_race(_race(), job)
    assert c.status == "not-reproduced" and c.detail.endswith(
        "; the run that logs the flagged accesses failed (IndexError)")


def test_judge_without_a_collision_says_what_was_logged():
    c = judges.judge_race(_race(), _job({"runs": 1, "access_log": {"records": 128, "dropped": 5, "pairs": []}}))
    assert c.status == "not-reproduced"
    assert c.detail.endswith("; the flagged accesses, logged (128 records, 5 more not logged (log full)), show no "
                             "address two blocks touch through a racing pair")


def test_collision_on_other_lines_does_not_confirm():
    log = {"records": 9, "dropped": 0,
           "pairs": [{"sites": [0, 1], "addresses": 1, "example": {"first": [0, 0], "second": [1, 0]}}]}
    f = _race().with_(line=30, related=())
    assert judges.judge_race(f, _job({"runs": 1, "access_log": log})).status == "not-reproduced"


def test_a_field_read_through_a_reference_meets_a_write_of_that_field():
    """A read of `.z` through a reference to a uchar4 (logged at the call as the element's address
    60, shift 2, width 1) and another block's write of `.z` (1 byte at 62) meet at 62; a read of
    `.x` (shift 0) does not."""
    np = pytest.importorskip("numpy")
    ch = gpu_child()
    rows = [(60, 0, 0, 5, 1), (62, 1, 0, 3, 0), (60, 2, 0, 5, 1)]
    addr, site, epoch, shared, thread, block = ch._unpack(np, _records(np, rows))
    assert ch._collision(np, addr, site, block, 0, 1) is None  # the addresses as logged differ
    units = ch._by_unit(np, [1, 1, 1], [2, 0, 0], addr, site, epoch, shared, thread, block)
    assert [int(a) for a in units[0]] == [62, 62, 60]
    assert ch._collision(np, units[0], units[1], units[5], 0, 1) == (1, 62, 1, 0)
    assert ch._collision(np, units[0], units[1], units[5], 2, 1) is None
    wide = ch._by_unit(np, [4, 1, 4], [0, 0, 0], addr, site, epoch, shared, thread, block)
    assert [int(a) for a in wide[0]] == [60, 61, 62, 63, 62, 60, 61, 62, 63]


def test_an_argument_to_a_function_of_another_file_is_logged_at_the_call(tmp_path):
    """The other access is in a header's function that takes `dst[i - 1]` by reference: the log
    names that argument on the call's line, at the field the function reads."""
    (tmp_path / "colors.cuh").write_text("__device__ int differs(const uchar4 &a, const uchar4 &b) {\n"
                                         "  return a.z != b.z;\n}\n")
    src = tmp_path / "smooth.cu"
    src.write_text('#include "colors.cuh"\n__global__ void smooth(uchar4* dst, int n) {\n'
                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i > 0 && i < n && differs(dst[i], dst[i - 1]))\n    dst[i].z = 0;\n}\n")
    findings = analyze_file(str(src), Settings()).findings
    assert [(f.rule, f.line) for f in findings] == [("CUDA203", 5)]
    assert ("the other access is reached through this call", 4) in [(r.message, r.line) for r in findings[0].related]
    (job,) = plan.plan_kernel_jobs(str(src), findings, [0], Settings())
    assert [(s.line, s.kind, s.text, s.width, s.shift) for s in job.log_sites] == [
        (4, "read", "dst[i]", 1, 2), (4, "read", "dst[i - 1]", 1, 2), (5, "write", "dst[i].z = 0", 1, 0)]


def test_a_field_offset_is_found_where_unknowns_at_zero_divide_by_zero():
    """`(w * (b / g) + x - 1) * 4 + 2`: at 0 `b / g` divides by zero, at 1 it does not."""
    from types import SimpleNamespace

    from cudalint.model import Array, Const, Op, Sym
    b, g, w, x = (Sym(n, 0, "param") for n in "bgwx")
    index = Op("-", (Op("+", (Op("*", (w, Op("/", (b, g)))), x)), Const(1)))
    acc = SimpleNamespace(offset=Op("+", (Op("*", (index, Const(4))), Const(2))), array=Array("dst", "global", 4, 4))
    assert access_log._field_offset(acc) == 2
    assert access_log._field_offset(SimpleNamespace(offset=acc.offset, array=Array("v", "global", 0, 1))) is None
