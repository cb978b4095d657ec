"""Inputs that used to crash or hang an analysis (issue 14): each now gives its findings, or says
exactly what it could not check, and never an internal error."""

from __future__ import annotations

import pytest

from cudalint.frontend.flags import find_toolkit
from workflow_helpers import run, work  # noqa: F401

needs_toolkit = pytest.mark.skipif(find_toolkit(None) is None, reason="no CUDA toolkit installed")

RACY = ("__global__ void g(float* p) {\n  __shared__ float s[64];\n  s[threadIdx.x] = p[0];\n"
        "  p[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n}\n")


def _nested(depth: int) -> str:
    body = "if (threadIdx.x) {" * depth + "__syncthreads();" + "}" * depth
    return f"__global__ void k(float* p) {{\n{body}\n}}\n{RACY}int main() {{ k<<<1, 64>>>(0); g<<<1, 64>>>(0); }}\n"


def _lines(out: str, code: str) -> list[int]:
    return [int(line.split(":")[1]) for line in out.splitlines() if f": {code} " in line]


def test_too_deep_function_is_skipped_by_name_and_the_rest_is_checked(work, capsys):
    (work / "deep.cu").write_text(_nested(300))
    code, out, err = run(capsys, "-q", "deep.cu")
    assert err == "deep.cu:1:1: error: `k` nests more than 100 levels deep; not analysed\n"  # no traceback
    assert _lines(out, "CUDA201") == [7]  # g is still checked
    assert out.endswith("1 file not fully checked (1 nested too deeply); their findings may be incomplete.\n")
    assert code == 2


def test_too_deep_helper_skips_the_kernel_that_inlines_it_by_name(work, capsys):
    # the text check measures each function alone: the kernel inlining the helper ran into
    # Python's recursion limit inside a libclang callback (IndexError, hecbench pns-cuda mutant)
    body = "if (threadIdx.x) {" * 300 + "p[0] = 1;" + "}" * 300
    (work / "deep.cu").write_text(f"__device__ void h(float* p) {{\n{body}\n}}\n"
                                  f"__global__ void k(float* p) {{ h(p); }}\n{RACY}"
                                  "int main() { k<<<1, 64>>>(0); g<<<1, 64>>>(0); }\n")
    code, out, err = run(capsys, "-q", "deep.cu")
    assert err == ("deep.cu:1:1: error: `h` nests more than 100 levels deep; not analysed\n"
                   "deep.cu:4:1: error: `k` nests more than 400 statements and expressions deep "
                   "(in the inlined `h`); not analysed\n")
    assert _lines(out, "CUDA201") == [8]  # g is still checked
    assert out.endswith("1 file not fully checked (1 nested too deeply); their findings may be incomplete.\n")
    assert code == 2


def test_long_operator_chain_without_brackets_skips_its_kernel(work, capsys):
    (work / "chain.cu").write_text("__global__ void k(float* p) {\n  p[threadIdx.x" + " + 1" * 2000 + "] = 1;\n}\n"
                                   f"{RACY}int main() {{ k<<<1, 64>>>(0); g<<<1, 64>>>(0); }}\n")
    code, out, err = run(capsys, "-q", "chain.cu")
    assert err == "chain.cu:1:1: error: `k` nests more than 400 statements and expressions deep; not analysed\n"
    assert _lines(out, "CUDA201") == [7]
    assert code == 2


def test_fifty_nested_ifs_are_analysed(work, capsys):
    (work / "deep.cu").write_text(_nested(50))
    code, out, err = run(capsys, "-q", "deep.cu")
    assert err == ""
    assert _lines(out, "CUDA204") == [2] and _lines(out, "CUDA201") == [7]
    assert code == 1


def test_reference_variable_as_index(work, capsys):
    (work / "ref.cu").write_text(
        "__global__ void k(const unsigned* map, unsigned* edges, unsigned* out) {\n"
        "  unsigned &e = edges[threadIdx.x];\n  out[threadIdx.x] = map[e];\n}\n"
        "int main() { k<<<1, 64>>>(0, 0, 0); }\n")
    assert run(capsys, "ref.cu") == (0, "No findings in 1 file.\n", "")


def test_open_grid_size_in_a_guard_of_a_shared_access(work, capsys):
    (work / "grid.cu").write_text(
        "__global__ void k(float* out) {\n  __shared__ float s[64][32];\n  if (gridDim.x > 1) {\n"
        "    s[threadIdx.x][0] = out[blockIdx.x * 64 + threadIdx.x];\n  }\n  __syncthreads();\n"
        "  out[threadIdx.x] = s[0][threadIdx.x % 32];\n}\nvoid run(float* p, int n) { k<<<n, 64>>>(p); }\n")
    code, out, err = run(capsys, "-q", "grid.cu")
    assert err == ""
    assert _lines(out, "CUDA301") == [4]
    assert code == 1


def test_open_grid_size_in_a_loop_bound_of_a_shared_access(work, capsys):
    # a launch whose grid size is computed at run time leaves gridDim.x open: the loop's bound
    # read it as None ("'<' not supported between 'int' and 'NoneType'", hecbench threadfence)
    (work / "grid.cu").write_text(
        "__global__ void k(const float* in, float* out) {\n  __shared__ float s[64 * 33];\n"
        "  for (unsigned j = 0; j < gridDim.x; j++) {\n    s[threadIdx.x * 32 + j % 32] += in[j];\n  }\n"
        "  __syncthreads();\n  out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];\n}\n"
        "void run(const float* in, float* p, int n) { const int g = (n + 63) / 64; k<<<g, 64>>>(in, p); }\n")
    code, out, err = run(capsys, "-q", "grid.cu")
    assert err == ""
    assert _lines(out, "CUDA301") == [4]  # 32-way for every value of j
    assert code == 1


