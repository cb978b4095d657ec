"""Calls made to fail for --confirm (cudalint.gpu.inject): the exact variant text, and what it refuses."""

from cudalint.gpu.inject import inject_failures, library_flags

SOURCE = """\
int copy_back(float* h, int n) {
  float* d = nullptr;
  CHECK(cudaMalloc(&d, n * 4));
  if (cudaMemcpy(h, d, n * 4,
                 cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  CHECK_LAST();
  return cudaFree(d);
}"""


def test_one_call_on_one_line():
    out, why = inject_failures(SOURCE, [("cudaMalloc", 3, 9, 3, 30)])
    assert why is None
    assert out.split("\n")[2] == "  CHECK(((decltype(cudaMalloc(&d, n * 4)))1));"
    assert out.count("\n") == SOURCE.count("\n")


def test_a_call_over_two_lines_keeps_its_line_break():
    out, why = inject_failures(SOURCE, [("cudaMemcpy", 4, 7, 5, 41)])
    assert why is None
    assert out.split("\n")[3:5] == ["  if (((decltype(cudaMemcpy(h, d, n * 4,",
                                    "                 cudaMemcpyDeviceToHost)))1) != cudaSuccess) return 1;"]


def test_two_calls_on_different_lines():
    out, _ = inject_failures(SOURCE, [("cudaMalloc", 3, 9, 3, 30), ("cudaFree", 7, 10, 7, 21)])
    assert out.split("\n")[6] == "  return ((decltype(cudaFree(d)))1);"
    assert "decltype(cudaMalloc" in out.split("\n")[2]


def test_a_call_inside_a_macro_definition_fails_where_that_macro_expands():
    # the call's range spells `CHECK_LAST()`: the macro's body holds the call
    out, why = inject_failures(SOURCE, [("cudaGetLastError", 6, 3, 6, 15)])
    assert why is None
    assert out.split("\n")[:3] == [
        "#define cudaGetLastError(...) ((__LINE__ == 6) ? (decltype(cudaGetLastError(__VA_ARGS__)))1 : "
        "cudaGetLastError(__VA_ARGS__))",
        "#line 1",
        "int copy_back(float* h, int n) {"]
    assert out.split("\n")[2:] == SOURCE.split("\n")


def test_a_range_wider_than_the_call_is_refused():
    out, why = inject_failures(SOURCE, [("cudaMalloc", 3, 9, 3, 31)])  # takes in CHECK's `)`
    assert out is None and "cannot be made to fail alone" in why


def test_a_user_function_is_not_made_to_fail():
    out, why = inject_failures("  if (load(x)) return;", [("load", 1, 7, 1, 14)])
    assert out is None
    assert why == "`load` is not a CUDA call, so cudalint cannot tell which value makes it fail"


def test_library_flags_follow_the_includes():
    src = "#include <cusparse.h>\n#include \"cublas_v2.h\"\n#include <cuda_runtime.h>\nint main() {}\n"
    assert library_flags(src) == ["-lcublas", "-lcusparse"]
    assert library_flags("#include <cuda.h>\nvoid f() { cuInit(0); }\n") == ["-lcuda"]
    assert library_flags("#include <cuda_runtime.h>\nvoid f() { cudaFree(0); }\n") == []
