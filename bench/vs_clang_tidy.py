"""cudalint against clang-tidy on the same files, side by side in one run (issue 18's table).

    python bench/vs_clang_tidy.py --root $H --every 8 --count 100 -I src/include --jobs 2 \
        --cudalint BEFORE/bin/cudalint --cudalint AFTER/bin/cudalint --clang-tidy venv/bin/clang-tidy

Files: every Nth of the sorted `src/*-cuda/**/*.cu` under --root (the HeCBench layout), the first
--count of them. Each cudalint runs once untimed over them, so that the prelude PCHs they use
are warm, then over all of them with `--no-cache -j JOBS` (`--repeat N`: N rounds in which every
tool, clang-tidy too, runs once, and each tool's median shown: a shared machine's speed drifts by
a quarter within an hour); clang-tidy
(`clang-analyzer-*,bugprone-*`, what a team runs today) runs JOBS at a time with the flags
cudalint parses with in toolkit mode (`--cuda-host-only`; `--tidy-device-too` drops it, which is
clang-tidy's default for CUDA and doubles its time). Prints wall seconds, findings and the ratio to clang-tidy
(with --repeat, also each round's ratio: clang-tidy's wall over cudalint's in that round).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

CHECKS = "-*,clang-analyzer-*,bugprone-*"


def sample(root: Path, every: int, count: int) -> list[str]:
    files = sorted(str(p.relative_to(root)) for p in root.glob("src/*-cuda/**/*.cu"))
    return files[::every][:count]


def cuda_flags(includes: list[str], host_only: bool = True) -> list[str]:
    nvcc = subprocess.run(["bash", "-c", "command -v nvcc"], capture_output=True, text=True).stdout.strip()
    cuda = os.environ.get("CUDA_PATH") or (str(Path(os.path.realpath(nvcc)).parents[1]) if nvcc else "/usr/local/cuda")
    if not Path(cuda, "include", "cuda_runtime.h").is_file():
        cuda = "/usr/local/cuda"
    return ["-x", "cuda", *(["--cuda-host-only"] if host_only else []), "-std=c++17", "--cuda-gpu-arch=sm_80",
            "-Wno-unknown-cuda-version",
            f"--cuda-path={cuda}", "-isystem", f"{cuda}/include/cccl"] + [f"-I{i}" for i in includes]


def warm_cudalint(exe: str, files: list[str], includes: list[str], jobs: int, root: Path) -> None:
    """Build the prelude PCHs the files use (untimed): one run over all of them."""
    subprocess.run([exe, "--cuda-mode", "toolkit", "--no-cache", "-q", "--exit-zero", "-j", str(jobs),
                    *_include_args(includes), *files], cwd=root, capture_output=True)


def _include_args(includes: list[str]) -> list[str]:
    return [a for i in includes for a in ("-I", i)]


def run_cudalint(exe: str, files: list[str], includes: list[str], jobs: int, root: Path) -> tuple[float, int]:
    t = time.perf_counter()
    out = subprocess.run([exe, "--cuda-mode", "toolkit", "--no-cache", "-j", str(jobs), "-q", "--exit-zero",
                          "--output-format", "json", *_include_args(includes), *files], cwd=root,
                         capture_output=True, text=True)
    wall = time.perf_counter() - t
    try:
        found = len(json.loads(out.stdout))
    except ValueError:
        found = -1
    return wall, found


def run_clang_tidy(exe: str, files: list[str], includes: list[str], jobs: int, root: Path,
                   host_only: bool = True) -> tuple[float, int]:
    flags = cuda_flags(includes, host_only)

    def one(f):
        r = subprocess.run([exe, f"-checks={CHECKS}", f, "--", *flags], cwd=root, capture_output=True, text=True)
        return len(re.findall(r"^\S+:\d+:\d+: warning: ", r.stdout, re.M))

    t = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        found = sum(pool.map(one, files))
    return time.perf_counter() - t, found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True, type=Path)
    ap.add_argument("--every", type=int, default=8)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("-I", dest="includes", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cudalint", action="append", default=[], help="a cudalint executable (repeatable)")
    ap.add_argument("--clang-tidy", dest="clang_tidy")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each tool, taken in turn (one machine's speed drifts); the median is shown")
    ap.add_argument("--tidy-device-too", action="store_true",
                    help="clang-tidy also checks the device side (its default for CUDA; cudalint parses the host side)")
    args = ap.parse_args(argv)
    files = sample(args.root, args.every, args.count)
    for exe in args.cudalint:
        warm_cudalint(exe, files, args.includes, args.jobs, args.root)
    side = "host and device" if args.tidy_device_too else "host side"
    tools = ([(f"clang-tidy {CHECKS} ({side})", lambda: run_clang_tidy(
        args.clang_tidy, files, args.includes, args.jobs, args.root, not args.tidy_device_too))] if args.clang_tidy else [])
    tools += [(f"cudalint ({exe})", lambda exe=exe: run_cudalint(exe, files, args.includes, args.jobs, args.root))
              for exe in args.cudalint]
    runs: dict = {name: [] for name, _ in tools}
    for _ in range(args.repeat):  # every tool once per round, so that a drift in speed hits all alike
        for name, run in tools:
            runs[name].append(run())
    rows = []
    for name, done in runs.items():
        walls = sorted(w for w, _ in done)
        rows.append((name, statistics.median(walls), done[0][1], walls))
    tidy = rows[0][1] if args.clang_tidy else None
    print(f"{len(files)} files (every {args.every}th), -j {args.jobs}, {os.cpu_count()} cores")
    print("| tool | wall | findings | vs clang-tidy |\n|---|---:|---:|---:|")
    for name, wall, found, walls in rows:
        ratio = f"{tidy / wall:.1f}x faster" if tidy and not name.startswith("clang-tidy") else ""
        spread = f" (median of {len(walls)}: {walls[0]:.1f}-{walls[-1]:.1f})" if len(walls) > 1 else ""
        print(f"| {name} | {wall:.1f} s{spread} | {found} | {ratio} |")
    if args.clang_tidy and args.repeat > 1:  # a round's tools ran minutes apart, under one load
        tidy_walls = next(iter(runs.values()))
        for name, done in list(runs.items())[1:]:
            ratios = [t / c for (t, _), (c, _) in zip(tidy_walls, done)]
            print(f"{name}: per round {', '.join(f'{r:.1f}x' for r in ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
