"""Time cudalint against a bare libclang parse of the same files with the same flags.

    python bench/bench.py fixtures/ --mode both
    python bench/bench.py $G/src/ggml-cuda -I $G/include -I $G/src -I $G/src/ggml-cuda --mode both

Per mode it prints files/s of the bare parse and of the full analysis (parse, model, every rule),
their ratio, the slowest files, time per kernel, solver queries that timed out, and how many
files had parse errors (with the most common messages). Serial, so the numbers are per core.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cudalint.discover import discover  # noqa: E402
from cudalint.engine import analyze_file  # noqa: E402
from cudalint.frontend.parse import parse  # noqa: E402
from cudalint.settings import Settings  # noqa: E402


def bench(files, settings, progress=False):
    bare, full, kernels, timeouts, errors, messages = [], [], 0, 0, 0, Counter()
    slow = []
    for f in files:
        t = time.perf_counter()
        p = parse(f, settings)
        bare.append(time.perf_counter() - t)
        del p
        t = time.perf_counter()
        r = analyze_file(f, settings)
        dt = time.perf_counter() - t
        full.append(dt)
        slow.append((dt, f, r.kernels))
        if progress:
            print(f"  {len(full)}/{len(files)} {Path(f).name}: parse {bare[-1]:.2f}s, all {dt:.2f}s, "
                  f"{r.kernels} kernels, {len(r.findings)} findings", file=sys.stderr, flush=True)
        kernels += r.kernels
        timeouts += sum("timeout" in n for n in r.notes)
        errs = [d for d in r.diagnostics if d.severity == "error"]
        if errs:
            errors += 1
            messages.update(_shape(d.message) for d in errs)
    return bare, full, kernels, timeouts, errors, messages, sorted(slow, reverse=True)


def _shape(msg: str) -> str:
    import re
    return re.sub(r"'[^']*'", "'…'", msg.split(" (in ")[0])[:90]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--mode", choices=("shim", "toolkit", "both"), default="shim")
    ap.add_argument("-I", dest="include", action="append", default=[])
    ap.add_argument("-D", dest="define", action="append", default=[])
    ap.add_argument("--limit", type=int, default=0, help="only the first N files")
    ap.add_argument("--progress", action="store_true", help="a line per file on stderr")
    args = ap.parse_args(argv)
    files, problems = discover(args.paths, (".cu", ".cuh"))
    files = files[:args.limit] if args.limit else files
    for mode in (("shim", "toolkit") if args.mode == "both" else (args.mode,)):
        settings = Settings(cuda_mode=mode, include_dirs=tuple(args.include), defines=tuple(args.define),
                            verbose=True)
        bare, full, kernels, timeouts, errors, messages, slow = bench(files, settings, args.progress)
        n, tb, tf = len(files), sum(bare), sum(full)
        print(f"== {mode} mode: {n} files, {kernels} kernels analysed")
        print(f"bare libclang parse : {tb:8.2f} s  {n / tb:7.2f} files/s  median {statistics.median(bare) * 1000:7.1f} ms")
        print(f"cudalint (all rules): {tf:8.2f} s  {n / tf:7.2f} files/s  median {statistics.median(full) * 1000:7.1f} ms")
        print(f"ratio cudalint / bare parse: {tf / tb:.2f}x   analysis beyond parsing: {(tf - tb) * 1000 / n:.1f} ms/file,"
              f" {(tf - tb) * 1000 / max(kernels, 1):.1f} ms/kernel")
        print(f"solver queries timed out: {timeouts}   files with parse errors: {errors}/{n}")
        print("slowest files: " + ", ".join(f"{Path(f).name} {dt:.2f}s ({k} kernels)" for dt, f, k in slow[:5]))
        for msg, count in messages.most_common(8):
            print(f"  {count:5d}  {msg}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
