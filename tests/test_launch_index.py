"""Launch shapes across the files of one run (cudalint.launch_index)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cudalint.engine import analyze_all
from cudalint.settings import Settings

DATA = Path(__file__).parent / "data" / "launch_index"
KERNELS, MAIN = str(DATA / "kernels.cu"), str(DATA / "main.cu")


def _found(results):
    return [(Path(f.path).name, f.line, f.rule) for r in results for f in r.findings]


def test_a_kernel_alone_is_checked_under_guessed_shapes():
    results = analyze_all([KERNELS], Settings(cuda_mode="shim"), jobs=1)
    assert _found(results) == [("kernels.cu", 7, "CUDA201"), ("kernels.cu", 26, "CUDA204")]
    assert "blockDim guessed" in results[0].findings[0].message


def test_launches_in_another_file_replace_the_guess():
    results = analyze_all([KERNELS, MAIN], Settings(cuda_mode="shim"), jobs=1)
    assert _found(results) == [("kernels.cu", 15, "CUDA201")]
    finding = results[0].findings[0]
    assert f"blockDim=(512, 1, 1) from the launch at {MAIN}:13" in finding.message
    assert ("block_dim", "512,1,1") in finding.properties


def test_integer_arguments_of_a_launch_in_another_file_are_used():
    """tail_stage returns early for i >= len: divergent for a len of any value, not for main.cu's
    4096 with 256-thread blocks."""
    results = analyze_all([KERNELS, MAIN], Settings(cuda_mode="shim"), jobs=1)
    assert ("kernels.cu", 26, "CUDA204") not in _found(results)


def test_file_order_and_jobs_do_not_change_the_result():
    one = analyze_all([MAIN, KERNELS], Settings(cuda_mode="shim"), jobs=1)
    two = analyze_all([MAIN, KERNELS], Settings(cuda_mode="shim"), jobs=2)
    assert _found(one) == _found(two) == [("kernels.cu", 15, "CUDA201")]
    assert [f.message for r in one for f in r.findings] == [f.message for r in two for f in r.findings]


def test_json_output_is_byte_identical_at_j1_and_j2(tmp_path):
    def run(jobs):
        cmd = [sys.executable, "-m", "cudalint", "--output-format", "json", "-n", "--cuda-mode", "shim",
               "-j", str(jobs), KERNELS, MAIN]
        return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path).stdout
    out = run(1)
    assert out == run(2)
    assert [(Path(f["path"]).name, f["line"]) for f in json.loads(out)] == [("kernels.cu", 15)]
