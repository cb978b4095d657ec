"""Workflow benchmark: cold -j1 / -j2, warm (cached), and a one-file run as pre-commit makes it.

    python bench/workflow.py DIR [-I INC ...] [-D NAME ...] [--cuda-mode shim] [--one FILE] [--limit N]

Each timing is the wall time of the real `cudalint` command in a subprocess (start-up included).
Cold runs use a fresh cache directory; the warm run reuses the cache of the -j2 run. It also checks
that -j1 and -j2 JSON outputs are byte-identical. ggml's CUDA sources, for instance:

    pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36 -d /tmp/llama
    tar xzf /tmp/llama/llama_cpp_python-0.3.36.tar.gz -C /tmp/llama
    G=/tmp/llama/llama_cpp_python-0.3.36/vendor/llama.cpp/ggml
    python bench/workflow.py $G/src/ggml-cuda -I $G/include -I $G/src -I $G/src/ggml-cuda -D GGML_USE_CUDA
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cudalint_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("cudalint")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cudalint"]


def timed(args, env) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run(cudalint_cmd() + args, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"cudalint failed ({proc.returncode}): {' '.join(args)}\n{proc.stderr[-3000:]}")
    return elapsed, proc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("-D", dest="define", action="append", default=[])
    ap.add_argument("--cuda-mode", default="shim")
    ap.add_argument("--one", help="file for the one-file (pre-commit) timing (default: the smallest .cu)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N files (sorted)")
    ap.add_argument("--select", default=None)
    a = ap.parse_args()

    root = Path(a.dir)
    files = sorted(str(p) for p in root.rglob("*") if p.suffix in (".cu", ".cuh"))
    if a.limit:
        files = files[:a.limit]
    common = ["--isolated", "--cuda-mode", a.cuda_mode, "--output-format", "json", "--exit-zero", "--no-progress"]
    flags = [f"-I{d}" for d in a.include] + [f"-D{d}" for d in a.define]
    common += flags
    if a.select:
        common += ["--select", a.select]
    work = Path(tempfile.mkdtemp(prefix="cudalint-bench-"))
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("CUDALINT_CACHE_DIR", None)
    lines_total = sum(Path(f).read_text(errors="replace").count("\n") for f in files)
    print(f"{len(files)} files, {lines_total} lines under {root} (cuda-mode {a.cuda_mode}, {os.cpu_count()} CPUs)")
    try:
        t1, p1 = timed(common + ["-j1", "--cache-dir", str(work / "c1")] + files, env)
        print(f"cold  -j1            {t1:8.2f} s")
        t2, p2 = timed(common + ["-j2", "--cache-dir", str(work / "c2")] + files, env)
        print(f"cold  -j2            {t2:8.2f} s   ({t1 / t2:.2f}x)")
        same = p1.stdout == p2.stdout
        tw, pw = timed(common + ["-j2", "--cache-dir", str(work / "c2")] + files, env)
        print(f"warm  -j2 (cached)   {tw:8.2f} s   ({t2 / tw:.1f}x faster than cold)")
        same_warm = pw.stdout == p2.stdout
        one = a.one or min((f for f in files if f.endswith(".cu")), key=os.path.getsize)
        hook = ["--cuda-mode", a.cuda_mode, "--isolated", "--no-progress"] + flags
        tc, _ = timed(hook + ["--cache-dir", str(work / "c3"), one], env)
        tw1, _ = timed(hook + ["--cache-dir", str(work / "c3"), one], env)
        tn, _ = timed(["--version"], env)
        print(f"one file, cold       {tc:8.2f} s   ({one})")
        print(f"one file, warm       {tw1:8.2f} s")
        print(f"interpreter + CLI start-up (--version) {tn:.2f} s")
        import json
        n = len(json.loads(p1.stdout))
        print(f"findings: {n}; -j1 and -j2 outputs identical: {same}; warm output identical: {same_warm}")
        return 0 if same and same_warm else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
