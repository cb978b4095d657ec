"""Launch shapes across the files of one run (cudalint.launch_index)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from cudalint.engine import analyze_all
from cudalint.launch_index import context_files
from cudalint.settings import Settings

DATA = Path(__file__).parent / "data" / "launch_index"
KERNELS, MAIN = str(DATA / "kernels.cu"), str(DATA / "main.cu")


def _found(results):
    return [(Path(f.path).name, f.line, f.rule) for r in results for f in r.findings]


def test_a_kernel_alone_is_checked_under_guessed_shapes(tmp_path):
    alone = shutil.copy(KERNELS, tmp_path)
    results = analyze_all([alone], Settings(cuda_mode="shim"), jobs=1)
    assert _found(results) == [("kernels.cu", 7, "CUDA201"), ("kernels.cu", 26, "CUDA204")]
    assert "blockDim guessed" in results[0].findings[0].message


def test_a_launch_in_a_file_beside_it_replaces_the_guess():
    """As pre-commit runs it: only kernels.cu changed, main.cu next to it launches its kernels."""
    results = analyze_all([KERNELS], Settings(cuda_mode="shim"), jobs=1)
    assert _found(results) == [("kernels.cu", 15, "CUDA201")]
    assert f"blockDim=(512, 1, 1) from the launch at {MAIN}:13" in results[0].findings[0].message
    assert [r.path for r in results] == [KERNELS]  # nothing is reported of main.cu


def test_a_launch_in_the_compile_database_replaces_the_guess(tmp_path):
    kernels_dir, build = tmp_path / "src", tmp_path / "build"
    kernels_dir.mkdir()
    build.mkdir()
    kernels = shutil.copy(KERNELS, kernels_dir)
    (build / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(build), "file": MAIN, "command": f"nvcc -c {MAIN} -o main.o"}]))
    results = analyze_all([kernels], Settings(cuda_mode="shim", compile_commands_dir=str(build)), jobs=1)
    assert _found(results) == [("kernels.cu", 15, "CUDA201")]


def test_files_beside_are_parsed_only_where_they_name_a_guessed_kernel_before_a_launch(tmp_path):
    kernels = shutil.copy(KERNELS, tmp_path)
    (tmp_path / "names_it.cpp").write_text("void f() { wide_stage <<<1, 64>>>(0, 0); }\n")
    (tmp_path / "template_launch.cu").write_text("void g() { tail_stage<float><<<1, 64>>>(0, 0); }\n")
    (tmp_path / "no_launch.cu").write_text("// wide_stage is launched elsewhere\n")
    (tmp_path / "other_kernel.cu").write_text("void h() { other<<<1, 64>>>(); }\n")
    (tmp_path / "notes.txt").write_text("wide_stage<<<1, 64>>>\n")
    first = analyze_all([kernels], Settings(cuda_mode="shim"), jobs=1)
    found = context_files(first, Settings(cuda_mode="shim"), [kernels])
    assert [Path(p).name for p in found] == ["names_it.cpp", "template_launch.cu"]
    assert context_files(first, Settings(cuda_mode="shim"), [kernels, str(tmp_path / "names_it.cpp")]) == \
        [str(tmp_path / "template_launch.cu")]


def test_files_beside_that_define_a_kernel_of_that_name_launch_their_own(tmp_path):
    """Variants of one program side by side, each with its own (often `static`) kernel: a
    variant's launches are of its kernel, and it is not parsed for them."""
    kernels = shutil.copy(KERNELS, tmp_path)
    (tmp_path / "variant.cu").write_text(
        "static __global__ void wide_stage(float *a, int n)\n{\n  a[n] = 0;\n}\n"
        "void f() { wide_stage<<<1, 64>>>(0, 0); }\n")
    (tmp_path / "declares_it.cu").write_text(
        "__global__ void wide_stage(float *a, int n);\nvoid f() { wide_stage<<<1, 64>>>(0, 0); }\n")
    first = analyze_all([kernels], Settings(cuda_mode="shim"), jobs=1)
    assert [Path(p).name for p in context_files(first, Settings(cuda_mode="shim"), [kernels])] == ["declares_it.cu"]


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
    def run(jobs, *paths):
        cmd = [sys.executable, "-m", "cudalint", "--output-format", "json", "-n", "--cuda-mode", "shim",
               "-j", str(jobs), *paths]
        return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path).stdout
    out = run(1, KERNELS, MAIN)
    assert out == run(2, KERNELS, MAIN) == run(2, KERNELS)
    assert [(Path(f["path"]).name, f["line"]) for f in json.loads(out)] == [("kernels.cu", 15)]


def test_a_file_launched_from_beside_is_parsed_once(tmp_path, monkeypatch):
    """The first pass stops after the model of a file with a kernel it does not launch; the rules
    then run once, on that model, under the launch found beside it."""
    import cudalint.frontend.parse as parse_module
    kernels = shutil.copy(KERNELS, tmp_path)
    shutil.copy(MAIN, tmp_path)
    parsed = tmp_path / "parsed.txt"
    real = parse_module.parse

    def counting(path, settings):  # workers are forked: they see this patch, and append to the file
        with open(parsed, "a") as fh:
            fh.write(Path(path).name + "\n")
        return real(path, settings)
    monkeypatch.setattr(parse_module, "parse", counting)
    results = analyze_all([kernels], Settings(cuda_mode="shim"), jobs=1)
    assert _found(results) == [("kernels.cu", 15, "CUDA201")]
    assert sorted(parsed.read_text().split()) == ["kernels.cu", "main.cu"]  # main.cu for its launches


def test_a_cached_file_whose_launch_went_away_is_checked_under_the_guess(tmp_path):
    """The cache keeps a deferred file's launches under the plain settings, not a result: when
    the launching file is gone, the next run analyses the file again with guessed shapes."""
    from cudalint.cache import Cache
    kernels = shutil.copy(KERNELS, tmp_path)
    main = Path(shutil.copy(MAIN, tmp_path))
    cache = Cache(tmp_path / "cache")
    first = analyze_all([kernels], Settings(cuda_mode="shim"), jobs=1, cache=cache)
    assert _found(first) == [("kernels.cu", 15, "CUDA201")]
    again = analyze_all([kernels], Settings(cuda_mode="shim"), jobs=1, cache=cache)
    assert again[0].cached and _found(again) == _found(first)
    main.unlink()
    alone = analyze_all([kernels], Settings(cuda_mode="shim"), jobs=1, cache=cache)
    assert _found(alone) == [("kernels.cu", 7, "CUDA201"), ("kernels.cu", 26, "CUDA204")]


def test_progress_counts_each_file_once_when_its_rules_are_done():
    calls = []
    analyze_all([KERNELS, MAIN], Settings(cuda_mode="shim"), jobs=1, progress=lambda *a: calls.append(a))
    assert sorted(calls) == [(1, 2, MAIN), (2, 2, KERNELS)]  # kernels.cu waits for main.cu's launches


def test_a_file_read_for_its_launches_alone_models_nothing_else():
    from cudalint.engine import analyze_file
    alone = analyze_file(MAIN, Settings(cuda_mode="shim", launches_only=True))
    full = analyze_file(MAIN, Settings(cuda_mode="shim"))
    assert alone.launch_facts == full.launch_facts and len(alone.launch_facts) == 3
    assert (alone.kernels, alone.findings) == (0, [])
