"""nvcc for kernels NVRTC cannot compile (cudalint.gpu.nvcc_build): the host-kept view, the PTX
build and how the kernel is found among its entries. The build runs wherever nvcc is; loading the
PTX needs a GPU (tests/test_gpu_runner.py)."""

import shutil
import textwrap

import pytest

from cudalint.findings import Confirmation
from cudalint.gpu import nvcc_build as nb
from cudalint.gpu.views import device_view

SOURCE = textwrap.dedent("""\
    #include <string>
    #include <utility>
    struct Label { std::string name; };
    using Edge = std::pair<int, int>;
    __constant__ int weights[4];
    template <int TILE>
    __global__ void scale(float* out, int n) {
      int i = blockIdx.x * TILE + threadIdx.x;
      if (i < n) out[i] *= weights[i % 4];
    }
    namespace graph { __global__ void relax(const int* dist, int* next) { next[threadIdx.x] = dist[threadIdx.x] + 1; } }
    int main() {
      Label l{"x"};
      Edge e{1, 2};
      scale<128><<<1, 128>>>(nullptr, 0);
      return (int)l.name.size() + e.first;
    }
    """)


def test_the_host_kept_view_has_every_line_where_the_nvrtc_view_has_it():
    nvrtc, offset = device_view(SOURCE, "k.cu")
    host, host_offset = device_view(SOURCE, "k.cu", keep_host=True)
    assert host_offset == offset and host.count("\n") == nvrtc.count("\n")
    n, h = nvrtc.split("\n"), host.split("\n")
    assert n[offset] == "" and h[offset] == "#include <string>"  # user line 1
    assert n[offset + 11] == "" and h[offset + 11] == "int main() {"
    assert n[offset + 7] == h[offset + 7] == "  int i = blockIdx.x * TILE + threadIdx.x;"
    assert "typedef" not in "\n".join(h[:offset])  # the real <cstdint> defines them


def test_options_and_entries():
    assert nb.nvcc_options(["-lineinfo", "--std=c++17", "-I/x", "-DA=1", "-G"]) == \
        ["-lineinfo", "-std=c++17", "-I/x", "-DA=1", "-G"]
    ptx = ".visible .entry _Z5scaleILi128EEvPfi(\n.param .u64 p\n)\n.visible .entry _ZN5graph5relaxEPKiPi(\n"
    assert nb.entries(ptx) == ["_Z5scaleILi128EEvPfi", "_ZN5graph5relaxEPKiPi"]


def test_the_kernel_is_found_by_its_demangled_name():
    mangled = ["_Z5scaleILi128EEvPfi", "_Z5scaleILi256EEvPfi", "_ZN5graph5relaxEPKiPi", "plain_c"]
    demangled = ["void scale<128>(float*, int)", "void scale<256>(float*, int)",
                 "graph::relax(int const*, int*)", "plain_c"]
    assert nb.entry_for("scale<256>", mangled, demangled) == "_Z5scaleILi256EEvPfi"
    assert nb.entry_for("relax", mangled, demangled) == "_ZN5graph5relaxEPKiPi"
    assert nb.entry_for("plain_c", mangled, demangled) == "plain_c"
    assert nb.entry_for("scale<64>", mangled, demangled) is None  # two instantiations, neither this one
    assert nb.entry_for("missing", mangled, demangled) is None


def test_of_overloaded_kernels_the_one_with_the_plans_parameter_count_is_taken():
    mangled = ["_Z6updatePfPKfS_iiff", "_Z6updatePfPKfiiff", "_Z4pairI4cellEvS0_i"]
    demangled = ["update(float*, float const*, float*, int, int, float, float)",
                 "update(float*, float const*, int, int, float, float)", "void pair<cell>(cell, int)"]
    assert nb.entry_for("update", mangled, demangled, params=6) == "_Z6updatePfPKfiiff"
    assert nb.entry_for("update", mangled, demangled, params=7) == "_Z6updatePfPKfS_iiff"
    assert nb.entry_for("update", mangled, demangled) is None  # which one is not known
    assert nb.entry_for("pair<cell>", mangled, demangled, params=2) == "_Z4pairI4cellEvS0_i"
    assert nb._parameter_count("void k<pair<int, int>>(map<int, float>, int)") == 2
    assert nb._parameter_count("void k()") == 0


@pytest.mark.skipif(not shutil.which("nvcc"), reason="needs nvcc")
def test_nvcc_builds_what_nvrtc_cannot(tmp_path):
    host, _ = device_view(SOURCE, "k.cu", keep_host=True)
    nvcc = shutil.which("nvcc")
    ptx, log = nb.build_ptx(nvcc, host, ["-lineinfo", "--std=c++17"], "90", str(tmp_path))
    assert ptx is not None, log
    names = nb.entries(open(ptx).read())
    assert nb.entry_for("scale<128>", names, nb.demangle(names, nvcc)) == "_Z5scaleILi128EEvPfi"
    assert nb.entry_for("relax", names, nb.demangle(names, nvcc)) == "_ZN5graph5relaxEPKiPi"


@pytest.mark.skipif(not shutil.which("nvcc"), reason="needs nvcc")
def test_nvcc_messages_come_back_when_it_fails_too(tmp_path):
    ptx, log = nb.build_ptx(shutil.which("nvcc"), "__global__ void k() { undefined_name = 1; }\n", [], "90",
                            str(tmp_path))
    assert ptx is None and 'identifier "undefined_name" is undefined' in log


def test_the_judge_names_both_compilers_when_both_fail():
    from types import SimpleNamespace

    from cudalint.gpu.judges import COMPILE_HINT, _basic_problem
    run = SimpleNamespace(result={"error": "compile", "compile_log": "NVRTC: std has no string\nnvcc: kernel.cu(3): error: boom"},
                          timed_out=False, output="", rc=4)
    job = SimpleNamespace(plain=lambda: run)
    assert _basic_problem(job) == Confirmation("error", "nvcc", "neither NVRTC nor nvcc could compile the kernel; "
                                                                "nvcc: kernel.cu(3): error: boom" + COMPILE_HINT)