def test_race_between_stores_of_loaded_values_in_bit_vectors(work, capsys):
    # the stored values are loads (uninterpreted functions) under a bit operation: QF_BV's solver
    # refused them when the witness was narrowed (Z3Exception "apply simplifier before invoking
    # translator" in CUDA201-203, hecbench logic-rewrite-cuda)
    (work / "uf.cu").write_text(
        "__global__ void k(const int* in, int* out) {\n  out[threadIdx.x & 7] = in[threadIdx.x] ^ 1;\n"
        "  out[8 + (threadIdx.x & 7)] = in[threadIdx.x & 7] ^ 1;\n}\nint main() { k<<<1, 64>>>(0, 0); }\n")
    code, out, err = run(capsys, "-q", "uf.cu")
    assert err == ""
    assert _lines(out, "CUDA203") == [2]  # line 3 stores the same value from every thread that meets
    assert "thread (0,0,0) writes `out[0]` at line 2; thread (8,0,0) writes `out[0]` at line 2" in out
    assert code == 1


def test_negative_shift_in_a_loop_step(work, capsys):
    (work / "shift.cu").write_text(
        "__global__ void k(float* out) {\n  __shared__ float s[2048];\n"
        "  for (int i = 32; i > 0; i >>= -1) {\n    s[threadIdx.x * i % 2048] = out[i];\n  }\n"
        "  __syncthreads();\n  out[threadIdx.x] = s[threadIdx.x];\n}\nint main() { k<<<1, 64>>>(0); }\n")
    code, out, err = run(capsys, "-q", "shift.cu")
    assert "internal error" not in err
    assert _lines(out, "CUDA301") == [4]


def test_launch_beyond_cuda_block_limits_is_not_enumerated(work, capsys):
    # 10^20 threads per block: the bank-conflict check used to walk every warp (a hang)
    (work / "big.cu").write_text(
        "__global__ void k(float* p) {\n  __shared__ float s[64];\n  s[threadIdx.x % 64] = 1;\n"
        "  __syncthreads();\n  p[threadIdx.x] = s[threadIdx.x % 64];\n}\n"
        "void run(float* p) { k<<<1, 99999999999999999999>>>(p); }\n")
    code, out, err = run(capsys, "--select", "CUDA301", "big.cu")
    assert "budget" not in err and "internal error" not in err


@needs_toolkit
def test_block_dim_inside_a_macro_in_toolkit_mode(work, capsys):
    (work / "mac.cu").write_text(
        "#define MUL(a, b) ((a) * (b))\n#define MAD(a, b, c) (MUL((a), (b)) + (c))\n"
        "__global__ void k(unsigned* out, const unsigned* in) {\n  __shared__ unsigned s[64];\n"
        "  unsigned i = MAD(blockIdx.x, blockDim.x, threadIdx.x);\n  s[threadIdx.x] = in[i];\n"
        "  __syncthreads();\n  out[i] = s[threadIdx.x];\n}\nint main() { k<<<4, 64>>>(0, 0); }\n")
    for mode in ("toolkit", "shim"):  # both modes: no internal error, and no race on out[i]
        assert run(capsys, "--cuda-mode", mode, "mac.cu") == (0, "No findings in 1 file.\n", "")


@needs_toolkit
def test_cooperative_groups_sync_with_cuda_13_headers(work, capsys):
    # CUDA 13 keeps cooperative groups' dependencies in include/cccl, and its thread_block::sync is static
    (work / "cg.cu").write_text(
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        "__global__ void k(float* p) {\n  __shared__ float s[64];\n  cg::thread_block b = cg::this_thread_block();\n"
        "  s[threadIdx.x] = p[threadIdx.x];\n  b.sync();\n  p[threadIdx.x] = s[63 - threadIdx.x];\n}\n"
        "int main() { k<<<1, 64>>>(0); }\n")
    for mode in ("toolkit", "shim"):
        assert run(capsys, "--cuda-mode", mode, "cg.cu") == (0, "No findings in 1 file.\n", "")


def test_kernel_over_the_race_pair_limit_says_so_not_time(work, capsys, monkeypatch):
    # a cap on work, not on time: the message must not advise a larger --file-budget
    from cudalint.analysis import races
    monkeypatch.setattr(races, "MAX_PAIRS", 2)
    stores = "\n".join(f"  if (threadIdx.x == {k}) s[{k}] = {k};" for k in range(6))
    (work / "many.cu").write_text("__global__ void many(int* out) {\n  __shared__ int s[8];\n"
                                  f"{stores}\n  __syncthreads();\n  out[threadIdx.x] = s[threadIdx.x % 8];\n}}\n")
    code, out, err = run(capsys, "-q", "-j", "1", "--cuda-mode", "shim", "many.cu")
    assert err == "many.cu: error: races in many: stopped after 2 pairs of accesses; the rest were not checked\n"
    assert out.endswith("1 file not fully checked (1 over a work limit); their findings may be incomplete.\n")
    assert code == 2


def test_a_chain_of_additions_past_the_expression_limit_becomes_one_named_unknown():
    from cudalint.model import MAX_EXPR_NODES, Const, Op, Sym

    def chain(n):  # `x + 1 + 1 + …`: as deep as it is large
        x = Sym("x", 2, "value")
        for _ in range(n):
            x = Op.make("+", x, Const(1))
        return x

    small, large = chain(MAX_EXPR_NODES // 2 - 1), chain(MAX_EXPR_NODES // 2)
    assert isinstance(small, Op) and small.size == MAX_EXPR_NODES - 1
    assert isinstance(large, Sym) and (large.scope, large.origin) == (2, "value")
    assert large.name.startswith("expr.") and large == chain(MAX_EXPR_NODES // 2)  # the same name again
