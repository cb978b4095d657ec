"""Shared bits of the workflow tests (CLI, SARIF, GitHub, config, suppressions, baseline, cache)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cudalint.cli import main

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SARIF_SCHEMA = SHARED / "data" / "sarif-schema-2.1.0.json"

KERNEL_LINE = "  float4 v = *reinterpret_cast<const float4*>(in + threadIdx.x);"
FIXED_LINE = "  float4 v = reinterpret_cast<const float4*>(in)[threadIdx.x];"

BUGGY = f"""__global__ void k(const float* in, float* out) {{
{KERNEL_LINE}
  out[threadIdx.x] = v.x;
}}

int main() {{
  float *a = nullptr, *b = nullptr;
  k<<<1, 64>>>(a, b);
  return 0;
}}
"""
FIXED = BUGGY.replace(KERNEL_LINE, FIXED_LINE)


def gpu_child():
    """cudalint/gpu/child.py, loaded by path as the runner runs it (it imports nothing of cudalint)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("cudalint_child", REPO / "cudalint/gpu/child.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
MSG = ("misaligned float4 load `*reinterpret_cast<const float4*>(in + threadIdx.x)`: thread (1,0,0) accesses "
       "byte offset 4 from the aligned base of `in`; float4 needs 16-byte alignment (blockDim=(64, 1, 1) from "
       "the launch at line {launch})")


def kernel(body_lines: list[str], launch_block: int = 64, name: str = "k") -> str:
    """A kernel with the given body lines and a main() that launches it <<<1, launch_block>>>."""
    body = "\n".join(body_lines)
    return (f"__global__ void {name}(const float* in, float* out) {{\n{body}\n}}\n\n"
            f"int main() {{\n  float *a = nullptr, *b = nullptr;\n  {name}<<<1, {launch_block}>>>(a, b);\n"
            f"  return 0;\n}}\n")


def run(capsys, *args) -> tuple[int, str, str]:
    """cudalint in-process, shim mode, no cache unless asked: (exit code, stdout, stderr)."""
    argv = list(args)
    if "--cuda-mode" not in argv:
        argv = ["--cuda-mode", "shim"] + argv
    if "--cache" in argv:
        argv.remove("--cache")
    elif "--cache-dir" not in argv:
        argv = ["--no-cache"] + argv
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args) -> tuple[int, list]:
    code, out, err = run(capsys, "--output-format", "json", *args)
    return code, json.loads(out)


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A temporary directory as the cwd, isolated from any config above it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("CUDALINT_CACHE_DIR", raising=False)
    (tmp_path / "cudalint.toml").write_text("")  # stop the config search here
    return tmp_path
